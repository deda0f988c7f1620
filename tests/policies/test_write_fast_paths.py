"""The write path's fast paths give exactly what the paths they replace gave (the log must stay
byte-identical): each is checked against a reference written the plain way, on generated input."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.policies import causal, classify
from eventmem.text import normalize as text

# Text that hits the interesting cases: causal words in any case, apostrophes of every kind,
# contractions, runs of odd whitespace, and letters that fold or case-map specially.
_PIECES = st.sampled_from([
    "because", "BeCause", "since", "so that", "SO  THAT", "therefore", "as a result", "due to",
    "led to", "caused", "thanks to", "I'm", "i’m", "I`m", "dont", "can't", "gonna", "im",
    "ſince", "\u212aelvin", "ﬁne", "İstanbul", " ", "  ", "\t", "\n", "\u00a0", ".", ",", "!",
    "'", "’", "`", "´", "x", "Tom", "because_", "_since", "caused9", "é",
])
_TEXTS = st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=12).map("".join),
                   st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=12).map(" ".join))


def _reference_normalize(value: str) -> str:
    """classify's normalization as it was: every step on every text."""
    folded = unicodedata.normalize("NFKC", value).casefold().translate(classify._APOSTROPHES)
    folded = classify._CONTRACTION.sub(lambda m: classify._CONTRACTIONS[m.group()], folded)
    return " ".join(folded.split())


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_gives_reason_is_the_case_insensitive_search(value: str) -> None:
    assert causal.gives_reason(value) == (causal.CAUSAL.search(value) is not None)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_classify_normalization_is_unchanged(value: str) -> None:
    assert classify._normalize(value) == _reference_normalize(value)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_folded_and_dedup_key_are_unchanged(value: str) -> None:
    reference = " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    assert text.folded(value) == reference
    assert text.dedup_key(value) == hashlib.blake2b(reference.encode(), digest_size=16).hexdigest()


def test_causal_examples() -> None:
    assert causal.gives_reason("I stayed home BECAUSE it rained")
    assert causal.gives_reason("Thanks to Ana, it worked")
    assert not causal.gives_reason("I have been here sincerely")  # a word, not a prefix
    assert causal.gives_reason("ſince you asked") == bool(causal.CAUSAL.search("ſince you asked"))


def test_classify_keeps_its_answers() -> None:
    assert classify.classify("I`m allergic to peanuts") == ("identity", "identity:allergy")
    assert classify.classify("I'm   gonna call   Mom tomorrow")[0] == "plan"
    assert re.fullmatch(r"\w+:\w+", classify.classify("hello there")[1])
