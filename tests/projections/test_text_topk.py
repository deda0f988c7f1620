"""BM25's pruned top-n (Index.top) answers exactly what scoring every document answers.

The reference is ``top_allowed(index.scores(terms), ids, n, allowed)``: the same ids, the same
scores to the last bit, the same order, whatever the documents, the query, the filter, and the
way appends, seals, queries and removals interleave.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.text.normalize import packed_terms, query_terms
from projections import text as text_view
from projections.text import Index, Text
from projections.topk import top_allowed

# Index.top marks candidates in a dense mask or matches them by binary search depending on how
# many there are: every check runs both ways (the share 1 forces the mask, a huge one the search).
SHARES = (1, 10**9)

# A Zipf-like vocabulary: a few words in nearly every document (they are what pruning skips),
# a tail of rare ones.
COMMON = ["i", "the", "to", "a", "and", "my", "is", "what"]
MIDDLE = ["alice", "bob", "berlin", "lisbon", "moved", "cooked", "dog", "yoga", "book", "trip"]
RARE = [f"word{i}" for i in range(40)]
VOCAB = COMMON * 6 + MIDDLE * 2 + RARE

words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=14)
docs = st.lists(words.map(" ".join), min_size=0, max_size=60)


def reference(index: Index, query: str, n: int, allowed=None):
    return top_allowed(index.scores(query_terms(query)), index.ids, n, allowed)


def index_of(texts: list[str], start: int = 0, index: Index | None = None) -> Index:
    index = index or Index()
    index.add([f"m{start + i:03d}" for i in range(len(texts))], [packed_terms(t) for t in texts])
    return index


@pytest.fixture(autouse=True)
def _restore_share() -> Iterator[None]:
    share = text_view._DENSE_SHARE
    yield
    text_view._DENSE_SHARE = share


@settings(max_examples=150, deadline=None)
@given(docs, st.lists(words.map(" ".join), min_size=1, max_size=4), st.integers(1, 30),
       st.sampled_from((None, 2, 3)))
def test_pruned_top_is_the_exhaustive_top(texts, queries, n, modulus):
    index = index_of(texts)
    allowed = None if modulus is None else (lambda mid: int(mid[1:]) % modulus != 0)
    for query in queries:
        expected = reference(index, query, n, allowed)
        for share in SHARES:
            text_view._DENSE_SHARE = share
            assert index.top(query_terms(query), n, allowed) == expected


# Documents where pruning decides: a rare word in long documents (high idf, long-document
# penalty) against a common one ("the": lower idf) alone or repeated in short ones. A bound that
# is too tight, or one not raised when documents come in, lets the rare-word documents wrongly
# win.
contested = st.one_of(
    st.integers(5, 25).map(lambda m: " ".join(["filler"] * m)),
    st.integers(5, 25).map(lambda m: " ".join(["the"] + ["filler"] * m)),
    st.integers(5, 40).map(lambda m: " ".join(["word0"] + ["filler"] * m)),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.lists(contested, min_size=100, max_size=200), st.integers(2, 8), st.integers(1, 4))
def test_pruning_never_drops_a_document_that_belongs(texts, repeats, n):
    index = index_of(texts)
    for share in SHARES:
        text_view._DENSE_SHARE = share
        for query in ("word0 the", "the word0 word5"):
            assert index.top(query_terms(query), n) == reference(index, query, n)
    # One short document repeating the common word: the cached bound of "the" must rise.
    index_of([" ".join(["the"] * repeats)], len(texts), index)
    for share in SHARES:
        text_view._DENSE_SHARE = share
        for query in ("word0 the", "the word0 word5"):
            assert index.top(query_terms(query), n) == reference(index, query, n)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("add", "query", "remove")), docs,
                          words.map(" ".join), st.integers(1, 20)), max_size=8))
def test_it_stays_exact_as_documents_come_and_go(steps):
    index, added = Index(), 0
    for op, texts, query, n in steps:
        if op == "add":
            index_of(texts, added, index)
            added += len(texts)
        elif op == "remove" and index.ids:
            index.remove(set(index.ids[::3]))
        # the score bounds cached by one query must hold for the next, after any change
        assert index.top(query_terms(query), n) == reference(index, query, n)


def test_a_query_that_only_common_words_match_and_one_that_nothing_matches():
    texts = ["i went to the park", "the dog and i", "my book is here", "what a trip"] * 30
    texts += ["alice moved to berlin", "bob cooked for alice"]
    index = index_of(texts)
    for query in ("the i to", "alice berlin the", "nothing here matches zebra", ""):
        for n in (1, 5, 50, 500):
            assert index.top(query_terms(query), n) == reference(index, query, n)
    assert index.top(query_terms("zebra"), 5) == []
    assert index.top(query_terms("alice"), 0) == []
    assert Index().top(query_terms("alice"), 5) == []


def test_equal_scores_come_in_row_order():
    index = index_of(["alice and bob"] * 5 + ["alice"] * 3 + ["the park"] * 40)
    got = index.top(query_terms("alice bob"), 6)
    assert [mid for mid, _ in got] == ["m000", "m001", "m002", "m003", "m004", "m005"]
    assert got == reference(index, "alice bob", 6)


def test_querying_leaves_the_index_and_its_dump_as_they_were():
    texts = ["i moved to berlin", "the dog is mine", "my trip to lisbon"] * 20
    queried, fresh = Text(), Text()
    for text in (queried, fresh):
        text.indexes["ns"] = index_of(texts)
    queried.search("ns", "the trip to berlin", 5)
    index_of(["alice cooked the dinner"], 100, queried.indexes["ns"])
    index_of(["alice cooked the dinner"], 100, fresh.indexes["ns"])
    queried.search("ns", "alice the dinner", 5)
    encode = msgspec.msgpack.Encoder(order="deterministic").encode
    assert encode(queried.dump()) == encode(fresh.dump())


def _sorted_top(scores, ids, n, allowed):
    """top_allowed by definition: every positive score, best first, ties by row."""
    order = sorted((row for row in range(len(scores)) if scores[row] > 0),
                   key=lambda row: (-scores[row], row))
    return [(ids[row], float(scores[row])) for row in order
            if allowed is None or allowed(ids[row])][:n]


@settings(max_examples=60, deadline=None)
@given(st.integers(5_000, 9_000), st.lists(st.integers(0, 8_999), max_size=300),
       st.lists(st.sampled_from((0.5, 1.0, 2.0, 3.25)), min_size=1, max_size=300),
       st.integers(1, 40), st.sampled_from((None, 2, 3)))
def test_a_large_sparse_score_array_selects_as_a_full_sort_does(count, rows, values, n,
                                                                 modulus):
    """Over many rows top_allowed selects among the positive ones only: the same answer,
    ties (there are many here) by row, whatever the filter."""
    import numpy as np

    scores = np.zeros(count)
    for row, value in zip(rows, values * len(rows), strict=False):
        if row < count:
            scores[row] = value
    ids = [f"m{row:05d}" for row in range(count)]
    allowed = None if modulus is None else (lambda mid: int(mid[1:]) % modulus != 0)
    assert top_allowed(scores, ids, n, allowed) == _sorted_top(scores, ids, n, allowed)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from((40, 5_000, 40_000, 70_001)), st.integers(1, 300),
       st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_the_bar_is_reached_by_enough_scores_and_never_above_the_wanted_rank(
        count, want, density, seed):
    import numpy as np

    from projections.topk import bar

    rng = np.random.default_rng(seed)
    scores = np.where(rng.random(count) < density,
                      rng.integers(-3, 20, count).astype(np.float64), 0.0)
    want = min(want, count)
    found = bar(scores, want)
    assert found >= 0.0
    if found > 0:
        assert (scores >= found).sum() >= want
        assert found <= np.sort(scores)[::-1][want - 1]
    else:  # every positive score is a candidate then: only allowed when few are positive
        assert (scores > 0).sum() < want * 64


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(words.map(" ".join), st.booleans()), max_size=60),
       st.lists(words.map(" ".join), min_size=1, max_size=4), st.integers(1, 12),
       st.sampled_from((None, 2, 3)), st.integers(0, 4))
def test_the_search_among_plans_is_the_search_that_allows_plans_only(
        docs_and_plans, queries, n, modulus, removed_every):
    # The write path looks for a completed plan among the plans alone (Index.top_among over
    # plan_rows): it must answer what the whole index answers when only plans are allowed,
    # also once documents were removed (the rows renumbered) and after a dump and load.
    index = Index()
    ids = [f"m{i:03d}" for i in range(len(docs_and_plans))]
    index.add(ids, [packed_terms(t) for t, _ in docs_and_plans],
              [plan for _, plan in docs_and_plans])
    plans = {mid for mid, (_, plan) in zip(ids, docs_and_plans, strict=True) if plan}
    if removed_every and ids:
        index.remove(set(ids[::removed_every + 1]))
    text = Text()
    text.indexes["ns"] = index
    loaded = Text.load(msgspec.msgpack.decode(msgspec.msgpack.encode(text.dump()),
                                              type=text_view.TextDump))

    def allowed(mid: str) -> bool:
        return modulus is None or int(mid[1:]) % modulus != 0

    def plans_only(mid: str) -> bool:
        return mid in plans and allowed(mid)

    for query in queries:
        want = reference(index, query, n, plans_only)
        assert text.search_plans("ns", query, n, allowed) == want
        assert loaded.search_plans("ns", query, n, allowed) == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.tuples(words.map(" ".join), st.booleans()), max_size=8),
                min_size=1, max_size=6),
       st.lists(words.map(" ".join), min_size=1, max_size=3), st.integers(1, 6),
       st.integers(0, 3))
def test_the_search_among_plans_stays_exact_as_plans_and_documents_come_and_go(
        rounds, queries, n, removed_every):
    # Index.top_plans keeps each term's occurrences among the plans from one query to the next:
    # after each round of appends (plans or not) and, every other round, a removal that
    # renumbers the rows, it must still answer what scoring every document answers.
    index = Index()
    plans: set[str] = set()
    made = 0
    for number, round_ in enumerate(rounds):
        ids = [f"m{made + i:03d}" for i in range(len(round_))]
        made += len(round_)
        index.add(ids, [packed_terms(t) for t, _ in round_], [plan for _, plan in round_])
        plans |= {mid for mid, (_, plan) in zip(ids, round_, strict=True) if plan}
        if removed_every and number % 2 and len(index.ids) > 1:
            index.remove(set(list(index.ids)[::removed_every + 1]))
        for query in queries:
            want = reference(index, query, n, plans.__contains__)
            assert index.top_plans(query_terms(query), n) == want


def test_a_plan_added_after_a_search_is_found_by_the_next():
    index = Index()
    index.add(["a", "b"], [packed_terms("renew the passport"), packed_terms("buy milk")],
              [True, False])
    assert [mid for mid, _ in index.top_plans(query_terms("renewed my passport"), 5)] == ["a"]
    index.add(["c"], [packed_terms("renew the passport photo")], [True])
    assert sorted(mid for mid, _ in index.top_plans(query_terms("renewed my passport"), 5)) \
        == ["a", "c"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(words.map(" ".join), st.booleans()), max_size=8),
                min_size=1, max_size=6),
       st.lists(words.map(" ".join), min_size=1, max_size=3))
def test_the_occurrences_kept_among_the_plans_grow_as_finding_them_again_would(rounds, queries):
    # Index._plans_added extends each kept term's occurrences among the plans with the plans
    # a batch adds, instead of finding them all again: the arrays (and so every score, to the
    # last bit) must be what a fresh index of the same documents finds.
    index = Index()
    made = 0
    for round_ in rounds:
        ids = [f"m{made + i:03d}" for i in range(len(round_))]
        made += len(round_)
        index.add(ids, [packed_terms(t) for t, _ in round_], [plan for _, plan in round_])
        for query in queries:
            index.top_plans(query_terms(query), 3)
    fresh = Index()
    fresh.add(list(index.ids), [packed_terms(t) for round_ in rounds for t, _ in round_],
              [plan for round_ in rounds for _, plan in round_])
    for query in queries:
        assert fresh.top_plans(query_terms(query), 3) == index.top_plans(query_terms(query), 3)
    for term, kept in index._plan_postings.items():
        found = fresh._plan_postings.get(term)
        if found is None:
            continue
        for mine, theirs in ((kept.at, found.at), (kept.lengths, found.lengths),
                             (kept.tf, found.tf), (kept.scores, found.scores)):
            assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes()
