"""gate-12: the write gate hears a change however it is worded. A new value behind a correction
marker, said of a person by pronoun, or in other words for the attribute supersedes the old one;
a correction naming the value it takes back ("..., not Monday") supersedes what was just said
with it; a plan reported done in the passive or the causative is closed. A log written by
gate-11, which kept both in each case, still audits as decided."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest

import eventmem
from eventmem.events import MemorySuperseded
from eventmem.policies import classify, gate
from tests.write.logged import checked, written_as


def status(mem: eventmem.Engine, memory_id: str) -> str:
    return mem.get(memory_id).status


def superseding_rules(mem: eventmem.Engine, memory_id: str) -> list[str]:
    return [e.rule for _, e in mem.events()
            if isinstance(e, MemorySuperseded) and e.memory_id == memory_id]


# (what was said, what replaces it, the namespace's first words if any)
CHANGES = [
    # a correction marker before the new value ("Correction:" is no speaker called Correction)
    ("I work at Initech.", "Correction: I work at Globex.", None),
    ("I work at Initech.", "Sorry, I misspoke earlier, I'm on the payroll at Globex.", None),
    # the attribute in other words than the first edition knew
    ("I live in Osaka.", "Home for me is Lyon these days.", None),
    ("I work at Initech.", "Handed in my notice, I'm on the payroll at Globex now.", None),
    # a pronoun after the sentence that names the (declared) user
    ("Dana lives in Osaka.", "Caught up with Dana today. She moved to Lyon.", "My name is Dana."),
    ("Dana uses a Pixel 7.", "Dana called earlier. She upgraded to a Galaxy S23.",
     "My name is Dana."),
    # the same edition reads names in any letters, and a vocabulary without accents
    ("Zoë lives in Osaka.", "Caught up with Zoë today. She moved to Lyon.", "My name is Zoë."),
    ("I drive a Peugeot 208.", "Correction: I drive a Citroën C3.", None),
    # diets the first edition's vocabulary lacks
    ("I'm keto.", "I went low-FODMAP last month.", None),
    ("Dana is vegetarian.", "Dana is macrobiotic now.", "My name is Dana."),
]


@pytest.mark.parametrize(("first", "then", "intro"), CHANGES)
def test_a_change_however_worded_replaces_the_old_value(mem, clock, first, then, intro):
    if intro:
        mem.remember(intro, namespace="a")
    old = mem.remember(first, namespace="a")
    clock.advance(timedelta(days=3))
    new = mem.remember(then, namespace="a")
    assert new.action == "superseded"
    assert status(mem, old.memory_id) == "superseded"
    checked(mem)


@pytest.mark.parametrize(("first", "then", "intro"), CHANGES)
def test_a_gate_11_log_kept_both_and_audits_as_decided(mem, clock, monkeypatch, first, then,
                                                       intro):
    with written_as(monkeypatch, gate.GATE_11):
        if intro:
            mem.remember(intro, namespace="a")
        old = mem.remember(first, namespace="a")
        clock.advance(timedelta(days=3))
        mem.remember(then, namespace="a")
    assert status(mem, old.memory_id) == "active"
    checked(mem)


def test_a_pronoun_with_no_one_named_before_stays_someone_elses(mem, clock):
    mem.remember("My name is Dana.")
    old = mem.remember("Dana lives in Osaka.")
    clock.advance(timedelta(days=3))
    mem.remember("She moved to Lyon.")  # no one named before "She": not the user's
    assert status(mem, old.memory_id) == "active"
    checked(mem)


@pytest.mark.parametrize(("slip", "correction"), [
    ("My dentist appointment is on Monday.", "Actually, scratch that: it's Friday, not Monday."),
    ("I live in Bristol.", "No wait, I meant Denver, not Bristol."),
    ("My flight to Lyon leaves at 7am.", "Sorry, I misspoke: it leaves at 9am, not 7am."),
])
def test_a_correction_takes_back_the_value_it_names(mem, clock, monkeypatch, slip, correction):
    said = mem.remember(slip, namespace="a")
    clock.advance(timedelta(seconds=30))
    fixed = mem.remember(correction, namespace="a")
    assert status(mem, said.memory_id) == "superseded"
    assert superseding_rules(mem, said.memory_id) == ["correction:taken_back"]
    assert status(mem, fixed.memory_id) == "active"
    with written_as(monkeypatch, gate.GATE_11):  # gate-11 kept the slip
        kept = mem.remember(slip, namespace="b")
        clock.advance(timedelta(seconds=30))
        mem.remember(correction, namespace="b")
    assert status(mem, kept.memory_id) == "active"
    checked(mem)


@pytest.mark.parametrize(("slip", "correction"), [
    ("My flight to Lyon takes off at 7am.", "Actually, scratch that: it's 8am, not 7am."),
    ("I work as a research scientist.", "No wait, I meant bookkeeper, not research scientist."),
    ("I live in Bristol.", "No wait, I meant Denver, not Bristol."),
])
def test_a_correction_is_a_new_version_of_what_it_corrects(mem, clock, monkeypatch, slip,
                                                           correction):
    """gate-13: the correction keeps the kind, importance and stability of the memory it
    corrects, so it lasts as the slip would have; gate-12 classified it on its own words (as
    short-lived context) and still audits as it decided."""
    said = mem.remember(slip, namespace="a")
    clock.advance(timedelta(seconds=30))
    fixed = mem.remember(correction, namespace="a")
    old, new = mem.get(said.memory_id), mem.get(fixed.memory_id)
    assert status(mem, said.memory_id) == "superseded"
    assert new.kind == old.kind != "context"
    assert new.stability >= old.stability and new.importance >= old.importance
    with written_as(monkeypatch, gate.GATE_12):
        mem.remember(slip, namespace="b")
        clock.advance(timedelta(seconds=30))
        before = mem.remember(correction, namespace="b")
    assert mem.get(before.memory_id).kind == "context"
    clock.advance(timedelta(days=60))
    mem.consolidate(now=clock.now())
    assert status(mem, fixed.memory_id) == "active"  # context would be gone by now
    checked(mem)


def test_a_bare_correction_supersedes_only_what_was_just_said(mem, clock):
    old = mem.remember("My dentist appointment is on Monday.")
    for i in range(6):  # more than correction_recent memories since
        clock.advance(timedelta(minutes=1))
        mem.remember(f"Note {i}: the weather was grey and wet today, number {i}.")
    mem.remember("No wait, I meant Friday, not Monday.")
    assert status(mem, old.memory_id) == "active"
    checked(mem)


def test_a_correction_never_supersedes_an_immutable_memory(mem, clock):
    old = mem.remember("My dentist appointment is on Monday.", immutable=True)
    mem.remember("No wait, I meant Friday, not Monday.")
    assert status(mem, old.memory_id) == "active"
    checked(mem)


@pytest.mark.parametrize("report", [
    "The passport is renewed, finally.",
    "Got the passport renewed today.",
    "User: passport renewed",
])
def test_a_passive_report_closes_the_plan(mem, clock, monkeypatch, report):
    plan = mem.remember("I need to renew my passport by March 3", namespace="a")
    clock.advance(timedelta(days=2))
    mem.remember(report, namespace="a")
    assert status(mem, plan.memory_id) == "superseded"
    with written_as(monkeypatch, gate.GATE_11):
        kept = mem.remember("I need to renew my passport by March 3", namespace="b")
        clock.advance(timedelta(days=2))
        mem.remember(report, namespace="b")
    assert status(mem, kept.memory_id) == "active"
    checked(mem)


def test_someone_elses_passive_report_closes_nothing(mem, clock):
    plan = mem.remember("I need to renew my passport by March 3")
    clock.advance(timedelta(days=2))
    mem.remember("My sister got her passport renewed.")
    assert status(mem, plan.memory_id) == "active"
    checked(mem)


@pytest.mark.parametrize("text", [
    "Weekends are for pottery.",
    "Caught up with Dana today. She spends her free time on woodworking.",
])
def test_a_lasting_fact_in_other_words_outlives_decay(mem, clock, monkeypatch, text):
    """classify-4: a hobby in other words, or said of the user by pronoun, is a lasting kind
    and still recallable after months of consolidation; a classify-3 log filed it as context,
    which decay archived, and audits as decided."""
    mem.remember("My name is Dana.", namespace="a")
    kept = mem.remember(text, namespace="a")
    with written_as(monkeypatch, gate.GATE_11), monkeypatch.context() as patch:
        patch.setattr(classify, "POLICY_VERSION", classify.CLASSIFY_3)
        mem.remember("My name is Dana.", namespace="b")
        lost = mem.remember(text, namespace="b")
    for _ in range(8):
        clock.advance(timedelta(days=14))
        mem.consolidate()
    assert mem.get(kept.memory_id).kind == "preference"
    assert mem.get(kept.memory_id).status in ("active", "stale")
    assert mem.get(lost.memory_id).kind == "context"
    assert mem.get(lost.memory_id).status not in ("active", "stale")
    checked(mem)


@pytest.mark.parametrize(("plan", "report"), [
    ("Have to renew my passport before March 22.", "Got the passport renewed today."),
    ("Don't let me forget: renew the passport by March 22.", "The passport is renewed, finally."),
    ("User: to do, return library books by March 22", "User: library books returned"),
])
def test_a_task_in_other_words_is_a_plan_and_closed_when_done(mem, clock, plan, report):
    """classify-4 files a subject-less task as a plan, so "what's left to do?" finds it;
    gate-12 closes a listed task reported done in the passive."""
    task = mem.remember(plan)
    assert mem.get(task.memory_id).kind == "plan"
    hits = mem.recall("Anything left on my plate?")
    assert hits and hits[0].memory_id == task.memory_id
    clock.advance(timedelta(days=2))
    mem.remember(report)
    assert status(mem, task.memory_id) == "superseded"
    checked(mem)


@pytest.mark.parametrize(("first", "then", "intro", "before"), [
    ("Dana works at Globex Inc.", "Dana left Globex Inc. for Initech.", "My name is Dana.",
     gate.GATE_13),
    ("I work at Globex.", "Left Globex for Oakridge & Partners last month.", None, gate.GATE_13),
    ("I work at Initech.", "I'm a air traffic controller at Kestrel Aerospace now.", None,
     gate.GATE_13),
    ("I work as a paralegal.", "They made me air traffic controller, so long paralegal.", None,
     gate.GATE_14),
    ("I work as a dental hygienist.", "I'm a actuary now.", None, gate.GATE_14),
    # gate-16: a job taken by its offer or its hirer, a home by its address
    ("I work at Globex.", "I accepted an offer from Initech.", None, gate.GATE_15),
    ("I work at Globex.", "Initech hired me!", None, gate.GATE_15),
    ("I work as a nurse.", "I got the paramedic job!", None, gate.GATE_15),
    ("I live in Lisbon.", "Home is Porto now.", None, gate.GATE_15),
    ("I live in Lisbon.", "My new address is in Porto.", None, gate.GATE_15),
    # gate-17: a home moved to by "moved house", a job lost and found by "let me go"
    ("I live in Lyon.", "I moved house to Nantes.", None, gate.GATE_16),
    ("I work at Stark Industries.", "Stark Industries let me go, but Wayne Enterprises took "
     "me on.", None, gate.GATE_16),
    # gate-19: a job by whoever onboarded the speaker, a train "shifted" to an hour
    ("I work at Siemens.", "I finally jumped ship, Bosch onboarded me this week.", None,
     gate.GATE_18),
    ("My train to Lucerne departs at 14:05.", "SBB shifted my Lucerne train to 15:35.", None,
     gate.GATE_18),
    # gate-20: a promotion by being bumped up, a home moved to in a direction
    ("I'm a junior accountant.", "Dangote bumped me up to finance manager this week.", None,
     gate.GATE_19),
    ("I live in Tromsø.", "We moved south to Bodø in August.", None, gate.GATE_19),
    # gate-21: a home said in a clause of the speaker's own, a job by an offer said yes to
    ("I live in Perth.", "Perth's been great but we're Adelaide-based now.", None, gate.GATE_20),
    ("I work at Globex.", "Initech made me an offer and I said yes.", None, gate.GATE_20),
])
def test_a_job_changed_in_a_newer_editions_words_replaces_the_old(mem, clock, monkeypatch,
                                                                  first, then, intro, before):
    """gate-14 reads a job left for another (the fact reader's fourth edition), gate-15 a job
    in "-ary" or one someone was made (the fifth), gate-16 a job taken by its offer or its
    hirer and a home by its address (the sixth), gate-17 a house moved and a job let go (the
    seventh), gate-19 a job onboarded and a train shifted (the eighth), gate-20 a promotion and
    a home moved to in a direction (the ninth), gate-21 a home in a clause of the speaker's own
    and an offer said yes to (the tenth); the gate before kept both and still audits as it
    decided."""
    for namespace, version in (("a", None), ("b", before)):
        with written_as(monkeypatch, version) if version else contextlib.nullcontext():
            if intro:
                mem.remember(intro, namespace=namespace)
            old = mem.remember(first, namespace=namespace)
            clock.advance(timedelta(days=3))
            mem.remember(then, namespace=namespace)
        assert status(mem, old.memory_id) == ("superseded" if version is None else "active")
    checked(mem)


@pytest.mark.parametrize(("slip", "correction", "before"), [
    ("I live in Łódź.", "Actually, scratch that: it's Windhoek, not Łódź.", gate.GATE_13),
    ("I started a new job at Ironwood & Co.",
     "Oops, I got that wrong. I started at Oakridge & Partners, not Ironwood & Co.",
     gate.GATE_13),
    # gate-15: a time with its minutes
    ("My flight to Lisbon takes off at 13:50.", "No wait, I meant 9:10am, not 13:50.",
     gate.GATE_14),
    ("My flight to Nice leaves at 6:55pm.", "Oops, I got that wrong: I leave at 20:50, "
     "not 6:55pm.", gate.GATE_14),
    # gate-16: the marker after an interjection
    ("I work at Globex.", "Oh wait, it's Initech, not Globex.", gate.GATE_15),
])
def test_a_correction_takes_back_a_value_in_any_letters(mem, clock, monkeypatch, slip,
                                                        correction, before):
    """A value in any letters or with "&" (gate-14), a time with its minutes (gate-15), a
    marker after an interjection (gate-16); the gate before read no such value or marker, kept
    the slip beside its correction, and still audits as it decided."""
    said = mem.remember(slip, namespace="a")
    clock.advance(timedelta(seconds=30))
    mem.remember(correction, namespace="a")
    assert superseding_rules(mem, said.memory_id) == ["correction:taken_back"]
    with written_as(monkeypatch, before):
        kept = mem.remember(slip, namespace="b")
        clock.advance(timedelta(seconds=30))
        mem.remember(correction, namespace="b")
    assert "correction:taken_back" not in superseding_rules(mem, kept.memory_id)
    checked(mem)
