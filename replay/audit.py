"""Audit: re-derive every recorded decision and report those that come out differently.

Replay applies decisions; audit re-makes them (ARCHITECTURE.md section 7). :func:`audit` walks the
log once, folding it into fresh projections, and before each decision group
(:mod:`replay.groups`) re-runs the policy that decided it on the state as it was then:

* a write batch: :func:`eventmem.write.batch.decide` on the batch's items, rebuilt from the recorded
  events (the input text from its blob, the caller's options from the event);
* a later conflict resolution: :func:`eventmem.write.resolve.resolution_events`;
* a consolidation: :func:`eventmem.maintain.cycle.plan` at the recorded ``now`` (sweep and dream
  cycle);
* recalls and touches: the stabilities the decay policy gives; feedback: the utility;
* the plasticity and the box seals after a write or an access: re-derived from the group
  before them (:mod:`eventmem.policies.plasticity`, :mod:`eventmem.policies.boxes`); box seals
  are re-derived once the log has recorded one (a log from before boxes records none, and its
  decisions are re-made as they were: without them);
* a caller's end of a session: which memories it moved (:func:`eventmem.write.session.session_end`;
  the call itself, like a pin, is the caller's and is not re-decided).

Each decision is re-made with the config it was made with (the store records each config its
writers decided with: :func:`eventmem.config.recorded_configs`), whatever config the auditing
engine has; decisions older than that record are re-made with the given one.

The action must come out the same; scores may differ within ``tolerance``; ids made up by the
re-run are mapped to the recorded ones (:mod:`replay.compare`). What the audit cannot re-derive is
counted as unverifiable, with the reason, not reported as a failure: a policy version this code
does not implement, a recorded config it cannot decode, a rejected input (its text is never
stored), or a decision that read content since purged (the rebuilt state before the purge lacks
it).

With ``workers`` above one, ranges of the log are audited in worker processes, each on the state
before its range (folded there from the recorded events, as one process would have it), and
their findings merged in log order: the report is the single process's ("several processes"
below).
"""

from __future__ import annotations

import pickle
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import msgspec

from eventmem import progress
from eventmem.config import Config, recorded_configs
from eventmem.events import (
    BoxSealed,
    LifecycleTransitioned,
    MemoryIngested,
    MemoryRejected,
    TierChanged,
    event_tag,
    purged_ids,
)
from eventmem.maintain import cycle
from eventmem.policies import boxes, plasticity
from eventmem.policies.decay import stability_after_access
from eventmem.policies.lifecycle import SWEEP_POLICY
from eventmem.policies.utility import after_feedback
from eventmem.storage.envelope import Envelope
from eventmem.storage.log import EventLog, Head
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import content_hash
from eventmem.write import batch, resolve
from eventmem.write import workers as write_workers
from eventmem.write.session import session_end
from projections import Projections
from replay.compare import (
    TOLERANCE,
    Ids,
    compare_events,
    differences,
    render_value,
    summary,
    tags,
)
from replay.groups import Group, groups, split_items
from replay.inputs import Lookups, Texts, item_input
from replay.judges import (
    RecordedExtractor,
    ReplayedContradictions,
    ReplayedLinks,
    judges_named,
    replayed_contradictions,
    replayed_links,
)
from replay.policies import (
    SWEEPS_NEWEST_FIRST,
    recorded_policies,
    replayed_summarizer,
    texts_by_id,
    unknown_policy,
)


class AuditFinding(msgspec.Struct, frozen=True, kw_only=True):
    """One recorded decision that the audit re-derived differently."""

    seq: int  # the recorded event
    type: str  # its tag
    field: str  # what differs ("action", "similarity", "changes[0].to_status"...)
    recorded: Any = None
    derived: Any = None
    message: str = ""


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """What :func:`audit` found: the decisions re-derived differently (``ok``: none), how many it
    checked by kind, and how many it could not re-derive, by reason."""

    ok: bool  # no finding
    findings: tuple[AuditFinding, ...]
    decisions_checked: int  # recorded decision events re-derived
    by_kind: dict[str, int]  # write, resolve, maintenance, recall, touch, feedback, session_end
    unverifiable: int = 0  # decision events that could not be re-derived
    unverifiable_by_reason: dict[str, int] = msgspec.field(default_factory=dict)
    until_seq: int = 0
    tolerance: float = TOLERANCE


def audit(log: EventLog, *, config: Config, embedder: Embedder, until: int | None = None,
          tolerance: float = TOLERANCE, workers: int | None = 1) -> AuditReport:
    """Re-derive every decision recorded up to ``until`` (a seq; None: the head) and report
    those whose action differs, or whose scores differ by more than ``tolerance``. Reads only.

    ``config`` re-makes the decisions made before the store recorded its writers' configs; the
    later ones are re-made with the config recorded for them. A decision whose events straddle
    ``until`` is audited whole.

    ``workers``: processes that share the log's ranges (see "Several processes" below), as
    :func:`workers_for` reads it; the report is the same whatever the number. One process
    when the embedder cannot travel to a worker (it must pickle and say it is
    ``deterministic``, as for :mod:`eventmem.write.workers`), or a worker dies."""
    head = log.head().seq
    stop = head if until is None else max(0, min(until, head))
    count = workers_for(workers, stop)
    shipped = _shipped(embedder) if count > 1 and stop > 1 else None
    if shipped is not None:
        report = _spread(log, config, shipped, tolerance, head, stop, count)
        if report is not None:
            return report
    auditor = _Auditor(log, config, embedder, tolerance)
    for group in groups(progress.tracked(log.envelopes(1), "audit", stop)):
        if group.first_seq > stop:
            break
        auditor.check(group)
    return auditor.report(stop)


# -- several processes ------------------------------------------------------------------------
#
# The log is cut into contiguous ranges of seqs, handed out in log order to worker processes as
# they free up. A worker audits the groups that begin in its range, on the state before them:
# it folds (without auditing) the groups between where it stopped and its range, as the single
# process folds the groups it audits, and carries the same state from them (_Auditor.carry:
# it is all taken from the recorded events). A group belongs to the range its first event is in,
# so a range's first group starts at or after the range's first seq, and the ranges' groups are
# the single process's groups: the cut depends only on the events from a group's first on, and
# every worker cuts from seq 1 or from a group's first seq. The parent concatenates the ranges'
# findings in log order and adds their counts: the report is the single process's.
#
# A worker only moves forward (ranges are taken in order), so over the whole audit it folds the
# log at most once besides what it audits: a rebuild, about a sixtieth of the audit's time.

# The events a log must have for the default (workers=None) to audit it on every core: below
# it, starting the workers (about a second: each imports numpy and the policies) costs more
# than they save (an audit re-derives about a thousand events a second on one core).
SPREAD_FROM = 5_000
# Ranges per worker: the last to finish leaves the others idle for at most about one of them.
RANGES_PER_WORKER = 4
# Records a worker reads at a time past its range, for a group that runs on beyond it: about
# a batch of 200 memories' events and what follows them.
_WINDOW = 256
# How often the parent passes the workers' progress on, in seconds (output, not a decision).
_PROGRESS_EVERY = 0.2


def workers_for(requested: int | None, events: int) -> int:
    """The processes an audit of ``events`` events uses when asked for ``requested``: 0, every
    core; n, n; None, every core for a log of ``SPREAD_FROM`` events or more, else one.
    Refuses anything else (InvalidInputError)."""
    count = write_workers.workers_for(requested)
    return 1 if requested is None and events < SPREAD_FROM else count


class RangeAudit(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker found in one range: its findings in log order, and its counts."""

    findings: tuple[AuditFinding, ...]
    checked: dict[str, int]
    unverifiable: dict[str, int]


def _shipped(embedder: Embedder) -> bytes | None:
    """The embedder pickled for the workers; None when it may not go (see :func:`audit`)."""
    if getattr(embedder, "deterministic", False) is not True:
        return None
    try:
        return pickle.dumps(embedder)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


def _spread(log: EventLog, config: Config, embedder: bytes, tolerance: float, head: int,
            stop: int, workers: int) -> AuditReport | None:
    """The audit by ``workers`` processes (see above); None when the pool broke."""
    # Imported here: multiprocessing costs a command that audits in one process at start-up.
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    count = min(workers * RANGES_PER_WORKER, stop)
    bounds = [1 + stop * i // count for i in range(count)] + [stop + 1]
    context = multiprocessing.get_context("spawn")  # LMDB is opened in the worker, never forked
    queue = context.Queue() if progress.active() else None
    pool = ProcessPoolExecutor(
        max_workers=min(workers, count), mp_context=context, initializer=_start,
        initargs=(str(log.path), config, embedder, tolerance, head, queue))
    parts: list[RangeAudit | None] = [None] * count
    failed: dict[int, BaseException] = {}  # by range: the earliest is the one raised
    futures: dict[Future[RangeAudit], int] = {}
    done = 0
    progress.report("audit", 0, stop)
    try:
        for i in range(count):
            futures[pool.submit(_audit_range, bounds[i], bounds[i + 1], stop)] = i
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=_PROGRESS_EVERY,
                                     return_when=FIRST_COMPLETED)
            for future in finished:
                error = future.exception()
                if error is None:
                    parts[futures[future]] = future.result()
                else:
                    failed[futures[future]] = error
            if failed:  # one process stops at the first error in log order: wait for no later
                pending = {f for f in pending if futures[f] < min(failed)}
            while queue is not None and not queue.empty():
                done += queue.get()
                progress.report("audit", done, stop)
    finally:
        if failed or not all(f.done() for f in futures):  # an error, an interrupt
            _terminate(pool)
        pool.shutdown(wait=True, cancel_futures=True)
    if failed:
        error = failed[min(failed)]
        if isinstance(error, BrokenProcessPool):  # a worker died: one process will do
            return None
        raise error
    progress.report("audit", stop, stop)
    return _merged([part for part in parts if part is not None], stop, tolerance)


def _terminate(pool: Any) -> None:
    """Stop a pool's workers now, rather than after the ranges they are auditing (a pool has
    no public way to; its processes are in ``_processes``)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _merged(parts: Sequence[RangeAudit], stop: int, tolerance: float) -> AuditReport:
    findings = [finding for part in parts for finding in part.findings]
    checked: Counter[str] = Counter()
    unverifiable: Counter[str] = Counter()
    for part in parts:  # (update, not +: a kind counted 0 stays in the report, as in one process)
        checked.update(part.checked)
        unverifiable.update(part.unverifiable)
    return _report(findings, checked, unverifiable, stop, tolerance)


def _report(findings: Sequence[AuditFinding], checked: Counter[str],
            unverifiable: Counter[str], stop: int, tolerance: float) -> AuditReport:
    return AuditReport(
        ok=not findings, findings=tuple(findings), decisions_checked=sum(checked.values()),
        by_kind=dict(sorted(checked.items())), unverifiable=sum(unverifiable.values()),
        unverifiable_by_reason=dict(sorted(unverifiable.items())), until_seq=stop,
        tolerance=tolerance)


class _Worker(NamedTuple):
    """What a worker process audits with: its own read-only log, and how the audit was asked."""

    log: EventLog
    config: Config
    embedder: Embedder
    tolerance: float
    head: int
    queue: Any  # the parent's progress queue (None: nobody listens)


_WORKER: _Worker | None = None
# Where this worker's last range left it: its auditor, and the range's end (every group that
# begins before it is folded; the auditor's next group begins at or after it).
_LEFT: tuple[_Auditor, int] | None = None


def _start(path: str, config: Config, embedder: bytes, tolerance: float, head: int,
           queue: Any) -> None:
    global _WORKER
    _WORKER = _Worker(EventLog.open(path, readonly=True), config, pickle.loads(embedder),
                      tolerance, head, queue)


def _audit_range(start: int, end: int, stop: int) -> RangeAudit:
    """In a worker: audit the groups that begin in ``[start, end)`` (and at or before
    ``stop``), after folding those before them that this worker has not folded yet."""
    global _LEFT
    assert _WORKER is not None
    if _LEFT is not None and _LEFT[1] <= start:
        auditor = _LEFT[0]
    else:  # the first range (a range before the last one: never, they are handed out in order)
        auditor = _Auditor(_WORKER.log, _WORKER.config, _WORKER.embedder, _WORKER.tolerance)
    _LEFT = (auditor, end)
    queue = _WORKER.queue
    every = max(1, (end - start) // 16)
    unsent = 0
    for group in groups(_windows(_WORKER.log, auditor.next_seq, end, _WORKER.head)):
        if group.first_seq >= end or group.first_seq > stop:
            break
        if group.first_seq < start:
            auditor.carry(group)
            continue
        auditor.check(group)
        unsent += len(group.envelopes)
        if queue is not None and unsent >= every:
            queue.put(unsent)
            unsent = 0
    if queue is not None and unsent:
        queue.put(unsent)
    return auditor.take()


def _windows(log: EventLog, start: int, end: int, head: int) -> Iterator[Envelope]:
    """The envelopes from ``start`` on: up to ``end`` in one read, then, for the group that
    runs past it, ``_WINDOW`` records at a time up to ``head``. (Reading on to the head at
    once would decode a chunk of records past each range, and look up the content of the
    whole rest of the log.)"""
    stop = min(end - 1, head)
    yield from log.envelopes(start, stop)
    start = stop + 1
    while start <= head:
        yield from log.envelopes(start, min(start + _WINDOW - 1, head))
        start += _WINDOW


def _last_sweep(envelopes: Sequence[Envelope], before: str) -> str:
    """The sweep version a consolidation's events record last (of those this code implements),
    else ``before``: what the audit re-runs a later consolidation with when its sweep decided
    nothing, so that no event of its own names the version."""
    for env in reversed(envelopes):
        if isinstance(env.event, LifecycleTransitioned | TierChanged) \
                and env.event.policy in SWEEPS_NEWEST_FIRST:
            return env.event.policy
    return before


class _Auditor:
    def __init__(self, log: EventLog, config: Config, embedder: Embedder,
                 tolerance: float) -> None:
        self.log, self.config, self.embedder, self.tolerance = log, config, embedder, tolerance
        # The configs the writers decided with, from their first seq on (see check()).
        self.given = config
        self.configs = recorded_configs(log)
        self.config_starts = [start for start, _ in self.configs]
        self.views = Projections()
        # The stored texts the re-runs read, shared by all of them (see replay.inputs.Texts).
        self.texts = Texts(log)
        self.findings: list[AuditFinding] = []
        self.checked: Counter[str] = Counter()
        self.unverifiable: Counter[str] = Counter()
        # Memories folded without their content (purged since): until their purge is folded
        # too, the rebuilt vector and text views lack rows the live ones had.
        self.hollow: dict[str, set[str]] = {}
        # The sweep version the log's consolidations last recorded (see _maintenance).
        self.last_sweep = SWEEP_POLICY
        # The last group that was not plasticity, and its events: what plasticity follows.
        self.trigger: tuple[str, list[Any]] = ("other", [])
        # Whether the log has recorded a box seal so far: boxes are decided from then on.
        self.boxes_seen = False
        self.next_seq = 1  # the first seq of the next group to audit (or fold)

    # -- the walk -----------------------------------------------------------------------------

    def check(self, group: Group) -> None:
        """Re-derive one group's decisions on the state before it, then fold it."""
        events = [env.event for env in group.envelopes]
        config = self._config_at(group.first_seq)
        if config is None and group.kind not in ("other", "orphan"):
            self.unverifiable["config this code cannot read"] += len(events)
        elif (policy := unknown_policy(events)) is not None \
                and group.kind not in ("other", "orphan"):
            self.config = config or self.given
            self.unverifiable[f"unknown policy {policy}"] += len(events)
        else:
            self.config = config or self.given
            try:
                self._rederive(group)
            except (KeyError, IndexError, ValueError, TypeError, AttributeError) as exc:
                # The planners trust the state they are given; on a damaged log (a record that
                # decodes but names what was never there) they can fail. That is this decision
                # not re-deriving: a finding, not a crash of the audit.
                env = group.envelopes[0]
                self._finding(env.seq, env.event, "action", summary(env.event), None,
                              f"could not be re-derived ({type(exc).__name__}: {exc}); the "
                              "log may be damaged: run verify")
        self.carry(group)

    def carry(self, group: Group) -> None:
        """Fold ``group`` and take from it what the audit of the groups after it reads: what a
        plasticity group follows, the sweep version last recorded, whether boxes are decided,
        the memories folded hollow. All of it comes from the recorded events alone, never from
        a re-derivation, so that an auditor that folded a range without auditing it (a worker
        starting at a range of its own: :func:`audit`) goes on as one that audited it."""
        if group.kind != "plasticity":  # what a plasticity group follows stays the trigger
            self.trigger = (group.kind, [env.event for env in group.envelopes])
        if group.kind == "maintenance":
            self.last_sweep = _last_sweep(group.envelopes, self.last_sweep)
        self.fold(group.envelopes)
        self.next_seq = group.envelopes[-1].seq + 1

    def _rederive(self, group: Group) -> None:
        match group.kind:
            case "write":
                self._write(group.envelopes)
            case "resolve":
                self._resolve(group.envelopes)
            case "maintenance":
                self._maintenance(group.envelopes)
            case "recall" | "touch" | "feedback":
                self._access(group.kind, group.envelopes[0])
            case "session_end":
                self._session_end(group.envelopes[0])
            case "plasticity":
                self._plasticity(group.envelopes)
            case "orphan":
                env = group.envelopes[0]
                self._finding(env.seq, env.event, "action", event_tag(env.event), None,
                              "no recorded decision accounts for this event")

    def _config_at(self, seq: int) -> Config | None:
        """The config the decision at ``seq`` was made with: the given one before the first
        recorded, None where the recorded one does not decode."""
        at = bisect_right(self.config_starts, seq)
        return self.configs[at - 1][1] if at else self.given

    def fold(self, envelopes: Sequence[Envelope]) -> None:
        """Fold the envelopes not folded yet (a consolidation folds its first plan's events
        before it re-derives the next; :meth:`carry` then folds the rest of the group)."""
        envelopes = [env for env in envelopes if env.seq > self.views.seq]
        if not envelopes:
            return
        self.views.apply_all(envelopes)
        for env in envelopes:
            event = env.event
            if isinstance(event, BoxSealed):
                self.boxes_seen = True
            if isinstance(event, MemoryIngested) and (env.vector is None or env.terms is None):
                self.hollow.setdefault(event.namespace, set()).add(event.memory_id)
            for mid in purged_ids(event):
                self.hollow.get(event.namespace, set()).discard(mid)

    def report(self, stop: int) -> AuditReport:
        """The report of everything checked so far."""
        return _report(self.findings, self.checked, self.unverifiable, stop, self.tolerance)

    def take(self) -> RangeAudit:
        """What was found since the last take (a worker's range), and start counting anew."""
        part = RangeAudit(findings=tuple(self.findings), checked=dict(self.checked),
                          unverifiable=dict(self.unverifiable))
        self.findings, self.checked, self.unverifiable = [], Counter(), Counter()
        return part

    def _lookups(self) -> Lookups:
        """Content lookups for one re-run (which notes on its own what it found gone)."""
        return Lookups(self.log, self.views, self.embedder, self.texts)

    def _head_before(self, seq: int) -> Head:
        raw = next(self.log.iter_raw(seq, seq))
        return Head(seq - 1, raw.prev_hash)

    def _finding(self, seq: int, event: Any, field: str, recorded: Any, derived: Any,
                 message: str = "") -> None:
        tag = event_tag(event) if event is not None else ""
        if not message:
            message = (f"{field or 'event'}: recorded {render_value(recorded)}, re-derived "
                       f"{render_value(derived)}")
        self.findings.append(AuditFinding(seq=seq, type=tag, field=field, recorded=recorded,
                                          derived=derived, message=message))

    def _settle(self, kind: str, found: list[AuditFinding], count: int, tracker: Lookups,
                namespaces: set[str] | None) -> None:
        """Report a group's findings, unless the content its decision read is gone (purged
        since): then the re-run could not see what the original saw, and it is unverifiable."""
        hollow = any(self.hollow.get(ns) for ns in (namespaces if namespaces is not None
                                                     else self.hollow))
        if found and (tracker.missing or hollow):
            self.unverifiable["content removed since"] += count
            return
        self.findings += found
        self.checked[kind] += count

    def _compare(self, recorded: Sequence[Envelope], derived: Sequence[Any], ids: Ids
                 ) -> list[AuditFinding]:
        """Findings for two runs of events, pairwise; a difference in type or rule is reported
        once as the action, and stops the comparison (what follows would only echo it)."""
        out: list[AuditFinding] = []
        for position, env in enumerate(recorded):
            mine = derived[position] if position < len(derived) else None
            if mine is None:
                out.append(AuditFinding(
                    seq=env.seq, type=event_tag(env.event), field="action",
                    recorded=summary(env.event), derived=None,
                    message=f"recorded {summary(env.event)}; re-derived nothing in its place"))
                return out
            rule_differs = getattr(env.event, "rule", None) != getattr(mine, "rule", None)
            if type(env.event) is not type(mine) or rule_differs:
                out.append(AuditFinding(
                    seq=env.seq, type=event_tag(env.event), field="action",
                    recorded=summary(env.event), derived=summary(mine),
                    message=f"recorded {summary(env.event)}; re-derived {summary(mine)}"))
                return out
            for field, r, d in compare_events(env.event, mine, ids, self.tolerance):
                out.append(AuditFinding(
                    seq=env.seq, type=event_tag(env.event), field=field, recorded=r, derived=d,
                    message=f"{field}: recorded {render_value(r)}, re-derived {render_value(d)}"))
        if len(derived) > len(recorded) and recorded:
            last = recorded[-1]
            out.append(AuditFinding(
                seq=last.seq, type=event_tag(last.event), field="action", recorded=None,
                derived=tags(derived[len(recorded):]),
                message=f"re-derived more after it: {tags(derived[len(recorded):])}"))
        return out

    # -- write batches ------------------------------------------------------------------------

    def _write(self, envelopes: list[Envelope]) -> None:
        by_event = {id(env.event): env for env in envelopes}
        items, trailer = split_items([env.event for env in envelopes])
        kept = [item for item in items if not isinstance(item[0], MemoryRejected)]
        rejected = len(items) - len(kept)
        if rejected:
            self.unverifiable["rejected input (its text is not stored)"] += rejected
        if not kept:
            return
        tracker = self._lookups()
        inputs = [item_input(item, tracker) for item in kept]
        count = sum(len(item) for item in kept) + len(trailer)
        namespaces = {item[0].namespace for item in kept}
        if any(i is None for i in inputs):
            self.unverifiable["input text removed"] += count
            return
        checked_items = [i for i in inputs if i is not None]
        first = envelopes[0]
        texts = {content_hash(i.text): i.text for i in checked_items}
        contradiction, linker, extractor = self._judges(kept, checked_items, tracker)
        decided = batch.decide(
            self.views, checked_items, tracker.contents_for(texts), at=first.event.at,
            head=self._head_before(first.seq), config=self.config, text_of=tracker.text_of,
            vector_of=tracker.vector_of, analyse=tracker.analyse, contradiction=contradiction,
            linker=linker, extractor=extractor)
        derived_items, derived_trailer = split_items(decided.events)
        ids = Ids()
        found: list[AuditFinding] = []
        for position, item in enumerate(kept):
            mine = derived_items[position] if position < len(derived_items) else []
            found += self._compare([by_event[id(e)] for e in item], mine, ids)
        if len(derived_items) > len(kept):
            # The re-run decided the same inputs, so it made as many items: one more is an
            # event the recorded batch lacks (or that its grouping left out of its item).
            extra = [e for item in derived_items[len(kept):] for e in item]
            last = by_event[id(kept[-1][-1])]
            found.append(AuditFinding(
                seq=last.seq, type=event_tag(last.event), field="action", recorded=None,
                derived=tags(extra), message=f"re-derived more after the batch: {tags(extra)}"))
        found += self._compare([by_event[id(e)] for e in trailer], derived_trailer, ids)
        self._settle("write", found, count, tracker, namespaces)

    def _judges(self, items: list[list[Any]], inputs: list[Any], tracker: Lookups
                ) -> tuple[ReplayedContradictions | None, ReplayedLinks | None,
                           RecordedExtractor | None]:
        """Stand-ins giving back the recorded answers of the judges a batch names (None: the
        rules decided, and are re-run). A fact extractor needs none: the re-run reads the
        extraction stored with each text."""
        named = judges_named([event for item in items for event in item])
        if not named:
            return None, None, None
        text_of = texts_by_id([e for item in items for e in item], self.views, tracker.blob)
        contradiction = None if "contradiction" not in named else replayed_contradictions(
            items, [i.text for i in inputs], text_of, tracker.blob, named["contradiction"])
        linker = None if "links" not in named else replayed_links(
            [event for item in items for event in item], tracker.blob, named["links"])
        extractor = None if "facts" not in named else RecordedExtractor(named["facts"])
        return contradiction, linker, extractor

    # -- conflict resolutions -----------------------------------------------------------------

    def _resolve(self, envelopes: list[Envelope]) -> None:
        resolved = next(env.event for env in envelopes if hasattr(env.event, "winner"))
        conflict = self.views.state.conflicts.get(resolved.conflict_id)  # type: ignore[attr-defined]
        if conflict is None or conflict.status != "open":
            self._finding(envelopes[0].seq, envelopes[0].event, "action", "resolved", None,
                          f"resolves conflict {resolved.conflict_id}, which "  # type: ignore[attr-defined]
                          f"{'does not exist' if conflict is None else 'was settled already'}")
            return
        tracker = self._lookups()
        first = envelopes[0]
        try:
            events, _, _ = resolve.resolution_events(
                self.views, conflict, resolved.strategy, at=first.event.at,  # type: ignore[attr-defined]
                head=self._head_before(first.seq), config=self.config, text_of=tracker.text_of,
                analyse=tracker.analyse)
        except Exception as exc:  # an unknown strategy, a memory gone: the record is wrong
            self._finding(first.seq, first.event, "action", resolved.strategy, None,  # type: ignore[attr-defined]
                          f"the resolution does not re-run: {exc}")
            return
        found = self._compare(envelopes, events, Ids())
        self._settle("resolve", found, len(envelopes), tracker, {first.event.namespace})

    # -- consolidations -----------------------------------------------------------------------

    def _maintenance(self, envelopes: list[Envelope]) -> None:
        now = next((n for env in envelopes if (n := getattr(env.event, "now", None)) is not None),
                   None)
        if now is None:
            self.unverifiable["maintenance without its now"] += len(envelopes)
            return
        remaining = list(envelopes)
        last = self.last_sweep  # (carry() takes this group's from its events once it is done)
        while remaining:
            first = remaining[0]
            policies = recorded_policies([env.event for env in remaining])
            if policies.sweep is not None:
                last = policies.sweep
                sweeps = [policies.sweep]
            else:
                # The sweep decided nothing, so no event names its version: the one the log last
                # recorded, else any this code implements (newest first) that also decides
                # nothing here (a sweep-3 log's working memories stayed where they were).
                sweeps = [last] + [v for v in SWEEPS_NEWEST_FIRST if v != last]
            first_try: tuple[list[AuditFinding], list[Any], Lookups] | None = None
            for sweep in sweeps:
                tracker = self._lookups()
                planned = cycle.plan(
                    self.views, now, first.event.at, self.config,
                    head=self._head_before(first.seq), text_of=tracker.blob,
                    contents_for=tracker.contents_for, terms_of=tracker.terms_of,
                    seal_boxes=self._boxes_in_force(remaining),
                    summarizer=replayed_summarizer([env.event for env in remaining],
                                                   self.views, self.log),
                    sweep_policy=sweep, dream_policy=policies.dream)
                derived = planned.events
                # Nothing re-derived: the first recorded event is reported as unaccounted for.
                found = self._compare(remaining[:max(len(derived), 1)], derived, Ids())
                if not found:
                    break
                if first_try is None:
                    first_try = (found, derived, tracker)
            if found and first_try is not None:  # no version re-derives it: report the first
                found, derived, tracker = first_try
            if found or len(derived) >= len(remaining):
                self._settle("maintenance", found, len(remaining), tracker, None)
                self.fold(remaining)
                return
            # A second consolidation at the same at and now: its plan follows this one's.
            self._settle("maintenance", [], len(derived), tracker, None)
            self.fold(remaining[:len(derived)])
            remaining = remaining[len(derived):]

    # -- a caller's end of a session ---------------------------------------------------------

    def _session_end(self, env: Envelope) -> None:
        """The caller's call is not re-decided (like a pin), but what it moved is: the working
        memories of the session its first change names, all of them and only them."""
        event: Any = env.event
        record = self.views.state.memories.get(event.changes[0].memory_id)
        self.checked["session_end"] += 1
        if record is None or record.session is None:
            self._finding(env.seq, event, "changes[0].memory_id", event.changes[0].memory_id,
                          None, "ends a session through a memory that is in none")
            return
        derived = session_end(self.views, event.namespace, record.session, event.at,
                              self.config, policy=event.policy)
        self.findings += self._compare([env], derived, Ids())

    # -- plasticity ----------------------------------------------------------------------------

    def _boxes_in_force(self, envelopes: Sequence[Envelope]) -> bool:
        """Whether boxes were decided at these events: once the log records a seal."""
        return self.boxes_seen or any(isinstance(env.event, BoxSealed) for env in envelopes)

    def _plasticity(self, envelopes: Sequence[Envelope]) -> None:
        """Tags, captures, co-activation, spreading and box seals: re-derived from the write or
        access they follow (the group before), on the state it left."""
        kind, events = self.trigger
        params, decay = self.config.plasticity, self.config.decay
        at = envelopes[0].event.at
        derived: list[Any] = []
        tracker = self._lookups()
        if kind == "write":
            ingested = [e for e in events if isinstance(e, MemoryIngested)]
            derived = plasticity.after_write(self.views.state, ingested, at, params, decay)
            if self._boxes_in_force(envelopes):
                derived += boxes.after_write(self.views.state, ingested, at, self.config.boxes,
                                             tracker.terms_of)
        elif kind == "recall":
            derived = plasticity.after_access(self.views, events[0].memory_ids, at, params, decay,
                                            recall=True)
        elif kind == "touch":
            derived = plasticity.after_access(self.views, (events[0].memory_id,), at, params,
                                            decay, recall=False)
        if not derived or events[0].at != at:
            env = envelopes[0]
            self.checked["plasticity"] += 1
            self._finding(env.seq, env.event, "action", summary(env.event), None,
                          "no write or access just before it decides plasticity")
            return
        # A box seal read the stored terms of its members: if some are gone since (erased,
        # purged), a difference is unverifiable, not a finding.
        self._settle("plasticity", self._compare(envelopes, derived, Ids()), 1, tracker, set())

    # -- accesses -----------------------------------------------------------------------------

    def _access(self, kind: str, env: Envelope) -> None:
        event: Any = env.event
        memories = self.views.state.memories
        at = event.at
        if kind == "recall":
            stabilities = event.stabilities
            if not stabilities:
                return
            self.checked[kind] += 1
            for i, mid in enumerate(event.memory_ids):
                record = memories.get(mid)
                if record is None:
                    self._finding(env.seq, event, f"memory_ids[{i}]", mid, None,
                                  f"recalled {mid}, which does not exist")
                    continue
                self._number(env.seq, event, f"stabilities[{i}]", stabilities[i],
                             stability_after_access(record, at, self.config.decay))
            return
        record = memories.get(event.memory_id)
        self.checked[kind] += 1
        if record is None:
            self._finding(env.seq, event, "memory_id", event.memory_id, None,
                          f"{event.memory_id} does not exist")
        elif kind == "touch":
            self._number(env.seq, event, "stability", event.stability,
                         stability_after_access(record, at, self.config.decay))
        else:
            self._number(env.seq, event, "utility", event.utility, after_feedback(
                record.utility, event.target, record.utility_at or record.created_at, at,
                self.config.utility))

    def _number(self, seq: int, event: Any, field: str, recorded: float, derived: float) -> None:
        if differences(recorded, derived, self.tolerance):
            self._finding(seq, event, field, recorded, derived)
