"""primaryLocationLineHash, as github/codeql-action computes it (src/fingerprints.ts).

The vectors below are the ones codeql-action's own test (src/fingerprints.test.ts, test 'hash')
checks its implementation against; each list is the hash of every line of the input, in order.
Matching them means upload-sarif computes the same value from the checkout and keeps ours.
"""

from __future__ import annotations

import pytest

from linter.report.fingerprint import line_hashes

# The hash of a line is sum(c[i] * 37**(99 - i)) mod 2**64 over the 100 characters that start it,
# after spaces and tabs are dropped and line endings become "\n"; the text ends with 65535 and is
# padded with zeros. A line holding only the end of the text therefore hashes to
# 65535 * 37**99 mod 2**64 = 0xc129715d7a2bc9a3, whatever came before it.
END_OF_TEXT = "c129715d7a2bc9a3"

HELLO = [
    "e9496ae3ebfced30:1",
    "fb7c023a8b9ccb3f:1",
    "ce8ba1a563dcdaca:1",
    "e20e36e16fcb0cc8:1",
    "b3edc88f2938467e:1",
    "c8e28b0b4002a3a0:1",
    f"{END_OF_TEXT}:1",
]


def test_end_of_text_value_follows_from_the_definition() -> None:
    assert format(65535 * 37**99 % 2**64, "x") == END_OF_TEXT


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an empty file has one line, holding only the end of the text
        ("", [f"{END_OF_TEXT}:1"]),
        # blanks at the start of a line are not part of it
        (
            " a\nb\n  \t\tc\n d",
            ["271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1", "a23a3dc5e078b07b:1"],
        ),
        (
            " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End",
            [
                "8b7cf3e952e7aeb2:1",
                "b1ae1287ec4718d9:1",
                "bff680108adb0fcc:1",
                "c6805c5e1288b612:1",
                "b86d3392aea1be30:1",
                "e6ceba753e1a442:1",
            ],
        ),
        # a final newline opens one more line
        (" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n", HELLO),
        # CR, CRLF and LF are the same line break, in any mix
        (" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r", HELLO),
        (" hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n", HELLO),
        (" hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n", HELLO),
        # identical 100-character windows are told apart by an occurrence count
        (
            "Lorem ipsum dolor sit amet.\n" * 10,
            [
                "a7f2ff13bc495cf2:1",
                "a7f2ff13bc495cf2:2",
                "a7f2ff13bc495cf2:3",
                "a7f2ff13bc495cf2:4",
                "a7f2ff13bc495cf2:5",
                "a7f2ff13bc495cf2:6",
                "a7f2ff1481e87703:1",
                "a9cf91f7bbf1862b:1",
                "55ec222b86bcae53:1",
                "cc97dc7b1d7d8f7b:1",
                f"{END_OF_TEXT}:1",
            ],
        ),
    ],
)
def test_codeql_action_vectors(text: str, expected: list[str]) -> None:
    assert line_hashes(text) == expected


def test_characters_outside_the_bmp_count_as_two_utf16_units() -> None:
    # JavaScript reads "\U0001F600" as the surrogate pair 0xD83D 0xDE00, so the line's window is
    # [0xD83D, 0xDE00, 65535, 0 x 97].
    expected = (0xD83D * 37**99 + 0xDE00 * 37**98 + 65535 * 37**97) % 2**64
    assert line_hashes("\U0001f600") == [f"{expected:x}:1"]


def test_a_space_between_cr_and_lf_makes_two_line_breaks() -> None:
    # The space is dropped but clears "previous was CR", so the LF counts: lines "a", "", "b".
    assert len(line_hashes("a\r \nb")) == 3
    assert line_hashes("a\r \nb") == line_hashes("a\n\nb")
