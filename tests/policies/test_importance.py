"""The importance score (eventmem/policies/importance.py): arousal, flashbulb and priority by
example, novelty, reward and attention channels, and a score in range on any input."""

from __future__ import annotations

import math

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.errors import InvalidInputError
from eventmem.policies.importance import (
    FLASHBULB_MIN_IMPORTANCE,
    Importance,
    ImportanceParams,
    score,
)
from tests.strategies import chat_texts, unicode_texts

SETTINGS = settings(max_examples=200, deadline=None)


# ---------------------------------------------------------------- importance

P = ImportanceParams()


def _score(
    text: str,
    similarity: float | None = None,
    utilities: tuple[float, ...] = (),
    session: float | None = None,
) -> Importance:
    return score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities,
        session_similarity=session,
        params=P,
    )


def test_urgent_security_breach_is_a_critical_flashbulb() -> None:
    r = _score("URGENT: security breach, all passwords leaked!!!")
    assert r.flashbulb and r.priority == "critical"
    assert {"security:breach", "urgency:urgent", "emphasis:!"} <= set(r.cues)
    assert r.channels["arousal"] >= P.flashbulb_arousal
    assert r.effective >= FLASHBULB_MIN_IMPORTANCE > r.score


def test_bland_sentence_is_normal() -> None:
    r = _score("The sky was blue and we had lunch.")
    assert (r.priority, r.flashbulb, r.cues) == ("normal", False, ())
    assert r.channels == {"novelty": 1.0, "arousal": 0.0, "reward": 0.5, "attention": 0.5}
    assert r.effective == r.score == pytest.approx(0.475)


def test_security_cue_alone_is_at_least_high() -> None:
    r = _score("rotate the password", similarity=0.9, utilities=(0.1,), session=0.1)
    assert r.score < P.high_from and r.priority == "high" and not r.flashbulb


def test_grief_is_flashbulb_without_being_critical() -> None:
    r = _score("My grandmother passed away, I'm devastated")
    assert r.flashbulb and r.priority == "high"


def test_novelty_falls_with_a_near_duplicate() -> None:
    assert _score("x").channels["novelty"] == 1.0
    assert _score("x", similarity=0.97).channels["novelty"] == pytest.approx(0.03)
    assert _score("x", similarity=0.97).score < _score("x").score


def test_reward_follows_neighbour_utilities() -> None:
    assert _score("x", utilities=(0.9, 0.7)).channels["reward"] == pytest.approx(0.8)
    assert _score("x", utilities=(0.9, 0.7)).score > _score("x", utilities=(0.1,)).score
    assert _score("x", utilities=(0.2, math.nan)).channels["reward"] == pytest.approx(0.2)


def test_attention_is_session_relevance() -> None:
    assert _score("x", session=0.9).channels["attention"] == pytest.approx(0.9)
    assert _score("x", session=0.9).score > _score("x", session=0.1).score


def test_shouting_alone_is_not_a_flashbulb() -> None:
    r = _score("WHY WOULD ANYONE EVER DO THIS!!!!!!!!!!")
    assert not r.flashbulb and r.channels["arousal"] < 0.3


def test_params_are_validated_and_embeddable() -> None:
    with pytest.raises(InvalidInputError):
        ImportanceParams(high_from=0.9, critical_from=0.8)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"novelty_weight": -1.0}, ImportanceParams)
    assert msgspec.convert(msgspec.to_builtins(P), ImportanceParams) == P


_floats = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))


@SETTINGS
@given(
    st.one_of(unicode_texts(200), chat_texts()),
    _floats,
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
    _floats,
)
def test_score_in_range_on_any_input(
    text: str, similarity: float | None, utilities: list[float], session: float | None
) -> None:
    r = score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities,
        session_similarity=session,
        params=P,
    )
    assert 0.0 <= r.score <= 1.0 and 0.0 <= r.effective <= 1.0
    assert list(r.channels) == ["novelty", "arousal", "reward", "attention"]
    assert all(0.0 <= v <= 1.0 for v in r.channels.values())
    assert r.priority in ("low", "normal", "high", "critical")
    assert list(r.cues) == sorted(c for c in r.cues if not c.startswith("emphasis:")) + [
        c for c in r.cues if c.startswith("emphasis:")
    ]
    rev = score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities[::-1],
        session_similarity=session,
        params=P,
    )
    assert rev == r  # the order of the neighbours does not matter
