"""``eventmem demo``: a short conversation remembered over two weeks, then the things that make
eventmem different, printed readably: recall with its reasons, a memory's history, the store as
it stood in the past, and verification of the whole log."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import msgspec

import eventmem
from eventmem.cli.render import describe_event, render_hits

NAMESPACE = "demo-sam"
START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)

# (days after START, text, kind) -- written for this demo.
CONVERSATION = [
    (0, "My name is Sam and I work as a night-shift nurse in Leeds.", "identity"),
    (0, "I prefer green tea over coffee, especially in the evening.", "preference"),
    (0, "My sister Priya lives in Toronto and visits every summer.", "relationship"),
    (1, "I'm training for the Leeds half marathon in October.", "activity"),
    (3, "Remind me to renew my passport before the trip to Japan in May.", "plan"),
    (5, "Priya just got engaged to Tom, the wedding is next spring.", "event"),
    (9, "I prefer green tea over coffee, especially in the evening.", "preference"),
    (12, "Night shifts changed my habits: I drink two coffees a night now.", "preference"),
]


def run_demo(store: str, *, as_json: bool = False) -> int:
    """Run the demo into ``store`` on a manual clock, printing each step (``as_json``: one JSON
    document at the end instead). Returns the exit code: 1 when verification fails."""
    clock = eventmem.ManualClock(start=START)
    out: dict[str, object] = {"store": store}
    say = (lambda *a: None) if as_json else print
    with eventmem.open(store, clock=clock) as mem:
        say(f"eventmem demo: store {store}, namespace {NAMESPACE!r}\n")
        say("1. Remembering a conversation over two weeks")
        results = []
        for day, text, kind in CONVERSATION:
            clock.set(START + timedelta(days=day))
            r = mem.remember(text, namespace=NAMESPACE, kind=kind, source="user")
            results.append(r)
            say(f"   day {day:>2}  {r.action:<10} {r.memory_id}  {text}")
        out["remembered"] = results
        before_switch = mem.seq - 1

        clock.set(START + timedelta(days=14))
        say("\n2. Recall, with why each memory was returned")
        hits = mem.recall("does Sam drink tea or coffee?", namespace=NAMESPACE, k=3)
        say(render_hits(hits, explain=True))
        out["recall"] = hits

        tea = results[1].memory_id
        assert tea is not None
        say(f"\n3. The history of {tea}: why it remembers this, and since when")
        entries = mem.history(tea)
        for e in entries:
            say(f"   seq {e.seq:>3}  {e.at:%Y-%m-%d}  {describe_event(e.type, e.details)}")
        out["history"] = entries

        say(f"\n4. The store as it stood before the last message (seq {before_switch})")
        past = mem.as_of(seq=before_switch)
        past_hits = past.recall("how many coffees does Sam drink?", namespace=NAMESPACE, k=2)
        say(render_hits(past_hits, explain=False))
        out["as_of"] = {"seq": before_switch, "hits": past_hits}

        say("\n5. Verifying the hash chain, the blobs and the projections")
        report = mem.verify()
        say(f"   {'OK' if report.ok else 'FAILED'}: {report.events_checked} events, "
            f"head {report.head_seq} {report.head_hash[:16]}...")
        out["verify"] = report
        say(f"\nNext: eventmem --store {store} log   |   eventmem --store {store} recall "
            f"passport -n {NAMESPACE} --explain")
    if as_json:
        print(json.dumps(msgspec.to_builtins(out), ensure_ascii=False, sort_keys=True))
    return 0 if report.ok else 1
