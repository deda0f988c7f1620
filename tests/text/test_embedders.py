"""The embedders (eventmem/text/embedders.py): the hashing embedder is a pure function of the text,
identical across processes and hash seeds, independent of batching and cache state, and sensible
on overlap; an embedder that returns unusable vectors, or one of another dimension under the
store's id, writes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.errors import EmbedderError, EmbedderMismatchError, InvalidInputError
from eventmem.text import normalize as tx
from eventmem.text.embedders import EMBEDDERS, Embedder, HashingEmbedder, default_embedder
from tests import ROOT
from tests.strategies import unicode_texts

SETTINGS = settings(max_examples=60, deadline=None)


_WORDS = (
    "Alice Bob moved to Berlin in March she's painting the sunrise again café naïve "
    "'s 2023 !! hiking hikes hiked über ÉCOLE 東京 emoji🙂"
)

_chatty = st.lists(st.sampled_from(_WORDS.split()), max_size=25).map(" ".join)

_texts = st.one_of(_chatty, unicode_texts(80))

SAMPLE = [
    "Alice moved to Berlin in March",
    "alice moved to berlin in march",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful!",
    "Ｆｕｌｌｗｉｄｔｈ ﬁne café — naïve 東京 🙂",
    "",
    "!!! ...",
    "the the the the the",
]


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def _fingerprint_here() -> dict[str, object]:
    emb = HashingEmbedder(256).embed(SAMPLE)
    counts = [[_digest(ids), _digest(c)] for ids, c in map(tx.term_counts, SAMPLE)]
    keys = [tx.dedup_key(t) for t in SAMPLE]
    return {"embed": _digest(emb), "counts": counts, "keys": keys}


_CHILD = """
import json, sys
from tests.text.test_embedders import _fingerprint_here
print(json.dumps(_fingerprint_here()))
"""


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["0", "4242"])
def test_identical_across_processes_and_hash_seeds(seed: str) -> None:
    pkg_root = str(Path(eventmem.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONHASHSEED": seed,
           "PYTHONPATH": os.pathsep.join(dict.fromkeys([str(ROOT), pkg_root]))}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == _fingerprint_here()


def test_v1_vectors_are_pinned() -> None:
    # Stores keep vectors by embedder_id. If this digest changes, the embedder's output changed:
    # bump HashingEmbedder.version (and so embedder_id) instead of updating the digest.
    emb = HashingEmbedder(256).embed(SAMPLE)
    assert _digest(emb) == GOLDEN_V1_D256


GOLDEN_V1_D256 = "119fa38542a1a0283da3442dcb475522a667c2eb0bafd77767414baf4dc7c184"


def test_shape_dtype_and_norms() -> None:
    emb = HashingEmbedder(128).embed(SAMPLE)
    assert emb.shape == (len(SAMPLE), 128)
    assert emb.dtype == np.float32 and emb.flags.c_contiguous
    norms = np.linalg.norm(emb, axis=1)
    assert np.allclose(norms[[0, 1, 2, 3, 6]], 1.0, atol=1e-6)
    assert norms[4] == 0.0 and norms[5] == 0.0  # no features: zero row, not NaN
    assert HashingEmbedder(64).embed([]).shape == (0, 64)


@SETTINGS
@given(st.lists(_texts, min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_rows_do_not_depend_on_batch_order_or_cache(texts: list[str], rnd) -> None:
    ref = HashingEmbedder(256).embed(texts)
    norms = np.linalg.norm(ref, axis=1)
    assert np.all((np.abs(norms - 1.0) < 1e-5) | (norms == 0.0))
    # A warm cache, a cache cleared after every batch, one text at a time, shuffled batches.
    warm = HashingEmbedder(256)
    warm.embed(["Berlin café hiking painting " * 3, *texts[::-1]])
    tiny = HashingEmbedder(256, max_cached_tokens=1)
    order = list(range(len(texts)))
    rnd.shuffle(order)
    shuffled = warm.embed([texts[i] for i in order])
    for i, t in enumerate(texts):
        row = ref[i].tobytes()
        assert warm.embed([t])[0].tobytes() == row
        assert tiny.embed([t, "unrelated filler"])[0].tobytes() == row
        assert shuffled[order.index(i)].tobytes() == row


def test_chunked_batches_match_single_rows() -> None:
    texts = [f"turn {i}: Alice talked about item {i % 37} and Berlin" for i in range(2500)]
    emb = HashingEmbedder(256).embed(texts)
    fresh = HashingEmbedder(256)
    for i in (0, 1023, 1024, 2049, 2499):
        assert fresh.embed([texts[i]])[0].tobytes() == emb[i].tobytes()


def test_overlap_scores_above_unrelated() -> None:
    a, b, c, d = HashingEmbedder().embed(
        [
            "Alice moved to Berlin",
            "alice moved to berlin in march",
            "The quarterly budget spreadsheet needs review",
            "Alice is moving to Berlin",
        ]
    )
    assert a @ b > 0.7
    assert a @ b > a @ c + 0.4
    assert a @ d > a @ c  # inflection: "moving" shares the stem of "moved"


@pytest.mark.slow  # with the neural extra installed, builds its model too
def test_embedder_protocol_and_registry() -> None:
    emb = default_embedder()
    assert isinstance(emb, Embedder)
    assert emb.embedder_id == "hash-v1-d256" and emb.dim == 256
    assert emb.embedder_id in EMBEDDERS
    for key, factory in EMBEDDERS.items():
        try:
            made = factory()
        except EmbedderMismatchError:  # an optional extra (neural) that is not installed
            continue
        assert made.embedder_id == key
        assert made.embed(["x"]).shape == (1, made.dim)


def test_embed_rejects_bad_input() -> None:
    emb = HashingEmbedder()
    with pytest.raises(InvalidInputError):
        emb.embed("one text, not a list")
    with pytest.raises(InvalidInputError):
        emb.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        HashingEmbedder(4)


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


def test_the_hashing_embedder_pickles_as_its_parameters() -> None:
    """A write's worker processes get the embedder by pickle: the copy gives the same bytes,
    and its token cache and lock are its own."""
    original = HashingEmbedder(64, max_cached_tokens=500)
    texts = ["Alice moved to Berlin in March", "the standup is at nine", "Bob likes tea"]
    warm = original.embed(texts)
    copy = pickle.loads(pickle.dumps(original))
    assert copy.dim == 64 and copy._table.max_tokens == 500 and copy._lock is not original._lock
    assert len(copy._table.rows) == 0 < len(original._table.rows)
    assert copy.embed(texts).tobytes() == warm.tobytes()
