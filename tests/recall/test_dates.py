"""Questions that name a date: the time channel finds what was said *about* that date on
another day ("yesterday" said the day after, "in ten days" said ten days before), as evidence
tied to the query; what/where/who questions at a named time are temporal (unless they ask for
an attribute of someone, a state that held then); "how long" questions favour the memories
that state a length or a start."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import eventmem
from eventmem.clock import to_micros
from eventmem.recall.plan import asks_duration, classify, plan
from eventmem.text.timeexpr import find_time

DAY = timedelta(days=1)
MARCH_16 = datetime(2022, 3, 16, 18, tzinfo=UTC)  # a Wednesday


def ids(hits: list[eventmem.Hit]) -> list[str]:
    return [h.memory_id for h in hits]


@pytest.fixture
def clock() -> eventmem.ManualClock:
    return eventmem.ManualClock(start=MARCH_16 - 10 * DAY)


def conversation(mem: eventmem.Engine, clock: eventmem.ManualClock) -> dict[str, str]:
    """James and Ana talk on three days; what James did on March 16 is told on the 17th."""
    said: dict[str, str] = {}
    said["plan"] = mem.remember("James: In ten days I will finally climb Mount Tam",
                                namespace="c").memory_id
    mem.remember_many([f"Ana: James, how was work {i}?" for i in range(3)] +
                      [f"James: Work was fine, Ana {i}" for i in range(3)], namespace="c")
    clock.set(MARCH_16 + DAY)
    said["told"] = mem.remember("James: Yesterday I went hiking with my dog",
                                namespace="c").memory_id
    mem.remember_many(["Ana: That sounds lovely, James!", "James: The view was great, Ana"],
                      namespace="c")
    clock.set(MARCH_16 + 20 * DAY)
    said["later"] = mem.remember("James: I went hiking again last weekend", namespace="c").memory_id
    mem.remember_many([f"Ana: James, any news {i}?" for i in range(3)], namespace="c")
    clock.set(MARCH_16 + 40 * DAY)
    return said


@pytest.mark.parametrize("question", [
    "What was James doing on March 16, 2022?",
    "What did James do on 16 March 2022?",
    "Where did James go on March 16?",
    "What happened to James on 16 March 2022?",  # nothing but a name every memory holds
])
def test_a_date_finds_what_was_said_about_it_the_day_after(
        mem: eventmem.Engine, clock: eventmem.ManualClock, question: str) -> None:
    said = conversation(mem, clock)
    hits = mem.recall(question, namespace="c", k=3)
    assert said["told"] in ids(hits)[:2]
    told = next(h for h in hits if h.memory_id == said["told"])
    assert "time_rank" in told.signals  # the time channel found it: evidence tied to the query


def test_a_plan_said_before_the_day_is_found_by_that_day(mem: eventmem.Engine,
                                                         clock: eventmem.ManualClock) -> None:
    said = conversation(mem, clock)
    hits = mem.recall("What did James plan for March 16, 2022?", namespace="c", k=3)
    assert said["plan"] in ids(hits)


def test_another_date_does_not_find_it(mem: eventmem.Engine,
                                       clock: eventmem.ManualClock) -> None:
    said = conversation(mem, clock)
    found = mem.recall("What was James doing on March 2, 2022?", namespace="c", k=10)
    assert said["told"] not in [h.memory_id for h in found if "time_rank" in h.signals]


def test_a_view_before_it_was_said_does_not_find_it(mem: eventmem.Engine,
                                                    clock: eventmem.ManualClock) -> None:
    said = conversation(mem, clock)
    view = mem.as_of(at=MARCH_16 + 12 * timedelta(hours=1))  # the evening of the 16th
    assert said["told"] not in ids(view.recall("What was James doing on March 16, 2022?",
                                               namespace="c", k=10))


# -- intent ----------------------------------------------------------------------------------------

NOW = to_micros(datetime(2023, 11, 1, tzinfo=UTC))


@pytest.mark.parametrize(("text", "intent"), [
    ("What was James doing on March 16, 2022?", "temporal"),
    ("Who did Maria have dinner with on May 3, 2023?", "temporal"),
    ("Where did they go the weekend before 20 October 2023?", "temporal"),
    ("Which book did Tim read in May 2023?", "temporal"),
    ("What did John attend with his colleagues in March 2023?", "temporal"),
    ("Who did Tim meet at the fair on 5 May 2023?", "temporal"),
    # A reason or a liking stays what it is, dated or not.
    ("Why did Maria sit with the girl in February 2023?", "causal"),
    ("What is Sam's favourite drink?", "preference"),
    # An attribute of someone at a date is a state that held then: the attribute answers it.
    ("Which city was Theo living in on 2025-02-16?", "factual"),
    ("What car did I drive on March 6, 2025?", "factual"),
    # Without a date a what-question is factual.
    ("What did John attend with his colleagues?", "factual"),
    ("How long have Mel and her husband been married?", "temporal"),
    ("How many weeks passed between adopting Coco and Shadow?", "temporal"),
    ("How long is the drive to the lake?", "temporal"),
])
def test_intent_by_structure(text: str, intent: str) -> None:
    assert classify(text, find_time(text, NOW)) == intent


@pytest.mark.parametrize(("text", "duration"), [
    ("How long has Caroline had her friends?", True),
    ("how long ago was her 18th birthday?", True),
    ("Since when does Bob live in Oslo?", True),
    ("How many years has Tim been painting?", True),
    ("When did Tim start painting?", False),
    ("How many kids does Melanie have?", False),
])
def test_a_how_long_question_asks_for_a_duration(text: str, duration: bool) -> None:
    assert asks_duration(text) is duration
    assert plan(text, NOW).duration is duration


def test_how_long_favours_the_memory_that_states_the_length(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    mem.remember_many(["Mel: My husband and I love dancing together",
                       "Mel: My husband cooked dinner, he is married to the kitchen",
                       "Mel: Married five years already, my husband and I!",
                       "Mel: My husband and I went to the beach"], namespace="m")
    clock.advance(3 * DAY)
    hits = mem.recall("How long have Mel and her husband been married?", namespace="m", k=4)
    top = hits[0]
    assert top.text == "Mel: Married five years already, my husband and I!"
    assert top.signals.get("cue_weight", 1.0) > 1.0
