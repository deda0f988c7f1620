"""Cheap exits for the rule regexes: literal texts without which a pattern cannot match.

Policies run dozens of regex searches per text, and most texts match few of them. Python's
``re`` tries every alternative at every position; a substring test (``"i am " in text``) is a
memchr-driven scan, ten to a hundred times cheaper. :func:`necessary` reads a pattern's parse
tree and returns a set of strings of which every match contains one (``"like"``, ``"love"``...
for ``i (?:really )*(?:like|love)s?``), or that every match begins the text with for a pattern
anchored at ``^``. :class:`Prefilter` says whether a text holds one for any of its patterns; a
text that holds none cannot match, so its search can be skipped: same answer, sooner.

The derivation is sound by construction: a sequence's match contains a match of each of its
mandatory items, a run of items whose matches are exactly known is their concatenation, and any
construct it does not know ends a run (an unknown item may match anything, even nothing). A
pattern it can say nothing about gets no exit: it is always searched. It reads ``re``'s own
parse tree (``re._parser``, present in CPython 3.11-3.13); without it, everything is searched.

A :class:`Prefilter` tests a text for one pattern (or one group) in about a microsecond, about
what a plain search of a word list costs, so it pays only for a pattern that is slow to search.
Where one text is read with dozens of patterns, :class:`Screen` tells all of them apart in one
scan of the text: which of them may match, the rest cannot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from eventmem.text.lazyre import source

try:  # CPython's own parser of regex syntax; absent or changed: no exits, same answers
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other interpreters
    _p = _c = None

__all__ = ["Necessary", "Prefilter", "Screen", "necessary"]

_CAP = 64  # a run's strings: past this many, the run ends and a new one begins
# Alternatives are read one by one only when read as one they need a string this short (or
# nothing): reading each costs about as much again, and a longer string is telling enough.
_SHORT = 2
_Walk = tuple[frozenset[str], bool]  # (every match begins with one of these, is exactly one)
_NOTHING: frozenset[str] = frozenset({""})
_UNKNOWN: _Walk = (_NOTHING, False)
_Trie = dict[str, "_Trie"]


class _Pattern(Protocol):
    """What :class:`Screen` reads of a pattern: its source and flags."""

    @property
    def pattern(self) -> str: ...

    @property
    def flags(self) -> int: ...


P = TypeVar("P", bound=_Pattern)


class Necessary(NamedTuple):
    """What a match needs: one of ``strings`` in the text, or (``opening``) at its start."""

    strings: frozenset[str]
    opening: bool = False


def necessary(pattern: str, flags: int = 0) -> Necessary | None:
    """Strings one of which every match of ``pattern`` contains (or begins the text with, for a
    pattern anchored at ``^``); None when nothing can be told."""
    if _p is None or _c is None:
        return None
    try:
        tree = _p.parse(pattern, flags)
    except Exception:  # an unparsable pattern gets no exit, never an error here
        return None
    if tree.state.flags & (re.IGNORECASE | re.MULTILINE | re.VERBOSE):
        return None  # literal cases, or where "^" matches, would not be the text's own
    return _necessary(list(tree))


def _necessary(items: list[Any]) -> Necessary | None:
    """:func:`necessary` of a parsed sequence: what its most telling run needs, or (of
    alternatives) what each needs, when that tells more."""
    opening = False
    while items and items[0][0] is _c.AT:  # "\b" and "^" before the first character
        opening = opening or items[0][1] is _c.AT_BEGINNING
        items = items[1:]
    found = _of_runs(items, opening)
    if len(items) != 1 or items[0][0] is not _c.BRANCH or opening \
            or (found is not None and min(map(len, found.strings)) > _SHORT):
        return found
    # Alternatives, read as one item, tell only how each begins: nothing when one opens with
    # anything, such as a number ("how many", or a number then a verb of having), little when
    # one opens with a word as short as "a". Yet a match is one of them, so it holds what one
    # of them needs. (re's parser moves a "\b" that opens every alternative before them:
    # skipped above.) Taken when its shortest string is longer: "on " or "to " needed by one
    # alternative says less than a list of nouns needed by all.
    each = [_necessary(list(alternative)) for alternative in items[0][1][1]]
    if any(need is None for need in each):
        return found
    strings = frozenset().union(*(need.strings for need in each if need is not None))
    if found is not None and min(map(len, strings)) <= min(map(len, found.strings)):
        return found
    if all(need is not None and need.opening for need in each):
        return Necessary(_minimal(strings, openings=True), opening=True)
    return Necessary(_minimal(strings))  # (a string the text must open with is in the text)


def _of_runs(items: list[Any], opening: bool) -> Necessary | None:
    runs = _runs(items)
    if not runs:
        return None
    if opening and runs[0][1]:  # the run that starts at the anchor: the match's first text
        return Necessary(_minimal(runs[0][0], openings=True), opening=True)
    return Necessary(max((_minimal(found) for found, _ in runs), key=_telling))


def _telling(found: frozenset[str]) -> tuple[int, int, list[str]]:
    """How telling a set of strings is: the longer its shortest string, then the fewer
    strings, the more (ties broken by the strings, so the choice is the same every run)."""
    return min(map(len, found)), -len(found), sorted(found)


def _minimal(found: Iterable[str], *, openings: bool = False) -> frozenset[str]:
    """Drop every string that contains another (or, for openings, begins with another):
    wherever it occurs, the shorter one does."""
    kept: list[str] = []
    for s in sorted(set(found), key=lambda s: (len(s), s)):
        if not any(s.startswith(k) if openings else k in s for k in kept):
            kept.append(s)
    return frozenset(kept)


def _runs(items: list[Any]) -> list[tuple[frozenset[str], bool]]:
    """The sets of strings this sequence's every match contains one of, each with whether it
    is the run that starts the sequence."""
    runs: list[tuple[frozenset[str], bool]] = []
    acc, first = _NOTHING, True
    for item in items:
        found, exact = _item(item)
        longer = frozenset(a + b for a in acc for b in found)
        if len(longer) > _CAP:
            runs.append((acc, first))
            acc, first = found, False
        else:
            acc = longer
        if not exact:
            runs.append((acc, first))
            acc, first = _NOTHING, False
    runs.append((acc, first))
    return [(found, first) for found, first in runs if "" not in found]


def _sequence(items: list[Any]) -> _Walk:
    """Strings every match of the sequence begins with, and whether it is exactly one."""
    acc = _NOTHING
    for item in items:
        found, exact = _item(item)
        longer = frozenset(a + b for a in acc for b in found)
        if len(longer) > _CAP:
            return acc, False
        acc = longer
        if not exact:
            return acc, False
    return acc, True


def _item(item: tuple[Any, Any]) -> _Walk:
    op, av = item
    if op is _c.LITERAL:
        return frozenset({chr(av)}), True
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):  # zero-width: consumes nothing
        return _NOTHING, True
    if op is _c.IN:
        if all(kind is _c.LITERAL for kind, _ in av):
            return frozenset(chr(code) for _, code in av), True
        return _UNKNOWN
    if op is _c.BRANCH:
        walks = [_sequence(list(alt)) for alt in av[1]]
        return frozenset().union(*(w[0] for w in walks)), all(w[1] for w in walks)
    if op is _c.SUBPATTERN:
        _, add_flags, del_flags, sub = av
        if add_flags or del_flags:  # scoped flags (case-insensitive, say): not followed
            return _UNKNOWN
        return _sequence(list(sub))
    if op is _c.ATOMIC_GROUP:
        return _sequence(list(av))
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, high, sub = av
        if low == 0 and high == 1:  # optional: nothing, or one match of sub
            found, exact = _sequence(list(sub))
            return found | _NOTHING, exact
        if low == 0:
            return _UNKNOWN
        found, exact = _sequence(list(sub))
        return found, exact and low == high == 1
    return _UNKNOWN


class Prefilter:
    """``may_match(text)``: False only when none of the patterns can match ``text``.

    The strings are searched for with one regex over their trie (``i (?:am |have )``...): re
    skips the positions whose character starts none of them, and fails at the first character
    of most others, so the test costs about a microsecond whatever the number of strings.

    The patterns are analysed on first use, not when the prefilter is made: prefilters are
    module constants of the rule tables, and parsing every rule at import cost each CLI
    command a good part of its start-up.
    """

    __slots__ = ("_built", "_flags", "_openings", "_patterns", "_search", "_strings")

    def __init__(self, patterns: Iterable[str], flags: int = 0) -> None:
        self._patterns = tuple(patterns)
        self._flags = flags
        self._strings: tuple[str, ...] | None = None  # None: every text may match
        self._openings: tuple[str, ...] = ()
        self._search: Callable[[str], object] | None = None
        self._built = False

    def _build(self) -> None:
        # Two threads may both build: the same result either way, set before _built.
        anywhere: set[str] = set()
        openings: set[str] = set()
        for pattern in self._patterns:
            need = necessary(pattern, self._flags)
            if need is None:
                self._built = True
                return
            (openings if need.opening else anywhere).update(need.strings)
        strings = tuple(sorted(_minimal(anywhere)))
        self._openings = tuple(sorted(_minimal(openings, openings=True)))
        self._search = re.compile(_trie(strings)).search if strings else None
        self._strings = strings
        self._built = True

    @property
    def strings(self) -> tuple[str, ...] | None:
        """The strings of which a text must hold one (or start with an opening); None: every
        text may match."""
        if not self._built:
            self._build()
        return self._strings

    @property
    def openings(self) -> tuple[str, ...]:
        """The strings of which a text may start with one instead."""
        if not self._built:
            self._build()
        return self._openings

    def may_match(self, text: str) -> bool:
        """Whether ``text`` holds what one of the patterns needs."""
        if not self._built:
            self._build()
        if self._strings is None:
            return True
        return (self._search is not None and self._search(text) is not None) \
            or text.startswith(self._openings)


class Screen(Generic[P]):
    """``possible(text)``: the patterns (of those given) that may match ``text``; the others
    cannot. One scan of the text finds every string any pattern needs, where a
    :class:`Prefilter` per pattern would scan it once for each.

    The strings are scanned for with one regex over their trie, tried at every position of the
    text (a lookahead: occurrences may overlap). A string may begin another ("car", "cards"), so
    the trie's every string ends in an optional longer one, and a position's match is the
    longest string found there: the strings it begins with are found with it. Like a
    prefilter, the patterns are read on first use."""

    __slots__ = ("_always", "_built", "_found", "_openings", "_patterns", "_scan")

    def __init__(self, patterns: Iterable[P]) -> None:
        self._patterns = tuple(patterns)
        self._built = False
        self._always: frozenset[P] = frozenset()  # no exit: always possible
        self._openings: tuple[tuple[str, frozenset[P]], ...] = ()
        self._found: dict[str, frozenset[P]] = {}  # a scan's match -> the patterns it lets in
        self._scan: Callable[[str], Iterator[re.Match[str]]] | None = None

    def _build(self) -> None:
        # Two threads may both build: the same result either way, set before _built.
        always: set[P] = set()
        anywhere: dict[str, set[P]] = {}
        openings: dict[str, set[P]] = {}
        for pattern in self._patterns:
            need = necessary(*source(pattern))  # (a lazy rule stays uncompiled)
            if need is None:
                always.add(pattern)
                continue
            for s in need.strings:
                (openings if need.opening else anywhere).setdefault(s, set()).add(pattern)
        # A match is the longest string at its position: it lets in the patterns of every
        # string it begins with, itself included.
        self._found = {s: frozenset(p for end in range(1, len(s) + 1)
                                    for p in anywhere.get(s[:end], ()))
                       for s in anywhere}
        self._scan = re.compile(f"(?=({_trie(anywhere, nested=True)}))").finditer \
            if anywhere else None
        self._openings = tuple((s, frozenset(found)) for s, found in sorted(openings.items()))
        self._always = frozenset(always)
        self._built = True

    def possible(self, text: str) -> frozenset[P]:
        """The patterns that may match ``text`` (each one that matches it is among them)."""
        if not self._built:
            self._build()
        found = set(self._always)
        if self._scan is not None:
            for match in self._scan(text):
                found |= self._found[match.group(1)]
        for opening, patterns in self._openings:
            if text.startswith(opening):
                found |= patterns
        return frozenset(found)


def _trie(strings: Iterable[str], *, nested: bool = False) -> str:
    """A regex matching exactly these strings, factored by common prefixes: none of the
    strings may be a prefix of another (:func:`_minimal` guarantees it), or (``nested``) a
    string may, and a match is the longest one there."""
    root: _Trie = {}
    for s in strings:
        node = root
        for ch in s:
            node = node.setdefault(ch, {})
        if nested:
            node[""] = {}  # a string ends here, and may go on

    def emit(node: _Trie) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")" if alts else ""
        return f"(?:{body})?" if "" in node and body else body

    return emit(root)
