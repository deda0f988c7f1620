"""The causal cue (eventmem/policies/causal.py): its fast path is exactly the case-insensitive
search it replaced, checked on generated text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.policies import causal

# Text that hits the interesting cases: causal words in any case, apostrophes of every kind,
# contractions, runs of odd whitespace, and letters that fold or case-map specially.
# -- the fast path ---------------------------------------------------------------------------------


_PIECES = st.sampled_from([
    "because", "BeCause", "since", "so that", "SO  THAT", "therefore", "as a result", "due to",
    "led to", "caused", "thanks to", "I'm", "i’m", "I`m", "dont", "can't", "gonna", "im",
    "ſince", "\u212aelvin", "ﬁne", "İstanbul", " ", "  ", "\t", "\n", "\u00a0", ".", ",", "!",
    "'", "’", "`", "´", "x", "Tom", "because_", "_since", "caused9", "é",
])

_TEXTS = st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=12).map("".join),
                   st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=12).map(" ".join))


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_gives_reason_is_the_case_insensitive_search(value: str) -> None:
    assert causal.gives_reason(value) == (causal.CAUSAL.search(value) is not None)


def test_causal_examples() -> None:
    assert causal.gives_reason("I stayed home BECAUSE it rained")
    assert causal.gives_reason("Thanks to Ana, it worked")
    assert not causal.gives_reason("I have been here sincerely")  # a word, not a prefix
    assert causal.gives_reason("ſince you asked") == bool(causal.CAUSAL.search("ſince you asked"))
