"""Coreference in the write path: what a pronoun says about the person named before it reaches
the graph, the stored text stays as said, and replay and audit hold."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

import eventmem
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
