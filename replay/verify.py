"""Verify a store: the whole hash chain, every blob against its hash (and that every memory still
holding content has its blob: erased and purged ones do not), what is derived from each text
against a re-derivation, the head anchor, the record of erasures, and that the live projections
equal a rebuild from the log.

Derived content (the vector, the BM25 terms and the extraction stored beside each text) feeds
every rebuild, so a rebuild cannot catch it altered: live and rebuilt projections fold the same
wrong bytes. It is derivable, so verify derives it again from the text and compares: the terms
(:func:`eventmem.text.normalize.packed_terms`), the extraction when the ingest that stored it
names the current extractor, and the vector when the embedder says it is ``deterministic`` (the
default hashing embedder is); another embedder's vectors are checked for shape, finiteness and
unit length only.
"""

from __future__ import annotations

import msgspec
import numpy as np

from eventmem import codec, progress
from eventmem.errors import CorruptRecordError, StoreError
from eventmem.events import CONTENT_EVENTS, MemoryErased, MemoryIngested, purged_ids
from eventmem.policies.extract import relations as extract
from eventmem.storage.log import GENESIS, EventLog, Head
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import content_hash, packed_terms
from eventmem.write.erase import with_later_erasures
from projections import Projections, paused_gc


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One problem :func:`verify` found: the check that failed, what is wrong, and the seq it
    concerns (None when no one record is to blame)."""

    check: str  # chain | decode | head | blob | derived | erasures | content | projection
    message: str
    seq: int | None = None


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    """What :func:`verify` checked and found (``ok``: nothing wrong), the head it verified, and the
    live projections' digests (empty when none were compared)."""

    ok: bool
    findings: tuple[Finding, ...]
    events_checked: int
    blobs_checked: int
    head_seq: int
    head_hash: str
    digests: dict[str, str]


def verify(
    log: EventLog, *, live: Projections | None = None, expected_head: Head | None = None,
    embedder: Embedder | None = None,
) -> VerifyReport:
    """Check everything and report every problem found (an empty report means all is well).

    ``live``: projections to compare with a rebuild. ``expected_head``: a head the operator saved
    elsewhere; the log must still contain it, so a truncation past it is caught. ``embedder``:
    the store's, to check the stored vectors with (None: vectors are not checked).
    """
    findings: list[Finding] = []
    # One prefix, pinned in one read transaction: the head, the record of erasures and the
    # blobs as they stood together. Another process may append (or erase) while the chain is
    # walked; what it writes after the pin is not this report's business, and must not read
    # as a truncation or a missing blob.
    present: set[str] = set()
    mismatched: list[str] = []
    blobs = 0
    with log.pinned() as pin:
        for key, data in progress.tracked(pin.blobs, "verify: texts",
                                          lambda: log.stats()["blobs"]):
            blobs += 1
            present.add(key)
            try:
                ok = content_hash(data.decode("utf-8")) == key
            except UnicodeDecodeError:
                ok = False
            if not ok:
                mismatched.append(key)
    head = pin.head
    content_seq: dict[str, int] = {}  # blob hash -> first seq that references it
    extractors: dict[str, str] = {}  # memory text hash -> the extractor its first ingest names
    holders: dict[str, int] = {}  # content hash -> how many memories hold it as their text
    gone: set[str] = set()  # memories whose content was purged or erased: no blob expected
    erasures: list[int] = []
    prev, expected_seq, checked = GENESIS, 1, 0
    for raw in progress.tracked(log.iter_raw(1, head.seq), "verify: hash chain", head.seq):
        checked += 1
        if raw.seq != expected_seq:
            findings.append(Finding(check="chain", seq=expected_seq,
                                    message=f"gap: records {expected_seq}..{raw.seq - 1} missing"))
        if raw.prev_hash != prev:
            # The previous record no longer hashes to what this one recorded: it was altered
            # (or this record's own prefix was).
            bad = raw.seq - 1 if raw.seq > 1 else raw.seq
            findings.append(Finding(check="chain", seq=bad,
                                    message="record does not match the hash chain (altered)"))
        try:
            event = codec.decode(raw.payload, seq=raw.seq)
            if isinstance(event, CONTENT_EVENTS):
                content_seq.setdefault(event.content_hash, raw.seq)  # type: ignore[attr-defined]
            if isinstance(event, MemoryIngested):
                chash = event.content_hash
                holders[chash] = holders.get(chash, 0) + 1
                extractors.setdefault(chash, event.extractor)
                if event.caller_hash is not None:  # its labels: held like its text
                    holders[event.caller_hash] = holders.get(event.caller_hash, 0) + 1
                    content_seq.setdefault(event.caller_hash, raw.seq)
            elif purged := purged_ids(event):
                gone |= purged
                if isinstance(event, MemoryErased):
                    erasures.append(raw.seq)
        except CorruptRecordError as exc:
            findings.append(Finding(check="decode", seq=raw.seq, message=str(exc)))
        prev, expected_seq = raw.hash, raw.seq + 1
    last_seq = expected_seq - 1

    if head.seq != last_seq or pin.last_seq != head.seq:
        end = last_seq if head.seq != last_seq else pin.last_seq
        findings.append(Finding(check="head", seq=end,
                                message=f"log ends at {end} but the head says {head.seq} "
                                        "(truncated or extended outside eventmem)"))
    elif head.hash != prev:
        findings.append(Finding(check="chain", seq=last_seq,
                                message="last record does not match the head hash (altered)"))
    if expected_head is not None:
        _check_expected_head(log, expected_head, last_seq, findings)

    if tuple(erasures) != pin.erasures:
        findings.append(Finding(check="erasures", seq=erasures[-1] if erasures else None,
                                message="the store's record of erasures does not match the "
                                        "erasure events of the log"))

    for key in mismatched:
        findings.append(Finding(check="blob", seq=content_seq.get(key),
                                message=f"blob {key} does not match its hash"))

    _check_derived(log, embedder, extractors, content_seq, set(mismatched), findings)

    digests: dict[str, str] = {}
    decode_failed = any(f.check in ("decode", "chain") for f in findings)
    if not decode_failed:  # a damaged log says nothing reliable about which blobs must exist
        _check_missing_blobs(log, holders, gone, present, content_seq, findings)
    if live is not None and not any(f.check == "decode" for f in findings):
        digests = live.digests()
        try:
            rebuilt, expected = _rebuilt_alike(log, live)
        except CorruptRecordError as exc:  # derived content (an extraction) that does not decode
            findings.append(Finding(check="content", seq=exc.seq, message=str(exc)))
        else:
            for name, digest in expected.items():
                if rebuilt[name] != digest:
                    findings.append(Finding(
                        check="projection", seq=live.seq,
                        message=f"live {name} projection differs from a rebuild"))

    unique = tuple(dict.fromkeys(findings))  # one finding per (check, seq, message)
    return VerifyReport(ok=not unique, findings=unique, events_checked=checked, blobs_checked=blobs,
                        head_seq=head.seq, head_hash=head.hash.hex(), digests=digests)


_DERIVE_CHUNK = 512  # texts re-embedded per batch


def _check_derived(log: EventLog, embedder: Embedder | None, extractors: dict[str, str],
                   content_seq: dict[str, int], mismatched: set[str],
                   out: list[Finding]) -> None:
    """Re-derive what is stored beside each text (module docstring) and report every stored
    vector, terms and extraction that differs; a memory's text stored without its vector too.
    Texts that fail their own hash are reported by the blob check and skipped here."""
    embed = embedder is not None and getattr(embedder, "deterministic", False) is True
    chunk: list[tuple[str, str, bytes]] = []  # (hash, text, stored vector) to re-embed

    def flush() -> None:
        if not chunk or embedder is None:
            return
        rows = embedder.embed([text for _, text, _ in chunk])
        for (chash, _, stored), row in zip(chunk, rows, strict=True):
            if row.astype(np.float32).tobytes() != stored:
                out.append(_derived(chash, "vector", content_seq))
        chunk.clear()

    # Every content, erased ones included: the texts' count is a close total.
    for chash, raw, derived in progress.tracked(log.iter_derived(), "verify: derived",
                                                lambda: log.stats()["blobs"]):
        if derived is None or chash in mismatched:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the blob check reports it
        if derived.terms is not None and derived.terms != packed_terms(text):
            out.append(_derived(chash, "terms", content_seq))
        extractor = extractors.get(chash)
        if extractor in extract.EXTRACTORS \
                and derived.extraction != extract.encoded(text, extractor):
            out.append(_derived(chash, "extraction", content_seq))
        if derived.vector is None:
            if extractor is not None and embedder is not None:
                out.append(Finding(check="derived", seq=content_seq.get(chash),
                                   message=f"content {chash} has no vector (a memory holds it)"))
            continue
        if embedder is None:
            continue
        if embed:
            chunk.append((chash, text, derived.vector))
            if len(chunk) >= _DERIVE_CHUNK:
                flush()
        elif not _well_formed(derived.vector, embedder.dim):
            out.append(_derived(chash, "vector", content_seq))
    flush()


def _derived(chash: str, what: str, content_seq: dict[str, int]) -> Finding:
    return Finding(check="derived", seq=content_seq.get(chash),
                   message=f"the {what} stored for content {chash} does not match its text "
                           "(altered: re-derived from the text it differs)")


def _well_formed(vector: bytes, dim: int) -> bool:
    """A vector another embedder made: the store's length, finite, unit (or zero) length."""
    if len(vector) != 4 * dim:
        return False
    row = np.frombuffer(vector, dtype=np.float32)
    if not np.isfinite(row).all():
        return False
    norm = float(np.linalg.norm(row.astype(np.float64)))
    return norm == 0.0 or abs(norm - 1.0) <= 1e-3


def _rebuilt_alike(log: EventLog, live: Projections) -> tuple[dict[str, str], dict[str, str]]:
    """The digests of a rebuild to ``live.seq`` and the digests ``live`` must match.

    A rebuild of the past takes in the erasures recorded after it (their content is gone from
    the store). Live projections that another process's erasure overtook (a read-only engine
    between two catch-ups) lack them, so the same erasures are applied to a copy of them; the
    erasures are read after the fold, so every one whose removed content the fold missed is
    among them.
    """
    with paused_gc():
        rebuilt = Projections().apply_chunks(progress.tracked(
            log.envelope_chunks(1, live.seq), "verify: rebuild", live.seq, size=len))
    later = [seq for seq in log.erasure_seqs() if seq > live.seq]
    if not later:
        return rebuilt.digests(), live.digests()
    events = [event for seq in later for _, event in log.read(seq, seq)]
    overtaken = Projections.from_bytes(live.to_bytes())
    if overtaken is None:  # cannot happen for projections of this version
        raise StoreError("live projections do not round-trip through their snapshot form: "
                         "a bug in eventmem; reopen the store to rebuild them")
    return (with_later_erasures(rebuilt, events).digests(),
            with_later_erasures(overtaken, events).digests())


def _check_missing_blobs(log: EventLog, holders: dict[str, int], gone: set[str],
                         present: set[str], content_seq: dict[str, int],
                         out: list[Finding]) -> None:
    """Every text (and Labels document) a memory still holds must have its blob; a purged or
    erased memory's need not (its removal is in the log), unless another memory holds the same
    text."""
    try:
        events = log.memory_events(sorted(gone))
    except CorruptRecordError as exc:  # the by-memory index names a record the log lacks
        out.append(Finding(check="decode", seq=exc.seq, message=str(exc)))
        return
    for _, event in events:
        if isinstance(event, MemoryIngested) and event.memory_id in gone:
            holders[event.content_hash] -= 1
            if event.caller_hash is not None:
                holders[event.caller_hash] -= 1
    for chash in sorted(h for h, n in holders.items() if n > 0 and h not in present):
        out.append(Finding(check="blob", seq=content_seq.get(chash),
                           message=f"blob {chash} is missing (a memory still holds it)"))


def _check_expected_head(log: EventLog, expected: Head, last_seq: int, out: list[Finding]) -> None:
    if expected.seq > last_seq:
        out.append(Finding(check="head", seq=expected.seq,
                           message=f"saved head {expected.seq} is past the log's end {last_seq} "
                                   "(truncated)"))
        return
    if expected.seq == 0:
        return
    record = next(log.iter_raw(expected.seq, expected.seq), None)
    if record is None or record.hash != expected.hash:
        out.append(Finding(check="head", seq=expected.seq,
                           message="record at the saved head does not match its saved hash"))
