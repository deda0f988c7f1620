"""Everyday phrasings: does a change said in ordinary words put the new value on top?

    python -m ops.bench.phrasings [--cases FILE] [--out FILE]

The cases (``ops/bench/phrasings/cases.txt``, written by hand, no data set's sentences) are of
three forms, each run in a fresh store on a ManualClock from 2025-03-03:

* ``change: said || said ... || question || words``: the statements three days apart, then the
  question two days later; right when the top hit of ``recall(question, k=5)`` holds the words
  (case-insensitive). "I work at Globex." then "Initech hired me!" asks whether the gate and
  recall hear the second as the new employer.
* ``plan: plan || report || other``: the plan, a day later another plan still open, two days
  later the report of the first done (when given), a day later "What do I still need to do?";
  right when the open plan is the top hit and the done one is not (with no report: when the plan
  is among the top two).
* ``store: said`` lines, then ``ask: question || words`` lines: one namespace for the section,
  the statements two days apart, each question asked two days after the last (in order, as an
  agent asks: each recall is recorded) and right when its top hit holds the words.

Sections (``## name``) are the rounds the cases were written in; the report gives each one's
share right. A round written after the reader was last changed, and measured once before the
next change, tells how far the reading reaches phrasings it was not shown.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import RESULTS_DIR, format_table, machine_info, publish

CASES = Path(__file__).with_name("phrasings") / "cases.txt"
DEFAULT_OUT = RESULTS_DIR / "phrasings.json"
T0 = datetime(2025, 3, 3, 9, tzinfo=UTC)
TODO = "What do I still need to do?"


@dataclass
class Section:
    """One round of cases: its changes, plans, and one store's statements and questions."""

    name: str
    changes: list[list[str]] = field(default_factory=list)
    plans: list[list[str]] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    asked: list[list[str]] = field(default_factory=list)


def load(path: Path) -> list[Section]:
    """The sections of a cases file (see the module doc)."""
    sections: list[Section] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("## "):
            sections.append(Section(line[3:].strip()))
            continue
        form, _, rest = line.partition(":")
        parts = [p.strip() for p in rest.split("||")]
        if not sections or form not in ("change", "plan", "store", "ask") \
                or (form == "change" and len(parts) < 3) or (form == "plan" and len(parts) != 3) \
                or (form == "ask" and len(parts) != 2):
            raise ValueError(f"{path}:{number}: not a case: {line!r}")
        section = sections[-1]
        if form == "store":
            section.said.append(rest.strip())
        else:
            {"change": section.changes, "plan": section.plans, "ask": section.asked}[form] \
                .append(parts)
    return sections


@contextmanager
def _store() -> Iterator[tuple[eventmem.Engine, eventmem.ManualClock]]:
    """A fresh store in a temporary folder, removed afterwards, on a clock at :data:`T0`."""
    folder = Path(tempfile.mkdtemp(prefix="eventmem-phrasings-"))
    clock = eventmem.ManualClock(start=T0)
    try:
        with eventmem.open(folder / "store", clock=clock) as mem:
            yield mem, clock
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _top(mem: eventmem.Engine, question: str) -> list[str]:
    return [hit.text or "" for hit in mem.recall(question, namespace="n", k=5)]


def run_change(case: list[str]) -> dict[str, Any]:
    *said, question, words = case
    with _store() as (mem, clock):
        for text in said:
            clock.advance(timedelta(days=3))
            mem.remember(text, namespace="n")
        clock.advance(timedelta(days=2))
        top = _top(mem, question)
    return {"said": said, "question": question, "words": words, "top": top[:3],
            "right": bool(top) and words.lower() in top[0].lower()}


def run_plan(case: list[str]) -> dict[str, Any]:
    plan, report, other = case
    with _store() as (mem, clock):
        for text, days in ((plan, 1), (other, 1), (report, 2)):
            if text:
                clock.advance(timedelta(days=days))
                mem.remember(text, namespace="n")
        clock.advance(timedelta(days=1))
        top = _top(mem, TODO)
    right = top[:1] == [other] if report else plan in top[:2]
    return {"plan": plan, "report": report, "other": other, "top": top[:3], "right": right}


def run_store(section: Section) -> list[dict[str, Any]]:
    out = []
    with _store() as (mem, clock):
        for text in section.said:
            clock.advance(timedelta(days=2))
            mem.remember(text, namespace="n")
        clock.advance(timedelta(days=2))
        for question, words in section.asked:
            top = _top(mem, question)
            out.append({"question": question, "words": words, "top": top[:3],
                        "right": bool(top) and words.lower() in top[0].lower()})
    return out


def run(path: Path = CASES) -> dict[str, Any]:
    """Every case of ``path``; the figures by section and in all."""
    start = time.perf_counter()
    sections = []
    for section in load(path):
        results = [*map(run_change, section.changes), *map(run_plan, section.plans),
                   *run_store(section)]
        sections.append({"name": section.name, "cases": len(results),
                         "right": sum(r["right"] for r in results),
                         "wrong": [r for r in results if not r["right"]]})
    cases = sum(s["cases"] for s in sections)
    right = sum(s["right"] for s in sections)
    return {"benchmark": "phrasings", "machine": machine_info(), "cases_file": str(path),
            "sections": sections, "cases": cases, "right": right,
            "share": right / cases if cases else 0.0, "seconds": time.perf_counter() - start}


def report(result: dict[str, Any]) -> str:
    rows = [(s["name"], s["cases"], s["right"], s["right"] / s["cases"] if s["cases"] else 0.0)
            for s in result["sections"]]
    rows.append(("all", result["cases"], result["right"], result["share"]))
    lines = [f"Everyday phrasings ({result['cases_file']}): {result['cases']} cases, "
             f"{result['seconds']:.0f} s", "",
             format_table(("section", "cases", "right", "share"), rows), "", "wrong:"]
    for section in result["sections"]:
        for wrong in section["wrong"]:
            if "plan" in wrong:
                case = f"{wrong['plan']} | {wrong['report'] or '(no report)'} | {TODO}"
            else:
                case = " | ".join([*wrong.get("said", [])[-1:], wrong["question"]])
            lines.append(f"  [{section['name']}] {case} | top: {wrong['top'][:1]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="the cases file")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    args = parser.parse_args(argv)
    result = run(args.cases)
    publish(report(result), args.out, result)


if __name__ == "__main__":
    main()
