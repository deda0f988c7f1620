"""Readable renderings for the CLI and the demo: events, hits and memories one line each, a
memory's life in sentences, conflicts, versions, the graph, and the store's stats as a table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from eventmem.clock import from_micros
from eventmem.results import Box, Conflict, HistoryEntry, Hit, Memory, Version


def describe_event(tag: str, details: Mapping[str, Any]) -> str:
    """One line saying what an event did and, for decisions, why: the rule, the neighbour and
    similarity, the conflict's attribute and values, a transition's reason and evidence. It
    names memories by id and never quotes their text (a trace is safe to share)."""
    d: dict[str, Any] = msgspec.to_builtins(dict(details))
    mid = d.get("memory_id", "")
    match tag:
        case "memory.ingested":
            extra = " flashbulb (pinned)" if d.get("flashbulb") else ""
            evidence = _evidence(d)
            if d.get("derived_from"):
                evidence += f" from {', '.join(d['derived_from'])}"
            if d.get("valid_until_rule"):
                evidence += f" valid_until inferred ({d['valid_until_rule']})"
            return (f"created {mid} kind={d['kind']} ({d.get('kind_rule', 'caller')}) "
                    f"source={d.get('source', 'user')} importance={d.get('importance', 0.5):.2f} "
                    f"priority={d.get('priority', 'normal')} tier={d.get('tier', 'episodic')}"
                    f"{extra} rule={d.get('rule', 'new')} policy={d.get('policy')}{evidence}")
        case "memory.reinforced":
            stability = "" if d.get("stability") is None \
                else f", stability now {d['stability']:.1f} days"
            return (f"reinforced {mid}: duplicate input, rule={d['rule']} "
                    f"similarity={d['similarity']:.3f}{stability}")
        case "memory.skipped":
            return (f"skipped input into {mid}: adds nothing, rule={d['rule']} "
                    f"similarity={d['similarity']:.3f}")
        case "memory.rejected":
            return f"rejected input ({d['length']} chars): {d['reason']} (rule={d['rule']})"
        case "memory.superseded":
            until = "" if d.get("until") is None else f", valid until {_when(d['until'])}"
            conflict = f" conflict {d['conflict_id']}" if d.get("conflict_id") else ""
            return (f"superseded {mid} by {d['by']}: rule={d['rule']} "
                    f"similarity={d.get('similarity', 0.0):.3f}{conflict}{until}")
        case "conflict.flagged":
            return (f"conflict {d['conflict_id']}: {d['other_id']} contradicts {mid} on "
                    f"{_claim(d)} (rule={d['rule']} similarity={d['similarity']:.3f} "
                    f"strategy={d['strategy']})")
        case "conflict.resolved":
            return (f"conflict {d['conflict_id']} resolved by {d['strategy']}: {d['winner']} "
                    f"wins over {d['loser']}")
        case "memory.recalled":
            ids = ", ".join(f"{m} ({s:.3f})" for m, s in zip(
                d["memory_ids"], d.get("scores") or [0.0] * len(d["memory_ids"]), strict=True))
            return f"recalled {ids or 'nothing'} for {_query(d)} (k={d['k']})"
        case "memory.forgotten":
            return f"forgot {mid} ({d.get('reason', 'explicit')})"
        case "memory.pinned":
            return f"pinned {mid}"
        case "memory.unpinned":
            return f"unpinned {mid}"
        case "memory.touched":
            return f"touched {mid} (stability now {d['stability']:.1f} days)"
        case "memory.feedback":
            return (f"feedback on {mid}: target {d['target']:.2f}, "
                    f"utility now {d['utility']:.3f}")
        case "memory.lifecycle":
            return "; ".join(
                f"{c['memory_id']} {c['from_status']} -> {c['to_status']} ({c['reason']}, "
                f"retention {c['retention']:.3f})" for c in d["changes"])
        case "memory.tier_changed":
            return "; ".join(f"{c['memory_id']} tier {c['from_tier']} -> {c['to_tier']} "
                             f"({c['reason']})" for c in d["changes"])
        case "memory.invalidated":
            return (f"invalidated {mid}: valid time ended at {_when(d['until'])} "
                    f"({d['reason']})")
        case "memory.commitment_resolved":
            return f"commitment {mid} marked done: valid time ended, out of recall"
        case "memory.rehearsed":
            return "; ".join(
                f"rehearsed {c['memory_id']}: retention {c['retention']:.3f}, stability "
                f"{c['from_stability']:.1f} -> {c['stability']:.1f} days" for c in d["changes"])
        case "memory.dormant":
            return "; ".join(f"{c['memory_id']} dormant ({c['reason']}{_dormant_evidence(c)})"
                             for c in d["changes"])
        case "memory.consolidated":
            return (f"consolidated {len(d['members'])} memories into {mid} ({d['method']}; "
                    f"{d['algorithm']}, cohesion {d['cohesion']:.3f})")
        case "memory.category_summarized":
            replaces = f", replacing {d['replaces']}" if d.get("replaces") else ""
            return (f"summary {mid} of {d['members']} {d['kind']} memories "
                    f"({d['method']}){replaces}")
        case "graph.relations_pruned":
            return f"pruned {len(d['edges'])} weak relations (strength < threshold at now)"
        case "memory.box_sealed":
            return (f"sealed box {d['box_id']} of {_memories(len(d['memory_ids']))} "
                    f"({_box_reason(d)}); {_box_trace(d)}")
        case "store.embedder_registered":
            return f"embedder {d['embedder_id']} (dim {d['dim']})"
        case "memory.erased":
            # A namespace erase requests no memory; a cascade erases copies of the one asked for.
            cause = ("the namespace" if d.get("requested") is None
                     else "" if list(d["memory_ids"]) == [d["requested"]]
                     else f"{d['requested']} and what was derived from it")
            return (f"erased {', '.join(d['memory_ids'])} (reason {d['reason']}"
                    f"{', ' + cause if cause else ''}): text, vectors and terms removed")
        case _:
            return f"{tag} {d}"


def _memories(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


def _box_reason(d: Mapping[str, Any]) -> str:
    """Why a box was sealed, with the evidence the event records."""
    by = f" at {d['by']}" if d.get("by") else ""
    match d["reason"]:
        case "topic":
            return f"topic shift{by}, overlap {d.get('overlap') or 0.0:.3f}"
        case "gap":
            return f"quiet for {(d.get('gap_s') or 0.0) / 60:.0f} min{by}"
        case "size":
            return "full"
        case other:
            return str(other)


def _box_trace(d: Mapping[str, Any]) -> str:
    """The trace a sealed box joined or started, with the overlap that decided it."""
    if d.get("trace_box"):
        return (f"joined trace {d['trace_id']} by {d['trace_box']} (overlap "
                f"{d.get('trace_overlap', 0.0):.3f})")
    return f"started trace {d['trace_id']}"


def _evidence(d: Mapping[str, Any]) -> str:
    if d.get("neighbour") is None:
        return ""
    return f" neighbour={d['neighbour']} similarity={d.get('similarity') or 0.0:.3f}"


def _claim(d: Mapping[str, Any]) -> str:
    if not (d.get("subject") or d.get("attribute")):
        # The evidence is content: erasing either side of the conflict removed it.
        return "(evidence erased)"
    return f"{d['subject']} {d['attribute']}: {d['old_value']!r} -> {d['new_value']!r}"


def _dormant_evidence(c: Mapping[str, Any]) -> str:
    parts = []
    if c.get("other"):
        parts.append(f"other {c['other']}")
    if c.get("similarity") is not None:
        parts.append(f"similarity {c['similarity']:.3f}")
    if c.get("conflict_id"):
        parts.append(f"conflict {c['conflict_id']}")
    if c["reason"] == "utility_floor":
        parts.append(f"utility {c['utility']:.3f}, idle {c.get('idle_days', 0.0):.0f} days")
    if c["reason"] == "capacity":
        parts.append(f"{c.get('count', 0)} live memories")
    return "".join(f", {p}" for p in parts)


def _when(micros: int) -> str:
    return from_micros(micros).strftime("%Y-%m-%d %H:%M")


# Each channel in words, for the explain.
_CHANNEL_NAMES = {
    "vector": "meaning (vector)", "bm25": "shared words (BM25)",
    "context": "shared words with their neighbouring turns", "time": "the asked time",
    "graph": "a graph path from a named entity", "plans": "open plans",
    "links": "a cause or elaboration link from a match",
    "hub": "the asked entity's hub (its relations)",
    "answer": "the reply to a matching question",
}


def _channels(signals: Mapping[str, float]) -> list[tuple[str, float]]:
    """The weighted channels that ranked a hit with what each added to its RRF score, the
    largest first (a channel of weight 0 only annotates: it is left out)."""
    out = []
    for name in signals:
        if not name.endswith("_rank"):
            continue
        channel = name.removesuffix("_rank")
        weight = signals.get(channel + "_weight", 0.0)
        if weight > 0:
            out.append((channel, weight / (_RRF_K + signals[name])))
    return sorted(out, key=lambda item: (-item[1], item[0]))


_RRF_K = 60  # Config.rrf_k's default: the contribution shown is relative anyway


def explain_lines(signals: Mapping[str, float]) -> list[str]:
    """Why a hit scored what it did: each channel that ranked it, named in words, with its rank
    and raw score, the largest contribution first; then the composite's factors."""
    parts = []
    for channel, _ in _channels(signals):
        base, _, part = channel.partition("@")
        words = _CHANNEL_NAMES.get(base, base) + (f" (part {part} of the question)"
                                                   if part else "")
        parts.append(f"{words} #{int(signals[channel + '_rank'])} "
                     f"({signals.get(channel, 0.0):.3f})")
    if signals.get("fact"):
        parts.insert(0, "the asked attribute, latest value first")
    channels = "; ".join(parts)
    g = signals.get
    # The vector search runs only when it counts (see eventmem.recall.fuse.gather); a hit it did
    # not rank still shows its cosine to the query.
    cosine = f"; cosine {g('vector', 0.0):.3f}" if "vector_rank" not in signals else ""
    boosts = f" x boosts {g('boost_weight', 1.0):.3f}" if "boost_weight" in signals else ""
    return [
        f"via {channels or 'no channel'}; rrf {g('rrf', 0.0):.4f}{cosine}",
        f"relevance {g('relevance', 0.0):.3f} x prior {g('prior_weight', 1.0):.3f} (recency "
        f"{g('recency', 0.0):.2f}, retention {g('retention', 0.0):.3f}, importance "
        f"{g('importance', 0.0):.2f}, confidence {g('confidence', 0.0):.2f}) x status "
        f"{g('status_weight', 1.0):.2f} x utility {g('utility_weight', 1.0):.3f} x activation "
        f"{g('activation_weight', 1.0):.3f} x cue {g('cue_weight', 1.0):.2f}"
        f"{boosts}"
        f" = {g('composite', g('score', 0.0)):.4f}; redundancy {g('redundancy', 0.0):.3f}"
        + (f"; mood x{g('mood_weight', 1.0):.2f}" if "mood_weight" in signals else "")
        + (f"; co-retrieved {int(g('coretrieval', 0.0))} times" if "coretrieval" in signals
           else "")
        + (f"; a list's later hit of a conversation already listed x"
           f"{g('session_spread', 1.0):.2f}" if "session_spread" in signals else ""),
        *_boost_line(signals),
    ]


def _boost_line(signals: Mapping[str, float]) -> list[str]:
    """The boosts of a hit (eventmem.policies.routing), those that moved it; none when none
    did. A hot memory added after the hits says so."""
    if signals.get("hot"):
        return ["hot: always relevant (utility, uses), added after the hits"]
    if "boost_weight" not in signals:
        return []
    g = signals.get
    parts = []
    if g("session_boost"):
        parts.append(f"same session +{g('session_boost', 0.0):.2f}")
    if g("entity_boost"):
        parts.append(f"names the asked entities +{g('entity_boost', 0.0):.2f}")
    if g("subtier_weight", 1.0) != 1.0:
        parts.append(f"sub-tier x{g('subtier_weight', 1.0):.2f}")
    if g("conflict_weight", 1.0) != 1.0:
        parts.append(f"in an open conflict x{g('conflict_weight', 1.0):.2f}")
    if "superseded_weight" in signals:
        parts.append(f"a replaced value x{g('superseded_weight', 1.0):.2f}")
    if not parts:
        return []
    return [f"boosts: {', '.join(parts)} = x{g('boost_weight', 1.0):.3f}"]


def render_plan(plan: Any) -> str:
    """One line saying how a query was understood (an ``eventmem.recall.plan.QueryPlan``)."""
    if plan.chitchat:
        return "query: small talk, nothing to recall"
    parts = [f"intent {plan.intent}"]
    if plan.time is not None:
        parts.append(f"time {plan.time.phrase!r}")
    if plan.expansion:
        parts.append(f"expanded {plan.expansion!r}")
    if plan.parts:
        parts.append("parts " + " | ".join(plan.parts))
    if plan.hyponyms:
        words = plan.hyponyms
        parts.append(f"also searched {words if len(words) <= 60 else words[:60] + '...'}")
    if plan.listing:
        parts.append("asks for a list (answers spread over conversations)")
    return "query: " + "; ".join(parts)


def render_hits(hits: Sequence[Hit], *, explain: bool) -> str:
    """Hits one line each (rank, score, id, text); ``explain`` adds the lines of each hit's
    signals."""
    if not hits:
        return "(no memories matched)"
    lines = []
    for rank, hit in enumerate(hits, start=1):
        lines.append(f"{rank:>2}. {hit.score:.4f}  {hit.memory_id}  {hit.text}")
        lines.extend(f"      {'+' if n.offset > 0 else '-'}{abs(n.offset)}  {n.memory_id}  "
                     f"{n.text}" for n in hit.neighbours)
        if explain:
            lines.extend(f"      {line}" for line in explain_lines(hit.signals))
    return "\n".join(lines)


def _text_or_why(memory: Memory) -> str:
    return memory.text if memory.text is not None else f"(no text: {memory.status})"


def render_memory_lines(memories: Sequence[Memory]) -> str:
    """Memories one line each: id, status, tier, kind, creation time and text (a listing)."""
    return "\n".join(f"{m.memory_id}  {m.status:<10} {m.tier:<10} {m.kind:<12} "
                     f"{m.created_at:%Y-%m-%d %H:%M}  {_text_or_why(m)}" for m in memories)


def render_hot(memories: Sequence[Memory]) -> str:
    """The hot set, best first: what makes each hot (utility, retention, uses) and its text."""
    if not memories:
        return "(no hot memories)"
    return "\n".join(f"{rank:>2}. {m.memory_id}  utility {m.utility:.2f}  retention "
                     f"{m.retention:.2f}  used {m.access_count}x  {_text_or_why(m)}"
                     for rank, m in enumerate(memories, start=1))


def render_boxes(boxes: Sequence[Box]) -> str:
    """Boxes one line each: id, how many memories, when, why it was sealed (or open), trace."""
    if not boxes:
        return "(no boxes)"
    lines = []
    for box in boxes:
        state = "open" if box.sealed_at is None else f"sealed ({box.reason})"
        trace = f"  trace {box.trace_id}" if box.trace_id else ""
        lines.append(f"{box.box_id}  {len(box.memory_ids)} memories  "
                     f"{box.opened_at:%Y-%m-%d %H:%M} .. {box.last_at:%Y-%m-%d %H:%M}  "
                     f"{state}{trace}")
    return "\n".join(lines)


def render_conflicts(conflicts: Sequence[Conflict]) -> str:
    """Conflicts one line each: who contradicts whom on what, and how it stands."""
    if not conflicts:
        return "(no conflicts)"
    lines = []
    for c in conflicts:
        claim = _claim(msgspec.to_builtins(c))
        state = (f"resolved by {c.resolved_by}, {c.winner} won" if c.status == "resolved"
                 else f"open, flagged {c.flagged_at:%Y-%m-%d %H:%M}")
        lines.append(f"{c.conflict_id}  {c.other_id} contradicts {c.memory_id} on {claim} "
                     f"(strategy {c.strategy}; {state})")
    return "\n".join(lines)


def render_versions(versions: Sequence[Version]) -> str:
    """A timeline oldest first: each version's valid and known intervals, status and text."""
    if not versions:
        return "(no versions)"

    def span(start: Any, end: Any, open_end: str) -> str:
        first = "..." if start is None else f"{start:%Y-%m-%d %H:%M}"
        last = open_end if end is None else f"{end:%Y-%m-%d %H:%M}"
        return f"{first} to {last}"

    lines = []
    for v in versions:
        text = v.text if v.text is not None else f"(no text: {v.status})"
        replaced = f" -> {v.superseded_by}" if v.superseded_by else ""
        valid = span(v.valid_from, v.valid_until, "open")
        known = span(v.recorded_at, v.retracted_at, "now")
        lines.append(f"{v.memory_id}  {v.status:<10} valid {valid}; known {known}{replaced}  "
                     f"{text}")
    return "\n".join(lines)


def render_entity(entity: Any) -> str:
    """An entity (``eventmem.graph.Entity``): what it is, its relations strongest first, and
    the memories that mention it."""
    lines = [f"{entity.name} ({entity.type}, key {entity.key!r}): "
             f"{_plural(entity.mentions, 'mention')}, "
             f"{entity.first_seen:%Y-%m-%d %H:%M} to {entity.last_seen:%Y-%m-%d %H:%M}"]
    for r in entity.relations:
        derived = ", derived" if r.derived else ""
        lines.append(f"  {r.subject} {r.relation} {r.object}  (strength {r.strength:.3f}, "
                     f"{_plural(r.count, 'statement')}{derived})")
    lines.append(f"  memories: {', '.join(entity.memory_ids) or '(none)'}")
    return "\n".join(lines)


def render_entities(entities: Sequence[Any]) -> str:
    """Entities one line each, most mentioned first."""
    if not entities:
        return "(no entities)"
    return "\n".join(f"{e.mentions:>4}  {e.name} ({e.type})  "
                     f"{_plural(len(e.relations), 'relation')}" for e in entities)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_neighbors(neighbors: Sequence[Any]) -> str:
    """Entities reached from one, nearest and strongest first, each with its path."""
    if not neighbors:
        return "(no neighbours)"
    return "\n".join(
        f"{n.hops} hop{'s' if n.hops != 1 else ' '}  {n.score:.3f}  {n.name} ({n.type})  via "
        + "; ".join(f"{s} {r} {o}" for s, r, o in n.via) for n in neighbors)


def render_links(links: Sequence[Any]) -> str:
    """A memory's links to others, strongest first (``out``: it states the relation)."""
    if not links:
        return "(no links)"
    return "\n".join(f"{link.direction:>3}  {link.relation:<12} {link.weight:.3f}  {link.other}"
                     for link in links)


def render_stats(stats: Mapping[str, Any]) -> str:
    """The store's stats as an aligned table: the store and its log, the means over live
    memories, then the counts by status, tier, kind, priority and namespace. A field this
    table does not know comes last, as it is."""
    rows: list[tuple[str, str]] = []
    shown = set()

    def row(label: str, key: str, fmt: Any = str) -> None:
        if key in stats:
            shown.add(key)
            rows.append((label, "-" if stats[key] is None else fmt(stats[key])))

    row("store", "store")
    row("seq", "seq")
    row("head hash", "head_hash")
    row("now", "now")
    row("memories", "memories")
    row("embedder", "embedder")
    row("decay model", "decay_model")
    row("store format", "store_format")
    row("projection version", "projection_version")
    row("log", "log", lambda log: ", ".join(
        f"{v} {k.replace('_', ' ')}" if k != "map_size" else f"map size {v} bytes"
        for k, v in log.items()))
    means = [(name, f"mean_{name}") for name in ("retention", "importance", "utility",
                                                   "stability")]
    if any(key in stats for _, key in means):
        rows.append(("", ""))
        rows.append(("means (active, stale)", ""))
        for name, key in means:
            unit = " days" if name == "stability" else ""
            row(f"  {name}", key, lambda v, unit=unit: f"{v:.3f}{unit}")
    for key in [k for k in stats if k.startswith("by_")]:
        shown.add(key)
        rows.append(("", ""))
        rows.append((key.removeprefix("by_"), "memories"))
        for name, count in stats[key].items():
            rows.append((f"  {name}", f"{count:>8}"))  # under "memories", right-aligned
    rest = [k for k in stats if k not in shown and not k.startswith("mean_")]
    if rest:
        rows.append(("", ""))
        rows += [(k, str(stats[k])) for k in rest]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}".rstrip() if label else ""
                     for label, value in rows)


def render_memory(memory: Memory) -> str:
    """A memory's fields as aligned ``name: value`` lines; a text that is gone says why."""
    fields = ("memory_id", "namespace", "text", "kind", "status", "tier", "importance", "utility",
              "stability", "retention", "access_count", "pinned", "immutable", "source",
              "confidence", "valid_from", "valid_until", "created_at", "last_access_at")
    out = []
    for name in fields:
        value = getattr(memory, name)
        if name == "text" and value is None:  # erased or purged: say so, not "None"
            value = f"(no text: {memory.status})"
        elif isinstance(value, float):
            value = f"{value:.3f}"
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out.append(f"{name:>15}: {value}")
    return "\n".join(out)


# -- a memory's life in plain language ------------------------------------------------------------

_CREATED = {
    "near_duplicate_merge": "by merging new input into {neighbour}, a near duplicate "
                            "(similarity {similarity}) that it added to",
    "pe_update": "as the new version of {neighbour} (similarity {similarity}: close, but "
                 "differing)",
    "dream:cluster": "by the dream cycle, consolidating {count} similar memories",
    "dream:summary": "by the dream cycle, as the summary of {count} of the namespace's {kind} "
                     "memories",
}
_STATUS_REASONS = {
    "retention_below_active": "its retention fell below the active threshold",
    "retention_below_archive": "its retention fell below the archive threshold",
    "stale_too_long": "it stayed stale too long",
    "retention_below_delete": "its retention fell below the deletion threshold",
    "purge_due": "the grace period after deletion ran out: its text was removed",
    "retention_restored": "its retention recovered",
    "retention_ok": "its retention is fine",
}
_TIER_REASONS = {
    "promote_accesses": "it was used often",
    "promote_utility": "it proved useful and old enough",
    "demote_idle": "it sat idle with low utility",
    "working_capacity": "its session's working memory was full",
    "working_expired": "it had been in working memory for 30 minutes",
    "working_accessed": "it was used twice in working memory",
    "working_important": "it was important enough to keep beyond the session",
    "session_ended": "its session was ended",
}
_DORMANT_REASONS = {
    "contradiction": "it is the older side of conflict {conflict_id}, left open, with {other}",
    "utility_floor": "its utility ({utility:.2f}) stayed under the floor, unused for "
                     "{idle_days:.0f} days",
    "redundant": "it nearly repeats {other} (similarity {similarity:.3f}), which was kept",
    "capacity": "the namespace held too many live memories ({count}); the least useful went",
    "consolidated": "it was consolidated into {other} (similarity to the cluster {similarity:.3f})",
}


def explain_history(memory_id: str, entries: Sequence[HistoryEntry]) -> list[str]:
    """A memory's whole life, one plain sentence per event: how it was created and from what,
    when it was reinforced, merged or superseded and why, how it faded, and how it ended."""
    conflicts = {e.details["conflict_id"]: msgspec.to_builtins(dict(e.details))
                 for e in entries if e.type == "conflict.flagged"}
    lines = []
    for entry in entries:
        d: dict[str, Any] = msgspec.to_builtins(dict(entry.details))
        sentence = _life_event(memory_id, entry.type, d, conflicts)
        lines.append(f"{entry.at:%Y-%m-%d %H:%M} (seq {entry.seq}): {sentence}")
    return lines


def _life_event(me: str, tag: str, d: dict[str, Any], conflicts: dict[str, Any]) -> str:
    mine = d.get("memory_id") == me
    sim = f"{d.get('similarity') or 0.0:.3f}"
    match tag:
        case "memory.ingested":
            return _created(d, conflicts)
        case "memory.reinforced":
            why = "the same text" if d["rule"] == "exact_hash" else f"a semantic duplicate " \
                f"(similarity {sim})"
            return f"Reinforced: new input was {why}, so it strengthened this memory instead " \
                "of being stored twice."
        case "memory.skipped":
            why = "this memory is immutable" if d["rule"] == "immutable_neighbour" \
                else "it added nothing"
            return f"Similar input (similarity {sim}) was skipped: {why}."
        case "memory.superseded" if mine:
            return _superseded(d, conflicts)
        case "memory.superseded":
            return f"It replaced {d['memory_id']} ({d['rule']})."
        case "conflict.flagged":
            claim = _claim(d)
            if mine:
                return (f"New input {d['other_id']} contradicted it on {claim} (similarity "
                        f"{sim}); strategy {d['strategy']}.")
            return f"It contradicted {d['memory_id']} on {claim}; strategy {d['strategy']}."
        case "conflict.resolved":
            outcome = "it won" if d["winner"] == me else f"{d['winner']} won"
            return f"Conflict {d['conflict_id']} was settled by {d['strategy']}: {outcome}."
        case "memory.recalled":
            rank = d["memory_ids"].index(me)
            score = d["scores"][rank] if d.get("scores") else 0.0
            return f"Recalled for {_query(d)} (rank {rank + 1}, score {score:.3f})."
        case "memory.touched":
            return f"Used by the agent; stability now {d['stability']:.1f} days."
        case "memory.feedback":
            verdict = {1.0: "useful", 0.0: "not useful"}.get(d["target"], f"{d['target']:.2f}")
            return f"Feedback: {verdict}; utility now {d['utility']:.3f}."
        case "memory.pinned":
            return "Pinned: exempt from forgetting."
        case "memory.unpinned":
            return "Unpinned."
        case "memory.commitment_resolved":
            return "Marked done: its valid time ended and it left recall (archived 90 days on)."
        case "memory.forgotten":
            return f"Forgotten ({d.get('reason', 'explicit')}): deleted, its history kept."
        case "memory.invalidated":
            return f"Its valid time ended at {_when(d['until'])} ({d['reason']}); it stays in " \
                "history."
        case "memory.lifecycle" | "memory.tier_changed" | "memory.rehearsed" \
                | "memory.dormant":
            return _change(me, tag, d)
        case "memory.tagged":
            return (f"Tagged until {_when(d['until'])}: a strong memory stored in its session "
                    "before then will strengthen it (synaptic capture).")
        case "memory.tags_expired":
            return "Its synaptic tag expired uncaptured."
        case "memory.box_sealed":
            return (f"Its box {d['box_id']} ({_memories(len(d['memory_ids']))} of its "
                    f"session) was sealed: {_box_reason(d)}; {_box_trace(d)}.")
        case "memory.strengthened" if any(c["memory_id"] == me for c in d["changes"]):
            change = next(c for c in d["changes"] if c["memory_id"] == me)
            why = _STRENGTHENED.get(d["cause"], d["cause"])
            return (f"Strengthened ({why}, by {', '.join(d['evidence'])}): stability "
                    f"{change['from_stability']:.1f} -> {change['stability']:.1f} days.")
        case "memory.strengthened":
            count = len(d["changes"])
            return f"It strengthened {count} memor{'y' if count == 1 else 'ies'} ({d['cause']})."
        case "memory.consolidated" if mine:
            return (f"Consolidated from {len(d['members'])} members ({d['method']}, cohesion "
                    f"{d['cohesion']:.3f}).")
        case "memory.consolidated":
            return f"Became a member of consolidated memory {d['memory_id']}."
        case "memory.category_summarized" if mine:
            return f"Summarizes {d['members']} {d['kind']} memories ({d['method']})."
        case "memory.category_summarized":
            return f"Replaced by the newer summary {d['memory_id']}."
        case "memory.erased" if me == d.get("requested"):
            return (f"Erased (reason {d['reason']}): its text, vectors and terms are gone; its "
                    "events stay, so the log still verifies.")
        case "memory.erased":
            return (f"Erased (reason {d['reason']}) with {d.get('requested') or 'its namespace'}"
                    ": its text, vectors and terms are gone; its events stay.")
        case _:
            return describe_event(tag, d)


def _created(d: dict[str, Any], conflicts: dict[str, Any]) -> str:
    rule = d.get("rule", "new")
    values = {"neighbour": d.get("neighbour"), "similarity": f"{d.get('similarity') or 0:.3f}",
              "count": len(d.get("derived_from", ())), "kind": d["kind"]}
    if rule in _CREATED:
        how = _CREATED[rule].format(**values)
    elif rule.startswith("conflict_") and d.get("neighbour") is None:
        how = (f"when a conflict was settled by {rule.removeprefix('conflict_')}: it carries "
               f"both {' and '.join(d.get('derived_from', ()))}")
    elif rule == "conflict_ask":
        how = (f"from input that contradicted {d['neighbour']} (similarity "
               f"{values['similarity']}); both kept, the conflict left open for the caller")
    elif rule.startswith("conflict_"):
        how = (f"from input that contradicted {d['neighbour']} (similarity "
               f"{values['similarity']}), settled by {rule.removeprefix('conflict_')}")
    elif d.get("neighbour"):
        how = (f"from {d.get('source', 'user')} input; the nearest memory, {d['neighbour']}, "
               f"was not similar enough to merge (similarity {values['similarity']})")
    else:
        how = f"from {d.get('source', 'user')} input, unlike anything stored"
    given = " (given)" if d.get("given_importance") is not None else ""
    return (f"Created {how}: {_a(d['kind'])} memory ({d.get('kind_rule', 'caller')}), importance "
            f"{d.get('importance', 0.5):.2f}{given}, tier {d.get('tier', 'episodic')}"
            f"{', flashbulb (pinned)' if d.get('flashbulb') else ''}.")


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _superseded(d: dict[str, Any], conflicts: dict[str, Any]) -> str:
    until = "" if d.get("until") is None else f"; its valid time ended at {_when(d['until'])}"
    rule, by, sim = d["rule"], d["by"], f"{d.get('similarity') or 0.0:.3f}"
    if rule == "merged":
        return f"Merged into {by} (near duplicate, similarity {sim}): that memory carries " \
            f"its facts{until}."
    if rule == "pe_update":
        return f"Updated by {by} (similarity {sim}){until}."
    conflict = conflicts.get(d.get("conflict_id") or "")
    why = f" on {_claim(conflict)}" if conflict else ""
    return f"Superseded by {by}: a conflict{why}, settled by {rule.removeprefix('conflict_')}" \
        f"{until}."


_STRENGTHENED = {"capture": "captured by a strong memory of its session",
                 "coactivation": "recalled together with others",
                 "spread": "a linked memory was used"}


def _change(me: str, tag: str, d: dict[str, Any]) -> str:
    change = next(c for c in d["changes"] if c["memory_id"] == me)
    if tag == "memory.lifecycle":
        why = _STATUS_REASONS.get(change["reason"], change["reason"])
        return (f"Went {change['from_status']} -> {change['to_status']} ({change['reason']}, "
                f"retention {change['retention']:.3f}): {why}.")
    if tag == "memory.tier_changed":
        why = _TIER_REASONS.get(change["reason"], change["reason"])
        return (f"Moved tier {change['from_tier']} -> {change['to_tier']} ({change['reason']}): "
                f"{why}.")
    if tag == "memory.rehearsed":
        return (f"Rehearsed by the dream cycle: its retention was down to "
                f"{change['retention']:.3f}; stability {change['from_stability']:.1f} -> "
                f"{change['stability']:.1f} days.")
    reason = change["reason"]
    template = _DORMANT_REASONS.get(reason, reason)
    why = template.format(**{"other": None, "similarity": 0.0, "conflict_id": None,
                             "count": 0, "idle_days": 0.0, **change})
    return f"Made dormant (hidden, decay frozen, revived by use): {why}."


def render_audit(report: Any) -> str:
    """An audit report (``replay.audit.AuditReport``): a summary line, then each finding with
    its seq, event type, and the recorded and re-derived values."""
    kinds = ", ".join(f"{kind} {count}" for kind, count in report.by_kind.items()) or "none"
    lines = [f"{'OK' if report.ok else 'FAILED'}: {report.decisions_checked} decisions "
             f"re-derived up to seq {report.until_seq} ({kinds}); {len(report.findings)} "
             f"differ (tolerance {report.tolerance:g})"]
    if report.unverifiable:
        reasons = ", ".join(f"{why}: {n}" for why, n in report.unverifiable_by_reason.items())
        lines.append(f"  {report.unverifiable} not verifiable ({reasons})")
    lines += [f"  seq {f.seq} {f.type}: {f.message}" for f in report.findings]
    if report.findings:
        lines.append("  (audit re-runs the policies with this process's Config: a store written "
                     "with other parameters re-derives differently)")
    return "\n".join(lines)


def _query(d: dict[str, Any]) -> str:
    """A recall's query as a log line shows it: in the clear in older records; since labels-1
    it is erasable content, named by its hash (the line never reads the store)."""
    if d.get("query") or not d.get("query_hash"):
        return repr(d.get("query", ""))
    return f"query {d['query_hash'][:12]}"
