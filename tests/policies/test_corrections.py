"""What a correction takes back (policies/corrections.py): the markers that open one, and the
value it names as wrong."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.policies import corrections, facts


@pytest.mark.parametrize("text", [
    "Sorry, I misspoke earlier, I work at Globex.",
    "No wait, I meant Denver, not Bristol.",
    "Actually, scratch that: it's Friday, not Monday.",
    "Correction: the user lives in Lyon.",
    "Oops, I got that wrong. The flight is at 9am.",
    "Wait, I meant Tuesday.",
])
def test_a_correction_is_heard(text: str) -> None:
    assert corrections.takes_back(text)


@pytest.mark.parametrize("text", [
    "Oh wait, it's Initech, not Globex.",
    "Hmm, actually I live in Braga.",
    "Ah, my mistake, it's Tuesday.",
])
def test_the_sixth_edition_hears_a_correction_after_an_interjection(text: str) -> None:
    assert corrections.takes_back(text)
    assert not corrections.takes_back(text, facts.EDITION_5)


@pytest.mark.parametrize("text", [
    "Wait for me at the station.",
    "I live in Lyon.",
    "I'm not sure where I left my keys.",
    "Oh, wait for me at the station.",
])
def test_other_texts_are_no_correction(text: str) -> None:
    assert not corrections.takes_back(text)


@pytest.mark.parametrize(("text", "wrong"), [
    ("Actually, scratch that: it's Friday, not Monday.", "Monday"),
    ("No wait, I meant Denver, not Bristol.", "Bristol"),
    ("Correction: not Monday but Friday.", "Monday"),
    ("Sorry, I misspoke: my flight leaves at 9am, not at 7am!", "7am"),
    ("Oops. The user's employer is Vandelay Industries, not Fabrikam Motors.",
     "Fabrikam Motors"),
])
def test_the_value_taken_back(text: str, wrong: str) -> None:
    assert corrections.taken_back(text) == wrong


@pytest.mark.parametrize("text", [
    "I'm not sure.", "It was not really my thing.", "I live in Lyon.",
    "Not now, thanks.",
])
def test_a_text_naming_no_wrong_value(text: str) -> None:
    assert corrections.taken_back(text) is None


_VALUE = st.from_regex(r"[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?", fullmatch=True).filter(
    lambda v: v.split()[0].lower() not in {"the", "a", "an", "on", "at", "in", "to"})


@given(right=_VALUE, wrong=_VALUE, lead=st.sampled_from(["No wait, I meant", "Sorry, it's",
                                                        "Correction: it is"]))
def test_the_value_after_not_is_the_one_taken_back(right: str, wrong: str, lead: str) -> None:
    text = f"{lead} {right}, not {wrong}."
    assert corrections.taken_back(text) == wrong
    assert corrections.holds(f"I said {wrong} before.", wrong)
    assert not corrections.holds(f"I said {wrong}x before.", wrong)


@pytest.mark.parametrize(("text", "wrong"), [
    ("Actually, scratch that: it's Windhoek, not Łódź.", "Łódź"),
    ("Oops, I got that wrong. He started at Oakridge & Partners, not Ironwood & Co.",
     "Ironwood & Co"),
    ("Sorry, I meant Brightwater Inc., not Smith & Sons Ltd.", "Smith & Sons Ltd"),
    ("Correction: not Élodie but Zoë.", "Élodie"),
])
def test_the_fourth_edition_takes_back_a_value_in_any_letters(text: str, wrong: str) -> None:
    """A value may open with any letter and hold "&" or an abbreviation (the fact reader's
    fourth edition, gate-14); the earlier editions read none of these, as their gates did."""
    assert corrections.taken_back(text) == wrong
    assert corrections.holds(f"I said {text.split('not ')[-1]}", wrong)
    earlier = corrections.taken_back(text, facts.EDITION_3)
    assert earlier is None or earlier != wrong


@pytest.mark.parametrize(("text", "wrong"), [
    ("No wait, I meant 9:10am, not 13:50.", "13:50"),
    ("Oops, I got that wrong: I leave at 20:50, not 6:55pm.", "6:55pm"),
    ("Actually, it's 7:45 pm, not 6:30 pm.", "6:30 pm"),
    ("Correction: not 10:30 but 11:00.", "10:30"),
])
def test_the_fifth_edition_takes_back_a_time_with_its_minutes(text: str, wrong: str) -> None:
    """A time of day with its minutes is one value (the fact reader's fifth edition, gate-15);
    the fourth read the minutes alone or nothing, as gate-14 did."""
    assert corrections.taken_back(text) == wrong
    assert corrections.holds(f"My flight leaves at {wrong}.", wrong)
    assert corrections.taken_back(text, facts.EDITION_4) != wrong


_ANY_TIME = st.builds(lambda h, m, suffix: f"{h}:{m:02d}{suffix}", st.integers(0, 23),
                      st.integers(0, 59), st.sampled_from(["", "am", "pm", " am", " pm"]))


@given(right=_ANY_TIME, wrong=_ANY_TIME)
def test_any_time_after_not_is_taken_back(right: str, wrong: str) -> None:
    assert corrections.taken_back(f"No wait, I meant {right}, not {wrong}.") == wrong


_ANY_VALUE = st.from_regex(r"[A-ZÉŁÖ][a-zéłóźø]{2,8}( & Co\.| [A-Z][a-z]{2,8})?",
                           fullmatch=True).filter(
    lambda v: v.split()[0].lower() not in {"the", "a", "an", "on", "at", "in", "to"})


@given(right=_ANY_VALUE, wrong=_ANY_VALUE)
def test_any_value_after_not_is_taken_back_without_its_full_stop(right: str, wrong: str) -> None:
    text = f"No wait, I meant {right}, not {wrong}."
    assert corrections.taken_back(text) == wrong.rstrip(".")
    assert corrections.holds(f"I said {wrong} before.", wrong.rstrip("."))
