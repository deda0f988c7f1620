"""The temporal projection's index of the times memories speak of (``told``): found by any
overlap, with the share of the span inside, per namespace, in the order written; a span of years
is read from the namespace's own days; erasure takes a memory out."""

from __future__ import annotations

from datetime import UTC, datetime

from eventmem.clock import MICROS_PER_DAY, to_micros
from eventmem.events import MemoryErased, MemoryIngested, TimeSpan
from eventmem.storage.envelope import Envelope
from projections import temporal
from projections.temporal import Temporal, speaking_of

D = MICROS_PER_DAY
MARCH_16 = to_micros(datetime(2022, 3, 16, tzinfo=UTC))


def fold(*events: object) -> Temporal:
    state = Temporal()
    for seq, event in enumerate(events, start=1):
        temporal.apply(state, Envelope(seq=seq, event=event))  # type: ignore[arg-type]
    return state


def ingest(mid: str, at: int, *spans: tuple[int, int], ns: str = "u") -> MemoryIngested:
    return MemoryIngested(at=at, namespace=ns, memory_id=mid, content_hash="h" + mid,
                          dedup_key="k" + mid, kind="event",
                          times=tuple(TimeSpan(a, b) for a, b in spans))


def test_a_memory_is_found_by_any_time_it_speaks_of() -> None:
    state = fold(
        ingest("day", MARCH_16 + D, (MARCH_16, MARCH_16 + D)),  # "yesterday"
        ingest("month", MARCH_16 + 40 * D, (MARCH_16 - 15 * D, MARCH_16 + 16 * D)),
        ingest("other", MARCH_16, (MARCH_16 + 5 * D, MARCH_16 + 6 * D)),
        ingest("elsewhere", MARCH_16 + D, (MARCH_16, MARCH_16 + D), ns="v"),
        ingest("none", MARCH_16 + D),
    )
    found = speaking_of(state, "u", MARCH_16, MARCH_16 + D)
    assert [mid for mid, _ in found] == ["day", "month"]  # in the order written
    assert dict(found) == {"day": 1.0, "month": 1 / 31}
    assert speaking_of(state, "u", MARCH_16 + 20 * D, MARCH_16 + 21 * D) == []
    assert [m for m, _ in speaking_of(state, "v", MARCH_16, MARCH_16 + D)] == ["elsewhere"]
    assert speaking_of(state, "w", MARCH_16, MARCH_16 + D) == []


def test_a_span_of_years_reads_the_namespaces_days() -> None:
    state = fold(ingest("a", MARCH_16, (MARCH_16, MARCH_16 + D)),
                 ingest("b", MARCH_16, (MARCH_16 - 3000 * D, MARCH_16 - 2999 * D)))
    found = speaking_of(state, "u", MARCH_16 - 9000 * D, MARCH_16 + 9000 * D)
    assert sorted(mid for mid, _ in found) == ["a", "b"]


def test_erasure_takes_a_memory_out() -> None:
    state = fold(ingest("a", MARCH_16 + D, (MARCH_16, MARCH_16 + D)),
                 ingest("b", MARCH_16 + D, (MARCH_16, MARCH_16 + D)),
                 MemoryErased(at=MARCH_16 + 2 * D, namespace="u", memory_ids=("a",)))
    assert [m for m, _ in speaking_of(state, "u", MARCH_16, MARCH_16 + D)] == ["b"]
    assert state.intervals["a"].times == ()
    state = fold(ingest("a", MARCH_16 + D, (MARCH_16, MARCH_16 + D)),
                 MemoryErased(at=MARCH_16 + 2 * D, namespace="u", memory_ids=("a",)))
    assert state.told == {}  # nothing left behind
