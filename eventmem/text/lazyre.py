"""Regexes compiled on first use, so that importing the rules costs nothing.

The rule tables (entity and fact extraction, classification, time expressions, query plans)
are module-level compiled regexes. Compiled at import they took most of a CLI command's start-up
(over half a second), though most commands never run one. ``lazy_re(pattern, flags)`` stands
for ``re.compile(pattern, flags)``: a constant with the same methods and attributes, compiled
the first time any of them is used. The compiled pattern's bound methods are then kept on the
constant itself, so a use after the first costs what it cost on the compiled pattern.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["lazy_re", "source"]

# What a compiled pattern offers: bound to the constant once compiled.
_ATTRIBUTES = ("findall", "finditer", "flags", "fullmatch", "groupindex", "groups", "match",
               "pattern", "scanner", "search", "split", "sub", "subn")


class _LazyPattern:
    """A pattern and its flags until first use, then the compiled pattern's attributes."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute not found: the first use. Compiling twice from two
        # threads is harmless (the same pattern either way), so no lock.
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        self.__dict__.update((attr, getattr(compiled, attr)) for attr in _ATTRIBUTES)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re({self._source[0]!r}, {self._source[1]!r})"


def source(pattern: Any) -> tuple[str, int]:
    """A pattern's source and flags, as ``re.compile`` was (or will be) given them, without
    compiling a lazy one: what :class:`eventmem.policies.literals.Screen` reads of every rule
    it screens, most of which a run never searches (compiling them all cost a process about
    half a second on its first write). For a compiled pattern, its ``pattern`` and ``flags``
    (which add the flags re implies, such as ``re.UNICODE``: the same pattern either way)."""
    if isinstance(pattern, _LazyPattern):
        return pattern._source
    return str(pattern.pattern), int(pattern.flags)


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used (see the module docstring).
    Typed as the compiled pattern it behaves as; it is no ``re.Pattern`` instance, so pass it
    to no ``re.*`` function: call its own methods."""
    return cast(re.Pattern[str], _LazyPattern(pattern, flags))
