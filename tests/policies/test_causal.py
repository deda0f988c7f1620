"""The causal cue (eventmem/policies/causal.py): its fast path is exactly the case-insensitive
search it replaced, checked on generated text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from eventmem.policies import causal
from tests.strategies import fast_path_texts


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(fast_path_texts())
def test_gives_reason_is_the_case_insensitive_search(value: str) -> None:
    assert causal.gives_reason(value) == (causal.CAUSAL.search(value) is not None)


def test_causal_examples() -> None:
    assert causal.gives_reason("I stayed home BECAUSE it rained")
    assert causal.gives_reason("Thanks to Ana, it worked")
    assert not causal.gives_reason("I have been here sincerely")  # a word, not a prefix
    assert causal.gives_reason("ſince you asked") == bool(causal.CAUSAL.search("ſince you asked"))
