"""Pure folds of the event log into the views the engine queries.

:class:`Projections` bundles them: ``apply`` folds one envelope into every view, ``dump`` gives a
canonical serializable form (the snapshot, and the digest that ``verify`` compares), ``load``
restores it. Every view can be deleted and rebuilt from the log and comes out byte-identical.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgspec

from eventmem import codec
from eventmem.envelope import Envelope
from projections import state as state_view
from projections import temporal as temporal_view
from projections import text as text_view
from projections import vectors as vector_view
from projections.state import State
from projections.temporal import Temporal
from projections.text import Text, TextDump
from projections.vectors import Vectors, VectorsDump

# Bump when a projection's folding rules or dump layout change: older snapshots are then ignored
# and the projections rebuilt from the log.
PROJECTION_VERSION = 1

__all__ = ["PROJECTION_VERSION", "Projections", "Snapshot"]


class Snapshot(msgspec.Struct, kw_only=True):
    version: int
    seq: int
    state: State
    temporal: Temporal
    vectors: VectorsDump
    text: TextDump


class Projections:
    """Every view of the log, folded to ``seq``."""

    def __init__(self) -> None:
        self.state = State()
        self.temporal = Temporal()
        self.vectors = Vectors()
        self.text = Text()

    @property
    def seq(self) -> int:
        return self.state.seq

    def apply(self, env: Envelope) -> None:
        state_view.apply(self.state, env)
        temporal_view.apply(self.temporal, env)
        vector_view.apply(self.vectors, env)
        text_view.apply(self.text, env)

    def apply_all(self, envelopes: Iterable[Envelope]) -> Projections:
        for env in envelopes:
            self.apply(env)
        return self

    def dump(self) -> Snapshot:
        return Snapshot(
            version=PROJECTION_VERSION,
            seq=self.seq,
            state=self.state,
            temporal=self.temporal,
            vectors=self.vectors.dump(),
            text=self.text.dump(),
        )

    def to_bytes(self) -> bytes:
        """The snapshot: a checksum of the payload, then the payload (the dump, msgpack)."""
        payload = codec.encode_value(self.dump())
        return _checksum(payload) + payload

    @classmethod
    def from_bytes(cls, data: bytes) -> Projections | None:
        """Restore from a snapshot; None when it is of another version or unreadable (the
        caller rebuilds from the log instead: a snapshot is only a cache)."""
        # Without the checksum a flipped bit in a count, an id or a vector would decode fine
        # and silently become the live state.
        checksum, payload = data[:_CHECKSUM_SIZE], data[_CHECKSUM_SIZE:]
        if len(checksum) != _CHECKSUM_SIZE or _checksum(payload) != checksum:
            return None
        try:
            if _version_decoder.decode(payload).version != PROJECTION_VERSION:
                return None
            snap = _snapshot_decoder.decode(payload)
            restored = cls()
            restored.state = snap.state
            restored.temporal = snap.temporal
            restored.vectors = Vectors.load(snap.vectors)
            restored.text = Text.load(snap.text)
        except (msgspec.DecodeError, UnicodeDecodeError, ValueError):
            return None
        return restored

    def digests(self) -> dict[str, str]:
        """A hash per view of its canonical serialization, to compare live state with a rebuild."""
        snap = self.dump()
        return {
            name: hashlib.blake2b(codec.encode_value(getattr(snap, name)), digest_size=16)
            .hexdigest()
            for name in ("state", "temporal", "vectors", "text")
        }


_CHECKSUM_SIZE = 16


def _checksum(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=_CHECKSUM_SIZE, person=b"em-snapshot").digest()


class _Version(msgspec.Struct):
    version: int


_version_decoder = msgspec.msgpack.Decoder(_Version)
_snapshot_decoder = msgspec.msgpack.Decoder(Snapshot)
