"""Coreference in the write path: what a pronoun says about the person named before it reaches
the graph, the stored text stays as said, and replay and audit hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

import eventmem
from eventmem.config import Config, FormationParams
from eventmem.policies.extract.relations import EXTRACT_1
from eventmem.write import items as items_module
from eventmem.write.items import Item
from tests.write.logged import checked, ingested

T0 = datetime(2025, 1, 6, 9, tzinfo=UTC)


def _relations(mem: eventmem.Engine, name: str) -> set[tuple[str, str, str]]:
    return {(r.subject, r.relation, r.object)
            for r in mem.graph.entity(name, namespace="u").relations}


def test_what_he_does_is_bobs(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        text = "Bob moved to Paris. He works at Google now."
        mid = mem.remember(text, namespace="u").memory_id
        assert mem.get(mid).text == text  # never rewritten
        assert ("bob", "works_at", "google") in _relations(mem, "Bob")
        assert mid in mem.graph.entity("Google", namespace="u").memory_ids
        checked(mem)
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as again:
        assert ("bob", "works_at", "google") in _relations(again, "Bob")  # reopened: the same


def test_i_is_never_resolved(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        mem.remember("My friend Bob visited. I work at Google now.", namespace="u")
        assert ("bob", "works_at", "google") not in _relations(mem, "Bob")
        checked(mem)


def test_a_log_analysed_by_extract_1_still_audits(tmp_path: Path, monkeypatch: Any) -> None:
    original = items_module.check_items

    def as_before(*args: Any) -> list[Item]:
        return [msgspec.structs.replace(item, extractor=EXTRACT_1) for item in original(*args)]

    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        with monkeypatch.context() as patch:
            patch.setattr(eventmem.engine, "check_items", as_before)
            old = mem.remember("Alice works at Acme", namespace="u").memory_id
        new = mem.remember("Carol lives in Rome", namespace="u").memory_id
        assert (ingested(mem, old).extractor, ingested(mem, new).extractor) == (
            EXTRACT_1, "extract-2")
        checked(mem)


def _open(tmp_path: Path, config: Any = None) -> tuple[eventmem.Engine, eventmem.ManualClock]:
    clock = eventmem.ManualClock(start=T0)
    return eventmem.open(tmp_path / "s", clock=clock, config=config), clock


def test_a_leading_he_is_the_person_the_session_named_last(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        bob = mem.remember("Bob moved to Paris.", namespace="u", session="s1").memory_id
        text = "He works at Google now."
        mid = mem.remember(text, namespace="u", session="s1").memory_id
        event = ingested(mem, mid)
        assert (event.coref_of, event.coref_policy) == (bob, "coref-1")
        assert any(link.target == bob and link.relation == "same_entity"
                   for link in event.links)
        assert mem.get(mid).text == text
        checked(mem)


def test_the_batch_is_the_session_too(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        first, second = mem.remember_many(["Alice moved to Rome.", "She loves it."],
                                          namespace="u")
        assert ingested(mem, second.memory_id).coref_of == first.memory_id
        checked(mem)


@pytest.mark.parametrize("before", [
    "I moved to Paris.",  # "I" is the user, never an antecedent
    "We went to the beach.",
    "Caroline: I moved to Paris.",  # a speaker is "I" of their line
])
def test_no_named_person_no_resolution(tmp_path: Path, before: str) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mem.remember(before, namespace="u")
        mid = mem.remember("He works at Google now.", namespace="u").memory_id
        assert ingested(mem, mid).coref_of is None
        checked(mem)


def test_another_session_or_a_long_gap_is_not_the_same_turn(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        mem.remember("Bob moved to Paris.", namespace="u", session="s1")
        other = mem.remember("He works at Google now.", namespace="u", session="s2").memory_id
        mem.remember("Dan moved to Oslo.", namespace="u")
        clock.advance(timedelta(hours=3))
        later = mem.remember("She works at Acme now.", namespace="u").memory_id
        assert ingested(mem, other).coref_of is None
        assert ingested(mem, later).coref_of is None
        checked(mem)


def test_a_person_named_in_the_text_itself_needs_no_session(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mem.remember("Dan moved to Oslo.", namespace="u")
        mid = mem.remember("Bob moved to Paris. He works at Google now.",
                           namespace="u").memory_id
        assert ingested(mem, mid).coref_of is None


def test_coreference_can_be_turned_off(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path, Config(formation=FormationParams(coreference=False)))
    with mem:
        mem.remember("Bob moved to Paris.", namespace="u")
        mid = mem.remember("He works at Google now.", namespace="u").memory_id
        assert (ingested(mem, mid).coref_of, ingested(mem, mid).coref_policy) == (None, "")
        checked(mem)
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as again:
        checked(again)  # audited as decided, though coreference is on now
