"""A value is information: a text that differs from its nearest memory in a value (who owes whom,
"X over Y", a number, a time, a day, a name, a negation, a change word) is never skipped or
reinforced as a duplicate, whatever the embedder; the old value stays in history, the new one on
top. A log written by gate-3 (which absorbed such texts) still audits as gate-3."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.events import MemorySkipped
from eventmem.policies import gate
from tests.write.logged import checked, written_as

CHANGED = [  # (stored, then said), from issue 13
    ("I prefer coffee over tea.", "I prefer tea over coffee now."),
    ("The meeting moved from Monday to Friday.", "The meeting moved from Friday to Monday."),
    ("Bob owes Alice 50 dollars.", "Alice owes Bob 50 dollars."),
    ("My flight is at 9am.", "My flight is at 9pm."),
]
NOT_ABSORBED = ("updated", "superseded", "created")


class Blind:
    """Every text the same vector: every pair a duplicate by similarity (as MiniLM finds
    "9am"/"9pm" at >= 0.95), so only the value can tell them apart."""

    embedder_id = "blind-test-d8"
    dim = 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows[:, 0] = 1.0
        return rows


@pytest.fixture(params=["hash", "blind"])
def any_mem(request, store_path: Path, clock: eventmem.ManualClock) -> Iterator[eventmem.Engine]:
    embedder = None if request.param == "hash" else Blind()
    kwargs: dict[str, Any] = {} if embedder is None else {"embedder": embedder}
    with eventmem.open(store_path, clock=clock, **kwargs) as engine:
        yield engine



@pytest.mark.parametrize(("old", "new"), CHANGED)
def test_a_changed_value_is_remembered_with_the_old_one_in_history(any_mem, clock, old, new):
    first = any_mem.remember(old)
    clock.advance(timedelta(hours=1))
    second = any_mem.remember(new)
    assert second.action in NOT_ABSORBED, second
    assert second.memory_id != first.memory_id
    texts = {m.text: m for m in any_mem.memories()}
    assert texts[new].status == "active"
    assert texts[old].status in ("superseded", "active")  # kept, with its valid time
    if texts[old].status == "superseded":
        assert texts[old].superseded_by == second.memory_id
        assert texts[old].valid_until is not None
    types = [h.type for h in any_mem.history(first.memory_id)]
    assert types[0] == "memory.ingested" and "memory.skipped" not in types \
        and "memory.reinforced" not in types
    checked(any_mem)


def test_the_rule_names_the_value_that_differed(any_mem, clock):
    any_mem.remember("Bob owes Alice 50 dollars.")
    result = any_mem.remember("Bob owes Alice 70 dollars.")
    if result.action == "updated":  # not found as a contradiction first
        assert result.rule == "value_number"
    assert result.action in NOT_ABSORBED


def test_a_near_duplicate_that_adds_nothing_is_still_absorbed(mem):
    first = mem.remember("I live in Berlin.")
    again = mem.remember("I live in Berlin!")
    assert again.action in ("skipped", "reinforced") and again.memory_id == first.memory_id
    assert [m.text for m in mem.memories()] == ["I live in Berlin."]


def test_the_same_number_in_words_is_no_new_value(store_path, clock):
    with eventmem.open(store_path, clock=clock, embedder=Blind()) as mem:
        mem.remember("I own 3 bikes.")
        assert mem.remember("I own three bikes.").action == "reinforced"


def test_an_identical_text_is_a_true_duplicate(any_mem):
    first = any_mem.remember("My flight is at 9am.")
    again = any_mem.remember("My flight is at 9am.")
    assert (again.action, again.rule, again.memory_id) == ("reinforced", "exact_hash",
                                                          first.memory_id)


def test_a_merge_reads_as_one_text(mem):
    mem.remember("Marco works as a data engineer at Zalando in Berlin")
    result = mem.remember("Marco works as a data engineer at Zalando, based in Berlin")
    if result.action == "merged":
        text = mem.get(result.memory_id).text
        assert text is not None and text.count("Zalando") == 1 and text.count("Berlin") == 1


NAMES = ["Alice", "Bob", "Carol", "Dana", "Erik", "Farah", "Gina", "Hugo"]
OBJECTS = ["bikes", "cats", "books", "plants", "guitars"]


@st.composite
def changed_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A stored sentence and one that differs from it in one value only."""
    a, b = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
    n = draw(st.integers(1, 99))
    m = draw(st.integers(1, 99).filter(lambda x: x != n))
    thing = draw(st.sampled_from(OBJECTS))
    template = draw(st.sampled_from(["{x} owes {y} {n} dollars.", "{x} gave {y} {n} {thing}.",
                                     "{x} prefers {thing} over tea, says {y}."]))
    old = template.format(x=a, y=b, n=n, thing=thing)
    kind = draw(st.sampled_from(["number", "name", "order"]))
    if kind == "number" and "{n}" in template:
        new = template.format(x=a, y=b, n=m, thing=thing)
    elif kind == "order":
        new = template.format(x=b, y=a, n=n, thing=thing)
    else:
        c = draw(st.sampled_from([x for x in NAMES if x not in (a, b)]))
        new = template.format(x=a, y=c, n=n, thing=thing)
    return old, new


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pair=changed_pairs(), blind=st.booleans())
def test_a_text_differing_in_one_value_is_never_absorbed(tmp_path_factory, pair, blind):
    old, new = pair
    path = tmp_path_factory.mktemp("s") / "store"
    kwargs: dict[str, Any] = {"embedder": Blind()} if blind else {}
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(path, clock=clock, **kwargs) as mem:
        mem.remember(old)
        result = mem.remember(new)
        assert result.action in NOT_ABSORBED, (old, new, result)
        assert {m.text for m in mem.memories()} == {old, new}  # both in history


def test_a_gate_3_log_still_passes_the_audit(mem, monkeypatch):
    """A log written by gate-3 (a changed value skipped, a merge appended) re-derives as gate-3."""
    mem.remember("I prefer coffee over tea.")
    mem.remember("Marco works as a data engineer at Zalando in Berlin")
    with written_as(monkeypatch, gate.GATE_3):  # write as gate-3 did
        skipped = mem.remember("I prefer tea over coffee now.")
        merged = mem.remember("Marco works as a data engineer at Zalando, based in Berlin")
    assert skipped.action in ("skipped", "reinforced")
    assert merged.action == "merged"
    assert mem.get(merged.memory_id).text == ("Marco works as a data engineer at Zalando in "
                                              "Berlin. Marco works as a data engineer at "
                                              "Zalando, based in Berlin")
    policies = {e.policy for _, e in mem.events() if isinstance(e, MemorySkipped)}
    assert policies <= {"gate-3"}
    checked(mem)
