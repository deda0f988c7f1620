"""gate-7: a new value of a person's single-valued attribute supersedes the latest statement of
it, whatever the style (ISSUE: remember correctly, item 4), found by any word the fact reader
takes for the attribute (gate-10); what is not a new value supersedes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

import eventmem
from eventmem.policies import gate
from tests.write.logged import checked, written_as

DAY = timedelta(days=1)


def _told(mem: eventmem.Engine, clock: eventmem.ManualClock, *texts: str
          ) -> list[eventmem.RememberResult]:
    out = []
    for text in texts:
        clock.advance(DAY)
        out.append(mem.remember(text, namespace="n"))
    return out


@pytest.mark.parametrize(("old", "new"), [
    ("I live in Boston.", "We just moved to Denver"),
    ("User lives in Boston", "I moved to Chicago."),
    ("I'm keto.", "Decided to become vegetarian."),
    ("The user's job is teacher", "The user's job is nurse"),
    ("My son Leo is 7", "My son Leo is 8"),
    ("I own 3 bikes.", "I just bought another bike, so I have 4 bikes now."),
    ("My flight is at 9am.", "My flight was moved from 9am to 9pm."),
    ("My dentist appointment is on Monday.", "Dentist appointment moved from Monday to Friday."),
    ("I drive a Subaru Outback.", "Picked up my new car today, a Nissan Leaf."),
    ("I drive a Fiat 500.", "I bought a Citroën C3!"),
    ("I'm single.", "I'm engaged to Ingrid now."),
    ("I work at Initech.", "First week at Northwind Traders done."),
])
def test_a_new_value_supersedes_the_old_one_and_keeps_it_in_history(
        mem: eventmem.Engine, clock: eventmem.ManualClock, old: str, new: str) -> None:
    first, second = _told(mem, clock, old, new)
    assert second.action == "superseded", second
    assert second.neighbour == first.memory_id
    before = mem.get(first.memory_id)
    assert before.status == "superseded" and before.superseded_by == second.memory_id
    assert before.valid_until is not None  # it was true until the new value began
    # The evidence: the attribute and the value words each side says.
    conflict = mem.conflicts(namespace="n", status=None)[0]
    assert conflict.memory_id == first.memory_id
    # Asked at a time between the two, the old value answers.
    then = mem.recall(old.rstrip("."), namespace="n", valid_at=clock.now() - DAY / 2)
    assert then and then[0].memory_id == first.memory_id
    assert mem.audit().ok and mem.verify().ok


@pytest.mark.parametrize(("old", "new"), [
    # the same value, said again in other words
    ("User now lives in Montreal", "I'm based in Montreal these days."),
    # more about the same value
    ("Alice works at Acme as a data engineer", "Alice works at Acme as a data engineer in Berlin"),
    # someone else's value
    ("I live in Oslo.", "My friend Jake still lives in Boston."),
    # a plan is no change yet
    ("I drive a Mazda CX-5.", "Remind me to renew the car registration by May 28."),
    # a name never declared as the user's is not the user
    ("I live in Oslo.", "Rosa moved to Madrid."),
])
def test_what_is_not_a_new_value_supersedes_nothing(
        mem: eventmem.Engine, clock: eventmem.ManualClock, old: str, new: str) -> None:
    first, second = _told(mem, clock, old, new)
    assert second.action != "superseded", second
    if second.action == "merged":  # the gate's near duplicate: one memory carries both
        assert old.split()[-1].rstrip(".") in (mem.get(second.memory_id).text or "")
    else:
        assert mem.get(first.memory_id).status == "active"


def test_a_declared_name_is_the_user(mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    _, home, move = _told(mem, clock, "Hi, I'm Dana.", "I live in Oslo.", "Dana moved to Lyon.")
    assert move.action == "superseded" and move.neighbour == home.memory_id


def test_a_long_conversation_turn_is_never_replaced(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    """Superseding hides all a memory says: a turn telling many things stays."""
    turn = ("I live in Boston with my two cats. Work has been hectic and my sister visits on "
            "Friday. We might try that new ramen place, and I still owe Sam a call about the "
            "trip to Lisbon next month.")
    first, second = _told(mem, clock, turn, "We just moved to Denver")
    assert second.action == "created"
    assert mem.get(first.memory_id).status == "active"


def test_an_older_value_said_again_after_a_change_is_news(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    oslo, denver, again = _told(mem, clock, "I live in Oslo.", "I moved to Denver.",
                                "I live in Oslo.")
    assert denver.action == "superseded"
    assert again.action == "superseded" and again.memory_id != oslo.memory_id
    assert mem.get(denver.memory_id).status == "superseded"
    assert mem.recall("Where do I live?", namespace="n")[0].text == "I live in Oslo."


def test_a_late_report_of_an_earlier_value_replaces_nothing(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    denver, = _told(mem, clock, "I moved to Denver.")
    late = mem.remember("I lived in Austin.", namespace="n",
                        valid_from=clock.now() - 30 * DAY)
    assert late.action != "superseded" or late.neighbour != denver.memory_id
    assert mem.get(denver.memory_id).status == "active"


def test_a_value_stated_in_any_of_the_readers_words_is_replaced(
        mem: eventmem.Engine, clock: eventmem.ManualClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """gate-10: "resides" is a residence to the fact reader, so the search for the latest
    residence finds it; gate-9 searched without the word and kept both, and its log audits as
    decided."""
    first, second = _told(mem, clock, "Since 2025-02-25, the user resides in Leipzig.",
                          "I moved from Leipzig to Osaka.")
    assert second.action == "superseded" and second.neighbour == first.memory_id, second
    with written_as(monkeypatch, gate.GATE_9):
        old, new = _told(mem, clock, "User resides in Porto.", "I moved to Lyon.")
    assert new.action == "created", new
    assert mem.get(old.memory_id).status == "active"
    checked(mem)


@pytest.mark.parametrize("name", ["Zoë", "Joaquín", "Ana-Sofía"])
def test_someone_named_with_accents_moving_supersedes_nothing_of_the_users(
        mem, clock, monkeypatch, name):
    """gate-12: "Joaquín moved to Lyon" is Joaquín's move. gate-11 read no name in it, so a
    sentence with no subject, the user's own move, and superseded the user's residence: a
    gate-11 log that did so audits as decided."""
    home, theirs = _told(mem, clock, "I live in Boston.", f"{name} moved to Lyon.")
    assert theirs.action == "created"
    assert mem.get(home.memory_id).status == "active"
    assert mem.get(theirs.memory_id).status == "active"
    with written_as(monkeypatch, gate.GATE_11):
        clock.advance(DAY)
        old = mem.remember("I live in Boston.", namespace="m")
        clock.advance(DAY)
        moved = mem.remember(f"{name} moved to Lyon.", namespace="m")
    assert moved.action == "superseded" and moved.neighbour == old.memory_id
    checked(mem)


@pytest.mark.parametrize(("first", "then"), [
    ("I work at Globex.", "Handed in my notice at Globex, I'm with Hooli now."),
    ("I own 4 cacti.", "I just bought another cactus, so I have 5 cacti now."),
    ("My podiatrist appointment is on Wednesday.", "Had to push the podiatrist to Friday."),
])
def test_a_change_read_by_the_third_edition_replaces_the_old_value(mem, clock, monkeypatch,
                                                                   first, then):
    """gate-13 reads with the fact reader's third edition: notice given is a change of
    employer, "cacti" and "cactus" one count, a specialist named by the form of the word an
    appointment. gate-12 kept both, and audits as decided."""
    old, new = _told(mem, clock, first, then)
    assert new.action == "superseded" and new.neighbour == old.memory_id
    with written_as(monkeypatch, gate.GATE_12):
        clock.advance(DAY)
        kept = mem.remember(first, namespace="m")
        clock.advance(DAY)
        mem.remember(then, namespace="m")
    assert mem.get(kept.memory_id).status == "active"
    checked(mem)


def test_a_new_role_at_another_company_keeps_the_title(mem, clock):
    """gate-14: "Started a new role at Dunder Paper" replaces the employer, and the title
    stays (it says no title); gate-13 read it as a title too and replaced the title."""
    title = mem.remember("User was promoted to data analyst on the 16th of May")
    employer = mem.remember("I work at Gekko Capital.")
    clock.advance(timedelta(days=30))
    mem.remember("Started a new role at Dunder Paper last week.")
    assert mem.get(title.memory_id).status == "active"
    assert mem.get(employer.memory_id).status == "superseded"
    checked(mem)


@pytest.mark.parametrize(("old", "new", "changed", "kept"), [
    ("I live in Boston and work at Google.", "I moved to Denver.", "Where do I live?",
     "Where do I work?"),
    ("Farah works at Arkas as an accountant.", "Farah now works at Akdeniz Bank.",
     "Where does Farah work?", "What is Farah's job?"),
    ("I live in Boston and work at Google as an engineer.",
     "I live in Cambridge and work at Google.", "Where do I live?", "What is my job title?"),
])
def test_a_text_restating_part_of_a_memory_leaves_the_rest_current(mem, clock, monkeypatch,
                                                                   old, new, changed, kept):
    """gate-18: a change of one attribute of a memory stating two is created beside it (rule
    ``says_more``): the changed one is answered by the new text, the other by the old, which
    stays current. gate-17 superseded the whole memory and lost the other attribute; such a
    log still audits as it decided."""
    first, second = _told(mem, clock, old, new)
    assert (second.action, second.rule, second.neighbour) == \
        ("created", "says_more", first.memory_id)
    assert mem.get(first.memory_id).status == "active"
    assert mem.recall(changed, namespace="n")[0].memory_id == second.memory_id
    assert mem.recall(kept, namespace="n")[0].memory_id == first.memory_id
    with written_as(monkeypatch, gate.GATE_17):
        first, second = [mem.remember(text, namespace="m") for text in (old, new)]
    assert mem.get(first.memory_id).status == "superseded"
    checked(mem)


def test_a_count_changed_keeps_the_memory_naming_what_is_counted(mem, clock, monkeypatch):
    """gate-19: "I have 2 cats, Pansit and Ube" names the cats; "We adopted a kitten, so 3 cats
    now" changes the count and names none, so the first stays current (rule ``says_more``) and
    answers for their names, while the count is the newer one. A count that names nothing is
    replaced as before; gate-18 replaced both and audits as it decided."""
    named, counted = _told(mem, clock, "I have 2 cats, Pansit and Ube.",
                           "We adopted a kitten, so 3 cats now.")
    assert mem.get(named.memory_id).status == "active", counted
    assert mem.recall("What are my cats' names?", namespace="n")[0].memory_id == named.memory_id
    assert mem.recall("How many cats do I have?", namespace="n")[0].memory_id == \
        counted.memory_id
    bare, _ = [mem.remember(text, namespace="b") for text in ("I have 2 dogs.",
                                                               "We got another dog, so 3 now.")]
    assert mem.get(bare.memory_id).status == "superseded"
    with written_as(monkeypatch, gate.GATE_18):
        first, _ = [mem.remember(text, namespace="m") for text in
                    ("I have 2 cats, Pansit and Ube.", "We adopted a kitten, so 3 cats now.")]
    assert mem.get(first.memory_id).status == "superseded"
    checked(mem)


def test_a_correction_of_part_of_a_memory_keeps_the_rest_current(mem, clock, monkeypatch):
    """gate-20: "My flight to Lagos leaves at 08:55 and I'm in seat 23A", then "Sorry, I
    misread the ticket: the Lagos flight leaves at 09:55": the seat is a clause of values the
    correction leaves untouched, so the first stays current beside it (rule ``says_more`` where
    a contradiction would replace it, no correction where one would); the time asked is the
    newer. gate-19 replaced it, the seat was lost, and it audits as it decided."""
    texts = ("My flight to Lagos leaves at 08:55 and I'm in seat 23A.",
             "Sorry, I misread the ticket: the Lagos flight leaves at 09:55. The seat's right.")
    seat, fixed = _told(mem, clock, *texts)
    assert mem.get(seat.memory_id).status == "active", fixed
    assert mem.recall("What time does my Lagos flight leave?", namespace="n")[0].memory_id == \
        fixed.memory_id
    assert seat.memory_id in [h.memory_id for h in mem.recall("What seat am I in?",
                                                              namespace="n", k=3)]
    with written_as(monkeypatch, gate.GATE_19):
        first, _ = [mem.remember(text, namespace="m") for text in texts]
    assert mem.get(first.memory_id).status == "superseded"
    checked(mem)


def test_a_value_held_once_never_replaces_the_value_held_now(mem, clock, monkeypatch):
    """gate-20 reads "from when I lived in Kampala" as history, not a home: "I live in Kigali"
    stays current and answers "Where do I live?". gate-19 replaced it, and audits as it
    decided."""
    texts = ("I live in Kigali.", "I really miss the rolex stalls from when I lived in Kampala.")
    home, _ = _told(mem, clock, *texts)
    assert mem.get(home.memory_id).status == "active"
    assert mem.recall("Where do I live?", namespace="n")[0].memory_id == home.memory_id
    with written_as(monkeypatch, gate.GATE_19):
        first, _ = [mem.remember(text, namespace="m") for text in texts]
    assert mem.get(first.memory_id).status == "superseded"
    checked(mem)


@pytest.mark.parametrize(("held", "said"), [
    ("I work at Globex.", "I didn't take the job at Initech after all, the offer was too low."),
    ("My flight to Lima leaves at 11:20 on Saturday from gate B12.",
     "Small correction, it's gate B14, the departure time hasn't changed."),
    ("I live in Oslo.", "Dana called, she moved to Lyon."),  # Dana's move, not the speaker's
])
def test_what_was_declined_or_said_to_stay_never_replaces_what_holds(mem, clock, monkeypatch,
                                                                     held, said):
    """gate-21 reads a job declined, a clause saying the time stayed as it was, and what someone
    who called reports of themself, as nothing new of the speaker's: the memory stays current.
    gate-20 replaced it, and audits as it decided."""
    first, _ = _told(mem, clock, held, said)
    assert mem.get(first.memory_id).status == "active"
    with written_as(monkeypatch, gate.GATE_20):
        old, _ = [mem.remember(text, namespace="m") for text in (held, said)]
    assert mem.get(old.memory_id).status == "superseded"
    checked(mem)
