"""Text analysis and the hashing embedder: pure functions of the text, identical across processes
and hash seeds, independent of batching and cache state, and sensible on overlap."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.errors import EmbedderMismatchError, InvalidInputError
from eventmem.text import normalize as tx
from eventmem.text.embedders import EMBEDDERS, Embedder, HashingEmbedder, default_embedder
from tests import ROOT

SETTINGS = settings(max_examples=60, deadline=None)

_unicode = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80)
_ascii_words = st.text(alphabet="abcsXYZS019_ '-.,!?\t\n", max_size=60)
_WORDS = (
    "Alice Bob moved to Berlin in March she's painting the sunrise again café naïve "
    "'s 2023 !! hiking hikes hiked über ÉCOLE 東京 emoji🙂"
)
_chatty = st.lists(st.sampled_from(_WORDS.split()), max_size=25).map(" ".join)
_texts = st.one_of(_chatty, _unicode)

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
from tests.text.test_text_and_embedders import _fingerprint_here
print(json.dumps(_fingerprint_here()))
"""


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


def test_dedup_key_ignores_case_spacing_and_compatibility_forms() -> None:
    key = tx.dedup_key("Alice moved to Berlin")
    assert tx.dedup_key("  alice   MOVED to\tberlin \n") == key
    assert tx.dedup_key("Ａｌｉｃｅ moved to Berlin") == key  # fullwidth (NFKC)
    assert tx.dedup_key("Alice moved to Paris") != key
    assert tx.dedup_key("Alice moved to Berlin.") != key
    assert len(key) == 32 and int(key, 16) >= 0


def test_content_hash_is_of_the_exact_bytes() -> None:
    assert tx.content_hash("a") == hashlib.blake2b(b"a", digest_size=16).hexdigest()
    assert tx.content_hash("a ") != tx.content_hash("a")


@SETTINGS
@given(_unicode)
def test_normalize_is_idempotent_and_collapses_space(text: str) -> None:
    once = tx.normalize(text)
    assert tx.normalize(once) == once
    assert once == once.strip() and "  " not in once
    assert not any(ch.isspace() and ch != " " for ch in once)


@SETTINGS
@given(_unicode)
def test_tokenize_handles_any_unicode(text: str) -> None:
    tokens = tx.tokenize(text)
    assert all(tok and tok == tok.casefold() for tok in tokens)
    ids, counts = tx.term_counts(text)
    assert ids.dtype == np.uint32 and counts.dtype == np.int32
    assert np.all(np.diff(ids.astype(np.int64)) > 0)  # sorted, unique
    assert int(counts.sum()) == len(tokens)
    assert {tx.term_id(tok) for tok in tokens} == set(ids.tolist())
    assert {zlib.crc32(tx.stem(tok).encode()) for tok in tokens} == set(ids.tolist())


@SETTINGS
@given(_ascii_words)
def test_ascii_fast_path_matches_regex_path(text: str) -> None:
    assert tx._tokenize_ascii(text) == tx._tokenize_unicode(text)


def test_tokenize_examples() -> None:
    assert tx.tokenize("Alice's cat isn't O’Brien’s!") == ["alice", "cat", "isn", "t", "o", "brien"]
    assert tx.tokenize("ＡＢＣ ﬁne Straße") == ["abc", "fine", "strasse"]
    assert tx.tokenize("") == [] and tx.tokenize(" .,! ") == []


def test_term_ids_are_crc32_of_stems_and_counts_add_up() -> None:
    assert tx.term_id("alice") == zlib.crc32(b"alic")
    assert tx.term_id("moved") == tx.term_id("moves") == tx.term_id("move")
    assert tx.term_id("東京") == zlib.crc32("東京".encode())
    ids, counts = tx.term_counts("the cat and the hat, THE end")
    got = dict(zip(ids.tolist(), counts.tolist(), strict=True))
    assert got[tx.term_id("the")] == 3 and got[tx.term_id("cat")] == 1
    assert tx.term_counts("")[0].shape == (0,)


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        ("move moves moved moving", "mov"),
        ("study studies studied", "study"),
        ("paint paints painted painting", "paint"),
        ("stop stops stopped stopping", "stop"),
    ],
)
def test_stem_merges_inflections(words: str, stem: str) -> None:
    assert {tx.stem(w) for w in words.split()} == {stem}


def test_stem_leaves_short_and_odd_tokens() -> None:
    for tok in ("is", "bus", "class", "this", "2023", "naïve", "thing"):
        assert tx.stem(tok) == tok


@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80))
def test_packed_terms_are_term_counts_and_token_count(text: str) -> None:
    from eventmem.text.normalize import packed_parts, packed_terms

    ids, counts = tx.term_counts(text)
    length, packed_ids, packed_counts = packed_parts(packed_terms(text))
    assert length == len(tx.tokenize(text)) == int(counts.sum())
    assert np.frombuffer(packed_ids, dtype=np.uint32).tolist() == ids.tolist()
    assert np.frombuffer(packed_counts, dtype=np.uint32).tolist() == counts.tolist()
