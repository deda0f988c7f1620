"""The latest word on a topic first (eventmem.recall.updates): of two statements of one person on
a topic the fact reader knows no attribute of, the later one that says something changed answers
a question about the present."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.recall.updates import gives_up, restates, topic_words, updates

T0 = datetime(2025, 3, 1, 9, tzinfo=UTC)


def _said(tmp_path: Path, *texts: str, days: int = 3) -> tuple[eventmem.Engine,
                                                                 eventmem.ManualClock]:
    clock = eventmem.ManualClock(start=T0)
    mem = eventmem.open(tmp_path / "s", clock=clock)
    for text in texts:
        clock.advance(timedelta(days=days))
        mem.remember(text, namespace="n")
    clock.advance(timedelta(days=2))
    return mem, clock


@pytest.mark.parametrize(("old", "new", "question"), [
    ("My gym is PureGym.", "I switched gyms, I go to Anytime Fitness now.",
     "Which gym do I go to?"),
    ("I'm learning Spanish.", "I gave up on Spanish and started Japanese instead.",
     "What language am I learning?"),
    ("My rent is $1,200 a month.", "The landlord raised the rent to $1,350.",
     "How much is my rent?"),
    ("My phone number is 555-0101.", "New number: 555-0199.", "What's my phone number?"),
    ("I go to the gym on Mondays.", "Gym day is Wednesday now.", "When do I go to the gym?"),
])
def test_an_update_on_a_topic_no_attribute_names_answers_for_the_present(
        tmp_path: Path, old: str, new: str, question: str) -> None:
    mem, _ = _said(tmp_path, old, new)
    with mem:
        hits = mem.recall(question, namespace="n", k=5)
        assert [h.text for h in hits][:2] == [new, old]  # the older one stays, below
        assert hits[0].score >= hits[1].score  # scores never rise down the list


def test_an_update_sharing_no_word_with_the_question_is_found_and_marked(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "I'm learning Spanish.",
                   "I gave up on Spanish and started Japanese instead.")
    with mem:
        hits = mem.recall("What language am I learning?", namespace="n", k=5)
        assert hits[0].text == "I gave up on Spanish and started Japanese instead."
        assert hits[0].signals.get("update") == 1.0


def test_a_question_in_the_past_keeps_the_old_value_first(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "My gym is PureGym.", "I switched gyms, I go to Anytime Fitness now.")
    with mem:
        hits = mem.recall("Which gym did I use to go to?", namespace="n", k=5)
        assert all("update" not in h.signals for h in hits)


def test_a_chain_of_updates_puts_the_last_on_top(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "My gym is PureGym.", "I switched gyms, I go to Anytime Fitness now.",
                   "My new gym is the leisure centre, since Anytime Fitness closed.")
    with mem:
        top = mem.recall("Which gym do I go to?", namespace="n", k=5)[0]
        assert top.text == "My new gym is the leisure centre, since Anytime Fitness closed."


@pytest.mark.parametrize(("newer", "older"), [
    ("Jake has a new car.", "Jake lives in Boston."),  # one person, two topics
    ("My sister switched gyms.", "My gym is PureGym."),  # another person
    ("I go to Anytime Fitness.", "My gym is PureGym."),  # no word of change
    ("Did I switch gyms?", "My gym is PureGym."),  # a question states nothing
    ("I'm reading a new novel now.", "My gym is PureGym."),  # nothing shared
])
def test_no_update_without_one_person_one_topic_and_a_change(newer: str, older: str) -> None:
    assert not updates(newer, older)


def test_an_update_is_of_the_part_of_the_top_hit_the_question_asks(tmp_path: Path) -> None:
    """A new time for the flight is no new place to stay: the hotel stays on top, and the
    update of the flight (found beyond the hits) does not push it out of the list."""
    stay = ("My flight to Reykjavik leaves Thursday at 13:50, and I'm staying at Hotel Fjara for "
            "three nights.")
    moved = "The airline moved the flight to 16:20, the hotel booking is unchanged."
    mem, _ = _said(tmp_path, stay, moved)
    with mem:
        assert mem.recall("Where am I staying?", namespace="n", k=5)[0].text == stay
        hits = mem.recall("When does the flight leave?", namespace="n", k=5)
        assert [h.text for h in hits][:2] == [moved, stay]


def test_a_plan_is_no_update(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "My gym is PureGym.", "I need to switch gyms next month.")
    with mem:
        assert mem.recall("Which gym do I go to?", namespace="n", k=5)[0].text \
            == "My gym is PureGym."


def test_topic_words_leave_out_whose_it_is_and_the_words_of_change() -> None:
    assert topic_words("Jake now has a new car.", "jake") == {"car"}


@pytest.mark.parametrize(("newer", "older", "restated"), [
    ("I'm at Initech now.", "I work at Globex.", True),
    ("We're in Porto now.", "I live in Lisbon.", True),
    ("I've been at Initech for two weeks.", "I work at Globex.", True),
    ("I'm at Initech now.", "I live in Lisbon.", False),  # another frame
    ("I'm in Paris now for a conference.", "I live in Lisbon.", False),  # a visit
    ("I'm in Paris for a few days.", "I live in Lisbon.", False),
    ("I'm in Porto.", "I live in Lisbon.", False),  # nothing says it changed
    ("Dana is in Porto now.", "I live in Lisbon.", False),  # someone else
    ("I'm still in Lisbon now.", "I live in Lisbon.", False),  # the same value
    ("We're in Porto now, since May.", "I moved to Lisbon in March.", False),  # "to" vs "in"
    ("As of this month I'm at Tidewater Bank.", "I work at Fjord Analytics.", True),
    # the old value left for a new one in another frame
    ("Halcyon and I parted ways; I'm at Meridian now.", "I'm employed by Halcyon.", True),
    # what is only supposed or was declined restates nothing
    ("If I got the job at Nordlys Energy I'd finally have a short commute.",
     "I'm a logistics planner at Halvorsen Marine.", False),
    ("I didn't take the job at Saffron Pay after all.", "I'm at Tidewater Insurance.", False),
])
def test_a_value_restated_in_the_frame_of_the_old_one(newer: str, older: str,
                                                       restated: bool) -> None:
    assert restates(newer, older) is restated


def test_a_known_attribute_restated_in_its_frame_answers_for_the_present(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "I work at Globex.", "I'm at Initech now.")
    with mem:
        assert mem.recall("Where do I work?", namespace="n", k=5)[0].text == "I'm at Initech now."
        # a question about the past still gets the value then
        hits = mem.recall("Where did I work in March?", namespace="n", k=5,
                          valid_at=T0 + timedelta(days=4))
        assert hits[0].text == "I work at Globex."


def test_a_visit_in_the_frame_of_a_home_is_no_new_home(tmp_path: Path) -> None:
    mem, _ = _said(tmp_path, "I live in Lisbon.", "I'm in Paris now for a conference.")
    with mem:
        assert mem.recall("Where do I live?", namespace="n", k=5)[0].text == "I live in Lisbon."


def test_a_value_given_up_for_another_restates_it() -> None:
    assert restates("I've swapped Malmö for Uppsala.", "I live in Malmö.")
    assert not restates("I've swapped Malmö for Uppsala.", "I live in Lund.")
    assert not restates("I swapped shifts with Dana.", "I live in Malmö.")


def test_a_value_restated_for_one_attribute_is_not_restated_for_another() -> None:
    """"... has been renting in Puebla since the new school term" restates the home of
    "Guadalupe lives in Oaxaca and works as a primary school teacher", not the job: with the
    attribute asked, only the clauses stating it count, and of them a name or number left."""
    newer = "Guadalupe sold her house and has been renting in Puebla since the new school term."
    older = "Guadalupe lives in Oaxaca and works as a primary school teacher."
    assert restates(newer, older, "residence")
    assert not restates(newer, older, "title")
    assert restates("I'm at Initech now.", "I live in Lisbon and work at Globex.", "employer")


def test_a_frame_ends_with_its_sentence_and_a_verb_in_ing_says_no_change() -> None:
    assert not restates("Had lunch with Ambrose. She got the moving van booked.",
                        "Caught up with Ambrose today. Her daughter Ines is 4 years old.")


def test_a_value_given_up_answers_only_for_its_attribute(tmp_path: Path) -> None:
    """"Sold the Forester" gives up the car of a statement that also says where the user lives:
    it answers "What do I drive?", and the home is still the statement's."""
    said = "I live in Wellington, teach music and drive a Subaru Forester."
    assert gives_up("Sold the Forester, I bike everywhere now.", said, "car")
    assert not gives_up("Sold the Forester, I bike everywhere now.", said, "residence")
    assert not gives_up("Jake sold his Forester.", said, "car")  # someone else's
    assert not gives_up("Sold the old sofa.", said, "car")  # no value of it named
    mem, _ = _said(tmp_path, said, "Sold the Forester, I bike everywhere now.")
    with mem:
        assert mem.recall("What do I drive?", namespace="n", k=3)[0].text.startswith("Sold")
        assert mem.recall("Where do I live?", namespace="n", k=3)[0].text == said
