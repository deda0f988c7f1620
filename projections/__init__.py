"""Pure folds of the event log into the views the engine queries.

:class:`Projections` bundles them: ``apply`` folds one envelope into every view, ``dump`` gives a
canonical serializable form (the snapshot, and the digest that ``verify`` compares), ``load``
restores it. Every view can be deleted and rebuilt from the log and comes out byte-identical.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice

import msgspec

from eventmem import codec
from eventmem.errors import CorruptRecordError
from eventmem.storage.envelope import Envelope
from projections import graph as graph_view
from projections import state as state_view
from projections import temporal as temporal_view
from projections import text as text_view
from projections import vectors as vector_view
from projections.graph import Graph, GraphDump
from projections.state import State
from projections.temporal import Temporal
from projections.text import Text, TextDump
from projections.vectors import AnnDump, Vectors, VectorsDump

# Bump when a projection's folding rules or dump layout change: older snapshots are then ignored
# and the projections rebuilt from the log.
PROJECTION_VERSION = 15

__all__ = ["PROJECTION_VERSION", "Projections", "Snapshot", "paused_gc"]


class Snapshot(msgspec.Struct, kw_only=True):
    """Every view folded to ``seq`` in its serializable form, under the
    :data:`PROJECTION_VERSION` that folded it (the vector rows travel beside it, as raw bytes)."""

    version: int
    seq: int
    state: State
    temporal: Temporal
    vectors: VectorsDump
    text: TextDump
    graph: GraphDump
    # ANN indexes over sealed vector segments: a cache riding along (not in any digest; older
    # snapshots have none and older readers ignore it).
    ann: AnnDump | None = None


class Projections:
    """Every view of the log, folded to ``seq``."""

    def __init__(self) -> None:
        self.state = State()
        self.temporal = Temporal()
        self.vectors = Vectors()
        self.text = Text()
        self.graph = Graph()

    @property
    def seq(self) -> int:
        """The seq of the last envelope folded in (0: none)."""
        return self.state.seq

    def apply(self, env: Envelope) -> None:
        """Fold one envelope into every view."""
        self.apply_all((env,))

    def apply_all(self, envelopes: Iterable[Envelope]) -> Projections:
        """Fold envelopes in order. The vector, text and graph views take chunks (one slice, one
        index append per namespace), which folds them exactly as one at a time would."""
        it = iter(envelopes)
        return self.apply_chunks(iter(lambda: list(islice(it, _CHUNK)), []))

    def apply_chunks(self, chunks: Iterable[list[Envelope]]) -> Projections:
        """Fold lists of consecutive envelopes in order (:meth:`EventLog.envelope_chunks`): the
        same as :meth:`apply_all` over their concatenation."""
        state, temporal = self.state, self.temporal
        apply_state, apply_temporal = state_view.apply, temporal_view.apply  # the hot loop
        # The folds trust the log: an event the write path appended always fits the state
        # before it. One that does not (a memory never ingested, a row that is not there) is a
        # damaged record that still decodes, reported as such (the hash chain says more).
        for chunk in chunks:
            env = None
            try:
                for env in chunk:
                    apply_state(state, env)
                    apply_temporal(temporal, env)
            except _MISFIT as exc:
                raise _misfit(exc, env.seq if env else 0) from exc
            try:
                vector_view.apply_many(self.vectors, chunk)
                text_view.apply_many(self.text, chunk)
                graph_view.apply_many(self.graph, chunk)
            except _MISFIT as exc:
                raise _misfit(exc, chunk[0].seq, chunk[-1].seq) from exc
        return self

    def dump(self) -> tuple[Snapshot, bytes]:
        """The canonical serializable form: a Snapshot struct, and the raw vector rows."""
        snap, parts = self._dump_parts()
        return snap, b"".join(parts)

    def _dump_parts(self) -> tuple[Snapshot, list[memoryview]]:
        vectors, parts = self.vectors.dump_parts()
        snap = Snapshot(
            version=PROJECTION_VERSION,
            seq=self.seq,
            state=self.state,
            temporal=self.temporal,
            vectors=vectors,
            text=self.text.dump(),
            graph=self.graph.dump(),
            ann=self.vectors.ann_dump(),
        )
        return snap, parts

    def to_bytes(self) -> bytes:
        """The snapshot: magic and version, a checksum of the body, then the body (payload
        length, the msgpack payload, the raw vector rows)."""
        with paused_gc():
            snap, rows = self._dump_parts()
            payload = codec.encode_value(snap)
        # Pad so the rows start 16-byte aligned in the snapshot: loaded zero-copy, they must be
        # aligned float32 for numpy to hand them to BLAS (an unaligned array takes another code
        # path whose sums differ in the last bits, and novelty would differ after a reopen).
        pad = -(_BODY_AT + 8 + len(payload)) % 16
        body: list[bytes | memoryview] = [len(payload).to_bytes(8, "big"), payload, bytes(pad),
                                          *rows]
        checksum = hashlib.sha256()
        for part in body:  # hashed and joined part by part: the rows are copied once, here
            checksum.update(part)
        return b"".join([_header(), checksum.digest()[:_CHECKSUM_SIZE], *body])

    @classmethod
    def from_bytes(cls, data: bytes | memoryview) -> Projections | None:
        """Restore from a snapshot; None when it is of another version or damaged (the caller
        rebuilds from the log instead: a snapshot is only a cache)."""
        data = memoryview(data)
        header, checksum = bytes(data[:_HEADER_SIZE]), bytes(data[_HEADER_SIZE:_BODY_AT])
        body = data[_BODY_AT:]
        # Without the checksum a flipped bit in a count, an id or a vector would decode fine
        # and silently become the live state.
        if header != _header() or len(body) < 8 or _checksum(body) != checksum:
            return None
        try:
            with paused_gc():
                return cls._restore(body)
        except (msgspec.DecodeError, UnicodeDecodeError, ValueError, KeyError):
            return None

    @staticmethod
    def ann_of(data: bytes | memoryview) -> AnnDump | None:
        """The ANN indexes of a snapshot of *any* projection version (None when it has none or
        is damaged). A rebuild that could not use an older snapshot keeps its indexes: they
        are checked against the rows they were built on before they serve (see
        :meth:`Vectors.attach_ann`), so a new folding rule need not cost rebuilding them
        (twenty minutes at 1M memories)."""
        data = memoryview(data)
        body = data[_BODY_AT:]
        if bytes(data[: len(_MAGIC)]) != _MAGIC or len(body) < 8 \
                or _checksum(body) != bytes(data[_HEADER_SIZE:_BODY_AT]):
            return None
        size = int.from_bytes(body[:8], "big")
        try:
            return _ann_decoder.decode(body[8 : 8 + size]).ann
        except (msgspec.DecodeError, UnicodeDecodeError, ValueError):
            return None

    @classmethod
    def _restore(cls, body: memoryview) -> Projections:
        """The projections in a checked snapshot body (raises when it does not decode)."""
        size = int.from_bytes(body[:8], "big")
        snap = _snapshot_decoder.decode(body[8 : 8 + size])
        restored = cls()
        restored.state = snap.state
        # The encoding sorts dict keys; restore creation order, which folds that iterate
        # memories rely on to make the same decisions live and after a reopen.
        memories = snap.state.memories
        snap.state.memories = dict(
            sorted(memories.items(), key=lambda item: item[1].created_seq))
        restored.temporal = snap.temporal
        rows_at = 8 + size + (-(_BODY_AT + 8 + size) % 16)
        restored.vectors = Vectors.load(snap.vectors, body[rows_at:])
        if snap.ann is not None:
            restored.vectors.attach_ann(snap.ann)
        restored.text = Text.load(snap.text)
        restored.graph = Graph.load(snap.graph)
        return restored

    def digests(self) -> dict[str, str]:
        """A hash per view of its canonical serialization, to compare live state with a rebuild."""
        with paused_gc():
            snap, _ = self._dump_parts()
        digests = {
            name: _digest(codec.encode_value(getattr(snap, name)))
            for name in ("state", "temporal", "text", "graph")
        }
        digests["vectors"] = _digest(self.vectors.digest_bytes())
        return dict(sorted(digests.items()))


_CHUNK = 1024
# What a fold raises on an event that does not fit the state before it (see apply_chunks).
_MISFIT = (KeyError, IndexError, ValueError, TypeError, AttributeError)


def _misfit(exc: Exception, first: int, last: int | None = None) -> CorruptRecordError:
    where = "the event" if last is None else f"an event in seqs {first}..{last}"
    return CorruptRecordError(
        f"{where} does not fit the state folded before it ({type(exc).__name__}: {exc}); the "
        "log is damaged: run verify, and restore the store from a copy", seq=first)
_MAGIC = b"EMSNAP"
_HEADER_SIZE = len(_MAGIC) + 4
_CHECKSUM_SIZE = 16
_BODY_AT = _HEADER_SIZE + _CHECKSUM_SIZE


def _header() -> bytes:
    return _MAGIC + PROJECTION_VERSION.to_bytes(4, "big")


def _checksum(body: bytes | memoryview) -> bytes:
    # sha256 is hardware-accelerated on current x86 and ARM, about twice blake2b's speed here.
    return hashlib.sha256(body).digest()[:_CHECKSUM_SIZE]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a bulk fold, dump or load without the cyclic garbage collector. They make millions
    of objects and no cycles, and each collection would walk every object made so far (and every
    other live one, such as an engine's projections) for nothing: a third of a rebuild's time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


_snapshot_decoder = msgspec.msgpack.Decoder(Snapshot)


class _AnnOnly(msgspec.Struct):
    """The one field of a snapshot of any version that :meth:`Projections.ann_of` reads (the
    decoder skips the others)."""

    ann: AnnDump | None = None


_ann_decoder = msgspec.msgpack.Decoder(_AnnOnly)
