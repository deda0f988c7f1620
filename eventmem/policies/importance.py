"""How much a new memory matters: four channels, a priority, and the flashbulb flag.

``score(text, neighbour_similarity=..., neighbour_utilities=..., session_similarity=...,
params=...)`` is pure: the caller looks up the neighbours and the session similarity and passes
them in, so the write path and the audit compute the same number from the same recorded inputs.

Channels, each in [0, 1]:

* novelty = 1 - (similarity to the nearest neighbour), 1 when there is none;
* arousal from cue lexicons (urgency, error, security, deadline, emotion) plus a little for
  exclamation marks and ALL-CAPS words, combined as a noisy-OR: ``1 - prod(1 - w)`` over the
  distinct cues found. It saturates (more cues always add, never past 1) and is independent of
  the order in which cues appear;
* reward = mean utility of the similar memories (what was useful before predicts use), 0.5 when
  none;
* attention = relevance to the current session (the given similarity), 0.5 when unknown.

Non-finite inputs (NaN, inf) are treated as absent, and values are clamped to [0, 1], so one
bad neighbour cannot push the score out of range.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Final, Literal

import msgspec

from eventmem.errors import InvalidInputError
from eventmem.policies.literals import Prefilter
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import folded as text_folded

__all__ = [
    "FLASHBULB_MIN_IMPORTANCE",
    "POLICY_VERSION",
    "Importance",
    "ImportanceParams",
    "Priority",
    "score",
]

POLICY_VERSION: Final = "importance-1"
FLASHBULB_MIN_IMPORTANCE: Final = 0.9  # a flashbulb memory is stored with at least this

Priority = Literal["low", "normal", "high", "critical"]
_NEUTRAL = 0.5  # reward and attention when there is nothing to go on: neither raise nor lower
_STRONG_FAMILIES = frozenset({"security", "urgency"})  # a cue from these is at least "high"
_WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"

# (family, weight, pattern). A weight is how much one such cue alone raises arousal; the strong
# words of a family ("breach", "emergency", "passed away") get their own heavier entry.
_CUES: Final[tuple[tuple[str, float, str], ...]] = (
    ("urgency", 0.5, r"urgent(?:ly)?|asap|immediately|right away|critical"),
    ("urgency", 0.7, r"emergenc(?:y|ies)"),
    ("error", 0.35, r"errors?|fail(?:s|ed|ing|ures?)?|crash(?:es|ed|ing)?|bugs?|broken"
                    r"|outages?|exceptions?"),
    ("security", 0.6, r"passwords?|leak(?:s|ed|ing)?|vulnerabilit(?:y|ies)|phishing|malware"
                      r"|ransomware"),
    ("security", 0.75, r"breach(?:es|ed)?|hacked|compromised"),
    ("deadline", 0.3, rf"deadlines?|overdue|expir(?:es|ed|ing|y|ation)|(?:is|are|was) due"
                      rf"|due (?:on|by|date|today|tomorrow|tonight|{_WEEKDAY})"
                      rf"|by (?:{_WEEKDAY}|tomorrow|tonight|eod|end of (?:the )?day)"),
    ("emotion", 0.3, r"lov(?:e|ed|es|ing)|hat(?:e|ed|es|ing)|thrilled|scared|engaged|married"),
    ("emotion", 0.6, r"furious|devastated|heartbroken|terrified|died|killed"),
    ("emotion", 0.8, r"passed away"),
)  # fmt: skip
_CUE_RE = lazy_re(
    r"\b(?:" + "|".join(f"(?P<c{i}>{pat})" for i, (_, _, pat) in enumerate(_CUES)) + r")\b"
)
_WORD = lazy_re(r"\w+")
# Cheap exits: most texts hold no cue word, and most have no shouted (ALL-CAPS) word, which in
# ASCII text needs three capitals in a row.
_CUE_EXIT: Final = Prefilter(rf"\b(?:{pat})\b" for _, _, pat in _CUES)
_THREE_CAPS = lazy_re(r"[A-Z]{3}")


class ImportanceParams(msgspec.Struct, kw_only=True, frozen=True):
    """Weights and thresholds of the importance policy (ARCHITECTURE.md section 9)."""

    novelty_weight: float = 0.25
    arousal_weight: float = 0.30
    reward_weight: float = 0.25
    attention_weight: float = 0.20
    # Arousal at or above this makes a flashbulb memory: pinned, importance >= 0.9 and
    # stability multiplied by the boost (the engine applies all three).
    flashbulb_arousal: float = 0.8
    flashbulb_stability_boost: float = 1.5  # x3.0 before emotion-1 (see flashbulb_boost)
    # Priority cut points on the score: below normal_from is "low".
    normal_from: float = 0.3
    high_from: float = 0.6
    critical_from: float = 0.8
    # Emphasis: each "!" and each ALL-CAPS word (3+ letters) is a weak arousal cue, counted up to
    # emphasis_max_count times each, so shouting cannot make a bland text a flashbulb on its own.
    exclamation_weight: float = 0.05
    caps_weight: float = 0.05
    emphasis_max_count: int = 3

    def __post_init__(self) -> None:
        weights = (self.novelty_weight, self.arousal_weight, self.reward_weight,
                   self.attention_weight, self.exclamation_weight, self.caps_weight)  # fmt: skip
        if not all(math.isfinite(w) and 0.0 <= w for w in weights):
            raise InvalidInputError("importance weights must be finite and >= 0")
        if sum(weights[:4]) <= 0.0:
            raise InvalidInputError("at least one importance channel weight must be > 0")
        if not 0.0 <= self.normal_from <= self.high_from <= self.critical_from <= 1.0:
            raise InvalidInputError("need 0 <= normal_from <= high_from <= critical_from <= 1")
        if not 0.0 < self.flashbulb_arousal <= 1.0:
            raise InvalidInputError("flashbulb_arousal must be in (0, 1]")
        if not self.flashbulb_stability_boost >= 1.0:
            raise InvalidInputError("flashbulb_stability_boost must be >= 1")
        if self.emphasis_max_count < 0:
            raise InvalidInputError("emphasis_max_count must be >= 0")


# A flashbulb's stability boost before emotion-1, when the config left it at its default.
LEGACY_FLASHBULB_BOOST: Final = 3.0
_DEFAULT_FLASHBULB_BOOST: Final = 1.5


def flashbulb_boost(params: ImportanceParams, emotion_policy: str) -> float:
    """The stability boost of a flashbulb memory decided under ``emotion_policy``: the
    configured one; before emotion-1 ("") a config at today's default meant the old default
    x3.0 (a log written then audits as decided)."""
    boost = params.flashbulb_stability_boost
    if not emotion_policy and boost == _DEFAULT_FLASHBULB_BOOST:
        return LEGACY_FLASHBULB_BOOST
    return boost


class Importance(msgspec.Struct, kw_only=True, frozen=True):
    """The decision: ``score`` in [0, 1] from the weighted channels, and what follows from it."""

    score: float
    channels: dict[str, float]  # novelty, arousal, reward, attention (in that order)
    priority: Priority
    flashbulb: bool
    cues: tuple[str, ...]  # "family:word" cues found, sorted; then "emphasis:!", "emphasis:caps"

    @property
    def effective(self) -> float:
        """The importance to store: the score, raised to FLASHBULB_MIN_IMPORTANCE if flashbulb."""
        return max(self.score, FLASHBULB_MIN_IMPORTANCE) if self.flashbulb else self.score


def _unit(value: float | None) -> float | None:
    """``value`` clamped to [0, 1]; None for None, NaN and infinities."""
    if value is None or not math.isfinite(value):
        return None
    return min(1.0, max(0.0, float(value)))


def _arousal(text: str, params: ImportanceParams) -> tuple[float, tuple[str, ...]]:
    """Noisy-OR of the distinct cues in ``text``; returns (arousal, sorted cue names)."""
    shown = unicodedata.normalize("NFKC", text)  # keeps case: ALL-CAPS counts
    found: dict[str, float] = {}
    folded = text_folded(text)  # the casefold of the NFKC form, spaces collapsed
    if _CUE_EXIT.may_match(folded):
        for match in _CUE_RE.finditer(folded):
            family, weight, _ = _CUES[int(str(match.lastgroup)[1:])]
            cue = f"{family}:{match.group()}"
            found[cue] = max(weight, found.get(cue, 0.0))
    weights = [found[cue] for cue in sorted(found)]  # sorted: the product is order independent
    bangs = min(shown.count("!"), params.emphasis_max_count)
    shouted = 0
    if not shown.isascii() or _THREE_CAPS.search(shown):
        shouted = sum(1 for w in _WORD.findall(shown)
                      if len(w) >= 3 and w.isalpha() and w.isupper())
    caps = min(shouted, params.emphasis_max_count)
    weights += [params.exclamation_weight] * bangs + [params.caps_weight] * caps
    cues = sorted(found) + ["emphasis:!"] * (bangs > 0) + ["emphasis:caps"] * (caps > 0)
    calm = 1.0
    for weight in weights:
        calm *= 1.0 - min(1.0, weight)
    return 1.0 - calm, tuple(cues)


def _priority(
    score: float, cues: tuple[str, ...], flashbulb: bool, p: ImportanceParams
) -> Priority:
    """Cut points on the score; a security or urgency cue, or a flashbulb, is at least "high",
    and both together are "critical" (an urgent breach must not wait behind a lucky score)."""
    strong = any(cue.partition(":")[0] in _STRONG_FAMILIES for cue in cues)
    if score >= p.critical_from or (strong and flashbulb):
        return "critical"
    if score >= p.high_from or strong or flashbulb:
        return "high"
    return "normal" if score >= p.normal_from else "low"


def score(
    text: str,
    *,
    neighbour_similarity: float | None,
    neighbour_utilities: Sequence[float],
    session_similarity: float | None,
    params: ImportanceParams,
) -> Importance:
    """Score how important ``text`` is.

    ``neighbour_similarity`` is the highest similarity to an existing memory in the namespace (None
    when there is none), ``neighbour_utilities`` the utilities of the similar memories, and
    ``session_similarity`` the relevance to the current session (None when unknown).
    """
    nearest = _unit(neighbour_similarity)
    utilities = [u for u in map(_unit, neighbour_utilities) if u is not None]
    session = _unit(session_similarity)
    arousal, cues = _arousal(text, params)
    channels = {
        "novelty": 1.0 if nearest is None else 1.0 - nearest,
        "arousal": arousal,
        # fsum: exact, so the mean does not depend on the order the neighbours came in
        "reward": math.fsum(utilities) / len(utilities) if utilities else _NEUTRAL,
        "attention": _NEUTRAL if session is None else session,
    }
    weights = (params.novelty_weight, params.arousal_weight, params.reward_weight,
               params.attention_weight)  # fmt: skip
    total = math.fsum(w * v for w, v in zip(weights, channels.values(), strict=True))
    value = min(1.0, max(0.0, total / math.fsum(weights)))  # weights need not sum to 1
    flashbulb = arousal >= params.flashbulb_arousal
    priority = _priority(value, cues, flashbulb, params)
    return Importance(
        score=value, channels=channels, priority=priority, flashbulb=flashbulb, cues=cues
    )
