"""When a statement's fact began, for a memory the caller gave no ``valid_from``.

``valid_from(text, kind, at)`` is the start of the past day the text says the fact began
("Yesterday I moved to Denver" recorded on March 5: March 4), else ``at``, the time it was
recorded: a fact is never taken to hold before it was stated unless its text says so. The text
itself is kept verbatim; only its valid time is read from it.

A plan's dates are deadlines ("renew my passport by March 3"), settled by
:mod:`eventmem.policies.timebound` as its valid-until, never as when it began. Decided under the
write gate's version (:data:`eventmem.policies.gate.GATE_VERSION`, from ``gate-4``): older
versions left the valid time open. Pure: no clock, no store.
"""

from __future__ import annotations

from typing import Final

from eventmem.text.timeexpr import stated_time

__all__ = ["RECORDED", "STATED", "valid_from"]

STATED: Final = "stated"  # the rule recorded when the text gave the time
RECORDED: Final = "transaction_time"  # the rule recorded when the time of recording did


def valid_from(text: str, kind: str | None, at: int) -> tuple[int, str]:
    """When the fact ``text`` states began, and the rule that says so: the day its text names
    (rule :data:`STATED`), or ``at`` (rule :data:`RECORDED`). ``kind`` is the memory's kind when
    known (a plan's dates are deadlines)."""
    if kind != "plan":
        found = stated_time(text, at)
        if found is not None:
            return found.start, STATED
    return at, RECORDED
