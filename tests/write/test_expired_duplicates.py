"""The exact text of an expired memory is remembered afresh, not folded into a memory recall leaves
out; a log written by gate-2 (which reinforced it) still audits as gate-2."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from eventmem.events import MemoryReinforced
from eventmem.policies import gate
from tests.write.logged import checked, written_as

T0 = datetime(2025, 1, 1, tzinfo=UTC)



def test_the_exact_text_of_an_expired_memory_is_remembered_afresh(mem, clock):
    # Before: it reinforced the expired memory, which recall leaves out: the fact was lost
    # (while the same text with a "!" already made a new memory).
    text = "The office wifi network is called sunflower42"
    old = mem.remember(text, valid_until=T0 + timedelta(days=3))
    clock.advance(timedelta(days=5))
    mem.consolidate()
    assert mem.recall("office wifi network") == []
    again = mem.remember(text)
    assert again.action == "created" and again.memory_id != old.memory_id
    assert [h.memory_id for h in mem.recall("office wifi network")] == [again.memory_id]
    assert mem.remember(text).memory_id == again.memory_id  # and it absorbs the next one
    checked(mem)


def test_a_gate_2_log_still_passes_the_audit(mem, clock, monkeypatch):
    """A log written by gate-2 (the expired memory reinforced) is re-derived as gate-2."""
    text = "The office wifi network is called sunflower42"
    mem.remember(text, valid_until=T0 + timedelta(days=3))
    clock.advance(timedelta(days=5))
    mem.consolidate()
    with written_as(monkeypatch, gate.GATE_2):  # write as gate-2 did
        assert mem.remember(text).action == "reinforced"
    [event] = [e for _, e in mem.events() if isinstance(e, MemoryReinforced)]
    assert event.policy == "gate-2"
    checked(mem)
