"""The ``environment`` fact: the words a workload's name, namespace and labels are made of, each
with where it was written, so a rule can tell a dev, test or demo deployment from production by
the words its policy lists (GL201's ``idleProneWords``).

A value is split into words at every character that is not a letter or a digit and lower-cased:
``llama-demo`` gives ``llama`` and ``demo``, ``env: Test`` gives ``test``; a word inside another
(``latest``, ``devops``) is not one.
"""

import re

from linter.facts.base import Fact, described
from linter.facts.subject import Subject

_WORD = re.compile(r"[a-z0-9]+")
#: A label value longer than this is not a name (a description, a hash): it is not read.
_LONGEST_VALUE = 253


class Word(Fact):
    word: str = described("Lower-case letters and digits.")
    where: str = described("Where it is written: 'namespace dev', 'label env: test'.")


class EnvironmentFact(Fact):
    words: list[Word] = described(
        "Each distinct word of the name, the namespace and the label values, first "
        "place first (name, namespace, labels in file order)."
    )
    word_list: list[str] = described(
        "The same words alone, in the same order: what a rule tests a word list against "
        "(`wordList.exists(w, w in options.words)`), reading `words` only for where one is."
    )


def compute(subject: Subject) -> EnvironmentFact:
    metadata = subject.workload.metadata
    places = [(metadata.name, f"name {metadata.name}")]
    if metadata.namespace:
        places.append((metadata.namespace, f"namespace {metadata.namespace}"))
    places.extend(
        (value, f"label {key}: {value}")
        for key, value in metadata.labels.items()
        if len(value) <= _LONGEST_VALUE
    )
    seen: set[str] = set()
    words = []
    for text, where in places:
        for word in _WORD.findall(text.lower()):
            if word not in seen:
                seen.add(word)
                words.append(Word(word=word, where=where))
    return EnvironmentFact(words=words, word_list=[word.word for word in words])
