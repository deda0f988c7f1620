"""The vector projection: per namespace, a float32 matrix of unit rows with exact cosine search.

One matrix per namespace makes isolation structural: a search in one namespace never touches
another's rows. Rows grow by doubling the capacity, so an append costs the same at 1M as at 1k.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import msgspec
import numpy as np

from eventmem.envelope import Envelope
from eventmem.events import (
    EmbedderRegistered,
    LifecycleTransitioned,
    MemoryErased,
    MemoryIngested,
    purged_ids,
)
from projections.topk import top_allowed


class Space:
    """The rows of one namespace."""

    __slots__ = ("count", "ids", "matrix")

    def __init__(self, dim: int, ids: list[str] | None = None, matrix: np.ndarray | None = None):
        self.ids: list[str] = ids or []
        self.count = len(self.ids)
        self.matrix = matrix if matrix is not None else np.zeros((16, dim), dtype=np.float32)

    def remove(self, memory_ids: set[str]) -> None:
        """Drop these rows, keeping the others in order: the same as never having added them."""
        keep = [row for row, mid in enumerate(self.ids) if mid not in memory_ids]
        if len(keep) == self.count:
            return
        self.matrix = self.matrix[keep].copy()  # full to capacity; the next add grows it
        self.ids = [self.ids[row] for row in keep]
        self.count = len(keep)

    def add(self, memory_ids: list[str], rows: np.ndarray) -> None:
        """Append rows (one per id) in order."""
        end = self.count + len(memory_ids)
        if end > len(self.matrix):
            capacity = max(16, len(self.matrix) * 2, end)
            grown = np.zeros((capacity, self.matrix.shape[1]), dtype=np.float32)
            grown[: self.count] = self.matrix[: self.count]
            self.matrix = grown
        self.matrix[self.count : end] = rows
        self.ids.extend(memory_ids)
        self.count = end


class Vectors:
    def __init__(self, dim: int | None = None) -> None:
        self.dim = dim
        self.spaces: dict[str, Space] = {}

    def search(
        self,
        namespace: str,
        query: np.ndarray,
        n: int,
        allowed: Callable[[str], bool] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``n`` nearest allowed memories by cosine (rows and query are unit vectors)."""
        space = self.spaces.get(namespace)
        if space is None or space.count == 0:
            return []
        sims = space.matrix[: space.count] @ query.astype(np.float32, copy=False)
        return top_allowed(sims, space.ids, n, allowed)

    def dump(self) -> tuple[VectorsDump, bytes]:
        """The rows' ids per namespace, and every namespace's rows as raw float32 bytes in sorted
        namespace order (kept out of msgpack so a snapshot loads them with one copy)."""
        names = sorted(self.spaces)
        ids = {ns: tuple(self.spaces[ns].ids) for ns in names}
        rows = b"".join(self.spaces[ns].matrix[: self.spaces[ns].count].tobytes() for ns in names)
        return VectorsDump(dim=self.dim, spaces=ids), rows

    def digest_bytes(self) -> bytes:
        """Everything this view holds, ids and rows, in a canonical order (for verify)."""
        dump, rows = self.dump()
        return _dump_encoder.encode(dump) + rows

    @classmethod
    def load(cls, dump: VectorsDump, rows: memoryview | bytes) -> Vectors:
        vectors = cls(dump.dim)
        dim = dump.dim or 0
        flat = np.frombuffer(rows, dtype=np.float32)
        if not flat.flags.aligned:  # see Projections.to_bytes: BLAS needs aligned rows
            flat = flat.copy()
        start = 0
        for ns in sorted(dump.spaces):
            ids = dump.spaces[ns]
            end = start + len(ids) * dim
            # A read-only view of the snapshot, full to capacity: the first add copies it into a
            # growable matrix, so opening a store never pays for copying vectors it only reads.
            matrix = flat[start:end].reshape(len(ids), dim)
            start = end
            vectors.spaces[ns] = Space(dim, list(ids), matrix)
        if start != len(flat):
            raise ValueError("vector rows do not match the ids")
        return vectors


class VectorsDump(msgspec.Struct, kw_only=True):
    dim: int | None
    spaces: dict[str, tuple[str, ...]]


_dump_encoder = msgspec.msgpack.Encoder(order="deterministic")


def apply(state: Vectors, env: Envelope) -> Vectors:
    return apply_many(state, (env,))


def apply_many(state: Vectors, envs: Iterable[Envelope]) -> Vectors:
    """Fold envelopes in order; rows of consecutive ingests are added in one slice per
    namespace, which is the same as adding them one at a time, only faster."""
    pending: dict[str, tuple[list[str], list[bytes]]] = {}
    for env in envs:
        event = env.event
        match event:
            case EmbedderRegistered(dim=dim):
                _flush(state, pending)
                state.dim = dim
            case MemoryIngested(namespace=ns) if env.vector is not None and state.dim is not None:
                ids, rows = pending.setdefault(ns, ([], []))
                ids.append(event.memory_id)
                rows.append(env.vector)
            case LifecycleTransitioned(namespace=ns) | MemoryErased(namespace=ns) if (
                    purged := purged_ids(event)):
                _flush(state, pending)
                if ns in state.spaces:
                    state.spaces[ns].remove(set(purged))
                    if not state.spaces[ns].count:  # as if it had never been added
                        del state.spaces[ns]
            case _:
                pass
    _flush(state, pending)
    return state


def _flush(state: Vectors, pending: dict[str, tuple[list[str], list[bytes]]]) -> None:
    dim = state.dim or 0
    for ns, (ids, rows) in pending.items():
        space = state.spaces.get(ns)
        if space is None:
            space = state.spaces[ns] = Space(dim)
        space.add(ids, np.frombuffer(b"".join(rows), dtype=np.float32).reshape(len(ids), dim))
    pending.clear()
