"""The rebuild's bulk folds give what one document, one event at a time gives: the BM25 tail
filled for a whole batch with array operations equals the one-document-at-a-time fill."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.text.normalize import packed_terms
from projections.text import Index

WORDS = st.sampled_from(["rosa", "porto", "nurse", "moved", "sister", "job", "the", "a", "kofi",
                         "says", "hi", "update", "quick", "x"])
TEXTS = st.lists(st.lists(WORDS, max_size=12).map(" ".join), min_size=0, max_size=30)


def columns(index: Index) -> tuple[object, ...]:
    return (index.ids, index.doc_len.tobytes(), index.total_len, index.tail_terms.tobytes(),
            index.tail_rows.tobytes(), index.tail_tfs.tobytes())


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=4))
def test_a_batch_indexes_as_its_documents_one_at_a_time(batches: list[list[str]]) -> None:
    bulk, single = Index(), Index()
    n = 0
    for texts in batches:
        ids = [f"m{n + i}" for i in range(len(texts))]
        n += len(texts)
        packed = [packed_terms(t) for t in texts]
        bulk.add(ids, packed)
        for mid, data in zip(ids, packed, strict=True):
            single.add([mid], [data])
    assert columns(bulk) == columns(single)
    bulk.seal()
    single.seal()
    assert {t: (r.tobytes(), f.tobytes()) for t, (r, f) in bulk.postings.items()} == {
        t: (r.tobytes(), f.tobytes()) for t, (r, f) in single.postings.items()}


def test_an_empty_document_among_others_takes_its_row() -> None:
    texts = ["rosa moved", "", "kofi says hi", "", "the job", "a", "x x x", "porto", "nurse"]
    index = Index()
    index.add([f"m{i}" for i in range(len(texts))], [packed_terms(t) for t in texts])
    assert list(index.doc_len) == [2, 0, 3, 0, 2, 1, 3, 1, 1]
    assert index.total_len == 13
    assert list(index.tail_rows) == [0, 0, 2, 2, 2, 4, 4, 5, 6, 7, 8]
