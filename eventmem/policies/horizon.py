"""When a plan that names no time ends: a default window for short errands, none for ambitions.

A plan with a time phrase ends when the phrase says (:mod:`eventmem.policies.timebound`). A plan
without one would otherwise stay open for ever, so "I'm going to call the plumber" still heads
"what do I still need to do?" a year later. ``default_until(text, at, days)`` gives such a plan
a window of ``days`` (the seeds' +7 days) from when it was said, and returns ``(valid_until,
rule)``, or None when the plan is open-ended.

Decisions a reader might question:

* Only short-horizon intentions get the window: an errand-like modal ("going to", "need to",
  "have to", "must", "remind me to", "will", "planning to"...) and nothing that says the horizon
  is long. A careful person does not drop "I want to visit Japan someday" after a week, so
  these never get one: an open-ended time word ("someday", "one day", "eventually", "in the
  future", "long-term", "when I retire"...), a wish or an ambition rather than an errand ("want
  to", "hope to", "would like to", "dream", "goal", "bucket list"...), or a long undertaking
  (learning or studying something, becoming something, travelling, writing a book, a degree,
  saving up, starting a business...). When in doubt, no window: a plan kept open is still
  shown as a plan, a plan wrongly expired is hidden from "what is still to do".
* The window is measured from ``at`` (when it was said) and recorded on the memory's event with
  its length (``plan_window_days``), so an audit re-derives it with the window in force then.

Pure and deterministic: no clock, no store.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.clock import MICROS_PER_DAY
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import folded

__all__ = ["POLICY_VERSION", "RULE", "default_until", "open_ended", "short_horizon"]

POLICY_VERSION: Final = "horizon-1"
RULE: Final = "plan_window:short"  # the valid_until_rule of a plan given the default window

# A modal that introduces an errand-like intention: something to do, soon.
_ERRAND: Final = lazy_re(
    r"\b(?:going to|gonna|about to|need to|needs to|have to|has to|got to|gotta|must|"
    r"should|ought to|remind me to|remember to|don't forget to|do not forget to|"
    r"planning to|plan to|plans to|will|'ll|todo|to-do|to do:)\b", re.I)

# Words that say the horizon is long or open: no default window.
_OPEN_TIME: Final = (
    r"some ?day|one day|eventually|sometime|some time|in the future|in future|in the long run|"
    r"long[- ]term|long[- ]run|in (?:a few|several|many|\d+) years|before i die|"
    r"when i(?:'m| am)? (?:retire|retired|older|grow up)|(?:in|during) (?:my|our) (?:life|"
    r"lifetime|retirement)|later in life|bucket list|at some point|one of these days|"
    r"down the (?:road|line)|in the coming years|over the next (?:few )?years|"
    r"this year|next year")
_WISH: Final = (
    r"want to|wants to|wanna|hope to|hopes to|hoping to|would like to|'d like to|would love to|"
    r"'d love to|wish|dream|dreams|dreaming|goal|goals|ambition|aspire|aspiration|aim to|"
    r"aiming to|intend to|resolution|resolve to|life ?long|career")
# Long undertakings: learning a skill, becoming someone, long trips, life projects.
_LONG_TASK: Final = (
    r"learn|learning|study|studying|master|become|becoming|travel|travelling|traveling|"
    r"backpack|emigrate|retire|write (?:a|my) (?:book|novel|memoir)|novel|degree|phd|"
    r"master's|diploma|certification|fluent|save up|saving up|save for|start (?:a|my own) "
    r"(?:business|company|family)|buy a (?:house|home|flat|apartment)|marathon|"
    r"around the world|get in shape|lose weight|build (?:a|my) (?:house|home|career)|"
    r"visit|see the world")
_LONG: Final = lazy_re(rf"\b(?:{_OPEN_TIME}|{_WISH}|{_LONG_TASK})\b", re.I)


def _norm(text: str) -> str:
    return folded(text).translate(_APOSTROPHES)


_APOSTROPHES: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def open_ended(text: str) -> bool:
    """Whether ``text`` says its horizon is long or open (a wish, an ambition, a long
    undertaking, an open-ended time word): such a plan gets no default window."""
    return _LONG.search(_norm(text)) is not None


def short_horizon(text: str) -> bool:
    """Whether ``text`` is an errand-like intention (a short-horizon modal) that is not
    open-ended."""
    norm = _norm(text)
    return _ERRAND.search(norm) is not None and _LONG.search(norm) is None


def default_until(text: str, at: int, days: float) -> tuple[int, str] | None:
    """``(valid_until, RULE)`` for a plan ``text`` said at ``at`` (epoch microseconds) that
    names no time, ``days`` after it; None when ``days`` is 0 (off) or the plan is not a
    short-horizon one. The caller checks first that the text names no time."""
    if days <= 0 or not short_horizon(text):
        return None
    return at + round(days * MICROS_PER_DAY), RULE
