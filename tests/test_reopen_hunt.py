"""A store opened again under changed circumstances: another embedder (or one that misbehaves),
another Config. Each test failed before its fix."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import eventmem
from eventmem.embedders import HashingEmbedder
from eventmem.errors import EmbedderError, EmbedderMismatchError


class Faulty:
    """The default embedder's id and vectors, spoiled as ``mode`` says."""

    def __init__(self, mode: str, *, dim: int = 256) -> None:
        self.mode, self.dim, self.embedder_id = mode, dim, "hash-v1-d256"
        self._inner = HashingEmbedder(256)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = self._inner.embed(texts)
        match self.mode:
            case "nan":
                rows[:, 0] = np.nan
            case "short":
                return rows[:, :128].copy()
            case "float64":
                return rows.astype(np.float64)
            case "int":
                return (rows * 100).astype(np.int32)
            case "unnormalized":
                return rows * 3
            case "missing_row":
                return rows[:-1]
        return rows


def _store(path: Path, clock: eventmem.ManualClock) -> eventmem.Head:
    with eventmem.open(path, clock=clock) as mem:
        mem.remember("hello there world", namespace="a")
        return mem.head()


@pytest.mark.parametrize("mode", ["nan", "short", "int", "unnormalized", "missing_row"])
def test_an_embedder_returning_unusable_vectors_writes_nothing(
        store_path: Path, clock: eventmem.ManualClock, mode: str) -> None:
    """Before: NaN, int and unnormalized rows were stored (and decided on: a 3x row merged what
    it should have created), and a short row was appended before the fold failed, so the store
    could not be opened again (ValueError: cannot reshape)."""
    head = _store(store_path, clock)
    with eventmem.open(store_path, clock=clock, embedder=Faulty(mode)) as mem:
        with pytest.raises(EmbedderError, match="nothing was written"):
            mem.remember_many(["Alice went to Paris yesterday", "Bob likes tea"], namespace="a")
        assert mem.head() == head
        with pytest.raises(EmbedderError):
            mem.recall("where is Paris", namespace="a")  # nor a NaN score recorded
        assert mem.head() == head
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.head() == head
        assert mem.verify().ok and mem.audit().ok


def test_float64_rows_are_kept_as_the_float32_the_store_holds(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    """Before: a float64 row was stored as 2x the bytes and the store no longer opened."""
    _store(store_path, clock)
    with eventmem.open(store_path, clock=clock, embedder=Faulty("float64")) as mem:
        assert mem.remember("Alice went to Paris yesterday", namespace="a").action == "created"
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.verify().ok and mem.audit().ok
        assert mem.recall("Paris", namespace="a")[0].text == "Alice went to Paris yesterday"


def test_an_embedder_under_the_stores_id_but_of_another_dim_is_refused(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    head = _store(store_path, clock)
    with pytest.raises(EmbedderMismatchError, match="256-dimensional"):
        eventmem.open(store_path, clock=clock, embedder=Faulty("ok", dim=128))
    with eventmem.open(store_path, clock=clock, readonly=True) as mem:
        assert mem.head() == head


def test_the_engine_hands_back_the_embedder_it_was_given(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    given = HashingEmbedder(256)
    with eventmem.open(store_path, clock=clock, embedder=given) as mem:
        assert mem.embedder is given
