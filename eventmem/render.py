"""Readable one-line renderings of events, hits and memories for the CLI and the demo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eventmem.results import Hit, Memory


def describe_event(tag: str, details: Mapping[str, Any]) -> str:
    """One line saying what an event did and, for decisions, why."""
    mid = details.get("memory_id", "")
    match tag:
        case "memory.ingested":
            extra = " flashbulb (pinned)" if details.get("flashbulb") else ""
            return (f"created {mid} kind={details['kind']} ({details['kind_rule']}) "
                    f"source={details['source']} importance={details['importance']:.2f} "
                    f"priority={details.get('priority', 'normal')} tier={details.get('tier')}"
                    f"{extra} rule={details['rule']} policy={details['policy']}")
        case "memory.reinforced":
            return (f"reinforced {mid}: duplicate input, rule={details['rule']} "
                    f"similarity={details['similarity']:.3f}")
        case "memory.recalled":
            ids = ", ".join(details["memory_ids"]) or "nothing"
            return f"recalled {ids} for {details['query']!r} (k={details['k']})"
        case "memory.forgotten":
            return f"forgot {mid} ({details['reason']})"
        case "memory.pinned":
            return f"pinned {mid}"
        case "memory.unpinned":
            return f"unpinned {mid}"
        case "memory.touched":
            return f"touched {mid} (stability now {details['stability']:.1f} days)"
        case "memory.feedback":
            return (f"feedback on {mid}: target {details['target']:.2f}, "
                    f"utility now {details['utility']:.3f}")
        case "memory.lifecycle":
            return "; ".join(
                f"{c['memory_id']} {c['from_status']} -> {c['to_status']} ({c['reason']}, "
                f"retention {c['retention']:.3f})" for c in _changes(details))
        case "memory.tier_changed":
            return "; ".join(f"{c['memory_id']} tier {c['from_tier']} -> {c['to_tier']} "
                             f"({c['reason']})" for c in _changes(details))
        case "memory.invalidated":
            return f"invalidated {mid}: valid time ended ({details['reason']})"
        case "store.embedder_registered":
            return f"embedder {details['embedder_id']} (dim {details['dim']})"
        case _:
            return f"{tag} {dict(details)}"


def _changes(details: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A batch event's changes as mappings (history hands Structs, the log hands builtins)."""
    import msgspec

    return [c if isinstance(c, dict) else msgspec.structs.asdict(c) for c in details["changes"]]


_CHANNEL_ORDER = ("vector", "bm25", "context", "time")


def _channels(signals: Mapping[str, float]) -> list[str]:
    """The channels that ranked a hit: the built-in ones first, then the rest by name."""
    ranked = [name.removesuffix("_rank") for name in signals if name.endswith("_rank")]
    return sorted(ranked, key=lambda c: (_CHANNEL_ORDER.index(c) if c in _CHANNEL_ORDER
                                         else len(_CHANNEL_ORDER), c))


def explain_lines(signals: Mapping[str, float]) -> list[str]:
    """Why a hit scored what it did: each channel's rank, raw score and RRF weight, then the
    composite's factors."""
    channels = ", ".join(
        f"{c} #{int(signals[c + '_rank'])} ({signals.get(c, 0.0):.3f}, "
        f"w {signals.get(c + '_weight', 0.0):.2f})" for c in _channels(signals))
    g = signals.get
    return [
        f"via {channels or 'no channel'}; rrf {g('rrf', 0.0):.4f}",
        f"relevance {g('relevance', 0.0):.3f} x prior {g('prior_weight', 1.0):.3f} (recency "
        f"{g('recency', 0.0):.2f}, retention {g('retention', 0.0):.3f}, importance "
        f"{g('importance', 0.0):.2f}, confidence {g('confidence', 0.0):.2f}) x status "
        f"{g('status_weight', 1.0):.2f} x utility {g('utility_weight', 1.0):.3f} x activation "
        f"{g('activation_weight', 1.0):.3f} x cue {g('cue_weight', 1.0):.2f}"
        f" = {g('composite', g('score', 0.0)):.4f}; redundancy {g('redundancy', 0.0):.3f}",
    ]


def render_plan(plan: Any) -> str:
    """One line saying how a query was understood (an ``eventmem.query.QueryPlan``)."""
    if plan.chitchat:
        return "query: small talk, nothing to recall"
    parts = [f"intent {plan.intent}"]
    if plan.time is not None:
        parts.append(f"time {plan.time.phrase!r}")
    if plan.expansion:
        parts.append(f"expanded {plan.expansion!r}")
    if plan.parts:
        parts.append("parts " + " | ".join(plan.parts))
    return "query: " + "; ".join(parts)


def render_hits(hits: Sequence[Hit], *, explain: bool) -> str:
    if not hits:
        return "(no memories matched)"
    lines = []
    for rank, hit in enumerate(hits, start=1):
        lines.append(f"{rank:>2}. {hit.score:.4f}  {hit.memory_id}  {hit.text}")
        if explain:
            lines.extend(f"      {line}" for line in explain_lines(hit.signals))
    return "\n".join(lines)


def render_memory(memory: Memory) -> str:
    fields = ("memory_id", "namespace", "text", "kind", "status", "tier", "importance", "utility",
              "stability", "retention", "access_count", "pinned", "immutable", "source",
              "confidence", "valid_from", "valid_until", "created_at", "last_access_at")
    out = []
    for name in fields:
        value = getattr(memory, name)
        if isinstance(value, float):
            value = f"{value:.3f}"
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out.append(f"{name:>15}: {value}")
    return "\n".join(out)
