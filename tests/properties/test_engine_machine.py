"""The engine against a model: hypothesis drives remember, recall, forget, pin, the clock, reopen
and ``as_of`` on a real LMDB store and checks, after every step, that

* the live state is what a plain Python model of the memories says (ids, statuses, pins, access
  and reinforcement counts, namespace, kind, text, times) and the log head is where it should be;
* recall never returns another namespace's memory or a deleted one;
* the live projections equal a rebuild from the log (``replay.rebuild``);
* reopening (cleanly, or after a "crash" without the closing snapshot) changes nothing;
* ``as_of(seq=n)`` and ``as_of(at=t)`` equal a rebuild up to that point, and the model as it was;
* ``verify()`` is ok.

A second property: the same program, run twice on fresh stores from the same clock start, writes
byte-identical logs; so does it without its reopens and snapshots (they are caches, not history),
and in other processes with other ``PYTHONHASHSEED``s (rule 2 of the design: nothing may depend
on hash order).

Runs with ``sync=False``: durability is tests/storage/test_log.py's subject, and fsyncs would
dominate the run.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Sequence
from dataclasses import astuple, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

import eventmem
import replay
from eventmem.clock import MICROS_PER_DAY, from_micros, to_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError, NotFoundError, ReadOnlyError
from eventmem.events import MemoriesStrengthened, memory_ids_of
from eventmem.policies.classify import classify
from eventmem.policies.gate import GateParams
from eventmem.policies.observer.rules import ObserverParams
from eventmem.recall.plan import is_chitchat
from eventmem.text.normalize import STOPWORDS, dedup_key
from tests import ROOT
from tests.strategies import (
    BASE_TEXTS,
    kinds,
    memory_ids,
    memory_texts,
    namespaces,
    queries,
    text_variants,
    time_advances,
)

pytestmark = pytest.mark.slow  # the state machine and its byte-identity runs

T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
BASE_STABILITY = Config().base_stability_days


# -- the model --------------------------------------------------------------------------------


def stored_form(text: str) -> str:
    """What the store keeps: NFC, stripped, whitespace runs collapsed to one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def same_text_key(text: str) -> str:
    """Texts with equal keys are one memory: equal up to case, spacing and compatibility forms
    (NFKC: fullwidth letters, ligatures...), as ``eventmem.text.normalize.dedup_key`` documents."""
    return " ".join(unicodedata.normalize("NFKC", stored_form(text)).casefold().split())


def words(text: str) -> set[str]:
    """The search words of an apostrophe-free text, as BM25 sees them (\\w+ of NFKC casefold)."""
    return set(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


@dataclass
class Mem:
    memory_id: str
    namespace: str
    text: str
    kind: str
    created_at: int
    last_access_at: int
    updated_seq: int
    status: str = "active"
    pinned: bool = False
    access_count: int = 0
    reinforce_count: int = 0
    done: bool = False  # a plan marked done (resolve_commitment)


class Model:
    """What the store should hold: memories in creation order, and which memory each
    (namespace, text key) currently lands in."""

    def __init__(self, now: int) -> None:
        self.clock = now  # what the ManualClock says
        self.memories: dict[str, Mem] = {}
        self.slots: dict[tuple[str, str], str] = {}
        self.seq = 1  # the store's first event registers the embedder
        self.event_times = [now]  # event_times[seq - 1]: the `at` of each event

    @property
    def now(self) -> int:
        """The time of the next event: the clock, but never before the last event (the log's
        time only moves forward, even when the clock is set back)."""
        return max(self.clock, self.event_times[-1])

    def append(self) -> int:
        self.seq += 1
        self.event_times.append(self.now)
        return self.seq

    def pick(self, index: int) -> Mem:
        return list(self.memories.values())[index % len(self.memories)]

    def remember(self, text: str, namespace: str, kind: str | None, result: Any) -> None:
        """Check one RememberResult against the model, then apply it."""
        seq = self.append()
        assert result.seq == seq
        slot = (namespace, same_text_key(text))
        existing = self.slots.get(slot)
        if existing is not None:
            event("remember: reinforced")
            assert (result.action, result.memory_id) == ("reinforced", existing)
            mem = self.memories[existing]
            mem.reinforce_count += 1
            mem.last_access_at = self.now
            mem.updated_seq = seq
            return
        assert result.action == "created", (text, namespace, result)
        if any(m.namespace == namespace and same_text_key(m.text) == slot[1]
               for m in self.memories.values()):
            event("remember: created anew after forget")
        assert re.fullmatch(r"mem_[0-9a-f]{16}", result.memory_id)
        assert result.memory_id not in self.memories
        self.memories[result.memory_id] = Mem(
            memory_id=result.memory_id, namespace=namespace, text=stored_form(text),
            kind=kind or classify(stored_form(text))[0], created_at=self.now,
            last_access_at=self.now,
            updated_seq=seq)
        self.slots[slot] = result.memory_id

    def recalled(self, memory_ids: Sequence[str]) -> None:
        seq = self.append()
        for mid in memory_ids:
            mem = self.memories[mid]
            mem.access_count += 1
            mem.last_access_at = self.now
            mem.updated_seq = seq

    def forget(self, mem: Mem) -> bool:
        """Whether forgetting ``mem`` writes an event (not when it is already deleted)."""
        if mem.status == "deleted":
            return False
        mem.status = "deleted"
        mem.updated_seq = self.append()
        self._leave_slot(mem)  # a new remember creates anew
        return True

    def _leave_slot(self, mem: Mem) -> None:
        """A deleted or superseded memory no longer absorbs its text (unless another memory,
        given the same text by an update since, holds the slot)."""
        slot = (mem.namespace, same_text_key(mem.text))
        if self.slots.get(slot) == mem.memory_id:
            del self.slots[slot]

    def update(self, mem: Mem, text: str, result: Any) -> None:
        """Check an update's RememberResult against the model, then apply it: a new memory
        with the text (kind and pin carried on), the old one superseded; the same text changes
        nothing."""
        if same_text_key(text) == same_text_key(mem.text):
            event("update: unchanged")
            assert (result.action, result.seq) == ("skipped", None)
            return
        event("update: new version")
        seq = self.append()
        assert (result.action, result.seq, result.neighbour) == ("updated", seq,
                                                                 mem.memory_id)
        assert result.memory_id not in self.memories
        self.memories[result.memory_id] = Mem(
            memory_id=result.memory_id, namespace=mem.namespace, text=stored_form(text),
            kind=mem.kind, created_at=self.now, last_access_at=self.now, updated_seq=seq,
            pinned=mem.pinned)
        mem.status, mem.updated_seq = "superseded", self.append()
        self._leave_slot(mem)
        self.slots[(mem.namespace, same_text_key(text))] = result.memory_id

    def set_pin(self, mem: Mem, pinned: bool) -> bool:
        if mem.pinned == pinned:
            return False
        mem.pinned = pinned
        mem.updated_seq = self.append()
        return True

    def resolve_commitment(self, mem: Mem) -> bool:
        """Whether marking ``mem`` done writes an event (not when it already is)."""
        if mem.done:
            return False
        mem.done = True
        mem.updated_seq = self.append()
        self._leave_slot(mem)  # a plan said again once done is a new one (as after expiry)
        return True

    def frozen(self) -> dict[str, tuple[Any, ...]]:
        return {mid: astuple(mem) for mid, mem in self.memories.items()}


def observed(reader: eventmem.Engine | eventmem.View) -> dict[str, tuple[Any, ...]]:
    """The reader's memories in the model's shape (updated_seq from the state projection)."""
    records = reader._views.state.memories
    out = {}
    for m in reader.memories():
        record = records[m.memory_id]
        out[m.memory_id] = astuple(Mem(
            memory_id=m.memory_id, namespace=m.namespace, text=m.text, kind=m.kind,  # type: ignore[arg-type]
            created_at=to_micros(m.created_at), last_access_at=to_micros(m.last_access_at),
            updated_seq=record.updated_seq, status=m.status, pinned=m.pinned,
            access_count=m.access_count, reinforce_count=record.reinforce_count,
            done=m.done_at is not None))
    return out


# -- the machine ------------------------------------------------------------------------------


class EngineMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="eventmem-stateful-")
        self.path = Path(self.dir) / "store"
        self.mem: eventmem.Engine  # opened by setup(), the first step of every run
        self.checks = 0
        self.history: dict[int, dict[str, tuple[Any, ...]]] = {}
        self.stabilities: dict[str, float] = {}  # the last stability seen of each memory

    def _open(self) -> eventmem.Engine:
        # sync=False: durability is not under test here and fsyncs would dominate the run time.
        return eventmem.open(self.path, clock=self.clock, config=self.config)

    @initialize(snapshot_every=st.sampled_from([4, 25, 50_000]), start=st.sampled_from([0, 1]))
    def setup(self, snapshot_every: int, start: int) -> None:
        self.clock = eventmem.ManualClock(start=T0 + timedelta(days=start))
        # The exact gate and no observer: the model predicts every decision, and that holds only
        # for exact duplicates (the semantic gate has its own properties in test_write_path).
        self.config = Config(sync=False, snapshot_every=snapshot_every,
                             gate=GateParams(mode="exact"),
                             observer=ObserverParams(enabled=False))
        self.mem = self._open()
        self.model = Model(to_micros(self.clock.now()))

    def teardown(self) -> None:
        try:
            mem: eventmem.Engine | None = getattr(self, "mem", None)
            if mem is not None and not mem._closed:
                report = mem.verify()
                assert report.ok, report.findings
                mem.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- writes -------------------------------------------------------------------------------

    @rule(text=memory_texts(), namespace=namespaces(), kind=st.none() | kinds())
    def remember(self, text: str, namespace: str, kind: str | None) -> None:
        result = self.mem.remember(text, namespace=namespace, kind=kind)
        self.model.remember(text, namespace, kind, result)

    @rule(data=st.data(), default_ns=namespaces())
    def remember_many(self, data: st.DataObject, default_ns: str) -> None:
        items = data.draw(st.lists(
            st.tuples(memory_texts(), st.none() | namespaces(), st.none() | kinds()),
            min_size=1, max_size=6))
        # Exact repeats and retyped variants inside the one batch.
        repeats = data.draw(st.lists(st.sampled_from(items), max_size=3))
        variants = data.draw(st.lists(
            st.sampled_from(items).flatmap(
                lambda item: text_variants(stored_form(item[0])).map(lambda t: (t, *item[1:]))),
            max_size=2))
        batch = data.draw(st.permutations(items + repeats + variants))
        payload: list[str | dict[str, Any]] = [
            text if ns is None and kind is None else {"text": text, "namespace": ns, "kind": kind}
            for text, ns, kind in batch
        ]
        results = self.mem.remember_many(payload, namespace=default_ns)
        assert len(results) == len(batch)
        for (text, ns, kind), result in zip(batch, results, strict=True):
            self.model.remember(text, ns or default_ns, kind, result)

    @rule(index=st.integers(min_value=0), data=st.data())
    def remember_again(self, index: int, data: st.DataObject) -> None:
        """Retype a stored text in its namespace: reinforces it, or creates it anew if forgotten."""
        if not self.model.memories:
            return
        mem = self.model.pick(index)
        text = data.draw(st.just(mem.text) | text_variants(mem.text))
        result = self.mem.remember(text, namespace=mem.namespace)
        self.model.remember(text, mem.namespace, None, result)

    @rule(index=st.integers(min_value=0))
    def forget(self, index: int) -> None:
        if not self.model.memories:
            return
        mem = self.model.pick(index)
        head = self.mem.head()
        writes = self.model.forget(mem)
        seq = self.mem.forget(mem.memory_id)
        assert seq == mem.updated_seq
        if not writes:
            assert self.mem.head() == head  # forgetting twice writes nothing

    @rule(index=st.integers(min_value=0), data=st.data())
    def update(self, index: int, data: st.DataObject) -> None:
        """Give a memory a new text (or its own again): a new version, or nothing; a deleted or
        superseded memory is refused and nothing is written."""
        if not self.model.memories:
            return
        mem = self.model.pick(index)
        text = data.draw(st.just(mem.text) | text_variants(mem.text) | memory_texts())
        if mem.status != "active":
            head = self.mem.head()
            with pytest.raises(InvalidInputError):
                self.mem.update(mem.memory_id, text)
            assert self.mem.head() == head
            return
        self.model.update(mem, text, self.mem.update(mem.memory_id, text))

    @rule(index=st.integers(min_value=0), pinned=st.booleans())
    def pin_or_unpin(self, index: int, pinned: bool) -> None:
        if not self.model.memories:
            return
        mem = self.model.pick(index)
        head = self.mem.head()
        writes = self.model.set_pin(mem, pinned)
        seq = self.mem.pin(mem.memory_id) if pinned else self.mem.unpin(mem.memory_id)
        assert seq == mem.updated_seq
        if not writes:
            assert self.mem.head() == head

    @rule(index=st.integers(min_value=0))
    def resolve_commitment(self, index: int) -> None:
        if not self.model.memories:
            return
        mem = self.model.pick(index)
        head = self.mem.head()
        if mem.kind != "plan":
            event("resolve_commitment: not a plan")
            with pytest.raises(InvalidInputError):
                self.mem.resolve_commitment(mem.memory_id)
            assert self.mem.head() == head
            return
        writes = self.model.resolve_commitment(mem)
        event(f"resolve_commitment: {'done' if writes else 'already done'}")
        assert self.mem.resolve_commitment(mem.memory_id) == mem.updated_seq
        if not writes:
            assert self.mem.head() == head
        assert self.mem.get(mem.memory_id).done_at is not None

    @rule(memory_id=memory_ids)
    def unknown_ids_are_refused(self, memory_id: str) -> None:
        if memory_id in self.model.memories:
            return
        head = self.mem.head()
        for call in (self.mem.get, self.mem.forget, self.mem.pin, self.mem.unpin,
                     self.mem.resolve_commitment):
            with pytest.raises(NotFoundError):
                call(memory_id)
        assert self.mem.head() == head

    # -- reads --------------------------------------------------------------------------------

    @rule(query=queries(), data=st.data(), k=st.integers(min_value=1, max_value=8),
          hidden=st.sampled_from([False, False, False, True]))
    def recall(self, query: str, data: st.DataObject, k: int, hidden: bool) -> None:
        # Mostly a namespace that holds memories, so that recalls have something to find.
        used = sorted({m.namespace for m in self.model.memories.values()})
        namespace = data.draw(namespaces() | st.sampled_from(used) | st.sampled_from(used)
                              if used else namespaces(), label="namespace")
        hits = self.mem.recall(query, namespace=namespace, k=k, include_hidden=hidden)
        ids = [h.memory_id for h in hits]
        assert len(ids) == len(set(ids)) <= k
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        for hit in hits:
            mem = self.model.memories[hit.memory_id]
            assert mem.namespace == namespace, "recall leaked another namespace's memory"
            assert hidden or mem.status == "active", "recall returned a deleted memory"
            assert hidden or not mem.done, "recall returned a commitment marked done"
            assert hit.text == mem.text
        # BM25 scores any shared word above zero, so a namespace holding a recallable memory
        # that shares a searched word with the query never answers with nothing.
        # The query's content words, when it has any (stopwords mean nothing in a question);
        # a greeting or a thank-you is answered with nothing (the pre-retrieval gate).
        query_words = words(query)
        query_words = {w for w in query_words if w not in STOPWORDS} or query_words
        if not is_chitchat(query) and any(
                m.namespace == namespace and (hidden or (m.status == "active" and not m.done))
                and query_words & words(m.text) and "'" not in m.text and "’" not in m.text
                for m in self.model.memories.values()):
            assert hits, f"nothing recalled for {query!r} in {namespace!r}"
        event(f"recall: {'hits' if hits else 'empty'}{' (hidden too)' if hidden else ''}")
        self.model.recalled(ids)
        if self.mem.seq > self.model.seq:  # co-activation of what it returned together
            [(seq, strengthened)] = list(self.mem.events(start=self.model.seq + 1))
            assert isinstance(strengthened, MemoriesStrengthened), strengthened
            assert strengthened.cause == "coactivation"
            assert len(strengthened.evidence) >= 2 and set(strengthened.evidence) <= set(ids[:5])
            assert seq == self.model.append()
            for mid in memory_ids_of(strengthened):
                self.model.memories[mid].updated_seq = seq

    @rule(delta=time_advances())
    def advance_clock(self, delta: timedelta) -> None:
        self.clock.advance(delta)
        self.model.clock = to_micros(self.clock.now())

    @rule(delta=time_advances())
    def set_clock_back(self, delta: timedelta) -> None:
        self.clock.set(self.clock.now() - delta)
        self.model.clock = to_micros(self.clock.now())

    @rule(clean=st.booleans())
    def reopen(self, clean: bool) -> None:
        head, digests = self.mem.head(), self.mem._views.digests()
        if clean:
            self.mem.close()
        else:
            # A crash: the process dies without the closing snapshot (private, no public way).
            self.mem._closed = True
            self.mem._log.close()
        self.mem = self._open()
        event(f"reopen: {self.mem.opened_from.split('@')[0].split('+')[0]}, "
              f"{'tail' if not self.mem.opened_from.endswith('+0') else 'no tail'}")
        assert self.mem.head() == head
        assert self.mem._views.digests() == digests
        if clean:
            # Closing snapshots the projections, so a clean reopen replays nothing.
            assert self.mem.opened_from == f"snapshot@{head.seq}+0", self.mem.opened_from

    @rule(data=st.data())
    def as_of(self, data: st.DataObject) -> None:
        head = self.mem.head()
        n = data.draw(st.integers(min_value=0, max_value=head.seq), label="seq")
        view = self.mem.as_of(seq=n)
        assert view.seq == n
        assert view._views.digests() == replay.rebuild(self.mem.store, until=n).digests()
        if n in self.history:
            event("as_of: compared with the model")
            assert list(observed(view).items()) == list(self.history[n].items())
            then = {mid: Mem(*fields) for mid, fields in self.history[n].items()}
            query, ns = data.draw(queries()), data.draw(namespaces())
            for hit in view.recall(query, namespace=ns, k=5):
                assert hit.memory_id in then, "the past leaked a later memory"
                assert then[hit.memory_id].namespace == ns
                assert then[hit.memory_id].status == "active", "the past leaked a later delete"
        assert view.now() == (from_micros(self.model.event_times[n - 1]) if n else from_micros(0))
        with pytest.raises(ReadOnlyError):
            view.remember("written through a view")
        with pytest.raises(ReadOnlyError):
            view.forget("mem_0000000000000000")

        times = self.model.event_times
        at = data.draw(st.integers(min_value=times[0] - 1, max_value=self.model.now), label="at")
        view = self.mem.as_of(at=from_micros(at))
        until = bisect.bisect_right(times, at)  # the last seq recorded at or before `at`
        assert view.seq == until
        assert view._views.digests() == replay.rebuild(self.mem.store, until=until).digests()
        assert self.mem.head() == head  # views never write

    # -- invariants ---------------------------------------------------------------------------

    @invariant()
    def live_state_is_the_model(self) -> None:
        mem, model = self.mem, self.model
        assert mem.head().seq == mem.seq == model.seq
        # Item lists, not dicts: memories() must also come in creation order.
        assert list(observed(mem).items()) == list(model.frozen().items())
        assert mem.now() == from_micros(model.now)
        now = model.now
        for m in model.memories.values():
            got = mem.get(m.memory_id)
            # Stability is the decay policy's (kind, flashbulb boost, spacing effect): here only
            # its properties. It starts at least at the kind's base and never falls, and the
            # retention is the exponential curve over it since the model's last access.
            assert got.stability >= BASE_STABILITY[m.kind] - 1e-9
            assert got.stability >= self.stabilities.get(m.memory_id, 0.0) - 1e-9
            self.stabilities[m.memory_id] = got.stability
            days = max(0, now - m.last_access_at) / MICROS_PER_DAY
            # (never below its category's floor: corrections and preferences)
            floor = Config().decay.category_floor.get(got.category, 0.0)
            assert got.retention == pytest.approx(max(floor, math.exp(-days / got.stability)))
        for ns in {m.namespace for m in model.memories.values()}:
            assert [m.memory_id for m in mem.memories(namespace=ns)] == [
                mid for mid, m in model.memories.items() if m.namespace == ns]
        self.history[model.seq] = model.frozen()

    @invariant()
    def live_projections_equal_a_rebuild(self) -> None:
        assert replay.rebuild(self.mem.store).digests() == self.mem._views.digests()
        self.checks += 1
        if self.checks % 10 == 0:
            report = self.mem.verify()
            assert report.ok, report.findings


EngineMachine.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngineMachine = EngineMachine.TestCase


# -- small properties the machine leans on ----------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(base=st.sampled_from(BASE_TEXTS), data=st.data())
def test_text_variants_are_one_memory(base: str, data: st.DataObject) -> None:
    variant = data.draw(text_variants(base))
    assert same_text_key(variant) == same_text_key(base)
    assert dedup_key(stored_form(variant)) == dedup_key(stored_form(base))


@settings(max_examples=200, deadline=None)
@given(a=memory_texts(), b=memory_texts())
def test_model_key_agrees_with_the_engine(a: str, b: str) -> None:
    engine_same = dedup_key(stored_form(a)) == dedup_key(stored_form(b))
    assert engine_same == (same_text_key(a) == same_text_key(b))


# -- same inputs, same bytes ------------------------------------------------------------------

_item = st.tuples(memory_texts(), namespaces(), st.none() | kinds())
programs = st.lists(
    st.one_of(
        st.tuples(st.just("remember"), _item),
        st.tuples(st.just("remember_many"), st.lists(_item, min_size=1, max_size=5)),
        st.tuples(st.just("recall"), queries(), namespaces(), st.integers(1, 8)),
        st.tuples(st.sampled_from(["forget", "pin", "unpin"]), st.integers(0, 1000)),
        st.tuples(st.just("advance"), st.integers(0, 400 * 86_400)),
        st.tuples(st.just("reopen")),
    ),
    max_size=25,
)


def run_program(
    path: str | Path, program: Sequence[Sequence[Any]], *, snapshot_every: int = 7
) -> list[str]:
    """Run ``program`` on a fresh store at ``path``; every log record (prev hash and payload)
    as hex. JSON-friendly, so another process can run it too."""
    clock = eventmem.ManualClock(start=T0)
    config = Config(sync=False, snapshot_every=snapshot_every)
    mem = eventmem.open(path, clock=clock, config=config)
    created: list[str] = []
    try:
        for op, *args in program:
            if op == "remember":
                text, ns, kind = args[0]
                results = [mem.remember(text, namespace=ns, kind=kind)]
            elif op == "remember_many":
                results = mem.remember_many(
                    [{"text": t, "namespace": ns, "kind": kind} for t, ns, kind in args[0]])
            elif op == "recall":
                mem.recall(args[0], namespace=args[1], k=args[2])
                continue
            elif op in ("forget", "pin", "unpin"):
                if created:
                    getattr(mem, op)(created[args[0] % len(created)])
                continue
            elif op == "advance":
                clock.advance(timedelta(seconds=args[0]))
                continue
            elif op == "reopen":
                mem.close()
                mem = eventmem.open(path, clock=clock, config=config)
                continue
            else:
                raise InvalidInputError(f"unknown op {op!r}")
            created += [r.memory_id for r in results if r.memory_id and r.action == "created"]
        return [(r.prev_hash + r.payload).hex() for r in mem.store.iter_raw()]
    finally:
        mem.close()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs)
def test_same_program_writes_the_same_bytes(program: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        first = run_program(Path(tmp) / "a", program)
        second = run_program(Path(tmp) / "b", program)
        # Snapshots and reopens are caches and lifecycle, not history: the log cannot tell.
        uncached = run_program(Path(tmp) / "c", [op for op in program if op[0] != "reopen"],
                               snapshot_every=1_000_000)
    assert first == second == uncached
    writes = sum(len(op[1]) if op[0] == "remember_many" else op[0] in ("remember", "recall")
                 for op in program)
    assert len(first) >= 1 + writes


_RUNNER = """
import json, sys
from tests.properties.test_engine_machine import run_program
print(json.dumps(run_program(sys.argv[1], json.load(sys.stdin))))
"""


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs.filter(lambda p: len(p) >= 5))
def test_same_bytes_in_other_processes_and_hash_seeds(program: list[Any]) -> None:
    outputs = []
    with tempfile.TemporaryDirectory() as tmp:
        expected = run_program(Path(tmp) / "here", program)
        for seed in ("0", "4242"):
            env = {**os.environ, "PYTHONHASHSEED": seed,
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                               os.environ.get("PYTHONPATH")]))}
            done = subprocess.run(
                [sys.executable, "-c", _RUNNER, str(Path(tmp) / f"seed{seed}")],
                input=json.dumps(program), capture_output=True, text=True, env=env, cwd=ROOT,
                timeout=120, check=False)
            assert done.returncode == 0, done.stderr
            outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == expected
