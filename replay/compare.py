"""Comparing a recorded event with the one an audit re-derived: field by field, scores within a
tolerance, and modulo the ids the re-derivation made up.

A re-run cannot always make the same ids as the original call (a write batch re-run without its
rejected items numbers them differently), so the audit maps each id the re-derivation created to
the recorded one in the same place (:meth:`Ids.pair`), and compares everything else with the
re-derived ids replaced.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from eventmem.events import ConflictFlagged, Event, MemoryIngested, event_tag
from replay.policies import KNOWN

# The default tolerance of an audit's score comparisons. Scores are recorded rounded to six
# places, and the same similarity computed twice may differ in its last float32 bit (BLAS
# kernels depend on memory alignment): enough to flip the sixth place, a difference of 1e-6.
TOLERANCE: Final = 2e-6

# Fields that are not decisions: bookkeeping for the audit itself, and the caller's labels
# (tags, refs: carried as erasable content since labels-1, in the clear before; not decided).
IGNORED = frozenset({"item", "tags", "refs", "caller_hash"})


class Ids:
    """Re-derived id -> recorded id, for the events of one decision group."""

    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}

    def pair(self, recorded: Event, derived: Event) -> None:
        """Map the ids ``derived`` creates onto those ``recorded`` created in its place."""
        if isinstance(recorded, MemoryIngested) and isinstance(derived, MemoryIngested):
            self.mapping[derived.memory_id] = recorded.memory_id
        elif isinstance(recorded, ConflictFlagged) and isinstance(derived, ConflictFlagged):
            self.mapping[derived.conflict_id] = recorded.conflict_id


def plain(value: Any, ids: dict[str, str] | None = None) -> Any:
    """``value`` as builtins (structs as dicts with every field, defaults included), with the
    strings in ``ids`` replaced."""
    if isinstance(value, msgspec.Struct):
        return {name: plain(getattr(value, name), ids) for name in value.__struct_fields__}
    if isinstance(value, tuple | list):
        return [plain(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: plain(v, ids) for k, v in value.items()}
    if ids and isinstance(value, str):
        return ids.get(value, value)
    return value


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def differences(recorded: Any, derived: Any, tolerance: float, path: str = ""
                ) -> list[tuple[str, Any, Any]]:
    """(field path, recorded, re-derived) for every field that differs; numbers count as equal
    within ``tolerance`` (relative, or absolute near zero)."""
    if _number(recorded) and _number(derived):
        if isinstance(recorded, float) or isinstance(derived, float):
            same = math.isclose(recorded, derived, rel_tol=tolerance, abs_tol=tolerance)
        else:
            same = recorded == derived
        return [] if same else [(path, recorded, derived)]
    if isinstance(recorded, dict) and isinstance(derived, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in [*recorded, *(k for k in derived if k not in recorded)]:
            if key in IGNORED and not path:
                continue
            out += differences(recorded.get(key), derived.get(key), tolerance,
                               f"{path}.{key}" if path else str(key))
        return out
    if isinstance(recorded, list) and isinstance(derived, list) and len(recorded) == len(derived):
        out = []
        for i, (r, d) in enumerate(zip(recorded, derived, strict=True)):
            out += differences(r, d, tolerance, f"{path}[{i}]")
        return out
    if isinstance(recorded, bool) or isinstance(derived, bool):  # True == 1 in Python
        return [] if recorded is derived else [(path, recorded, derived)]
    return [] if recorded == derived else [(path, recorded, derived)]


def compare_events(recorded: Event, derived: Event, ids: Ids, tolerance: float
                   ) -> list[tuple[str, Any, Any]]:
    """The differences between a recorded event and the re-derived one in its place (after
    pairing the ids the re-derived one creates)."""
    if type(recorded) is not type(derived):
        return [("type", event_tag(recorded), event_tag(derived))]
    ids.pair(recorded, derived)
    policy = getattr(recorded, "policy", None)
    if policy is not None and policy != getattr(derived, "policy", None) \
            and policy in KNOWN.get(event_tag(recorded), ()):
        # An older version whose rules for this decision are this code's: the rest must agree.
        derived = msgspec.structs.replace(derived, policy=policy)
    if recorded == derived:  # the usual case, and a fast one (the re-run made the same ids)
        return []
    return differences(plain(recorded), plain(derived, ids.mapping), tolerance)


def summary(event: Event) -> str:
    """A decision in a few words: its type, rule, neighbour and similarity (for findings)."""
    parts = [event_tag(event)]
    for name in ("rule", "memory_id", "neighbour", "similarity", "strategy", "reason"):
        value = getattr(event, name, None)
        if value is not None and value != "":
            parts.append(f"{name}={_short(value)}")
    return " ".join(parts)


def tags(events: Iterable[Event]) -> str:
    """The tags of ``events``, comma-separated ("nothing" for none), for a finding's message."""
    return ", ".join(event_tag(e) for e in events) or "nothing"


def _short(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def render_value(value: Any) -> str:
    """A recorded or re-derived value for a finding's message (floats to 6 significant digits)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
