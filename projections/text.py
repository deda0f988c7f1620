"""The text projection: BM25 over hashed terms, per namespace.

Terms are stable 32-bit hashes of tokens (:func:`eventmem.text.term_counts`), so there is no fitted
vocabulary and the index is a pure function of the texts folded in. Postings are ``array`` columns:
appends are O(1) and a query reads them through zero-copy numpy views.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable

import msgspec
import numpy as np

from eventmem.envelope import Envelope
from eventmem.events import MemoryIngested
from eventmem.text import term_counts, term_id, tokenize
from projections.topk import top_allowed

K1 = 1.2
B = 0.75


class Index:
    """The BM25 index of one namespace."""

    __slots__ = ("doc_len", "ids", "postings", "total_len")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.doc_len = array("I")
        self.total_len = 0
        # term id -> (rows, term frequencies)
        self.postings: dict[int, tuple[array, array]] = {}

    def add(self, memory_id: str, text: str) -> None:
        row = len(self.ids)
        terms, counts = term_counts(text)
        self.ids.append(memory_id)
        length = int(counts.sum())
        self.doc_len.append(length)
        self.total_len += length
        postings = self.postings
        for term, count in zip(terms.tolist(), counts.tolist(), strict=True):
            entry = postings.get(term)
            if entry is None:
                entry = postings[term] = (array("I"), array("I"))
            entry[0].append(row)
            entry[1].append(count)

    def scores(self, query_terms: list[int]) -> np.ndarray:
        n_docs = len(self.ids)
        scores = np.zeros(n_docs, dtype=np.float64)
        if n_docs == 0:
            return scores
        avg_len = self.total_len / n_docs or 1.0
        doc_len = np.frombuffer(self.doc_len, dtype=np.uint32)
        for term in sorted(set(query_terms)):
            entry = self.postings.get(term)
            if entry is None:
                continue
            rows = np.frombuffer(entry[0], dtype=np.uint32)
            tf = np.frombuffer(entry[1], dtype=np.uint32).astype(np.float64)
            df = len(rows)
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            norm = K1 * (1.0 - B + B * doc_len[rows] / avg_len)
            scores[rows] += idf * tf * (K1 + 1.0) / (tf + norm)
            del rows, tf  # release the buffer exports so the arrays can grow again
        return scores


class Text:
    def __init__(self) -> None:
        self.indexes: dict[str, Index] = {}

    def search(
        self, namespace: str, query: str, n: int, allowed: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        index = self.indexes.get(namespace)
        if index is None:
            return []
        terms = [term_id(token) for token in tokenize(query)]
        return top_allowed(index.scores(terms), index.ids, n, allowed)

    def dump(self) -> TextDump:
        return TextDump(
            indexes={
                ns: IndexDump(
                    ids=tuple(ix.ids),
                    doc_len=ix.doc_len.tobytes(),
                    total_len=ix.total_len,
                    terms=array("I", sorted(ix.postings)).tobytes(),
                    postings=tuple(
                        (ix.postings[t][0].tobytes(), ix.postings[t][1].tobytes())
                        for t in sorted(ix.postings)
                    ),
                )
                for ns, ix in self.indexes.items()
            }
        )

    @classmethod
    def load(cls, dump: TextDump) -> Text:
        text = cls()
        for ns, d in dump.indexes.items():
            ix = Index()
            ix.ids = list(d.ids)
            ix.doc_len.frombytes(d.doc_len)
            ix.total_len = d.total_len
            terms = array("I")
            terms.frombytes(d.terms)
            for term, (rows, tfs) in zip(terms, d.postings, strict=True):
                r, f = array("I"), array("I")
                r.frombytes(rows)
                f.frombytes(tfs)
                ix.postings[term] = (r, f)
            text.indexes[ns] = ix
        return text


class IndexDump(msgspec.Struct, kw_only=True, array_like=True):
    ids: tuple[str, ...]
    doc_len: bytes
    total_len: int
    terms: bytes  # sorted uint32 term ids; postings[i] belongs to terms[i]
    postings: tuple[tuple[bytes, bytes], ...]


class TextDump(msgspec.Struct, kw_only=True):
    indexes: dict[str, IndexDump]


def apply(state: Text, env: Envelope) -> Text:
    event = env.event
    match event:
        case MemoryIngested(namespace=ns) if env.text is not None:
            index = state.indexes.get(ns)
            if index is None:
                index = state.indexes[ns] = Index()
            index.add(event.memory_id, env.text)
        case _:
            pass
    return state
