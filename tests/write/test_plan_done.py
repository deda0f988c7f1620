"""Plans end: a plan is closed when a later text reports it done ("Renewed my passport today"
closes "I need to renew my passport by March 3"), and a plan past its deadline is not offered;
"what do I still need to do?" puts the open plan first. A log written by gate-5 (which closed no
plan) still audits as gate-5."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import eventmem
from eventmem.clock import to_micros
from eventmem.events import MemorySuperseded
from eventmem.policies import gate, plans
from eventmem.text.normalize import STOPWORDS
from tests.write.logged import checked, ingested, written_as

T0 = datetime(2025, 1, 1, tzinfo=UTC)



def status(mem: eventmem.Engine, memory_id: str) -> str:
    return mem.get(memory_id).status


@pytest.mark.parametrize("report", [
    "Renewed my passport today.",
    "Finally renewed the passport, what a relief.",
    "Dana renewed her passport",
    "User renewed passport",
    "User has renewed their passport",
])
def test_a_report_of_the_plan_done_closes_it(mem, clock, report):
    plan = mem.remember("I need to renew my passport by March 3")
    clock.advance(timedelta(days=2))
    done = mem.remember(report)
    assert status(mem, plan.memory_id) == "superseded"
    [event] = [e for _, e in mem.events() if isinstance(e, MemorySuperseded)]
    assert (event.memory_id, event.by, event.rule) == (plan.memory_id, done.memory_id,
                                                       "plan_done_verb")
    assert event.policy == gate.GATE_VERSION and event.content_hash is not None
    assert mem.get(plan.memory_id).valid_until is not None  # its valid time ended
    # history shows the plan stated, then closed by the report
    assert [h.type for h in mem.history(plan.memory_id)] == ["memory.ingested",
                                                               "memory.superseded"]
    assert plan.memory_id not in {h.memory_id for h in mem.recall("renew passport")}
    checked(mem)


@pytest.mark.parametrize(("plan", "report"), [
    ("Theo has to book the dentist by Friday", "Booked the dentist appointment"),
    ("I need to file my tax return by May 12.", "Finished the tax return"),
    ("Remind me to pay the electricity bill by Friday", "Paid the electricity bill"),
])
def test_other_verbs_and_forms_close_their_plans(mem, clock, plan, report):
    first = mem.remember(plan)
    clock.advance(timedelta(days=1))
    mem.remember(report)
    assert status(mem, first.memory_id) == "superseded"
    checked(mem)


@pytest.mark.parametrize("report", [
    "Renewed my gym membership today.",
    "My sister renewed her passport",
    "I still need to renew my passport",
    "Did I renew my passport?",
    "I haven't renewed my passport yet",
])
def test_an_unrelated_or_unfinished_report_closes_nothing(mem, clock, report):
    plan = mem.remember("I need to renew my passport by March 3")
    clock.advance(timedelta(days=1))
    mem.remember(report)
    assert status(mem, plan.memory_id) == "active"
    checked(mem)


SAVING = ("I want to save about 1500 dollars for yoga gear by January. Quentin thinks it's way "
          "too long")
UNRELATED = "I finally finished Educated. Jonas thinks it's way too long"


def test_a_report_closes_a_plan_only_on_words_of_one_sentence(mem, clock, monkeypatch):
    """gate-11: "finished" reports something done, and "thinks it's way too long" follows in
    another sentence, as in the plan: no object of the plan's is reported done. A gate-10 log,
    which closed the plan on those words, audits as decided."""
    plan = mem.remember(SAVING, namespace="a")
    clock.advance(timedelta(days=1))
    mem.remember(UNRELATED, namespace="a")
    assert status(mem, plan.memory_id) == "active"
    old = mem.remember(SAVING, namespace="b")
    with written_as(monkeypatch, gate.GATE_10):
        clock.advance(timedelta(days=1))
        mem.remember(UNRELATED, namespace="b")
    assert status(mem, old.memory_id) == "superseded"
    checked(mem)


def test_a_report_of_the_plan_done_never_carries_the_plan_on(store_path, clock, monkeypatch):
    """gate-12: with a gate that takes the report for a near duplicate of the plan (as a
    semantic embedder does), differing in a value, the report would update the plan and inherit
    its kind: an open plan to a to-do question. It is created and closes the plan instead. A
    gate-11 log, which updated the plan, audits as decided."""
    plan_text, report = ("Theo has to renew the car registration by March 22.",
                         "Theo renewed the car registration.")
    loose = eventmem.Config(gate=gate.GateParams(near_duplicate=0.3))
    with eventmem.open(store_path, clock=clock, config=loose) as mem:
        plan = mem.remember(plan_text, namespace="a")
        clock.advance(timedelta(days=1))
        done = mem.remember(report, namespace="a")
        assert (done.action, done.rule) == ("created", "plan_done_verb")
        assert mem.get(done.memory_id).kind != "plan"
        assert mem.get(plan.memory_id).status == "superseded"
        mem.remember(plan_text, namespace="b")
        with written_as(monkeypatch, gate.GATE_11):
            clock.advance(timedelta(days=1))
            old = mem.remember(report, namespace="b")
        assert old.action == "updated" and mem.get(old.memory_id).kind == "plan"
        checked(mem)


def test_a_plan_past_its_deadline_is_not_returned(mem, clock):
    plan = mem.remember("I need to file my insurance claim by January 10")
    assert plan.memory_id in {h.memory_id for h in mem.recall("What do I still need to do?")}
    clock.advance(timedelta(days=12))  # no consolidation in between
    assert plan.memory_id not in {h.memory_id for h in mem.recall("What do I still need to do?")}
    mem.consolidate()
    assert plan.memory_id not in {h.memory_id for h in mem.recall("insurance claim")}
    checked(mem)


def test_a_plan_said_after_its_deadline_is_a_deadline_missed(mem, clock, monkeypatch):
    # Said on January 12, "by January 10" is two days late, not due a year from now.
    clock.advance(timedelta(days=11))
    late = mem.remember("I need to file my insurance claim by January 10")
    assert ingested(mem, late.memory_id).valid_until == to_micros(datetime(2025, 1, 11, tzinfo=UTC))
    assert late.memory_id not in {h.memory_id for h in mem.recall("What do I still need to do?")}
    with written_as(monkeypatch, gate.GATE_14):  # as gate-14 read it: next January's
        kept = mem.remember("I need to renew my passport by January 10")
    assert ingested(mem, kept.memory_id).valid_until == to_micros(datetime(2026, 1, 11, tzinfo=UTC))
    checked(mem)


@pytest.mark.parametrize("question", [
    "What do I still need to do?",
    "What is on the user's to-do list?",
    "Is there anything Theo has to take care of soon?",
    "Any deadlines coming up for me?",
])
def test_a_todo_question_puts_the_open_plan_first(mem, clock, question):
    mem.remember("I need to file my insurance claim by January 5")  # expires
    clock.advance(timedelta(days=1))
    mem.remember("I need to renew the car registration by January 20")
    clock.advance(timedelta(days=2))
    mem.remember("Renewed the car registration.")  # done
    mem.remember("I went to the gym this morning.")
    clock.advance(timedelta(days=4))
    open_plan = mem.remember("I need to renew my passport by February 3")
    mem.remember("My sister prefers coffee")
    clock.advance(timedelta(days=1))
    hits = mem.recall(question)
    assert hits and hits[0].memory_id == open_plan.memory_id
    texts = [h.text for h in hits]
    assert not any("insurance" in t or "need to renew the car" in t for t in texts)
    checked(mem)


def test_a_gate_4_log_still_passes_the_audit(mem, clock, monkeypatch):
    """A log written by gate-5 (the plan left open) is re-derived as gate-5."""
    plan = mem.remember("I need to renew my passport by March 3")
    with written_as(monkeypatch, gate.GATE_5):  # write as gate-4 did
        clock.advance(timedelta(days=1))
        mem.remember("Renewed my passport today.")
    assert status(mem, plan.memory_id) == "active"
    checked(mem)


def test_completion_is_a_pure_function_of_the_texts():
    found = plans.completes("I need to book the dentist by Friday",
                            "Booked the dentist appointment")
    assert found == plans.Completion("book", ("dentist",), 1.0, "plan_done_verb")
    assert plans.completes("Theo has to renew the car registration",
                           "Dana renewed the car registration.") is None


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9))
@example("ne")  # "need" is a past form of "ne", and a word that states a plan
def test_every_past_form_of_a_plan_verb_passes_the_write_paths_pre_filter(verb):
    # The write path looks for a plan to close only when may_report_done(text) holds: it must
    # hold for every past form of every verb a plan may name, or a completion would be missed.
    # A form that is also a word stating a plan ("User need the passport") reports nothing done
    # either way: the filter may pass over it, as completes does.
    if verb in STOPWORDS and verb != "do":
        return
    for form in plans._past_forms(verb) | {"took", "taken"}:
        text = f"User {form} the passport"
        assert plans.may_report_done(text) \
            or plans.completes(f"I have to {verb} the passport by May 3", text) is None


@pytest.mark.parametrize("text", ["Vera and I are planning a trip", "Did I renew it?",
                                  "Still need to renew the passport", "Bob is happy at the beach"])
def test_texts_that_report_nothing_done_skip_the_plan_search(text):
    assert not plans.may_report_done(text)


@pytest.mark.parametrize("report", [
    "The passport is renewed, finally.",
    "Got the passport renewed today.",
    "User: passport renewed",
])
def test_a_passive_or_causative_report_completes_the_plan(report):
    plan = "I need to renew my passport by March 3"
    done = plans.completes(plan, report, one_sentence=True, passive=True)
    assert done is not None and done.matched == ("passport",)
    assert plans.completes(plan, report, one_sentence=True) is None  # as gate-11 read it


@pytest.mark.parametrize("report", [
    "My sister got her passport renewed.",
    "The car is washed.",
])
def test_a_passive_report_of_someone_else_or_something_else_completes_nothing(report):
    plan = "I need to renew my passport by March 3"
    assert plans.completes(plan, report, one_sentence=True, passive=True) is None


@pytest.mark.parametrize(("plan", "report"), [
    ("Don't let me forget: renew the passport by April 22.", "Renewed the passport today."),
    ("User: to do, return library books by April 7", "User: library books returned"),
])
def test_a_listed_task_is_a_plan_a_report_completes(plan, report):
    assert plans.plan_action(plan, listed=True) is not None
    assert plans.plan_action(plan) is None  # as gate-11 read it: no action, never closed
    assert plans.completes(plan, report, one_sentence=True, passive=True) is not None


@pytest.mark.parametrize(("plan", "report"), [
    ("Had lunch with Olga. He has to submit the conference abstract before April 21.",
     "User submitted their conference abstract"),
    ("Caught up with Olga today. She needs to renew the passport.",
     "Caught up with Olga today. She renewed the passport."),
])
def test_a_plan_of_whom_the_speaker_met_is_theirs_from_gate_15(plan, report):
    # "He" is Olga, whom the first sentence names: the user by name, as a single name is.
    assert plans.completes(plan, report, one_sentence=True, passive=True, pronoun=True)
    # as gate-14 read it: someone else's plan, never closed
    assert plans.completes(plan, report, one_sentence=True, passive=True) is None


def test_a_plan_of_someone_else_named_before_a_pronoun_stays_theirs():
    plan = "My sister called. She has to renew the passport."
    assert plans.completes(plan, "Renewed the passport today.", one_sentence=True,
                           passive=True, pronoun=True) is None


def test_the_user_by_name_closes_a_plan_said_of_whom_the_speaker_met(mem, clock):
    plan = mem.remember("Had lunch with Olga. He has to submit the conference abstract "
                        "before April 21.")
    clock.advance(timedelta(days=2))
    mem.remember("User submitted their conference abstract")
    assert status(mem, plan.memory_id) == "superseded"
    checked(mem)


@pytest.mark.parametrize(("plan", "report"), [
    ("I'm planning to repaint the bedroom next weekend.", "Finished repainting the bedroom."),
    ("I am supposed to return the library books by Monday.", "Returned the library books."),
    ("We're going to sell the old car this spring.", "Sold the old car!"),
])
def test_a_plan_the_speaker_is_going_to_do_is_theirs_from_gate_16(plan, report):
    assert plans.completes(plan, report, one_sentence=True, passive=True, pronoun=True,
                           i_am=True)
    # as gate-15 read it: someone else's plan, never closed
    assert plans.completes(plan, report, one_sentence=True, passive=True, pronoun=True) is None


def test_a_plan_someone_else_is_going_to_do_stays_theirs():
    assert plans.completes("She's planning to repaint the bedroom.", "Finished repainting the "
                           "bedroom.", one_sentence=True, passive=True, pronoun=True,
                           i_am=True) is None


def test_the_user_closes_a_plan_they_are_going_to_do_and_a_gate_15_log_audits(
        mem, clock, monkeypatch):
    for namespace, version in (("a", None), ("b", gate.GATE_15)):
        with written_as(monkeypatch, version) if version else contextlib.nullcontext():
            plan = mem.remember("I'm planning to repaint the bedroom next weekend.",
                                namespace=namespace)
            clock.advance(timedelta(days=2))
            mem.remember("Finished repainting the bedroom.", namespace=namespace)
        assert status(mem, plan.memory_id) == ("superseded" if version is None else "active")
    checked(mem)


@pytest.mark.parametrize(("plan", "report"), [
    ("I need to get the car serviced.", "The car's been serviced."),
    ("I have to get the windows cleaned this month.", "Windows cleaned, finally."),
])
def test_a_plan_to_get_something_done_is_reported_by_its_participle_from_gate_17(plan, report):
    assert plans.completes(plan, report, one_sentence=True, passive=True, pronoun=True,
                           i_am=True, causative=True)
    # as gate-16 read it: no verb of the plan's, never closed
    assert plans.completes(plan, report, one_sentence=True, passive=True, pronoun=True,
                           i_am=True) is None


def test_another_things_participle_closes_no_plan_to_get_something_done():
    assert plans.completes("I need to get the car serviced.", "The van's been serviced.",
                           one_sentence=True, passive=True, pronoun=True, i_am=True,
                           causative=True) is None


def test_the_user_closes_a_plan_to_get_something_done_and_a_gate_16_log_audits(
        mem, clock, monkeypatch):
    for namespace, version in (("a", None), ("b", gate.GATE_16)):
        with written_as(monkeypatch, version) if version else contextlib.nullcontext():
            plan = mem.remember("I need to get the car serviced.", namespace=namespace)
            clock.advance(timedelta(days=2))
            mem.remember("The car's been serviced.", namespace=namespace)
        assert status(mem, plan.memory_id) == ("superseded" if version is None else "active")
    checked(mem)
