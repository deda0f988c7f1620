"""A compound statement about different entities is stored as one memory per clause, each with
the caller's metadata, the later clauses derived from the first (eventmem.write.compound)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.config import Config, FormationParams
from eventmem.text.normalize import content_hash
from tests.write.logged import checked, ingested

T0 = datetime(2025, 1, 6, 9, tzinfo=UTC)
COMPOUND = "Alice moved to Paris and Bob started a job at Google."


def _open(tmp_path: Path, config: Config | None = None
          ) -> tuple[eventmem.Engine, eventmem.ManualClock]:
    clock = eventmem.ManualClock(start=T0)
    return eventmem.open(tmp_path / "s", clock=clock, config=config), clock


def _texts(mem: eventmem.Engine) -> list[str | None]:
    return [m.text for m in mem.memories(namespace="u")]


def test_two_entities_two_memories_linked_to_the_first(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        result = mem.remember(COMPOUND, namespace="u", metadata={"turn": "D1:3"})
        assert _texts(mem) == ["Alice moved to Paris.", "Bob started a job at Google."]
        first, second = (m.memory_id for m in mem.memories(namespace="u"))
        assert result.memory_id == first
        assert [m.metadata for m in mem.memories(namespace="u")] == [{"turn": "D1:3"}] * 2
        head, tail = ingested(mem, first), ingested(mem, second)
        assert (head.source_hash, head.part, head.split_policy) == (
            content_hash(COMPOUND), 0, "split-1")
        assert (tail.source_hash, tail.part, tail.derived_from) == (
            content_hash(COMPOUND), 1, (first,))
        assert any(link.target == first and link.relation == "part_of" for link in tail.links)
        checked(mem)


def test_remember_many_keeps_one_result_per_input(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        results = mem.remember_many([COMPOUND, "Carol likes tea."], namespace="u")
        assert len(results) == 2
        assert mem.get(results[1].memory_id).text == "Carol likes tea."
        checked(mem)


def test_a_change_to_one_entity_leaves_the_other(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        mem.remember(COMPOUND, namespace="u")
        clock.advance(timedelta(days=1))
        mem.remember("Alice moved to Rome.", namespace="u")
        assert mem.recall("where does Alice live", namespace="u")[0].text == \
            "Alice moved to Rome."
        assert mem.recall("Bob job", namespace="u")[0].text == "Bob started a job at Google."
        checked(mem)


def test_erasing_what_the_caller_got_erases_every_clause(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        result = mem.remember(COMPOUND, namespace="u")
        mem.erase(memory_id=result.memory_id)
        assert _texts(mem) == [None, None]
        checked(mem)


def test_forgetting_what_the_caller_got_forgets_every_clause(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        result = mem.remember(COMPOUND, namespace="u")
        other = mem.remember("Carol likes tea.", namespace="u").memory_id
        mem.forget(result.memory_id)
        statuses = {m.text: m.status for m in mem.memories(namespace="u")}
        assert statuses == {"Alice moved to Paris.": "deleted",
                            "Bob started a job at Google.": "deleted",
                            "Carol likes tea.": "active"}
        assert mem.get(other).status == "active"
        checked(mem)


def test_forgetting_a_later_clause_forgets_only_it(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mem.remember(COMPOUND, namespace="u")
        first, second = (m.memory_id for m in mem.memories(namespace="u"))
        mem.forget(second)
        assert (mem.get(first).status, mem.get(second).status) == ("active", "deleted")
        checked(mem)


@pytest.mark.parametrize("text", [
    "I like tea and coffee.",
    "The meeting is between Alice and Bob.",
    "Bob moved to Paris and started a job.",
])
def test_what_is_not_compound_stays_whole(tmp_path: Path, text: str) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mid = mem.remember(text, namespace="u").memory_id
        assert _texts(mem) == [text]
        assert ingested(mem, mid).split_policy == ""


def test_splitting_can_be_turned_off(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path, Config(formation=FormationParams(split_compounds=False)))
    with mem:
        mem.remember(COMPOUND, namespace="u")
        assert _texts(mem) == [COMPOUND]
        checked(mem)
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as again:
        checked(again)  # audited as decided, though splitting is on now
