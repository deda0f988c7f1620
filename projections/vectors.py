"""The vector projection: per namespace, a float32 matrix of unit rows with exact cosine search.

One matrix per namespace makes isolation structural: a search in one namespace never touches
another's rows. Rows grow by doubling the capacity, so an append costs the same at 1M as at 1k.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import numpy as np

from eventmem.envelope import Envelope
from eventmem.events import EmbedderRegistered, MemoryIngested
from projections.topk import top_allowed


class Space:
    """The rows of one namespace."""

    __slots__ = ("count", "ids", "matrix")

    def __init__(self, dim: int, ids: list[str] | None = None, matrix: np.ndarray | None = None):
        self.ids: list[str] = ids or []
        self.count = len(self.ids)
        self.matrix = matrix if matrix is not None else np.zeros((16, dim), dtype=np.float32)

    def add(self, memory_id: str, vector: np.ndarray) -> None:
        if self.count == len(self.matrix):
            grown = np.zeros((len(self.matrix) * 2, self.matrix.shape[1]), dtype=np.float32)
            grown[: self.count] = self.matrix[: self.count]
            self.matrix = grown
        self.matrix[self.count] = vector
        self.ids.append(memory_id)
        self.count += 1


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

    def dump(self) -> VectorsDump:
        return VectorsDump(
            dim=self.dim,
            spaces={
                ns: (tuple(s.ids), s.matrix[: s.count].tobytes()) for ns, s in self.spaces.items()
            },
        )

    @classmethod
    def load(cls, dump: VectorsDump) -> Vectors:
        vectors = cls(dump.dim)
        for ns, (ids, raw) in dump.spaces.items():
            rows = np.frombuffer(raw, dtype=np.float32).reshape(len(ids), dump.dim or 0)
            capacity = max(16, 1 << max(len(ids) - 1, 0).bit_length())
            matrix = np.zeros((capacity, dump.dim or 0), dtype=np.float32)
            matrix[: len(ids)] = rows
            vectors.spaces[ns] = Space(dump.dim or 0, list(ids), matrix)
        return vectors


class VectorsDump(msgspec.Struct, kw_only=True):
    dim: int | None
    spaces: dict[str, tuple[tuple[str, ...], bytes]]


def apply(state: Vectors, env: Envelope) -> Vectors:
    event = env.event
    match event:
        case EmbedderRegistered(dim=dim):
            state.dim = dim
        case MemoryIngested(namespace=ns) if env.vector is not None and state.dim is not None:
            space = state.spaces.get(ns)
            if space is None:
                space = state.spaces[ns] = Space(state.dim)
            space.add(event.memory_id, env.vector)
        case _:
            pass
    return state
