"""The lifecycle: which status a memory should have at a given ``now``, and the sweep over a store.

Statuses driven by decay (ARCHITECTURE.md section 9)::

    active  ──R < 0.3──▶ stale ──30 days──▶ archived ──R < 0.01──▶ deleted ──90 days──▶ purged
      ▲                    │ R < 0.1 ─────────▲                        ▲
      └──R >= 0.3 (an access restored it)─────┘      explicit forget ──┘

* Below ``archive_below`` a memory goes straight to archived, below ``delete_below`` straight to
  deleted, whatever it was.
* Archived is sticky while retention stays under ``active_min``: it leaves only when an access
  restores retention (or decays on to deleted). Without that, an archived-for-staleness memory
  would flip back to stale at the next sweep.
* Decay hides, it does not destroy: it deletes (and so, later, purges the text of) only a memory
  of a kind short-lived by nature (``decay_deletes_kinds``: context and ephemeral by default) or
  one whose valid time has ended (expired). Any other memory whose retention falls below
  ``delete_below`` stays archived, its text kept, until an explicit forget or an access.
  (sweep-1 and sweep-2 deleted any kind; an audit re-derives their sweeps as they did.)
* Deleted is terminal except for the purge ``purge_after_deleted_days`` after ``deleted_at``
  (or ``status_since`` when a sweep deleted it).
* Pinned, immutable and flashbulb memories never leave active because of decay (a sweep returns
  them to active if they were stale); explicit deletion still applies to them.
* From sweep-5, a commitment marked done (``Engine.resolve_commitment``) is archived
  ``done_archive_days`` (90) after, and a speculative memory (confidence under 0.4) that nothing
  confirmed within ``speculative_days`` (30) of its creation expires: archived, text kept.
* Dormant, superseded, erased and purged memories are not touched by decay, nor is any memory in
  a tier whose decay rate is 0 (the dormant tier): its clock is frozen at ``status_since``, and a
  status change would move that point. Only the purge of a deleted one still applies.

A status is a pure function of (record, now, parameters), so a sweep applied and run again at the
same ``now`` changes nothing. The engine applying a transition must set ``status_since = now``
(and ``deleted_at = now`` for a deletion); both rules below read those fields.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError
from eventmem.events import MEMORY_KINDS
from eventmem.policies.decay import DecayParams, is_frozen, retention
from projections.state import MemoryRecord

# The sweep's version (recorded on its lifecycle and tier events). sweep-1, recorded as the
# store-wide "gate-1", judged tiers on the status before the sweep's own transitions, so a
# memory the sweep brought back from archived moved tier only at a second sweep at that now.
SWEEP_1 = "gate-1"
# sweep-2 deleted by decay whatever the kind (sweep-3: only decay_deletes_kinds, or expired).
SWEEP_2 = "sweep-2"
# sweep-3 decided as sweep-4 does but left working-tier memories in working memory for good
# (sweep-4: they move to episodic after 30 minutes, 2 accesses or at importance >= 0.6).
SWEEP_3 = "sweep-3"
# sweep-4 decided as sweep-5 does but promoted pinned and immutable memories, promoted no
# memory for an entity it shares, and neither expired an unconfirmed speculative memory nor
# archived a commitment done long ago.
SWEEP_4 = "sweep-4"
# sweep-5 decided as sweep-6 does but moved a memory one tier per sweep: a working memory
# accessed three times left for episodic, and only the next sweep at the same now promoted it
# to semantic (sweep-6: it goes where the rules settle, in one change).
SWEEP_5 = "sweep-5"
SWEEP_POLICY = "sweep-6"
_DELETES_ANY_KIND = frozenset({SWEEP_1, SWEEP_2})
# The sweeps that never moved a memory out of working memory.
WORKING_KEPT = frozenset({SWEEP_1, SWEEP_2, SWEEP_3})
# The sweeps before speculative expiry, done commitments, entity promotion and the promotion
# exemption of pinned and immutable memories.
BEFORE_SWEEP_5 = frozenset({SWEEP_1, SWEEP_2, SWEEP_3, SWEEP_4})
# The sweeps that moved a memory one tier at a time.
ONE_TIER_STEP = BEFORE_SWEEP_5 | {SWEEP_5}

# Statuses decay never changes: dormancy is left by reactivation, the rest are final.
UNTOUCHED_STATUSES = frozenset({"dormant", "superseded", "erased", "purged"})


class LifecycleParams(msgspec.Struct, kw_only=True, frozen=True):
    """Thresholds of the lifecycle (retention in [0, 1], durations in days)."""

    active_min: float = 0.3
    archive_below: float = 0.1
    archive_after_stale_days: float = 30.0
    delete_below: float = 0.01
    purge_after_deleted_days: float = 90.0
    # The kinds decay alone may delete (and so purge): those short-lived by nature. A memory of
    # another kind is deleted only by an explicit forget, or by decay once it has expired.
    decay_deletes_kinds: tuple[str, ...] = ("context", "ephemeral")
    # Speculative memories (sweep-5): stored with confidence under ``speculative_below`` and
    # never confirmed (no access, no reinforcement) for ``speculative_days``, they expire
    # (archived, ``speculative_expired``). A commitment marked done is archived
    # ``done_archive_days`` after (``commitment_done``).
    speculative_below: float = 0.4
    speculative_days: float = 30.0
    done_archive_days: float = 90.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.decay_deletes_kinds) - set(MEMORY_KINDS))
        if unknown:
            raise InvalidInputError(f"decay_deletes_kinds: unknown kinds {unknown}; the kinds are "
                                    f"{', '.join(MEMORY_KINDS)}")
        if not 0 <= self.delete_below <= self.archive_below <= self.active_min <= 1:
            raise InvalidInputError(
                "lifecycle thresholds need 0 <= delete_below <= archive_below <= active_min <= 1")
        if not 0 <= self.speculative_below <= 1:
            raise InvalidInputError("speculative_below must be in [0, 1]")
        if not (self.speculative_days >= 0 and self.done_archive_days >= 0):
            raise InvalidInputError("speculative_days and done_archive_days must be >= 0")
        if not (self.archive_after_stale_days >= 0 and self.purge_after_deleted_days >= 0):
            raise InvalidInputError("lifecycle durations must be >= 0 days")


class Transition(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One status change a sweep decided (same fields as ``eventmem.events.StatusChange``)."""

    memory_id: str
    from_status: str
    to_status: str
    reason: str
    retention: float


def _exempt_reason(record: MemoryRecord) -> str | None:
    if record.pinned:
        return "exempt_pinned"
    if record.immutable:
        return "exempt_immutable"
    if record.flashbulb:
        return "exempt_flashbulb"
    return None


def expiry_reason(record: MemoryRecord, now: int, params: LifecycleParams) -> str | None:
    """Why ``record`` is archived at ``now`` whatever its retention (sweep-5), or None:
    ``commitment_done`` (done ``done_archive_days`` ago) or ``speculative_expired`` (its
    confidence under ``speculative_below`` and not confirmed, by an access or a restatement,
    within ``speculative_days`` of its creation). Either stays true at every later ``now``, so
    the archival is stable; a confirmation (an access) ends speculation and revives it."""
    if record.done_at is not None \
            and now - record.done_at >= params.done_archive_days * MICROS_PER_DAY:
        return "commitment_done"
    if (record.confidence < params.speculative_below and record.access_count == 0
            and record.reinforce_count == 0
            and now - record.created_at >= params.speculative_days * MICROS_PER_DAY):
        return "speculative_expired"
    return None


def decay_may_delete(record: MemoryRecord, now: int, params: LifecycleParams,
                     policy: str = SWEEP_POLICY) -> bool:
    """Whether decay alone may delete ``record`` at ``now``: a short-lived kind, or its valid
    time has ended (any kind under sweep-1 and sweep-2)."""
    return (policy in _DELETES_ANY_KIND or record.kind in params.decay_deletes_kinds
            or (record.valid_until is not None and record.valid_until <= now))


def _decide(
    record: MemoryRecord, now: int, decay_params: DecayParams, params: LifecycleParams,
    policy: str = SWEEP_POLICY,
) -> tuple[str, str, float]:
    """(status, reason, retention) at ``now``; the body of :func:`status_at` and :func:`sweep`."""
    status = record.status
    if status in UNTOUCHED_STATUSES:
        return status, "not_decaying", 0.0
    r = retention(record, now, decay_params)
    if status == "deleted":
        since = record.deleted_at
        if since is None:
            since = record.status_since or record.created_at
        if now - since >= params.purge_after_deleted_days * MICROS_PER_DAY:
            return "purged", "purge_due", r
        return "deleted", "deleted", r
    if is_frozen(record, decay_params):
        # A dormant memory's clock stops at status_since; moving its status would move that
        # point, so decay leaves it alone until a reactivation (or an explicit deletion).
        return status, "not_decaying", r
    exempt = _exempt_reason(record)
    if exempt is not None:
        return "active", exempt, r
    if policy not in BEFORE_SWEEP_5 and not (
            r < params.delete_below and decay_may_delete(record, now, params, policy)):
        expired = expiry_reason(record, now, params)
        if expired is not None:
            return "archived", expired, r
    if r >= params.active_min:
        return "active", ("retention_ok" if status == "active" else "retention_restored"), r
    if r < params.delete_below and decay_may_delete(record, now, params, policy):
        # A deletion that is already due for purge (purge after 0 days) goes straight there, so
        # a second sweep at the same now has nothing left to do.
        if params.purge_after_deleted_days <= 0:
            return "purged", "retention_below_delete", r
        return "deleted", "retention_below_delete", r
    if r < params.archive_below:  # (also below delete_below, for a kind decay may not delete)
        return "archived", "retention_below_archive", r
    if status == "archived":
        return "archived", "archived", r
    # Stale: the staleness clock runs from when the memory became stale, restarted by any access
    # since (a stale memory that was touched but has faded again starts a fresh 30 days).
    since = now
    if status == "stale":
        since = max(record.status_since or record.created_at, record.last_access_at)
    if now - since >= params.archive_after_stale_days * MICROS_PER_DAY:
        return "archived", "stale_too_long", r
    return "stale", "retention_below_active", r


def status_at(
    record: MemoryRecord, now: int, decay_params: DecayParams, params: LifecycleParams,
    policy: str = SWEEP_POLICY,
) -> tuple[str, str]:
    """The status ``record`` should have at ``now`` and the rule that says so.

    Reasons: ``retention_ok``, ``retention_restored``, ``retention_below_active``,
    ``retention_below_archive``, ``stale_too_long``, ``retention_below_delete``, ``purge_due``,
    ``exempt_pinned`` / ``exempt_immutable`` / ``exempt_flashbulb``, ``archived``, ``deleted``,
    ``not_decaying``, and from sweep-5 ``commitment_done`` and ``speculative_expired``.
    """
    status, reason, _ = _decide(record, now, decay_params, params, policy)
    return status, reason


def sweep(
    records: Iterable[MemoryRecord], now: int, decay_params: DecayParams, params: LifecycleParams,
    policy: str = SWEEP_POLICY,
) -> list[Transition]:
    """Every status change due at ``now``, ordered by ``created_seq`` (then id), decided as the
    sweep version ``policy``.

    The order is a function of the records alone, never of the iterable's order, so the event a
    sweep appends is the same on every run.
    """
    decide = _decide
    found: list[tuple[int, str, Transition]] = []
    for record in records:
        status, reason, r = decide(record, now, decay_params, params, policy)
        if status != record.status:
            change = Transition(memory_id=record.memory_id, from_status=record.status,
                                to_status=status, reason=reason, retention=r)
            found.append((record.created_seq, record.memory_id, change))
    found.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in found]
