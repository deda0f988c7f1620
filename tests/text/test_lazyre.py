"""Regexes compiled on first use (eventmem.text.lazyre): a lazy pattern answers exactly as the
compiled one, and compiles nothing until it is used."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.text.lazyre import lazy_re

WORDS = st.text("ab c.", max_size=12)


@given(words=st.lists(st.text("abc", min_size=1, max_size=4), min_size=1, max_size=4),
       text=WORDS, flags=st.sampled_from([0, re.IGNORECASE]))
def test_a_lazy_pattern_answers_as_the_compiled_one(words: list[str], text: str,
                                                    flags: int) -> None:
    source = r"\b(?:" + "|".join(map(re.escape, words)) + r")\b"
    lazy, compiled = lazy_re(source, flags), re.compile(source, flags)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.sub("_", text) == compiled.sub("_", text)
    assert lazy.findall(text) == compiled.findall(text)
    assert lazy.split(text) == compiled.split(text)
    assert (lazy.search(text) is None) == (compiled.search(text) is None)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (compiled.pattern, compiled.flags,
                                                        compiled.groups)


def test_it_compiles_on_first_use_and_keeps_the_compiled_methods() -> None:
    broken = lazy_re("(unclosed")  # made at import: nothing is compiled yet, nothing raised
    with pytest.raises(re.error):
        broken.search("x")
    word = lazy_re(r"(?P<w>\w+)")
    assert "search" not in vars(word)
    assert word.match("hello").group("w") == "hello"
    assert vars(word)["search"].__self__ is vars(word)["match"].__self__  # one compiled pattern
    assert word.groupindex == {"w": 1}
    with pytest.raises(AttributeError):
        word.no_such_method  # noqa: B018
