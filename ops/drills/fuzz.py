"""Fuzzed public calls against a real store: every call succeeds or raises an eventmem error, and
a refused call leaves the log's head where it was.

    python -m ops.drills.fuzz [--calls 2000] [--seed 15] [--start TIME] [--damaged N]
                              [--out FILE] [--tmp DIR]

Each call is a public method of the engine, of a read-only ``as_of`` view, of their graph
readers, or of the module (``open``, ``Config``, ``ManualClock``), with each argument either a
plausible value (a known memory id, a namespace in use, a time near the store's) or a hostile one
(None, a float, a list, an object, NaN, 2**70, a naive or year-1 datetime, a NUL, a lone
surrogate, a huge string). The run is deterministic for a seed (a ManualClock; no wall-clock
input). It prints the counts and writes them, with every raw exception and head change, to a
JSON file (``ops/drills/results/fuzz.json`` by default). The targets: no raw exception, no head
change on a refused call, no failed verify. Exit status 1 when a target is missed.

``--damaged N`` then fuzzes the bytes instead of the arguments: N copies of the store with bits
of ``data.mdb`` flipped, each opened in a child process and read (verify, recall, get, history,
audit...): every call must succeed or raise an eventmem error, and no child may crash.

It uses only the public API (``eventmem.__all__``); ``tests/test_layout.py`` checks that.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, machine_info, write_json

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "fuzz.json"
T0 = datetime(2025, 1, 1, tzinfo=UTC)

TEXTS = ["Alice lives in Berlin", "Alice moved to Paris in March", "Bob likes green tea",
         "I must renew my passport by Friday", "Carol works at Acme as a nurse",
         "My favourite colour is blue", "Dana is allergic to peanuts"]
QUERIES = ["where does alice live", "what does bob like", "passport", "who works at Acme"]
NAMESPACES = ["default", "alice", "bob"]
ENTITIES = ["Alice", "Bob", "Berlin", "Acme", "Carol"]


def hostile_values() -> list[Any]:
    """Values no public argument should take, each refused with an eventmem error."""
    return [
        None, True, 0, -1, 1.5, -0.0, math.nan, math.inf, 2**70, -(2**70), "", " ", "a",
        "x" * 70_000, "nul\x00here", "\ud800", "\n", b"bytes", [], ["a"], [None], {}, {"a": 1},
        (), object(), datetime(2025, 1, 1), datetime.min.replace(tzinfo=UTC),
        datetime.max.replace(tzinfo=UTC), datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
        datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))), timedelta(days=1),
        eventmem.Head(seq=-1, hash=b""), eventmem.Head(seq="x", hash=None),  # type: ignore[arg-type]
        (1, b"\x00" * 32), ("x", "y"),
    ]


@dataclass
class Context:
    """What plausible arguments are drawn from: the store's ids and sessions as the run goes."""

    start: datetime = T0
    store: Path | None = None
    memory_ids: list[str] = field(default_factory=list)
    conflict_ids: list[str] = field(default_factory=list)
    head: int = 0


Gen = Callable[[random.Random, Context], Any]


@dataclass(frozen=True)
class Param:
    """One argument of a public call: its name, how to make a plausible value of it, whether it
    is positional and whether the call needs it."""

    name: str
    valid: Gen
    positional: bool = False
    required: bool = False


def _pick(values: list[Any]) -> Gen:
    return lambda rng, ctx: rng.choice(values)


def _memory_id(rng: random.Random, ctx: Context) -> Any:
    return rng.choice(ctx.memory_ids) if ctx.memory_ids else "mem_missing"


def _time(rng: random.Random, ctx: Context) -> datetime:
    # Around the store's own times, clamped to what a datetime can hold.
    offset = timedelta(days=rng.uniform(-30, 400))
    try:
        return ctx.start + offset
    except OverflowError:
        return datetime.max.replace(tzinfo=UTC) if offset > timedelta(0) \
            else datetime.min.replace(tzinfo=UTC)


def _seq(rng: random.Random, ctx: Context) -> int:
    return rng.randint(0, max(ctx.head, 0))


def _item(rng: random.Random, ctx: Context) -> Any:
    return rng.choice(TEXTS) if rng.random() < 0.5 else {"text": rng.choice(TEXTS),
                                                         "namespace": rng.choice(NAMESPACES)}


_text, _ns, _query = _pick(TEXTS), _pick(NAMESPACES), _pick(QUERIES)
_entity, _flag, _unit = _pick(ENTITIES), _pick([True, False]), _pick([0.0, 0.3, 1.0])
_session = _pick(["s1", "s2"])

REMEMBER = (Param("text", _text, positional=True, required=True), Param("namespace", _ns),
            Param("kind", _pick(["event", "preference", "plan", None])),
            Param("source", _pick(["user", "agent"])), Param("importance", _unit),
            Param("confidence", _unit), Param("valid_from", _time), Param("valid_until", _time),
            Param("pinned", _flag), Param("immutable", _flag), Param("tags", _pick([("t",), ()])),
            Param("refs", _pick([("r",), ()])), Param("session", _session),
            Param("on_conflict", _pick(["ask", "use_new", "temporal"])))
RECALL = (Param("query", _query, positional=True, required=True), Param("namespace", _ns),
          Param("k", _pick([1, 5, 10])), Param("valid_at", _time), Param("include_hidden", _flag),
          Param("profile", _pick(["default", "recent", "deep"])))
MEMORY = (Param("memory_id", _memory_id, positional=True, required=True),)
NAMESPACE = (Param("namespace", _ns),)

# The read methods an engine and a view share.
READS: dict[str, tuple[Param, ...]] = {
    "recall": RECALL,
    "context": (*RECALL[:3], Param("budget_tokens", _pick([50, 1000]))),
    "get": (*MEMORY, Param("valid_at", _time)),
    "history": MEMORY,
    "timeline": (Param("memory_id", _memory_id, positional=True), Param("entity", _entity),
                 Param("namespace", _ns)),
    "memories": (Param("namespace", _ns),),
    "hot": (Param("namespace", _ns), Param("k", _pick([1, 5]))),
    "working": (Param("session", _session, positional=True, required=True), *NAMESPACE),
    "events": (Param("start", _seq, positional=True), Param("stop", _seq, positional=True)),
    "stats": (),
    "now": (),
    "conflicts": (*NAMESPACE, Param("status", _pick(["open", "resolved", None]))),
}
WRITES: dict[str, tuple[Param, ...]] = {
    "remember": REMEMBER,
    "remember_many": (Param("items", lambda rng, ctx: [_item(rng, ctx) for _ in range(3)],
                            positional=True, required=True), *NAMESPACE),
    "forget": (*MEMORY, Param("reason", _pick(["explicit", "outdated"]))),
    "pin": MEMORY,
    "unpin": MEMORY,
    "touch": MEMORY,
    "feedback": (*MEMORY, Param("useful", _pick([True, False, 0.5]))),
    "end_session": (Param("session", _session, positional=True, required=True), *NAMESPACE),
    "consolidate": (Param("now", _time),),
    "erase": (Param("memory_id", _memory_id, positional=True), Param("namespace", _ns),
              Param("reason", _pick(["request", "gdpr:art17"]))),
    "resolve": (Param("conflict_id", lambda rng, ctx: rng.choice(ctx.conflict_ids or ["c_none"]),
                      positional=True, required=True),
                Param("strategy", _pick(["use_new", "keep_existing", "merge", "temporal"]))),
    "verify": (Param("expected_head", lambda rng, ctx: None),),
    "audit": (Param("until", _seq), Param("tolerance", _pick([1e-6, 0.1]))),
    "as_of": (Param("at", _time), Param("seq", _seq)),
    "replay": (),
    "head": (),
    "snapshot": (),
    "refresh": (),
}
GRAPH: dict[str, tuple[Param, ...]] = {
    "entity": (Param("name", _entity, positional=True, required=True), *NAMESPACE),
    "neighbors": (Param("name", _entity, positional=True, required=True), *NAMESPACE,
                  Param("hops", _pick([0, 1, 2])), Param("limit", _pick([1, 50])),
                  Param("relation_types", _pick([None, ["lives_in"]])),
                  Param("entity_types", _pick([None, ["person"]]))),
    "memories": (Param("name", _entity, positional=True, required=True), *NAMESPACE),
    "entities": (*NAMESPACE, Param("type", _pick([None, "person", "place"]))),
    "links": (*MEMORY, *NAMESPACE),
}
MODULE: dict[str, tuple[Param, ...]] = {
    "Config": (Param("max_k", _pick([10, 1000])), Param("snapshot_every", _pick([100])),
               Param("default_kind", _pick(["context"])), Param("mmr_lambda", _pick([0.7])),
               Param("ops_log_files", _pick([2]))),
    "ManualClock": (Param("start", _time, required=True),),
    # The store the drill writes, opened again: refused while the drill holds the writer lock,
    # or read-only. The path is never hostile here: tests/storage/test_paths.py covers paths,
    # and a hostile relative one would make a store in the current directory.
    "open": (Param("path", lambda rng, ctx: ctx.store, positional=True, required=True),
             Param("readonly", _pick([True])), Param("clock", lambda rng, ctx: None),
             Param("embedder", lambda rng, ctx: None), Param("config", lambda rng, ctx: None),
             Param("summarizer", lambda rng, ctx: None)),
}


@dataclass(frozen=True)
class Call:
    """One fuzzed call, ready to run: where it goes, what it is, and its arguments."""

    target: str  # engine | view | engine.graph | view.graph | eventmem
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    hostile: bool  # whether any argument is a hostile value

    def describe(self) -> str:
        """The call as a line of Python (long values cut short)."""
        shown = [_short(a) for a in self.args] + [f"{k}={_short(v)}"
                                                  for k, v in self.kwargs.items()]
        return f"{self.target}.{self.name}({', '.join(shown)})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Where calls go, each with its methods, and how often the drill picks it.
TARGETS: tuple[tuple[str, dict[str, tuple[Param, ...]], int], ...] = (
    ("engine", READS, 4), ("engine", WRITES, 6), ("view", READS, 2), ("engine.graph", GRAPH, 1),
    ("view.graph", GRAPH, 1), ("eventmem", MODULE, 1),
)
# Every (target, method) the drill calls.
SURFACE: tuple[tuple[str, str], ...] = tuple(
    (target, name) for target, table, _ in TARGETS for name in sorted(table))


def fuzzed_call(rng: random.Random, ctx: Context, *, hostile_share: float = 0.3,
                only: tuple[str, str] | None = None) -> Call:
    """A public call (``only`` that one of :data:`SURFACE`) with plausible and hostile
    arguments mixed (``hostile_share`` of the arguments given are hostile)."""
    if only is None:
        target, table, _ = rng.choices(TARGETS, weights=[w for _, _, w in TARGETS])[0]
        name = rng.choice(sorted(table))
    else:
        target, name = only
        table = next(t for where, t, _ in TARGETS if where == target and name in t)
    hostile = hostile_values()
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    any_hostile = False
    # Arguments the signature cannot bind (an unknown keyword, one given twice) are left out:
    # Python refuses those with its own TypeError before any eventmem code runs.
    by_position = True
    for param in table[name]:
        if not param.required and rng.random() < 0.5:
            by_position = False  # a later positional argument would take this one's place
            continue
        bad = rng.random() < hostile_share and param.name != "path"
        value = rng.choice(hostile) if bad else param.valid(rng, ctx)
        any_hostile |= bad
        by_position = by_position and param.positional and rng.random() < 0.7
        if by_position:
            args.append(value)
        else:
            kwargs[param.name] = value
    return Call(target, name, tuple(args), kwargs, any_hostile)


@dataclass
class Tally:
    """What a run found."""

    calls: int = 0
    succeeded: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    raw: list[dict[str, Any]] = field(default_factory=list)
    head_changed: list[dict[str, Any]] = field(default_factory=list)
    verify_failures: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The figures the drill reports."""
        return {"calls": self.calls, "succeeded": self.succeeded,
                "refused": sum(self.refused.values()), "raw_exceptions": len(self.raw),
                "head_changes_on_refusal": len(self.head_changed),
                "verify_failures": len(self.verify_failures)}


def run_call(call: Call, mem: eventmem.Engine, view: eventmem.View) -> Any:
    """Run ``call`` against the engine, the view or the module."""
    if call.target == "eventmem":
        made = getattr(eventmem, call.name)(*call.args, **call.kwargs)
        if isinstance(made, eventmem.Engine):
            made.close()  # a second, read-only engine: it must answer, then go
        return made
    owner: Any = {"engine": mem, "view": view}[call.target.split(".")[0]]
    if call.target.endswith(".graph"):
        owner = owner.graph
    result = getattr(owner, call.name)(*call.args, **call.kwargs)
    if call.name in ("events", "memories") and result is not None:
        result = list(result)  # generators do their work (and fail) when read
    return result


def check_call(call: Call, mem: eventmem.Engine, view: eventmem.View, tally: Tally) -> Any:
    """Run one call and tally what it did: success, an eventmem error (with the head
    unchanged), or anything else (a raw exception)."""
    tally.calls += 1
    before = mem.head()
    try:
        result = run_call(call, mem, view)
    except eventmem.EventmemError as exc:
        tally.refused[type(exc).__name__] += 1
        after = mem.head()
        if after != before:
            tally.head_changed.append({"call": call.describe(), "error": type(exc).__name__,
                                       "before": before.seq, "after": after.seq})
        return None
    except Exception as exc:  # what the drill is looking for: any error outside the tree
        tally.raw.append({"call": call.describe(), "error": type(exc).__name__,
                          "message": str(exc)[:300],
                          "where": traceback.format_exc(limit=-3).splitlines()[-6:]})
        return None
    tally.succeeded += 1
    return result


def _learn(ctx: Context, call: Call, result: Any, mem: eventmem.Engine) -> None:
    """Note the ids a successful call handed out, so later calls can name them."""
    results = result if isinstance(result, list) else [result]
    for r in results:
        if isinstance(r, eventmem.RememberResult) and r.memory_id is not None:
            ctx.memory_ids.append(r.memory_id)
            if r.conflict_id:
                ctx.conflict_ids.append(r.conflict_id)
    ctx.head = mem.head().seq


def seed_store(mem: eventmem.Engine, ctx: Context) -> None:
    """A few memories, a conflict and a session, so calls have something to act on."""
    for namespace in NAMESPACES:
        results = mem.remember_many(TEXTS, namespace=namespace)
        ctx.memory_ids += [r.memory_id for r in results if r.memory_id is not None]
    found = mem.remember("Alice lives in Munich", namespace="alice", on_conflict="ask")
    if found.conflict_id:
        ctx.conflict_ids.append(found.conflict_id)
    mem.remember("Remember the blue folder", namespace="bob", session="s1")
    ctx.head = mem.head().seq


def drill(store: Path, calls: int, seed: int, *, start: datetime = T0,
          verify_every: int = 200) -> Tally:
    """Run ``calls`` fuzzed calls against a fresh store at ``store``, its clock starting at
    ``start`` (near year 1 or 9999, every time computed from it is near the edge)."""
    rng = random.Random(seed)
    clock = eventmem.ManualClock(start=start)
    ctx = Context(start=start, store=store)
    tally = Tally()
    mem = eventmem.open(store, clock=clock)
    try:
        seed_store(mem, ctx)
        view = mem.as_of(seq=mem.head().seq)
        for index in range(calls):
            if clock.now() < datetime.max.replace(tzinfo=UTC) - timedelta(hours=11):
                clock.advance(timedelta(minutes=rng.randint(0, 600)))
            call = fuzzed_call(rng, ctx)
            result = check_call(call, mem, view, tally)
            if result is not None:
                _learn(ctx, call, result, mem)
            if isinstance(result, eventmem.View):
                view = result  # later view calls go to the newest view
            if (index + 1) % verify_every == 0 or index + 1 == calls:
                report = mem.verify()
                if not report.ok:
                    tally.verify_failures.append(
                        {"after_call": index + 1,
                         "findings": [str(f) for f in report.findings[:5]]})
    finally:
        mem.close()
    with eventmem.open(store, clock=clock, readonly=True) as again:  # reopens, still verifies
        report = again.verify()
        if not report.ok:
            tally.verify_failures.append({"after_call": "reopen",
                                          "findings": [str(f) for f in report.findings[:5]]})
    return tally


# -- damaged copies: the same promise when the bytes on disk are wrong -------------------------

# Run in a child process per damaged copy: a damaged file may still crash LMDB itself (a signal),
# which the drill counts instead of dying of it. Prints one JSON list of [call, outcome, detail].
_ON_DAMAGED_COPY = r"""
import json, sys, eventmem
store, readonly = sys.argv[1], sys.argv[2] == "ro"
out = []
def attempt(name, call):
    try:
        result = call()
        if hasattr(result, "__next__"):
            list(result)
        out.append([name, "ok", ""])
    except eventmem.EventmemError as exc:
        out.append([name, "refused", type(exc).__name__])
    except Exception as exc:
        out.append([name, "raw", f"{type(exc).__name__}: {str(exc)[:200]}"])
try:
    mem = eventmem.open(store, readonly=readonly)
except Exception as exc:
    kind = "refused" if isinstance(exc, eventmem.EventmemError) else "raw"
    print(json.dumps([["open", kind, type(exc).__name__]]))
    sys.exit(0)
attempt("verify", mem.verify)
attempt("recall", lambda: mem.recall("where does alice live", namespace="alice"))
attempt("memories", lambda: [m.text for m in mem.memories()])
attempt("events", mem.events)
attempt("stats", mem.stats)
ids = []
attempt("ids", lambda: ids.extend(m.memory_id for m in mem.memories()))
for mid in ids[:3]:
    attempt("get", lambda: mem.get(mid))
    attempt("history", lambda: mem.history(mid))
attempt("audit", mem.audit)
attempt("as_of", lambda: mem.as_of(seq=min(mem.seq, 5)).recall("tea", namespace="bob"))
attempt("close", mem.close)
print(json.dumps(out))
"""


def damaged_drill(store: Path, work: Path, runs: int, seed: int) -> dict[str, Any]:
    """Flip 1 to 16 random bits of ``data.mdb`` in ``runs`` copies of the closed ``store``;
    open each (writable or read-only, in a child process) and make read calls. Counts what
    came back: refusals are expected, a raw exception or a crash is not."""
    import shutil
    import subprocess

    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    raw: list[dict[str, Any]] = []
    for run in range(runs):
        copy = work / f"damaged-{run}"
        shutil.copytree(store, copy)
        data = bytearray((copy / "data.mdb").read_bytes())
        for _ in range(rng.choice([1, 4, 16])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        (copy / "data.mdb").write_bytes(data)
        mode = rng.choice(["rw", "ro"])
        child = subprocess.run([sys.executable, "-c", _ON_DAMAGED_COPY, str(copy), mode],
                               capture_output=True, text=True, timeout=300)
        shutil.rmtree(copy)
        counts["copies"] += 1
        if child.returncode != 0:
            counts["crashes"] += 1
            raw.append({"copy": run, "crash": child.returncode, "stderr": child.stderr[-500:]})
            continue
        for name, outcome, detail in json.loads(child.stdout.strip().splitlines()[-1]):
            counts[f"calls_{outcome}"] += 1
            if outcome == "raw":
                raw.append({"copy": run, "call": name, "error": detail})
    return {"counts": dict(sorted(counts.items())), "raw_exceptions": raw}


def main(argv: list[str] | None = None) -> int:
    """Run the drill; print the counts; write the JSON file; exit 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--start", type=datetime.fromisoformat, default=T0,
                        help="the clock's start, an aware ISO time (try 9999-12-20T00:00+00:00)")
    parser.add_argument("--tmp", type=Path, default=None, help="where the store is made")
    parser.add_argument("--damaged", type=int, default=0,
                        help="then open this many copies of the store with bits flipped")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.tmp, prefix="eventmem-fuzz-") as tmp:
        tally = drill(Path(tmp) / "store", args.calls, args.seed, start=args.start)
        damaged = damaged_drill(Path(tmp) / "store", Path(tmp), args.damaged, args.seed) \
            if args.damaged else None
    counts = tally.counts()
    if damaged is not None:
        counts |= {f"damaged_{name}": value for name, value in damaged["counts"].items()}
        counts["damaged_raw_or_crash"] = len(damaged["raw_exceptions"])
    for name, value in counts.items():
        print(f"{name:26} {value:>8,}")
    for raw in tally.raw[:10]:
        print(f"raw {raw['error']}: {raw['call']}")
    for changed in tally.head_changed[:10]:
        print(f"head moved on {changed['error']}: {changed['call']}")
    missed = counts["raw_exceptions"] + counts["head_changes_on_refusal"] \
        + counts["verify_failures"] + counts.get("damaged_raw_or_crash", 0)
    path = write_json(args.out, {
        "drill": "fuzz", "seed": args.seed, "start": args.start.isoformat(), "counts": counts,
        "refused_by_error": dict(sorted(tally.refused.items())),
        "raw_exceptions": tally.raw, "head_changes_on_refusal": tally.head_changed,
        "verify_failures": tally.verify_failures,
        "damaged_raw_exceptions": None if damaged is None else damaged["raw_exceptions"],
        "pass": missed == 0,
        "machine": machine_info(),
    })
    print(f"\n{'PASS' if missed == 0 else 'MISS'}; wrote {path}")
    return 0 if missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
