"""The outcome memo: found under the tokens it was remembered with, and nothing else."""

from __future__ import annotations

import pytest

from linter.policy import memo as memo_module
from linter.policy.memo import Memo, fingerprint


def test_an_outcome_is_found_under_its_key_and_tokens() -> None:
    memo: Memo[str] = Memo(4)
    memo.put("GL101", ("'a'", "1"), "quiet")
    assert memo.get("GL101", ("'a'", "1")) == "quiet"
    assert memo.get("GL102", ("'a'", "1")) is None
    assert memo.get("GL101", ("'a'", "2")) is None


def test_tokens_are_told_apart_where_they_split() -> None:
    assert fingerprint(("ab", "")) != fingerprint(("a", "b"))
    assert fingerprint(("", "ab")) != fingerprint(("ab", ""))
    assert fingerprint(("'x'",)) == fingerprint(("'x'",))
    assert len(fingerprint(("'x'",))) == 16


def test_a_shared_hash_never_gives_another_tokens_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two token lists whose hashes collide: the digest tells them apart, and the newer
    outcome takes the slot."""
    monkeypatch.setattr(memo_module, "hash", lambda tokens: 7, raising=False)
    memo: Memo[str] = Memo(4)
    memo.put("GL101", ("'a'",), "fired")
    assert memo.get("GL101", ("'b'",)) is None
    memo.put("GL101", ("'b'",), "quiet")
    assert memo.get("GL101", ("'b'",)) == "quiet"
    assert memo.get("GL101", ("'a'",)) is None
    assert len(memo) == 1


def test_the_oldest_are_forgotten_first() -> None:
    memo: Memo[int] = Memo(2)
    for number in range(3):
        memo.put("GL101", (repr(number),), number)
    assert len(memo) == 2
    assert [memo.get("GL101", (repr(n),)) for n in range(3)] == [None, 1, 2]
