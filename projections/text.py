"""The text projection: BM25 over hashed terms, per namespace.

Terms are stable 32-bit hashes of stems (:func:`eventmem.text.normalize.packed_terms`), so there
is no fitted vocabulary and the index is a pure function of the texts folded in. Postings are
``array`` columns: appends are O(1) and a query reads them through zero-copy numpy views.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec
import numpy as np

from eventmem.events import LifecycleTransitioned, MemoryErased, MemoryIngested, purged_ids
from eventmem.storage.envelope import Envelope
from eventmem.text.normalize import packed_parts, packed_terms, query_terms
from projections.columns import Strings
from projections.topk import SubsetIds, top_allowed

K1 = 1.2
B = 0.75


# A term's postings: its rows (ascending) and term frequencies, uint32 each.
Posting = tuple[array | np.ndarray, array | np.ndarray]


class Index:
    """The BM25 index of one namespace.

    New documents go to a flat tail (three appends, whatever their length); the tail is sealed
    into the per-term postings, grouped by term with one stable sort, before the index is read.
    Sealing is invisible: the postings come out the same however appends and seals interleave.
    """

    __slots__ = ("_bound_avg", "_bounds", "_plan_postings", "doc_len", "ids", "plan_rows",
                 "postings", "tail_rows", "tail_terms", "tail_tfs", "total_len")

    def __init__(self) -> None:
        # Loaded from a snapshot: a projections.columns.Strings, read in place.
        self.ids: list[str] | Strings = []
        self.doc_len = array("I")
        self.total_len = 0
        # term id -> (rows, term frequencies), rows ascending; loaded from a snapshot, numpy
        # views of it (uint32), until a seal adds to the term
        self.postings: dict[int, Posting] = {}
        # The rows of the documents that are plans, ascending: the write path looks among them
        # alone for the plan a text reports done (see top_among).
        self.plan_rows = array("I")
        self.tail_terms, self.tail_rows, self.tail_tfs = array("I"), array("I"), array("I")
        # term id -> the largest tf / (tf + norm) among its postings, norm taken at the average
        # length _bound_avg: what bounds its score (see _bound). Derived, never dumped; kept up
        # to date by seal, dropped by a removal.
        self._bounds: dict[int, float] = {}
        self._bound_avg = 0.0
        # term id -> where it occurs among the plans (see _plan_scores). Derived, never dumped;
        # extended when plans are added (_plans_added), dropped when rows are renumbered.
        self._plan_postings: dict[int, _PlanTerm] = {}

    def add(self, memory_ids: list[str], packed: list[bytes],
            plans: Sequence[bool] = ()) -> None:
        """Index documents, in order, given their packed terms
        (:func:`eventmem.text.normalize.packed_terms`) and which of them are plans."""
        first = len(self.ids)
        before = len(self.plan_rows)
        self.plan_rows.extend(first + i for i, plan in enumerate(plans) if plan)
        if len(self.plan_rows) != before:
            self._plans_added(before, packed, plans)  # a new plan holds some of the terms
        self.ids.extend(memory_ids)
        sizes = np.fromiter(map(len, packed), dtype=np.int64, count=len(packed))
        if len(packed) < 8 or ((sizes - 4) % 8).any():  # few, or not as packed_terms packs
            self._add_each(first, packed)
            return
        # The whole batch in a handful of array operations (a rebuild adds a thousand at a time):
        # each document is [length, ids..., counts...] in uint32 words.
        words = np.frombuffer(b"".join(packed), dtype=np.uint32)
        starts = np.zeros(len(packed), dtype=np.int64)
        np.cumsum(sizes[:-1] // 4, out=starts[1:])
        n_terms = (sizes - 4) // 8
        lengths = words[starts]
        self.doc_len.frombytes(lengths.tobytes())
        self.total_len += int(lengths.sum())
        firsts = np.zeros(len(packed), dtype=np.int64)
        np.cumsum(n_terms[:-1], out=firsts[1:])
        # word position of every term id: its document's first id, plus its place among them
        at = np.arange(int(n_terms.sum()), dtype=np.int64) + np.repeat(starts + 1 - firsts, n_terms)
        self.tail_terms.frombytes(words[at].tobytes())
        self.tail_tfs.frombytes(words[at + np.repeat(n_terms, n_terms)].tobytes())
        rows = np.repeat(np.arange(first, len(self.ids), dtype=np.uint32), n_terms)
        self.tail_rows.frombytes(rows.tobytes())

    def _plans_added(self, before: int, packed: list[bytes], plans: Sequence[bool]) -> None:
        """Extend the kept occurrences among the plans (:meth:`_plan_scores`) with the plans
        just added, the first at position ``before`` of the plan rows. Their rows come after
        every earlier row, so a term's positions, lengths and frequencies grow at their end,
        equal to what finding them again in the postings would give; the write path adds plans
        with every batch, and finding every term's occurrences again was most of a batch's
        search for the plan a text reports done."""
        kept = self._plan_postings
        if not kept:
            return
        grown: dict[int, tuple[list[int], list[int], list[int]]] = {}
        position = before
        for data, plan in zip(packed, plans, strict=False):
            if not plan:
                continue
            length, ids, counts = packed_parts(data)
            for term, tf in zip(np.frombuffer(ids, dtype=np.uint32).tolist(),
                                np.frombuffer(counts, dtype=np.uint32).tolist(), strict=True):
                if term in kept:
                    at, lengths, tfs = grown.setdefault(term, ([], [], []))
                    at.append(position)
                    lengths.append(length)
                    tfs.append(tf)
            position += 1
        for term, (at, lengths, tfs) in grown.items():
            known = kept[term]
            kept[term] = _PlanTerm(  # scores recomputed on first use
                np.concatenate((known.at, np.array(at, dtype=known.at.dtype))),
                np.concatenate((known.lengths, np.array(lengths, dtype=known.lengths.dtype))),
                np.concatenate((known.tf, np.array(tfs, dtype=np.float64))))

    def _add_each(self, first: int, packed: list[bytes]) -> None:
        lengths, n_terms = [], []
        for data in packed:
            length, ids, counts = packed_parts(data)
            lengths.append(length)
            n_terms.append(len(ids) // 4)
            self.tail_terms.frombytes(ids)
            self.tail_tfs.frombytes(counts)
        self.doc_len.extend(lengths)
        self.total_len += sum(lengths)
        rows = np.repeat(np.arange(first, len(self.ids), dtype=np.uint32), n_terms)
        self.tail_rows.frombytes(rows.tobytes())

    def seal(self) -> None:
        """Move the tail into the per-term postings (one stable sort by term, so rows stay ascending
        within a term), keeping the known score bounds current."""
        if not self.tail_terms:
            return
        terms = np.frombuffer(self.tail_terms, dtype=np.uint32)
        order = np.argsort(terms, kind="stable")  # stable: rows stay ascending within a term
        terms = terms[order]
        rows = np.frombuffer(self.tail_rows, dtype=np.uint32)[order]
        tfs = np.frombuffer(self.tail_tfs, dtype=np.uint32)[order]
        starts = np.concatenate(([0], np.flatnonzero(np.diff(terms)) + 1))
        ends = np.append(starts[1:], len(terms))
        postings, bounds = self.postings, self._bounds
        if bounds:  # keep the known score bounds up to date (the others are found when needed)
            lengths = np.frombuffer(self.doc_len, dtype=np.uint32)[rows]
            peaks = np.maximum.reduceat(_saturation(tfs, lengths, self._bound_avg), starts).tolist()
        for i, (term, start, end) in enumerate(zip(
            terms[starts].tolist(), starts.tolist(), ends.tolist(), strict=True
        )):
            held = postings.get(term)
            # read in place from a snapshot until a fold first adds to it
            posted, counts = (array("I"), array("I")) if held is None else (
                array("I", held[0].tobytes()) if isinstance(held[0], np.ndarray) else held[0],
                array("I", held[1].tobytes()) if isinstance(held[1], np.ndarray) else held[1])
            posted.frombytes(rows[start:end].tobytes())
            counts.frombytes(tfs[start:end].tobytes())
            postings[term] = (posted, counts)
            known = bounds.get(term)
            if known is not None:
                bounds[term] = max(known, peaks[i])
        self.tail_terms, self.tail_rows, self.tail_tfs = array("I"), array("I"), array("I")

    def remove(self, memory_ids: set[str]) -> None:
        """Drop these documents and renumber the rest: the same index as never having added
        them (terms left with no document disappear). Costs a pass over the postings; purges are
        rare and batched per sweep."""
        gone = sorted(row for row, mid in enumerate(self.ids) if mid in memory_ids)
        if not gone:
            return
        self.seal()
        self._bounds.clear()
        self._plan_postings.clear()  # the rows are renumbered
        removed = np.array(gone, dtype=np.uint32)
        lengths = np.frombuffer(self.doc_len, dtype=np.uint32)
        self.total_len -= int(lengths[removed].sum())
        keep = np.ones(len(self.ids), dtype=bool)
        keep[removed] = False
        self.doc_len = array("I", lengths[keep].tobytes())
        del lengths
        self.ids = [mid for row, mid in enumerate(self.ids) if keep[row]]
        plan_rows = np.frombuffer(self.plan_rows, dtype=np.uint32)
        plan_rows = plan_rows[keep[plan_rows]]
        self.plan_rows = array("I", (plan_rows - np.searchsorted(removed, plan_rows))
                               .astype(np.uint32).tobytes())
        del plan_rows
        for term in list(self.postings):
            rows_arr, tfs_arr = self.postings[term]
            rows = np.frombuffer(rows_arr, dtype=np.uint32)
            mask = keep[rows]
            if mask.all():
                shift = np.searchsorted(removed, rows)
                if shift.any():
                    self.postings[term] = (array("I", (rows - shift).astype(np.uint32).tobytes()),
                                           tfs_arr)
                continue
            tfs = np.frombuffer(tfs_arr, dtype=np.uint32)[mask]
            rows = rows[mask]
            if not len(rows):
                del self.postings[term]
                continue
            rows = (rows - np.searchsorted(removed, rows)).astype(np.uint32)
            self.postings[term] = (array("I", rows.tobytes()), array("I", tfs.tobytes()))

    def scores(self, query_terms: list[int]) -> np.ndarray:
        """The BM25 score of every document (0 where no query term occurs): the reference that
        :meth:`top` answers from without scoring every document."""
        self.seal()
        n_docs = len(self.ids)
        scores = np.zeros(n_docs, dtype=np.float64)
        if n_docs == 0:
            return scores
        avg_len = self.total_len / n_docs or 1.0
        doc_len = np.frombuffer(self.doc_len, dtype=np.uint32)
        for _, rows, tfs, idf in self._postings(query_terms, n_docs):
            tf = tfs.astype(np.float64)
            norm = K1 * (1.0 - B + B * doc_len[rows] / avg_len)
            scores[rows] += idf * tf * (K1 + 1.0) / (tf + norm)
            del rows, tfs  # release the buffer exports so the arrays can grow again
        return scores

    def _postings(self, query_terms: list[int], n_docs: int
                  ) -> Iterator[tuple[int, np.ndarray, np.ndarray, float]]:
        """Each query term the index holds, in term-id order (the order every score adds them
        up in, so that all give the same bits): the term, its rows, term frequencies and idf."""
        for term, entry, idf in self._terms(query_terms, n_docs):
            yield (term, np.frombuffer(entry[0], dtype=np.uint32),
                   np.frombuffer(entry[1], dtype=np.uint32), idf)

    def _terms(self, query_terms: list[int], n_docs: int
               ) -> Iterator[tuple[int, Posting, float]]:
        """:meth:`_postings` with each term's postings as stored (read by whoever needs them)."""
        for term in sorted(set(query_terms)):
            entry = self.postings.get(term)
            if entry is not None:
                df = len(entry[0])
                yield term, entry, math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


    def top(
        self, query_terms: list[int], n: int, allowed: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        """The same answer as ``top_allowed(self.scores(query_terms), self.ids, n, allowed)``,
        same scores to the last bit and same order, mostly without scoring every document.

        MaxScore pruning: terms are taken rarest (highest score bound) first; the documents
        holding the taken terms are scored exactly on every query term, in the order
        :meth:`scores` adds them up. Once the bounds of the terms not taken add up to less than
        the ``n``-th best allowed score found, no document holding only those can reach the
        answer, and their postings (typically "the", "i", "to"...) are never read in full.
        """
        self.seal()
        n_docs = len(self.ids)
        if n <= 0 or n_docs == 0:
            return []
        avg_len = self.total_len / n_docs or 1.0
        doc_len = np.frombuffer(self.doc_len, dtype=np.uint32)
        # (rows, tfs, idf, bound), in term-id order: the order scores() adds them up
        terms: list[tuple[np.ndarray, np.ndarray, float, float]] = []
        for term, rows, tfs, idf in self._postings(query_terms, n_docs):
            terms.append((rows, tfs, idf, self._bound(term, rows, tfs, doc_len, idf, avg_len)))
        if not terms:
            return []
        order = sorted(range(len(terms)), key=lambda i: (-terms[i][3], i))
        rest = [0.0] * (len(order) + 1)  # rest[s]: the bounds of the terms after the first s
        for s in range(len(order) - 1, -1, -1):
            rest[s] = rest[s + 1] + terms[order[s]][3]
        taken = 1
        while True:
            essential = order[:taken]
            docs, scores = _score_candidates(terms, essential, doc_len, avg_len, n_docs)
            picked = top_allowed(scores, SubsetIds(self.ids, docs), n, allowed, rows=docs)
            if taken == len(order):
                return picked
            best = picked[-1][1] if len(picked) == n else 0.0
            if rest[taken] < best:
                return picked
            while taken < len(order) and not rest[taken] < best:
                taken += 1

    def top_among(self, query_terms: list[int], rows: np.ndarray, n: int,
                  allowed: Callable[[str], bool] | None = None) -> list[tuple[str, float]]:
        """The answer of :meth:`top` when ``allowed`` accepts no document outside ``rows``
        (ascending): only those are scored, with the expression :meth:`scores` evaluates, in
        the same term order, so the scores are the same to the last bit and ties break by row
        as there."""
        self.seal()
        n_docs = len(self.ids)
        if n <= 0 or n_docs == 0 or not len(rows):
            return []
        avg_len = self.total_len / n_docs or 1.0
        doc_len = np.frombuffer(self.doc_len, dtype=np.uint32)
        scores = np.zeros(len(rows), dtype=np.float64)
        for _, posted, counts, idf in self._postings(query_terms, n_docs):
            df = len(posted)
            if df <= len(rows):  # the smaller list searched in the larger, as _score_candidates
                pos = np.searchsorted(rows, posted)
                found = np.flatnonzero(rows[np.minimum(pos, len(rows) - 1)] == posted)
                at, hit, tf = pos[found], posted[found], counts[found].astype(np.float64)
            else:
                pos = np.searchsorted(posted, rows)
                at = np.flatnonzero(posted[np.minimum(pos, df - 1)] == rows)
                hit, tf = rows[at], counts[pos[at]].astype(np.float64)
            norm = K1 * (1.0 - B + B * doc_len[hit] / avg_len)
            scores[at] += idf * tf * (K1 + 1.0) / (tf + norm)
        return top_allowed(scores, SubsetIds(self.ids, rows), n, allowed, rows=rows)

    def top_plans(self, query_terms: list[int], n: int,
                  allowed: Callable[[str], bool] | None = None) -> list[tuple[str, float]]:
        """:meth:`top_among` the plans (``plan_rows``), to the last bit, each term's scores
        among them kept from one call to the next (:meth:`_plan_scores`): the write path asks
        this for item after item, and the plans and the statistics change only between
        batches."""
        self.seal()
        n_docs = len(self.ids)
        rows = np.frombuffer(self.plan_rows, dtype=np.uint32)
        if n <= 0 or n_docs == 0 or not len(rows):
            return []
        avg_len = self.total_len / n_docs or 1.0
        # A term's postings are read only when its place among the plans is not kept yet.
        ats, contributions = [], []
        for term, entry, idf in self._terms(query_terms, n_docs):
            at, contribution = self._plan_scores(term, rows, entry, idf, avg_len)
            if len(at):
                ats.append(at)
                contributions.append(contribution)
        if not ats:
            return []  # no plan holds a word of the query: no positive score
        # One bincount adds the contributions in the order given, each to 0.0 first: every
        # plan's score is the same bits as the terms added one after another.
        scores = np.bincount(np.concatenate(ats), weights=np.concatenate(contributions),
                             minlength=len(rows))
        return top_allowed(scores, SubsetIds(self.ids, rows), n, allowed, rows=rows)

    def _plan_scores(self, term: int, rows: np.ndarray, entry: Posting, idf: float,
                     avg_len: float) -> tuple[np.ndarray, np.ndarray]:
        """Where ``term`` occurs among the plans (positions in ``rows``, the plan rows) and its
        score there, by :meth:`top_among`'s expression on the same values.

        Where it occurs changes only when a new document is a plan (``add`` extends what is
        kept) or rows are renumbered (``remove`` drops it): a seal only appends rows of new
        documents. The scores are kept for the ``idf`` and average length they were computed
        with (both the same for a whole batch) and recomputed when either differs."""
        known = self._plan_postings.get(term)
        if known is None:
            posted = np.frombuffer(entry[0], dtype=np.uint32)
            counts = np.frombuffer(entry[1], dtype=np.uint32)
            if len(posted) <= len(rows):
                pos = np.searchsorted(rows, posted)
                found = np.flatnonzero(rows[np.minimum(pos, len(rows) - 1)] == posted)
                at, hit, tf = pos[found], posted[found], counts[found].astype(np.float64)
            else:
                pos = np.searchsorted(posted, rows)
                at = np.flatnonzero(posted[np.minimum(pos, len(posted) - 1)] == rows)
                hit, tf = rows[at], counts[pos[at]].astype(np.float64)
            doc_len = np.frombuffer(self.doc_len, dtype=np.uint32)
            known = self._plan_postings[term] = _PlanTerm(at, doc_len[hit], tf)
            del doc_len  # release the buffer export so the array can grow again
        if known.idf != idf or known.avg_len != avg_len:
            norm = K1 * (1.0 - B + B * known.lengths / avg_len)
            known.scores = idf * known.tf * (K1 + 1.0) / (known.tf + norm)
            known.idf, known.avg_len = idf, avg_len
        return known.at, known.scores

    def _bound(self, term: int, rows: np.ndarray, tfs: np.ndarray, doc_len: np.ndarray,
               idf: float, avg_len: float) -> float:
        """An upper bound on the term's score in any document.

        The largest saturation tf / (tf + norm) among the term's postings is kept for one
        average length (computing it reads the whole posting list once). The norm shrinks at
        most in proportion as the average grows, so scaling by avg_len / _bound_avg keeps the
        bound valid as documents come in; past 5% of drift the bounds are recomputed, tighter.
        """
        if not self._bounds or not 0.95 <= avg_len / self._bound_avg <= 1.05:
            self._bounds.clear()
            self._bound_avg = avg_len
        peak = self._bounds.get(term)
        if peak is None:
            peak = self._bounds[term] = float(
                _saturation(tfs, doc_len[rows], self._bound_avg).max())
        return idf * (K1 + 1.0) * peak * max(1.0, avg_len / self._bound_avg) * _BOUND_MARGIN


class _PlanTerm:
    """A term's occurrences among an index's plans and, once asked for, its scores there."""

    __slots__ = ("at", "avg_len", "idf", "lengths", "scores", "tf")

    def __init__(self, at: np.ndarray, lengths: np.ndarray, tf: np.ndarray) -> None:
        self.at, self.lengths, self.tf = at, lengths, tf  # positions, doc lengths, tf (float64)
        self.idf = self.avg_len = math.nan  # what ``scores`` were computed with (nan: never)
        self.scores = tf


def _score_candidates(
    terms: list[tuple[np.ndarray, np.ndarray, float, float]], essential: list[int],
    doc_len: np.ndarray, avg_len: float, n_docs: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates (the documents holding an essential term, ascending) and their full
    scores, every term added in ``terms`` order with the expression :meth:`Index.scores` uses.

    Few candidates are matched against each posting list by binary search (the smaller list
    searched in the larger), with no array as long as the index; many are marked in a dense
    mask and each list filtered in one pass.
    """
    chosen = [terms[i][0] for i in essential]
    dense = sum(map(len, chosen)) * _DENSE_SHARE > n_docs
    if dense:
        candidate = np.zeros(n_docs, dtype=bool)
        for rows in chosen:
            candidate[rows] = True
        docs = np.flatnonzero(candidate)
    elif len(chosen) == 1:
        docs = chosen[0]
    else:
        merged = np.sort(np.concatenate(chosen))
        docs = merged[np.concatenate(([True], merged[1:] != merged[:-1]))]
    scores = np.zeros(len(docs), dtype=np.float64)
    for posted, counts, idf, _ in terms:
        if dense:
            keep = np.flatnonzero(candidate[posted])
            at, hit, counts = np.searchsorted(docs, posted[keep]), posted[keep], counts[keep]
        elif len(posted) <= len(docs):
            pos = np.searchsorted(docs, posted)
            found = np.flatnonzero(docs[np.minimum(pos, len(docs) - 1)] == posted)
            at, hit, counts = pos[found], posted[found], counts[found]
        else:
            pos = np.searchsorted(posted, docs)
            at = np.flatnonzero(posted[np.minimum(pos, len(posted) - 1)] == docs)
            hit, counts = docs[at], counts[pos[at]]
        tf = counts.astype(np.float64)
        # The very expression Index.scores evaluates, in the same term order.
        norm = K1 * (1.0 - B + B * doc_len[hit] / avg_len)
        scores[at] += idf * tf * (K1 + 1.0) / (tf + norm)
    return docs, scores


def _saturation(tfs: np.ndarray, lengths: np.ndarray, avg_len: float) -> np.ndarray:
    """BM25's tf / (tf + norm) per posting: a term's score is idf * (K1 + 1) times this."""
    tf = tfs.astype(np.float64)
    return tf / (tf + K1 * (1.0 - B + B * lengths / avg_len))


class Text:
    """The text projection: one BM25 :class:`Index` per namespace holding any text."""

    def __init__(self) -> None:
        self.indexes: dict[str, Index] = {}

    def search(
        self, namespace: str, query: str, n: int, allowed: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        """The ``n`` best BM25 matches for ``query`` among the allowed memories of ``namespace``, as
        (memory id, score), best first."""
        index = self.indexes.get(namespace)
        if index is None:
            return []
        return index.top(query_terms(query), n, allowed)

    def search_plans(
        self, namespace: str, query: str, n: int, allowed: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`search` among the namespace's plans: the same answer as ``search`` with an
        ``allowed`` that accepts plans only, scoring the plans alone."""
        index = self.indexes.get(namespace)
        if index is None:
            return []
        return index.top_plans(query_terms(query), n, allowed)

    def dump(self) -> TextDump:
        """The canonical serializable form: every index sealed first (which changes no answer),
        postings by ascending term id."""
        for index in self.indexes.values():
            index.seal()
        return TextDump(
            indexes={
                ns: IndexDump(
                    ids=tuple(ix.ids),
                    doc_len=ix.doc_len.tobytes(),
                    total_len=ix.total_len,
                    terms=array("I", sorted(ix.postings)).tobytes(),
                    plan_rows=ix.plan_rows.tobytes(),
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
        """Restore the indexes from :meth:`dump`'s form (score bounds are derived again when
        needed)."""
        text = cls()
        for ns, d in dump.indexes.items():
            ix = Index()
            ix.ids = d.ids if isinstance(d.ids, Strings) else list(d.ids)
            ix.doc_len.frombytes(d.doc_len)
            ix.total_len = d.total_len
            ix.plan_rows.frombytes(d.plan_rows)
            terms = array("I")
            terms.frombytes(d.terms)
            if len(terms) != len(d.postings):
                raise ValueError("postings do not match their terms")
            for term, (rows, tfs) in zip(terms, d.postings, strict=True):
                if isinstance(rows, memoryview):  # in place, from a snapshot's columns
                    ix.postings[term] = (np.frombuffer(rows, dtype="<u4"),
                                         np.frombuffer(tfs, dtype="<u4"))
                else:
                    r, f = array("I"), array("I")
                    r.frombytes(rows)
                    f.frombytes(tfs)
                    ix.postings[term] = (r, f)
            text.indexes[ns] = ix
        return text


# Candidates are marked in a mask as long as the index once their postings add up to more than
# 1/_DENSE_SHARE of its documents; fewer are matched by binary search.
_DENSE_SHARE = 16
# Bounds are inflated by this much: a bound must stay above any sum of scores that could reach
# it, whatever the rounding of either.
_BOUND_MARGIN = 1.0 + 1e-9


class IndexDump(msgspec.Struct, kw_only=True, array_like=True):
    """One namespace's BM25 index as a snapshot holds it: ids, document lengths, and the postings
    (rows and term frequencies, uint32 bytes) of each term."""

    ids: tuple[str, ...]
    doc_len: bytes
    total_len: int
    terms: bytes  # sorted uint32 term ids; postings[i] belongs to terms[i]
    postings: tuple[tuple[bytes, bytes], ...]
    plan_rows: bytes = b""  # uint32 rows of the plans, ascending


class TextDump(msgspec.Struct, kw_only=True):
    """The text projection as a snapshot holds it: an :class:`IndexDump` per namespace."""

    indexes: dict[str, IndexDump]


def apply(state: Text, env: Envelope) -> Text:
    """Fold one envelope (:func:`apply_many` of one)."""
    return apply_many(state, (env,))


def apply_many(state: Text, envs: Iterable[Envelope]) -> Text:
    """Fold envelopes in order; the documents of a chunk are indexed together per namespace,
    which gives the same index as adding them one at a time."""
    pending: dict[str, tuple[list[str], list[bytes], list[bool]]] = {}
    for env in envs:
        event = env.event
        match event:
            case MemoryIngested(namespace=ns) if env.terms is not None or env.text is not None:
                terms = env.terms if env.terms is not None else packed_terms(env.text)  # type: ignore[arg-type]
                batch = pending.get(ns)
                if batch is None:  # (not setdefault: that would make three lists per ingest)
                    batch = pending[ns] = ([], [], [])
                ids, packed, plans = batch
                ids.append(event.memory_id)
                packed.append(terms)
                plans.append(event.kind == "plan")
            case LifecycleTransitioned(namespace=ns) | MemoryErased(namespace=ns) if (
                    purged := purged_ids(event)):
                _flush(state, pending)
                if ns in state.indexes:
                    state.indexes[ns].remove(set(purged))
                    if not state.indexes[ns].ids:  # as if it had never been added
                        del state.indexes[ns]
            case _:
                pass
    _flush(state, pending)
    return state


def _flush(state: Text, pending: dict[str, tuple[list[str], list[bytes], list[bool]]]) -> None:
    for ns, (ids, packed, plans) in pending.items():
        index = state.indexes.get(ns)
        if index is None:
            index = state.indexes[ns] = Index()
        index.add(ids, packed, plans)
    pending.clear()
