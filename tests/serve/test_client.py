"""``eventmem.connect``: the engine's API contract, checked on an in-process engine and, the same
checks, through a real server process; switching is one line."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import eventmem
from tests.serve.conftest import Served

_names = itertools.count()


@pytest.fixture(params=["engine", "client"])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The same API in process (``eventmem.open``) and remote (``eventmem.connect``)."""
    if request.param == "engine":
        with eventmem.open(tmp_path / "store") as engine:
            yield engine
    else:
        served: Served = request.getfixturevalue("server")
        with eventmem.connect(served.url) as client:
            yield client


@pytest.fixture
def ns() -> str:
    """A namespace of this test's own (the remote store is shared by the module)."""
    return f"contract-{next(_names)}"


def test_exact_duplicates_reinforce_per_namespace(mem: Any, ns: str) -> None:
    first = mem.remember("Alice prefers tea over coffee", namespace=ns)
    assert isinstance(first, eventmem.RememberResult) and first.action == "created"
    again = mem.remember("alice prefers  tea over coffee", namespace=ns)
    assert (again.action, again.memory_id) == ("reinforced", first.memory_id)
    other = mem.remember("Alice prefers tea over coffee", namespace=ns + "-other")
    assert other.action == "created" and other.memory_id != first.memory_id


def test_memories_are_listed_filtered_and_paged(mem: Any, ns: str) -> None:
    made = [mem.remember(f"note {i} about the {w}", namespace=ns, tags=["n"] if i % 2 else [])
            .memory_id for i, w in enumerate(["garden", "boat", "roof", "piano", "attic"])]
    mem.forget(made[0], reason="outdated")
    assert [m.memory_id for m in mem.memories(namespace=ns)] == made
    assert [m.memory_id for m in mem.memories(namespace=ns, status="active")] == made[1:]
    assert [m.memory_id for m in mem.memories(namespace=ns, tags=["n"])] == [made[1], made[3]]
    first = [m.memory_id for m in mem.memories(namespace=ns, limit=2)]
    rest = [m.memory_id for m in mem.memories(namespace=ns, limit=10, cursor=first[-1])]
    assert first + rest == made
    assert isinstance(mem.memories(namespace=ns)[0] if isinstance(
        mem.memories(namespace=ns), list) else next(mem.memories(namespace=ns)), eventmem.Memory)
    assert ns in mem.namespaces()
    with pytest.raises(eventmem.InvalidInputError):
        list(mem.memories(namespace=ns, status="alive"))


def test_remember_many_is_one_batch(mem: Any, ns: str) -> None:
    results = mem.remember_many(["Carol plays the cello", "carol plays the cello",
                                 {"text": "Dan works at Acme", "kind": "relationship"}],
                                namespace=ns)
    assert [r.action for r in results] == ["created", "reinforced", "created"]
    assert mem.get(results[2].memory_id).kind == "relationship"


def test_recall_is_isolated_and_explained(mem: Any, ns: str) -> None:
    created = mem.remember("Alice moved to Berlin in March", namespace=ns)
    hits = mem.recall("which city did alice move to?", namespace=ns, k=2)
    assert isinstance(hits[0], eventmem.Hit) and hits[0].memory_id == created.memory_id
    assert {"vector_rank", "bm25_rank"} <= set(hits[0].signals)
    assert hits[0].created_at.tzinfo is not None
    assert mem.recall("which city did alice move to?", namespace=ns + "-x") == []


def test_recall_takes_a_session_and_the_hot_tier(mem: Any, ns: str) -> None:
    created = mem.remember("Alice moved to Berlin in March", namespace=ns, session="s1")
    hits = mem.recall("which city did alice move to?", namespace=ns, k=2, session="s1",
                      include_hot=True)
    assert hits[0].memory_id == created.memory_id
    assert hits[0].signals["session_boost"] == pytest.approx(0.15)


def test_recall_returns_box_neighbours_when_asked(mem: Any, ns: str) -> None:
    said = [mem.remember(text, namespace=ns, session="s1").memory_id
            for text in ("Alice adopted a puppy named Rex", "Rex the puppy chews shoes")]
    [hit] = mem.recall("chews shoes", namespace=ns, k=1, box_context=1)
    assert hit.memory_id == said[1] and hit.box_id == f"box-{said[0]}"
    assert [(n.memory_id, n.offset, n.text) for n in hit.neighbours] == \
        [(said[0], -1, "Alice adopted a puppy named Rex")]
    assert isinstance(hit.neighbours[0], eventmem.BoxNeighbour)


def test_forget_hides_and_as_of_remembers(mem: Any, ns: str) -> None:
    kept = mem.remember("The spare key is under the blue pot", namespace=ns)
    before = mem.seq
    mem.pin(kept.memory_id)
    mem.unpin(kept.memory_id)
    mem.forget(kept.memory_id)
    assert all(h.memory_id != kept.memory_id for h in mem.recall("spare key", namespace=ns))
    memory = mem.get(kept.memory_id)
    assert isinstance(memory, eventmem.Memory) and memory.status == "deleted"
    assert mem.as_of(seq=before).get(kept.memory_id).status == "active"
    types = [e.type for e in mem.history(kept.memory_id)]
    assert {"memory.pinned", "memory.unpinned", "memory.forgotten"} <= set(types)
    assert all(isinstance(e, eventmem.HistoryEntry) for e in mem.history(kept.memory_id))


def test_a_commitment_marked_done_leaves_recall_and_a_tier_can_be_chosen(mem: Any,
                                                                        ns: str) -> None:
    plan = mem.remember("I promised to send Dana the slides", namespace=ns, kind="plan")
    seq = mem.resolve_commitment(plan.memory_id)
    assert mem.resolve_commitment(plan.memory_id) == seq
    done = mem.get(plan.memory_id)
    assert done.done_at is not None and done.category == ""
    assert all(h.memory_id != plan.memory_id for h in mem.recall("slides Dana", namespace=ns))
    assert "memory.commitment_resolved" in [e.type for e in mem.history(plan.memory_id)]
    rule = mem.remember("Always lock the back door", namespace=ns)
    told = mem.remember("The printer is on floor two", namespace=ns, tier="semantic")
    assert mem.get(rule.memory_id).tier == "procedural"
    assert mem.get(rule.memory_id).category == "procedure"
    assert mem.get(told.memory_id).tier == "semantic"
    with pytest.raises(eventmem.InvalidInputError):
        mem.resolve_commitment(told.memory_id)


def test_valid_at_answers_what_was_true_then(mem: Any, ns: str) -> None:
    rome = mem.remember("Alice studied in Rome", namespace=ns,
                        valid_from=datetime(2010, 1, 1, tzinfo=UTC),
                        valid_until=datetime(2014, 1, 1, tzinfo=UTC))
    mem.remember("Alice teaches in Berlin", namespace=ns,
                 valid_from=datetime(2016, 1, 1, tzinfo=UTC))
    then = datetime(2012, 6, 1, tzinfo=UTC)
    assert [h.memory_id for h in mem.recall("Alice", namespace=ns, valid_at=then)] \
        == [rome.memory_id]
    assert mem.get(rome.memory_id, valid_at=then).valid_until == datetime(2014, 1, 1,
                                                                          tzinfo=UTC)
    with pytest.raises(eventmem.NotFoundError):
        mem.get(rome.memory_id, valid_at=datetime(2020, 1, 1, tzinfo=UTC))


def test_errors_are_the_engines(mem: Any, ns: str) -> None:
    with pytest.raises(eventmem.NotFoundError):
        mem.get("mem_nope")
    with pytest.raises(eventmem.InvalidInputError):
        mem.remember("", namespace=ns)
    with pytest.raises(eventmem.InvalidInputError):
        mem.recall("tea", namespace=ns, profile="loudest")
    with pytest.raises(eventmem.InvalidInputError):
        mem.erase()
    with pytest.raises(eventmem.InvalidInputError):
        mem.remember_many("one text, not a list", namespace=ns)


def test_conflicts_resolve_and_graph(mem: Any, ns: str) -> None:
    oslo = mem.remember("Bob lives in Oslo", namespace=ns, on_conflict="ask")
    paris = mem.remember("Bob moved to Paris", namespace=ns, on_conflict="ask")
    [conflict] = mem.conflicts(namespace=ns)
    assert isinstance(conflict, eventmem.Conflict) and conflict.memory_id == oslo.memory_id
    won = mem.resolve(conflict.conflict_id, strategy="use_new")
    assert won.memory_id == paris.memory_id and mem.conflicts(namespace=ns) == []
    assert [v.memory_id for v in mem.timeline(paris.memory_id)] == [oslo.memory_id,
                                                                     paris.memory_id]
    bob = mem.graph.entity("Bob", namespace=ns)
    assert isinstance(bob, eventmem.Entity) and bob.type == "person"
    assert ("lives_in", "paris") in {(r.relation, r.object) for r in bob.relations}


def test_checks_and_maintenance(mem: Any, ns: str) -> None:
    mem.remember("Erin likes hiking", namespace=ns)
    assert mem.verify().ok and mem.audit().ok
    report = mem.consolidate()
    assert isinstance(report, eventmem.ConsolidationReport) and report.now.tzinfo is not None
    assert mem.head().seq == mem.seq
    assert "Erin" in mem.context("what does erin like", namespace=ns)


def test_update_supersedes_and_keeps_history(mem: Any, ns: str) -> None:
    old = mem.remember("My dentist appointment is on March 3", namespace=ns, tags=["health"],
                       metadata={"source": "chat"})
    new = mem.update(old.memory_id, "My dentist appointment is on March 10",
                     metadata={"edited": True})
    assert isinstance(new, eventmem.RememberResult)
    assert (new.action, new.rule, new.neighbour) == ("updated", "caller_update", old.memory_id)
    memory = mem.get(new.memory_id)
    assert memory.metadata == {"edited": True, "source": "chat"} and memory.tags == ("health",)
    assert mem.get(old.memory_id).status == "superseded"
    assert [v.memory_id for v in mem.timeline(new.memory_id)] == [old.memory_id, new.memory_id]
    assert mem.update(new.memory_id, "my dentist appointment is on march 10").action \
        == "skipped"
    with pytest.raises(eventmem.InvalidInputError):
        mem.update(old.memory_id, "My dentist appointment is on March 12")
    with pytest.raises(eventmem.NotFoundError):
        mem.update("mem_nope", "anything")


def test_metadata_is_returned_and_filters(mem: Any, ns: str) -> None:
    mem.remember("Review the quarterly budget with Dana", namespace=ns,
                 metadata={"thread": "t1", "priority": 3})
    mem.remember("Review the hiring plan with Dana", namespace=ns,
                 metadata={"thread": "t2", "priority": 1})
    hits = mem.recall("review with Dana", namespace=ns, k=5, filters={"thread": "t1"})
    assert [h.metadata["thread"] for h in hits] == ["t1"]
    urgent = mem.recall("review with Dana", namespace=ns, filters={"priority": {"$gte": 2}})
    assert [h.metadata["priority"] for h in urgent] == [3]
    listed = mem.memories(namespace=ns, filters={"thread": {"$in": ["t2", "t9"]}})
    assert [m.metadata["thread"] for m in listed] == ["t2"]
    with pytest.raises(eventmem.InvalidInputError):
        mem.recall("review", namespace=ns, filters={"priority": {"$near": 2}})
    with pytest.raises(eventmem.InvalidInputError):
        mem.remember("A note", namespace=ns, metadata={"bad": {"nested": 1}})


def test_export_and_import_round_trip(mem: Any, ns: str, tmp_path: Path) -> None:
    mem.remember("Frank is allergic to shellfish", namespace=ns, pinned=True,
                 metadata={"source": "intake"}, valid_from=datetime(2020, 5, 1, tzinfo=UTC))
    mem.remember("Frank's favourite colour is green", namespace=ns, tags=["taste"])
    out = tmp_path / "export.jsonl"
    assert mem.export_memories(out, namespace=ns) == 2
    copy = ns + "-copy"
    results = mem.import_memories(out, namespace=copy)
    assert [r.action for r in results] == ["created", "created"]
    again = mem.import_memories(out, namespace=copy)
    assert [r.action for r in again] == ["skipped", "skipped"]
    back = tmp_path / "back.jsonl"
    mem.export_memories(back, namespace=copy)

    def lines(path: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in json.loads(line).items() if k not in ("id", "namespace")}
                for line in path.read_text().splitlines()]
    assert lines(back) == lines(out)
    original = next(iter(mem.memories(namespace=ns)))
    imported = next(iter(mem.memories(namespace=copy)))
    assert (imported.created_at, imported.valid_from, imported.pinned, imported.metadata) \
        == (original.created_at, original.valid_from, True, {"source": "intake"})


def test_one_client_shared_by_threads(server: Served) -> None:
    with eventmem.connect(server.url) as mem:
        errors: list[BaseException] = []

        def work(n: int) -> None:
            try:
                for i in range(5):
                    mem.remember(f"Thread {n} fact number {i} about kites", namespace="threads")
                    mem.recall("kites", namespace="threads")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert mem.verify().ok


def test_boxes_and_traces_are_read_alike(mem: Any, ns: str) -> None:
    said = [mem.remember(text, namespace=ns, session="s1").memory_id
            for text in ("Alice adopted a puppy named Rex", "Rex the puppy chews shoes",
                         "The quarterly budget review is on Monday")]
    first, still_open = mem.boxes(namespace=ns, session="s1")
    assert isinstance(first, eventmem.Box) and first.memory_ids == tuple(said[:2])
    assert first.reason == "topic" and still_open.sealed_at is None
    assert mem.trace(first.trace_id, namespace=ns) == [first]
    assert mem.boxes(namespace=ns, trace_id=first.trace_id) == [first]
    with pytest.raises(eventmem.NotFoundError):
        mem.trace(first.trace_id, namespace=f"{ns}-other")
    with pytest.raises(eventmem.NotFoundError):
        mem.trace("trace-nothing", namespace=ns)
