"""Deterministic text analysis shared by the embedder and the BM25 projection.

Everything here is a pure function of its input: no built-in ``hash()`` (it depends on
``PYTHONHASHSEED``), no fitted vocabulary, no locale. Term ids are CRC-32 of the UTF-8 token, so
two processes, machines or releases that tokenize alike produce the same ids.

Tokens are runs of ``\\w`` (Unicode word characters) of the NFKC-normalized, casefolded text, after
dropping a possessive ``'s``/``’s`` at a word end ("alice's" -> "alice"). Other contractions split
at the apostrophe ("isn't" -> "isn", "t"), which is what a plain ``\\w+`` tokenizer does and what
BM25 references on chat data use. ``stem`` is a light inflection stripper; term ids are ids of
stems, so "moved" in a memory matches "move" in a query.
"""

from __future__ import annotations

import hashlib
import unicodedata
import zlib
from array import array
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's C loop
from functools import lru_cache

import numpy as np

from eventmem.errors import InvalidInputError
from eventmem.text.lazyre import lazy_re

__all__ = [
    "STOPWORDS",
    "content_hash",
    "dedup_key",
    "folded",
    "normalize",
    "packed_parts",
    "packed_terms",
    "query_terms",
    "stem",
    "term_counts",
    "term_id",
    "tokenize",
]

# English function words plus the pieces contractions split into ("don't" -> "don", "t").
STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves ll re ve t s d
    m don didn doesn isn wasn aren weren wouldn couldn shouldn haven hasn hadn also yeah oh
    """.split()  # noqa: SIM905 - a word list reads better as prose than as 140 quoted strings
)

_WORD = lazy_re(r"\w+")
_POSSESSIVE = lazy_re(r"['’]s\b")

# ASCII fast path (about 99% of chat turns). bytes.translate lowercases and turns every non-word
# byte into a space in one C pass, several times faster than the regex. The apostrophe survives the
# table so possessives can be dropped with plain replaces, then becomes a space like the rest.
# test_text_and_embedders checks this path against the regex path on arbitrary ASCII.
_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'")
_ASCII_TABLE = bytes(
    (c | 0x20 if 65 <= c <= 90 else c) if c in _ASCII_WORD else 0x20 for c in range(256)
)


def _check_str(text: object, name: str) -> str:
    if not isinstance(text, str):
        raise InvalidInputError(f"{name} must be a str, got {type(text).__name__}")
    return text


def normalize(text: str) -> str:
    """Return the stored form of ``text``: Unicode NFC, stripped, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFC", _check_str(text, "text")).split())


def dedup_key(text: str) -> str:
    """Return a key equal for texts that differ only in case, spacing or compatibility forms.

    Hex BLAKE2b (16 bytes) of the NFKC-normalized, casefolded, whitespace-collapsed text.
    """
    return hashlib.blake2b(folded(_check_str(text, "text")).encode("utf-8"),
                           digest_size=16).hexdigest()


@lru_cache(maxsize=64)
def folded(text: str) -> str:
    """``text`` NFKC-normalized, casefolded, whitespace runs as one space (stripped): the form
    the dedup key and several policies read. Cached for the last few texts, because the write
    path folds each text for its dedup key, kind, importance and valid-until in turn."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(text: str) -> str:
    """Return the blob key of ``text``: hex BLAKE2b (16 bytes) of its UTF-8 bytes, as given."""
    return hashlib.blake2b(_check_str(text, "text").encode("utf-8"), digest_size=16).hexdigest()


def _tokenize_ascii(text: str) -> list[str]:
    buf = (text + " ").encode("ascii").translate(_ASCII_TABLE)
    if b"'" in buf:
        # Same as _POSSESSIVE: "'s" followed by a non-word byte (now a space, or another
        # apostrophe; the appended space covers the end of the text).
        while b"'s'" in buf:
            buf = buf.replace(b"'s'", b"'")
        buf = buf.replace(b"'s ", b" ").replace(b"'", b" ")
    return buf.decode("ascii").split()


def _tokenize_unicode(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _WORD.findall(_POSSESSIVE.sub("", folded))


def tokenize(text: str) -> list[str]:
    """Split ``text`` into casefolded ``\\w+`` word tokens, dropping possessive ``'s``."""
    if _check_str(text, "text").isascii():
        return _tokenize_ascii(text)
    return _tokenize_unicode(text)


_VOWELS = frozenset("aeiouy")


def stem(token: str) -> str:
    """Strip common English inflections from a lowercase token: plural -s/-es/-ies, -ed, -ing and
    a final -e ("moves", "moved", "moving", "move" -> "mov"; "studies", "studied" -> "study").

    Deliberately light (no derivational suffixes): it merges inflected forms without merging
    unrelated words. Tokens that are short, non-ASCII or not purely alphabetic are returned as is.
    """
    t = token
    if len(t) <= 3 or not (t.isascii() and t.isalpha()):
        return t
    if t.endswith(("ies", "ied")) and len(t) > 4:
        return t[:-3] + "y"
    if t.endswith("sses"):
        return t[:-2]
    if t.endswith("s"):
        if not t.endswith(("ss", "us", "is")):
            t = t[:-1]
    elif t.endswith("ing") and len(t) > 5 and not _VOWELS.isdisjoint(t[:-3]):
        t = _undouble(t[:-3])
    elif (
        t.endswith("ed") and len(t) > 4 and not t.endswith("eed") and not _VOWELS.isdisjoint(t[:-2])
    ):
        t = _undouble(t[:-2])
    return t[:-1] if t.endswith("e") and len(t) > 3 else t


def _undouble(t: str) -> str:
    # "stopp" -> "stop", "runn" -> "run"; but "call", "miss", "buzz" keep their double letter.
    if len(t) > 2 and t[-1] == t[-2] and t[-1] not in "lsz" and t[-1] not in _VOWELS:
        return t[:-1]
    return t


class _TermIds(dict[str, int]):
    """token -> CRC-32 of its stem, memoized; a miss computes and stores. Cleared when full, so
    memory stays bounded; ids never depend on what the cache holds."""

    max_size = 1 << 18

    def __missing__(self, token: str) -> int:
        tid = zlib.crc32(stem(token).encode("utf-8"))
        if len(self) >= self.max_size:
            self.clear()
        self[token] = tid
        return tid


_TERM_IDS = _TermIds()
_term_id = _TERM_IDS.__getitem__  # bound C method: map() over it stays out of the interpreter


def term_id(token: str) -> int:
    """Return the stable 32-bit id of ``token``: CRC-32 of the UTF-8 bytes of its stem."""
    return _term_id(_check_str(token, "token"))


def query_terms(text: str) -> list[int]:
    """The term ids of a query, one per token, in order."""
    return list(map(_term_id, tokenize(text)))


def packed_terms(text: str) -> bytes:
    """The text as BM25 sees it, packed for the analysis cache: the token count, the sorted
    unique term ids, then their counts (uint32 each, machine order, like the LMDB file itself).

    Tokens whose CRC-32 collide share one id and their counts add up.
    """
    counts: dict[int, int] = {}
    _count_elements(counts, map(_term_id, tokenize(text)))
    ids = sorted(counts)
    return (
        array("I", (sum(counts.values()),)).tobytes()
        + array("I", ids).tobytes()
        + array("I", map(counts.__getitem__, ids)).tobytes()
    )


def packed_parts(data: bytes) -> tuple[int, bytes, bytes]:
    """(length, ids bytes, counts bytes) of packed terms, without building arrays: the fast
    path for folding cached terms into an index."""
    half = (len(data) - 4) // 2
    return array("I", data[:4])[0], data[4 : 4 + half], data[4 + half :]


def term_counts(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(ids, counts)`` for the tokens of ``text``: sorted unique ``uint32`` term ids and
    their ``int32`` counts. All tokens count, stopwords included (BM25's IDF weighs them down).

    Tokens whose CRC-32 collide share one id and their counts add up.
    """
    counts: dict[int, int] = {}
    _count_elements(counts, map(_term_id, tokenize(text)))
    ids = sorted(counts)
    n = len(ids)
    return (
        np.fromiter(ids, dtype=np.uint32, count=n),
        np.fromiter(map(counts.__getitem__, ids), dtype=np.int32, count=n),
    )
