"""Bad input is refused with a clear error that names the problem, and the store is unchanged:
same head, same projections, and it still verifies."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem import (
    ClosedError,
    EmbedderMismatchError,
    InvalidInputError,
    NotFoundError,
    ReadOnlyError,
)
from ops.drills import fuzz

NAIVE = datetime(2025, 1, 1, 12, 0)


@pytest.fixture
def full(mem: eventmem.Engine, clock: eventmem.ManualClock) -> eventmem.Engine:
    """The engine with a few memories in two namespaces."""
    mem.remember("Alice lives in Berlin", namespace="alice", kind="event")
    clock.advance(timedelta(hours=1))
    mem.remember_many(["Bob likes tea", "Bob has a cat"], namespace="bob")
    mem.recall("tea", namespace="bob")
    return mem


def _state(mem: eventmem.Engine) -> tuple[Any, ...]:
    report = mem.verify()
    assert report.ok, report.findings
    return mem.head(), report.digests, mem.store.stats()["blobs"], mem.store.stats()["vectors"]


def assert_refused(mem: eventmem.Engine, call: Callable[[], object], error: type[Exception],
                   match: str) -> None:
    before = _state(mem)
    with pytest.raises(error, match=match):
        call()
    assert _state(mem) == before


# -- remember ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "   \n\t  ", "\u3000\u2003"])
def test_empty_or_whitespace_text(full: eventmem.Engine, text: str) -> None:
    assert_refused(full, lambda: full.remember(text), InvalidInputError, "empty or only whitespace")


@pytest.mark.parametrize("text", [None, 42, b"bytes", ["a list"]])
def test_text_that_is_not_a_str(full: eventmem.Engine, text: Any) -> None:
    assert_refused(full, lambda: full.remember(text), InvalidInputError, "text must be a str")


def test_text_over_the_limit(full: eventmem.Engine) -> None:
    limit = full.config.max_text_chars
    assert_refused(full, lambda: full.remember("x" * (limit + 1)), InvalidInputError,
                   rf"{limit + 1} characters, over the limit of {limit}")
    # Exactly at the limit passes the input checks (the observer then judges it: a 16k-char
    # run of one letter is not worth remembering, and that is recorded, not raised).
    result = full.remember("y" * limit)
    assert (result.action, result.rule) == ("rejected", "too_long")


def test_text_over_a_configured_limit(store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock,
                       config=eventmem.Config(max_text_chars=10)) as mem:
        assert_refused(mem, lambda: mem.remember("eleven char"), InvalidInputError,
                       "over the limit of 10")
        # The limit is on the stored (normalized) form: surrounding space does not count.
        assert mem.remember("   0123456789   ").action == "created"


@pytest.mark.parametrize("text", ["\ud800", "abc\udfffdef", "ok \ud83d then"])
def test_lone_surrogates(full: eventmem.Engine, text: str) -> None:
    assert_refused(full, lambda: full.remember(text), InvalidInputError,
                   "not valid Unicode.*lone surrogate")


def test_nul_character(full: eventmem.Engine) -> None:
    assert_refused(full, lambda: full.remember("a\x00b"), InvalidInputError, "NUL")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -0.1, 1.5, True, False, "0.5"])
def test_bad_importance(full: eventmem.Engine, value: Any) -> None:
    assert_refused(full, lambda: full.remember("a fact", importance=value), InvalidInputError,
                   "importance must be a .*number in \\[0, 1\\]")


@pytest.mark.parametrize("value", [math.nan, 2, -1, True])
def test_bad_confidence(full: eventmem.Engine, value: Any) -> None:
    assert_refused(full, lambda: full.remember("a fact", confidence=value), InvalidInputError,
                   "confidence must be")


@pytest.mark.parametrize("kind", ["fact", "", "Event", 3])
def test_unknown_kind(full: eventmem.Engine, kind: Any) -> None:
    assert_refused(full, lambda: full.remember("a fact", kind=kind), InvalidInputError,
                   "unknown kind .*use one of identity, preference")


@pytest.mark.parametrize("source", ["robot", "", "User", None])
def test_unknown_source(full: eventmem.Engine, source: Any) -> None:
    assert_refused(full, lambda: full.remember("a fact", source=source), InvalidInputError,
                   "unknown source .*use one of user, agent")


@pytest.mark.parametrize("field", ["valid_from", "valid_until"])
def test_naive_valid_times(full: eventmem.Engine, field: str) -> None:
    assert_refused(full, lambda: full.remember("a fact", **{field: NAIVE}), InvalidInputError,
                   f"{field} is a naive datetime.*timezone-aware")


@pytest.mark.parametrize("field", ["valid_from", "valid_until"])
def test_valid_times_that_are_not_datetimes(full: eventmem.Engine, field: str) -> None:
    assert_refused(full, lambda: full.remember("a fact", **{field: "2025-01-01"}),
                   InvalidInputError, f"{field} must be a datetime")


@pytest.mark.parametrize("gap", [timedelta(0), timedelta(seconds=-1), timedelta(days=-30)])
def test_valid_until_not_after_valid_from(full: eventmem.Engine, t0: datetime,
                                          gap: timedelta) -> None:
    assert_refused(full, lambda: full.remember("a fact", valid_from=t0, valid_until=t0 + gap),
                   InvalidInputError, "valid_until must be after valid_from")


@pytest.mark.parametrize("namespace", ["", None, 5, b"alice", ["alice"], False, "a\nb", "x" * 129])
def test_bad_namespace_on_remember(full: eventmem.Engine, namespace: Any) -> None:
    assert_refused(full, lambda: full.remember("a fact", namespace=namespace), InvalidInputError,
                   "namespace")


@pytest.mark.parametrize("field,value,match", [
    ("pinned", "yes", "pinned must be True or False"),
    ("immutable", 1, "immutable must be True or False"),
    ("tags", "one-tag", "tags must be a sequence of str"),
    ("tags", ["ok", ""], "each of tags must be a non-empty str"),
    ("refs", [3], "each of refs must be a non-empty str"),
    ("tags", [f"t{i}" for i in range(257)], "tags takes at most 256 items, got 257"),
])
def test_bad_flags_and_labels(full: eventmem.Engine, field: str, value: Any, match: str) -> None:
    assert_refused(full, lambda: full.remember("a fact", **{field: value}), InvalidInputError,
                   match)


# -- forget ------------------------------------------------------------------------------------


@pytest.mark.parametrize("reason", [1.5, None, ["a"], "", "She said: I moved out", "x" * 65])
def test_bad_forget_reason(full: eventmem.Engine, reason: Any) -> None:
    # Issue 15: forget(reason=1.5) once appended an event that never decoded again. A reason is a
    # short code, as erase's is: prose would stay in the immutable log past any erasure.
    mid = full.remember("Carol plays chess", namespace="alice").memory_id
    assert_refused(full, lambda: full.forget(mid, reason=reason), InvalidInputError,
                   "reason must be a short code")
    assert full.get(mid).status == "active"
    assert full.forget(mid, reason="outdated") == full.head().seq
    assert full.history(mid)[-1].details["reason"] == "outdated"


# -- remember_many -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad,match", [
    ("   ", "item 2: text is empty"),
    ({"text": "fine", "importance": math.nan}, "item 2: importance"),
    ({"text": "fine", "kind": "nope"}, "item 2: unknown kind"),
    ({"text": "fine", "valid_from": NAIVE}, "item 2: valid_from is a naive datetime"),
    ({"text": "fine", "colour": "red"}, r"item 2: unknown fields \['colour'\]"),
    ({"text": "fine", "namespace": ""}, "item 2: namespace"),
    (42, "item 2: expected a str or a mapping, got int"),
    ("\ud800", "item 2: text is not valid Unicode"),
])
def test_batch_with_one_bad_item_in_the_middle_writes_nothing(
    full: eventmem.Engine, bad: Any, match: str
) -> None:
    batch = ["first new fact", "second new fact", bad, "fourth new fact",
             "Alice lives in Berlin"]
    assert_refused(full, lambda: full.remember_many(batch, namespace="alice"), InvalidInputError,
                   match)
    # Nothing of the good items either: they are all still new afterwards.
    good = [item for item in batch if item is not bad]
    assert [r.action for r in full.remember_many(good, namespace="alice")] == [
        "created", "created", "created", "reinforced"]


@pytest.mark.parametrize("items", ["a single text", b"bytes", {"text": "a mapping"}])
def test_batch_that_is_not_a_list_of_items(full: eventmem.Engine, items: Any) -> None:
    assert_refused(full, lambda: full.remember_many(items), InvalidInputError,
                   "list of texts or mappings")


def test_batch_with_a_bad_default_namespace(full: eventmem.Engine) -> None:
    assert_refused(full, lambda: full.remember_many(["x"], namespace=""), InvalidInputError,
                   "namespace must be a non-empty str")


def test_empty_batch_writes_nothing(full: eventmem.Engine) -> None:
    before = _state(full)
    assert full.remember_many([]) == []
    assert _state(full) == before


# -- reads -------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, -1, True, 10**9, 2.0, "5", None])
def test_bad_k(full: eventmem.Engine, k: Any) -> None:
    assert_refused(full, lambda: full.recall("tea", namespace="bob", k=k), InvalidInputError,
                   "k must be an int from 1 to 1000")


@pytest.mark.parametrize("query,match", [
    ("", "query is empty"), ("  \n ", "query is empty"), (None, "query must be a str"),
    (7, "query must be a str"), ("\udc80", "query is not valid Unicode"),
])
def test_bad_query(full: eventmem.Engine, query: Any, match: str) -> None:
    assert_refused(full, lambda: full.recall(query, namespace="bob"), InvalidInputError, match)


@pytest.mark.parametrize("namespace", [None, 5, b"bob", "", ("bob",)])
def test_bad_namespace_on_recall(full: eventmem.Engine, namespace: Any) -> None:
    assert_refused(full, lambda: full.recall("tea", namespace=namespace), InvalidInputError,
                   "namespace must be a non-empty str")


def test_naive_times_on_reads(full: eventmem.Engine) -> None:
    mid = next(full.memories()).memory_id
    assert_refused(full, lambda: full.recall("tea", namespace="bob", valid_at=NAIVE),
                   InvalidInputError, "valid_at is a naive datetime")
    assert_refused(full, lambda: full.get(mid, valid_at=NAIVE), InvalidInputError,
                   "valid_at is a naive datetime")
    assert_refused(full, lambda: full.as_of(at=NAIVE), InvalidInputError,
                   "at is a naive datetime")


@pytest.mark.parametrize("kwargs,match", [
    ({}, "exactly one of at= or seq="),
    ({"seq": 1, "at": datetime(2025, 1, 1, tzinfo=UTC)}, "exactly one of at= or seq="),
    ({"seq": -1}, "seq must be an int from 0 to the head"),
    ({"seq": 10**6}, "seq must be an int from 0 to the head"),
    ({"seq": True}, "seq must be an int"),
    ({"seq": "2"}, "seq must be an int"),
])
def test_bad_as_of(full: eventmem.Engine, kwargs: dict[str, Any], match: str) -> None:
    assert_refused(full, lambda: full.as_of(**kwargs), InvalidInputError, match)


def test_naive_clock_start(t0: datetime) -> None:
    with pytest.raises(InvalidInputError, match="start is a naive datetime"):
        eventmem.ManualClock(start=NAIVE)
    clock = eventmem.ManualClock(start=t0)
    with pytest.raises(InvalidInputError, match="naive"):
        clock.set(NAIVE)
    with pytest.raises(InvalidInputError, match="non-negative"):
        clock.advance(timedelta(seconds=-1))
    assert clock.now() == t0


def test_a_clock_that_returns_naive_times_writes_nothing(full: eventmem.Engine) -> None:
    class NaiveClock:
        def now(self) -> datetime:
            return NAIVE

    full.clock = NaiveClock()
    assert_refused(full, lambda: full.remember("new fact"), InvalidInputError,
                   r"clock.now\(\) is a naive datetime")


# -- read-only views and stores ----------------------------------------------------------------


def _writes(target: Any, memory_id: str) -> dict[str, Callable[[], object]]:
    return {
        "remember": lambda: target.remember("a new fact", namespace="bob"),
        "remember_many": lambda: target.remember_many(["x", "y"], namespace="bob"),
        "forget": lambda: target.forget(memory_id),
        "pin": lambda: target.pin(memory_id),
        "unpin": lambda: target.unpin(memory_id),
    }


@pytest.mark.parametrize("write", ["remember", "remember_many", "forget", "pin", "unpin"])
@pytest.mark.parametrize("how", ["seq", "at"])
def test_writes_on_an_as_of_view(full: eventmem.Engine, write: str, how: str) -> None:
    mid = next(full.memories(namespace="bob")).memory_id
    full.pin(mid)  # so that unpin would have something to do
    view = full.as_of(seq=full.seq) if how == "seq" else full.as_of(at=full.now())
    before_view = [(m.memory_id, m.pinned, m.status) for m in view.memories()]
    assert_refused(full, _writes(view, mid)[write], ReadOnlyError, "read-only view")
    assert [(m.memory_id, m.pinned, m.status) for m in view.memories()] == before_view


def test_reads_on_a_view_do_not_write(full: eventmem.Engine) -> None:
    view = full.as_of(seq=full.seq)
    before = _state(full)
    assert view.recall("tea", namespace="bob")
    assert view.get(view.recall("tea", namespace="bob")[0].memory_id).namespace == "bob"
    assert _state(full) == before


@pytest.mark.parametrize("write", ["remember", "remember_many", "forget", "pin", "unpin",
                                   "snapshot"])
def test_writes_on_a_readonly_engine(store_path: Path, clock: eventmem.ManualClock,
                                     write: str) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mid = mem.remember("Alice lives in Berlin", namespace="bob").memory_id
        head = mem.head()
    reader = eventmem.open(store_path, clock=clock, readonly=True)
    try:
        calls = _writes(reader, mid) | {"snapshot": reader.snapshot}
        with pytest.raises(ReadOnlyError, match="read-only"):
            calls[write]()
        assert reader.recall("Berlin", namespace="bob")  # reads work, and append nothing
        assert reader.head() == head
    finally:
        reader.close()
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.head() == head
        assert mem.get(mid).pinned is False
        assert mem.verify().ok


# -- unknown ids -------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["get", "forget", "pin", "unpin", "history"])
@pytest.mark.parametrize("memory_id", ["mem_0000000000000000", "", 17, None])
def test_unknown_memory_id(full: eventmem.Engine, op: str, memory_id: Any) -> None:
    assert_refused(full, lambda: getattr(full, op)(memory_id), NotFoundError,
                   f"no memory {memory_id!r}")


def test_memory_unknown_to_a_view_of_the_past(full: eventmem.Engine) -> None:
    view = full.as_of(seq=full.seq)
    mid = full.remember("learned after the view", namespace="bob").memory_id
    with pytest.raises(NotFoundError, match=mid):
        view.get(mid)
    with pytest.raises(NotFoundError, match=mid):
        view.history(mid)


def test_not_found_is_also_a_key_error(full: eventmem.Engine) -> None:
    with pytest.raises(KeyError):
        full.get("mem_missing")


# -- the store ---------------------------------------------------------------------------------


def test_reopening_with_another_embedder(store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember("made with the default embedder")
        head, digests = mem.head(), mem.verify().digests
        stored = mem.embedder.embedder_id
    other = eventmem.HashingEmbedder(dim=128)
    assert other.embedder_id != stored
    with pytest.raises(EmbedderMismatchError, match=stored):
        eventmem.open(store_path, clock=clock, embedder=other)
    # The failed open released the store and changed nothing.
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.head() == head
        assert mem.verify().digests == digests
    # The same embedder, given explicitly, is fine.
    with eventmem.open(store_path, clock=clock, embedder=eventmem.HashingEmbedder()) as mem:
        assert mem.embedder.embedder_id == stored


@pytest.fixture
def closed(store_path: Path, clock: eventmem.ManualClock) -> Iterator[tuple[Any, ...]]:
    mem = eventmem.open(store_path, clock=clock)
    mid = mem.remember("a fact before closing").memory_id
    view = mem.as_of(seq=mem.seq)
    mem.close()
    yield mem, view, mid


CLOSED_CALLS: dict[str, Callable[[Any, str], object]] = {
    "remember": lambda m, i: m.remember("x"),
    "remember_many": lambda m, i: m.remember_many(["x"]),
    "recall": lambda m, i: m.recall("fact"),
    "get": lambda m, i: m.get(i),
    "history": lambda m, i: m.history(i),
    "memories": lambda m, i: list(m.memories()),
    "events": lambda m, i: list(m.events()),
    "stats": lambda m, i: m.stats(),
    "seq": lambda m, i: m.seq,
    "forget": lambda m, i: m.forget(i),
    "pin": lambda m, i: m.pin(i),
    "unpin": lambda m, i: m.unpin(i),
    "as_of": lambda m, i: m.as_of(seq=1),
    "verify": lambda m, i: m.verify(),
    "head": lambda m, i: m.head(),
    "snapshot": lambda m, i: m.snapshot(),
    "refresh": lambda m, i: m.refresh(),
}


@pytest.mark.parametrize("call", sorted(CLOSED_CALLS))
def test_closed_engine(closed: tuple[Any, ...], call: str) -> None:
    mem, _, mid = closed
    with pytest.raises(ClosedError, match="closed"):
        CLOSED_CALLS[call](mem, mid)
    mem.close()  # closing twice is harmless


@pytest.mark.parametrize("call", ["recall", "get", "history", "memories", "events"])
def test_view_of_a_closed_engine(closed: tuple[Any, ...], call: str) -> None:
    _, view, mid = closed
    with pytest.raises(ClosedError, match="closed"):
        CLOSED_CALLS[call](view, mid)


@pytest.mark.parametrize("bad", [{"default_kind": "memo"}, {"base_stability_days": {"plan": 3.0}}])
def test_a_config_that_cannot_work_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(eventmem.InvalidInputError):
        eventmem.Config(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["valid_from", "valid_until"])
@pytest.mark.parametrize("when", [datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
                                  datetime(9999, 12, 31, 23, 59,
                                           tzinfo=timezone(timedelta(hours=-1)))])
def test_a_time_outside_the_representable_range_is_refused(mem, field, when):
    # Before: accepted, and every get()/history() of the memory raised OverflowError for good.
    mem.remember("seed memory about tea")
    head = mem.head()
    with pytest.raises(eventmem.InvalidInputError, match=f"{field} is outside the years"):
        mem.remember_many([{"text": "Carol started learning the violin", field: when}])
    assert mem.head() == head


def test_unknown_keys_of_mixed_types_are_an_invalid_input(mem):
    # Before: TypeError from sorting an int key beside a str one.
    head = mem.head()
    with pytest.raises(eventmem.InvalidInputError, match="unknown fields"):
        mem.remember_many([{"text": "Carol likes jazz", 1: 2, "colour": "red"}])
    assert mem.head() == head


# -- any public call: an eventmem error or success, never a raw exception ----------------------


def test_a_batch_that_is_not_iterable(full: eventmem.Engine) -> None:
    for items in (None, 5, 1.5, object()):
        assert_refused(full, lambda items=items: full.remember_many(items), InvalidInputError,
                       "list of texts or mappings")


@pytest.mark.parametrize("start,stop", [("a", None), (1, "b"), (-1, None), (1, 2**70),
                                        (True, None), (1.0, None), (None, 3)])
def test_bad_seqs_on_events(full: eventmem.Engine, start: Any, stop: Any) -> None:
    assert_refused(full, lambda: list(full.events(start, stop)), InvalidInputError,
                   "must be an int from 0")
    view = full.as_of(seq=full.seq)
    assert_refused(full, lambda: list(view.events(start, stop)), InvalidInputError,
                   "must be an int from 0")


@pytest.mark.parametrize("head", ["x", 5, (1,), (1, "ab"), ("x", bytes(32)), (-1, bytes(32)),
                                  (1, b"short")])
def test_bad_expected_head_on_verify(full: eventmem.Engine, head: Any) -> None:
    assert_refused(full, lambda: full.verify(expected_head=head), InvalidInputError,
                   "expected_head")
    saved = full.head()
    assert full.verify(expected_head=(saved.seq, saved.hash)).ok  # a plain pair works too


@pytest.mark.parametrize("kwargs,match", [({"until": "a"}, "until"), ({"until": -1}, "until"),
                                          ({"tolerance": "x"}, "tolerance"),
                                          ({"tolerance": math.nan}, "tolerance"),
                                          ({"tolerance": -1.0}, "tolerance")])
def test_bad_audit_options(full: eventmem.Engine, kwargs: dict[str, Any], match: str) -> None:
    assert_refused(full, lambda: full.audit(**kwargs), InvalidInputError, match)


@pytest.mark.parametrize("now", [
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),  # year 0 in UTC
    datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))),  # year 10000 in UTC
])
def test_consolidate_at_a_time_outside_the_utc_years_writes_nothing(
    full: eventmem.Engine, now: datetime
) -> None:
    # It used to append its events and then fail with OverflowError showing ``now`` back.
    full.forget(full.remember("Bob has a dog", namespace="bob").memory_id)
    assert_refused(full, lambda: full.consolidate(now=now), InvalidInputError,
                   "outside the years 1 to 9999")
    assert_refused(full, lambda: full.as_of(at=now), InvalidInputError, "outside the years")


@pytest.mark.parametrize("start", [datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
                                   datetime.max.replace(tzinfo=timezone(timedelta(hours=-1)))])
def test_a_clock_outside_the_utc_years_is_refused(start: datetime) -> None:
    with pytest.raises(InvalidInputError, match="outside the years 1 to 9999"):
        eventmem.ManualClock(start=start)


@pytest.mark.parametrize("kwargs", [{"max_k": "5"}, {"max_k": True}, {"sync": 1},
                                    {"mmr_lambda": "high"}, {"decay": 3},
                                    {"base_stability_days": {"event": "long"}},
                                    {"ops_log_files": None}])
def test_a_config_field_of_the_wrong_type_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError, match=f"Config.{next(iter(kwargs))}"):
        eventmem.Config(**kwargs)
    assert eventmem.Config(mmr_lambda=1).mmr_lambda == 1  # an int is a float


def test_links_of_an_id_that_is_not_a_str(full: eventmem.Engine) -> None:
    assert_refused(full, lambda: full.graph.links(["a"]), InvalidInputError,  # type: ignore
                   "memory_id must be a str")


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, ...]]:
    """One store for every fuzzed example (it grows as they run), with its view and context."""
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    store = tmp_path_factory.mktemp("fuzz") / "store"
    mem = eventmem.open(store, clock=clock)
    ctx = fuzz.Context(store=store)
    fuzz.seed_store(mem, ctx)
    try:
        yield mem, ctx, clock
    finally:
        mem.close()


@pytest.mark.parametrize("where", fuzz.SURFACE, ids="{0[0]}.{0[1]}".format)
@settings(max_examples=12, deadline=None)
@given(rng=st.randoms(use_true_random=False), hostile_share=st.sampled_from([0.2, 0.5, 0.9]))
def test_any_public_call_succeeds_or_raises_an_eventmem_error_and_writes_nothing_if_refused(
    fuzzed: tuple[Any, ...], where: tuple[str, str], rng: Any, hostile_share: float
) -> None:
    # The calls and hostile values are those of the fuzz drill (ops/drills/fuzz.py): every
    # public method of the engine, of an as_of view and of their graph readers, and the
    # module's constructors, each argument plausible or hostile (None, NaN, 2**70, a naive or
    # out-of-range time, a NUL, a lone surrogate, a list, an object...).
    mem, ctx, clock = fuzzed
    clock.advance(timedelta(minutes=rng.randint(0, 600)))
    view = mem.as_of(seq=mem.seq)
    tally = fuzz.Tally()
    call = fuzz.fuzzed_call(rng, ctx, hostile_share=hostile_share, only=where)
    fuzz.check_call(call, mem, view, tally)  # ctx stays as seeded: draws depend on rng only
    assert tally.raw == []
    assert tally.head_changed == []


def test_the_fuzzed_store_still_verifies_and_reopens(fuzzed: tuple[Any, ...]) -> None:
    mem = fuzzed[0]
    report = mem.verify()
    assert report.ok, report.findings
    assert mem.audit().ok


@pytest.mark.parametrize("kwargs,match", [
    ({"clock": "now"}, "clock must have a now"),
    ({"embedder": object()}, "embedder must have embed"),
    ({"summarizer": 5}, "summarizer must have a summarize"),
    ({"config": {"max_k": 5}}, "config must be an eventmem.Config"),
    ({"readonly": "yes"}, "readonly must be True or False"),
])
def test_open_refuses_what_it_cannot_plug_in(store_path: Path, kwargs: dict[str, Any],
                                             match: str) -> None:
    # Each used to be accepted and to fail later, inside some call, with an AttributeError.
    with pytest.raises(InvalidInputError, match=match):
        eventmem.open(store_path, **kwargs)
    with eventmem.open(store_path) as mem:  # the refused open left the store free
        assert mem.head().seq == 1
