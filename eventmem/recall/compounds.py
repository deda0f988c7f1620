"""Compound words matched by their parts, and parts by their compound, against the words a
namespace's memories use.

"Would Melanie go on another roadtrip soon?" asks about what a memory calls "our trip"; "Did
they go on a road trip?" about what another spells "roadtrip". A stemmer does not join or split
words, and no fixed list of compounds covers what people write. The index does know which words
its memories hold (by term id), so a query word splits into two words the memories use
("roadtrip" -> "road trip", "bookshelf" -> "book shelf"), and two neighbouring query words join
into one they use ("road trip" -> "roadtrip"). A pure function of the query and the index.
"""

from __future__ import annotations

from collections.abc import Container

from eventmem.text.normalize import STOPWORDS, term_id, tokenize

__all__ = ["MIN_PART", "compound_forms"]

# Each part of a split has at least this many letters: shorter ones are endings or function
# words more often than words ("passion|ate", "week|end", "every|one").
MIN_PART = 4


def _split(word: str, known: Container[int]) -> str | None:
    """The most even split of ``word`` into two known content words, or None."""
    best: tuple[int, int] | None = None
    for cut in range(MIN_PART, len(word) - MIN_PART + 1):
        head, tail = word[:cut], word[cut:]
        if head in STOPWORDS or tail in STOPWORDS:
            continue
        if term_id(head) in known and term_id(tail) in known:
            even = min(len(head), len(tail))
            if best is None or even > best[0]:
                best = (even, cut)
    if best is None:
        return None
    return f"{word[:best[1]]} {word[best[1]:]}"


def compound_forms(text: str, known: Container[int]) -> str:
    """The other forms of the compounds of ``text`` that ``known`` (term ids) holds: each
    content word split into two known words, each pair of neighbouring content words joined
    into one known word; "" when there are none. In the order of the text, without repeats."""
    words = tokenize(text)
    forms: list[str] = []
    for i, word in enumerate(words):
        if word in STOPWORDS or not word.isalpha():
            continue
        if len(word) >= 2 * MIN_PART:
            split = _split(word, known)
            if split is not None:
                forms.append(split)
        if i + 1 < len(words):
            after = words[i + 1]
            if after not in STOPWORDS and after.isalpha() and term_id(word + after) in known:
                forms.append(word + after)
    return " ".join(dict.fromkeys(forms))
