"""Embedders: the protocol the engine needs, and a deterministic default that needs no model.

A store records its embedder's ``embedder_id`` and re-creates it through ``EMBEDDERS``; vectors
made by different embedders are never mixed. Any class with ``embedder_id``, ``dim`` and ``embed``
works (``eventmem.text.neural.MiniLMEmbedder``, the optional sentence-transformers one, say);
``HashingEmbedder`` is the default because it is a pure function of the text, identical on every
machine and process, and fast.
"""

from __future__ import annotations

import math
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from eventmem.errors import EmbedderError, InvalidInputError
from eventmem.text.neural import MINILM_ID, MiniLMEmbedder
from eventmem.text.normalize import STOPWORDS, stem, tokenize

__all__ = ["EMBEDDERS", "CheckedEmbedder", "Embedder", "HashingEmbedder", "default_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """What the engine needs from an embedder."""

    @property
    def embedder_id(self) -> str:
        """Stable id naming the model, its version and parameters, e.g. ``"hash-v1-d256"``."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an ``(len(texts), dim)`` C-contiguous float32 array of L2-normalized rows
        (an all-zero row for a text without features)."""
        ...


_CHUNK = 1024
_SEED = zlib.crc32(b"eventmem/hash-v1")
# Weights of the v1 features. Changing any of them changes every vector: bump the version in
# embedder_id so stores written with the old weights refuse the new embedder.
_STOP_WEIGHT = 0.3  # stopwords still count a little: "to" vs "from" can matter
_BIGRAM_WEIGHT = 0.5  # bigrams of adjacent content words (stopwords skipped)
_GRAM_WEIGHT = 0.4  # L2 weight of a word's char 4-grams, relative to the word itself
_GRAM_N = 4
# Contributions are integers (weights x 2**_QBITS times tf x 2**_TFBITS), held in float64 so
# np.bincount sums them exactly: the sum does not depend on the order of the terms, so a text's
# vector does not depend on its batch or on the order the token cache filled in.
_QBITS = 10
_TFBITS = 6
_MAX_TF = 1 << 12
_TF_Q = np.rint((1.0 + np.log(np.arange(1, _MAX_TF + 1))) * (1 << _TFBITS))
_TF_Q = np.concatenate(([0.0], _TF_Q))  # index by count; counts above _MAX_TF are clipped


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer over uint64 (wrapping arithmetic; numpy arrays do not warn)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _features(h: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Map each 64-bit feature hash to two distinct dimensions with random signs.

    Returns ``(dims, signs)`` of shape (2 * len(h),): two signed hits per feature spread
    collisions, the usual "sparse random projection" form of the hashing trick.
    """
    d = np.uint64(dim)
    i1 = h % d
    i2 = (i1 + np.uint64(1) + (h >> np.uint64(16)) % (d - np.uint64(1))) % d
    s1 = ((h >> np.uint64(62)) & np.uint64(1)).astype(np.float64) * -2.0 + 1.0
    s2 = ((h >> np.uint64(63)) & np.uint64(1)).astype(np.float64) * -2.0 + 1.0
    return np.concatenate((i1, i2)).astype(np.int64), np.concatenate((s1, s2))


def _hash64(data: str, kind: int) -> int:
    """Raw 64-bit feature key: CRC-32 of the UTF-8 text, tagged by kind and seed (mixed later)."""
    return (zlib.crc32(data.encode("utf-8"), _SEED) << 32) | (kind << 24) | (len(data) & 0xFFFFFF)


def _grow(buf: np.ndarray, used: int, extra: np.ndarray) -> np.ndarray:
    """Append ``extra`` after ``buf[:used]``, doubling capacity when full (amortized O(1))."""
    need = used + len(extra)
    if need > len(buf):
        bigger = np.empty(max(need, 2 * len(buf), 64), dtype=buf.dtype)
        bigger[:used] = buf[:used]
        buf = bigger
    buf[used:need] = extra
    return buf


class _TokenTable:
    """Per-token contribution (unigram + its char grams), as quantized sparse rows (CSR).

    A pure cache: rows are computed from the token alone, so what it holds never changes output.
    """

    def __init__(self, dim: int, max_tokens: int) -> None:
        self.dim, self.max_tokens = dim, max_tokens
        self.clear()

    def clear(self) -> None:
        self.rows: dict[str, int] = {}
        self.n_entries = 0
        self.offsets = np.zeros(1, dtype=np.int64)  # row r spans [offsets[r], offsets[r + 1])
        self.dims = np.zeros(0, dtype=np.int32)
        self.values = np.zeros(0, dtype=np.float32)  # integers < 2**24: exact in float32
        self.keys = np.zeros(0, dtype=np.uint64)  # per token: 64-bit key for bigrams
        self.stop = np.zeros(0, dtype=bool)

    def lookup(self, tokens: list[str]) -> list[int]:
        """Row of each token, adding rows for tokens not seen yet."""
        rows = self.rows
        try:
            return [rows[t] for t in tokens]
        except KeyError:
            self._add([t for t in dict.fromkeys(tokens) if t not in rows])
            return [rows[t] for t in tokens]

    def _add(self, tokens: list[str]) -> None:
        keys, owner, weights = [], [], []
        for n, tok in enumerate(tokens):
            w = _STOP_WEIGHT if tok in STOPWORDS else 1.0
            keys.append(_hash64(stem(tok), 1))  # inflected forms share the word feature
            owner.append(n)
            weights.append(w)
            padded = f" {tok} "
            grams = [padded[i : i + _GRAM_N] for i in range(max(1, len(padded) - _GRAM_N + 1))]
            gw = w * _GRAM_WEIGHT / math.sqrt(len(grams))
            keys.extend(_hash64(g, 2) for g in grams)
            owner.extend([n] * len(grams))
            weights.extend([gw] * len(grams))
        dims, signs = _features(_mix(np.array(keys, dtype=np.uint64)), self.dim)
        own = np.tile(np.array(owner, dtype=np.int64), 2)
        q = np.rint(np.tile(np.array(weights), 2) * (1 << _QBITS)) * signs
        # One entry per (token, dim): sum duplicates so rows stay short.
        flat, inv = np.unique(own * self.dim + dims, return_inverse=True)
        vals = np.bincount(inv, weights=q)
        keep = vals != 0
        flat, vals = flat[keep], vals[keep]
        lens = np.bincount(flat // self.dim, minlength=len(tokens))
        base = len(self.rows)
        ends = self.n_entries + np.cumsum(lens)
        self.offsets = _grow(self.offsets, base + 1, ends)
        self.dims = _grow(self.dims, self.n_entries, (flat % self.dim).astype(np.int32))
        self.values = _grow(self.values, self.n_entries, vals.astype(np.float32))
        self.n_entries = int(ends[-1])
        tk = _mix(np.array([_hash64(stem(t), 3) for t in tokens], dtype=np.uint64))
        self.keys = _grow(self.keys, base, tk)
        self.stop = _grow(self.stop, base, np.array([t in STOPWORDS for t in tokens]))
        for n, tok in enumerate(tokens):
            self.rows[tok] = base + n


class HashingEmbedder:
    """Deterministic feature-hashing embedder: no model, no fitting, same bytes everywhere.

    Features: word unigrams on light stems (stopwords x0.3), bigrams of adjacent content-word
    stems (x0.5), and the char 4-grams of each word padded with spaces (x0.4 per word in L2) for
    typos and compounds.
    Each feature adds ±1 at two hashed dimensions, scaled by sublinear tf (1 + ln tf); rows are
    L2-normalized. Thread-safe.
    """

    version = 1
    # A pure function of the text: verify re-embeds stored texts and compares the bytes.
    deterministic = True

    def __init__(self, dim: int = 256, *, max_cached_tokens: int = 100_000) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool) or not 8 <= dim <= 1 << 16:
            raise InvalidInputError(f"dim must be an int in [8, 65536], got {dim!r}")
        self._dim = dim
        self._table = _TokenTable(dim, max_cached_tokens)
        self._lock = threading.Lock()

    @property
    def embedder_id(self) -> str:
        """``"hash-v1-d<dim>"``."""
        return f"hash-v{self.version}-d{self._dim}"

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self._dim})"

    # Pickled as its parameters (a write's worker processes get their own copy): the token
    # table is a cache and the lock belongs to one process.
    def __getstate__(self) -> dict[str, int]:
        return {"dim": self._dim, "max_cached_tokens": self._table.max_tokens}

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state["dim"], max_cached_tokens=state["max_cached_tokens"])  # type: ignore[misc]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an ``(n, dim)`` float32 array with unit (or zero) rows."""
        if isinstance(texts, str):
            raise InvalidInputError("embed() takes a sequence of texts; wrap one text in a list")
        toks = [tokenize(t) for t in texts]  # raises InvalidInputError on a non-str
        out = np.empty((len(toks), self._dim), dtype=np.float32)
        # Chunks keep the sort and bincount working sets in cache (about 1.5x faster on big
        # batches) and bound temporary memory; rows do not depend on the chunking.
        for lo in range(0, len(toks), _CHUNK):
            out[lo : lo + _CHUNK] = self._embed_tokens(toks[lo : lo + _CHUNK])
        return out

    def _embed_tokens(self, toks: list[list[str]]) -> np.ndarray:
        n, dim = len(toks), self._dim
        with self._lock:
            table = self._table
            rows = np.array(table.lookup([t for ts in toks for t in ts]), dtype=np.int64)
            doc = np.repeat(np.arange(n, dtype=np.int64), [len(ts) for ts in toks])
            acc = _accumulate(table, rows, doc, n, dim)
            if len(table.rows) > table.max_tokens:
                table.clear()  # bounded memory; the next batch rebuilds what it needs
        sq = np.einsum("ij,ij->i", acc, acc)
        # Entries are integers, so this sum is exact (whatever order einsum adds in) below 2**53;
        # above, fsum gives the correctly rounded sum, again independent of order and batch.
        for i in np.flatnonzero(sq >= 2.0**52):
            sq[i] = math.fsum((acc[i] * acc[i]).tolist())
        norms = np.sqrt(sq)[:, None]
        return np.divide(acc, norms, out=acc, where=norms > 0)


def _run_counts(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort by ``keys`` (last is primary) and return (first index of each run, run lengths)."""
    order = np.lexsort(keys)
    same = np.ones(len(order) - 1, dtype=bool)
    for k in keys:
        sk = k[order]
        same &= sk[1:] == sk[:-1]
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    return order[starts], np.diff(np.append(starts, len(order)))


def _accumulate(
    table: _TokenTable, rows: np.ndarray, doc: np.ndarray, n: int, dim: int
) -> np.ndarray:
    """Sum the quantized unigram (+ char gram) and bigram contributions into (n, dim) float64."""
    flat_parts, val_parts = [], []
    if rows.size:
        first, cnt = _run_counts(rows, doc)
        urow, udoc, tfq = rows[first], doc[first], _TF_Q[np.minimum(cnt, _MAX_TF)]
        starts = table.offsets[urow]
        lens = table.offsets[urow + 1] - starts
        rep = np.repeat(np.arange(len(urow)), lens)
        pos = np.arange(int(lens.sum())) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
        flat_parts.append(udoc[rep] * dim + table.dims[pos])
        val_parts.append(table.values[pos].astype(np.float64) * tfq[rep])
        content = ~table.stop[rows]
        crow, cdoc = rows[content], doc[content]
        same = cdoc[1:] == cdoc[:-1]
        if same.any():
            a, b = table.keys[crow[:-1][same]], table.keys[crow[1:][same]]
            bkey = _mix(a * np.uint64(0x9E3779B97F4A7C15) + (b ^ np.uint64(0xA24BAED4963EE407)))
            bdoc = cdoc[1:][same]
            first, cnt = _run_counts(bkey, bdoc)
            dims, signs = _features(bkey[first], dim)
            q = np.rint(_BIGRAM_WEIGHT * (1 << _QBITS)) * _TF_Q[np.minimum(cnt, _MAX_TF)]
            flat_parts.append(np.tile(bdoc[first], 2) * dim + dims)
            val_parts.append(np.tile(q, 2) * signs)
    if not flat_parts:
        return np.zeros((n, dim), dtype=np.float64)
    flat, vals = np.concatenate(flat_parts), np.concatenate(val_parts)
    return np.bincount(flat, weights=vals, minlength=n * dim).reshape(n, dim)


# How far a row's L2 norm may stray from 1: float32 rounding of a normalized row is ~1e-7; a
# row off by more was not normalized, and cosines would no longer be similarities.
_UNIT_TOLERANCE = 1e-3


class CheckedEmbedder:
    """The store's embedder, with every batch checked before it can reach the store or a score.

    A vector is written once and trusted forever (the vector cache, every later decision and the
    audit read it), so a row of the wrong length, a NaN or a row that is not unit length must
    stop the call with :class:`EmbedderError` before anything is appended. A float array of
    another precision is converted to float32, C-contiguous (the same values the store keeps).
    """

    def __init__(self, inner: Embedder, dim: int) -> None:
        self.inner = inner
        self.dim = dim  # the store's (recorded when it was created)
        self.embedder_id = inner.embedder_id
        # Whether the same text always gives the same bytes (verify then re-embeds to check
        # the stored vectors); an embedder that does not say so is not assumed to.
        self.deterministic = getattr(inner, "deterministic", False) is True
        # The retrieval fusion asks whether the vectors see words (the hashing embedder) or
        # meaning; the wrapper must not hide the answer.
        self.lexical = bool(getattr(inner, "lexical", isinstance(inner, HashingEmbedder)))
        # The cosine below which a vector match alone is no evidence of relevance (recall);
        # an embedder that does not say has none. (A lexical embedder's match needs a word form
        # shared with the query instead: see eventmem.recall.fuse.)
        self.relevance_floor = float(getattr(inner, "relevance_floor", 0.0))

    def __repr__(self) -> str:
        return f"CheckedEmbedder({self.inner!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The inner embedder's rows for ``texts``, checked (see the class docstring)."""
        rows = self.inner.embed(texts)
        name = self.embedder_id
        if not isinstance(rows, np.ndarray) or rows.dtype.kind != "f":
            kind = type(rows).__name__ if not isinstance(rows, np.ndarray) else rows.dtype
            raise EmbedderError(f"embedder {name!r} returned {kind}, not a float array; "
                                "nothing was written")
        if rows.shape != (len(texts), self.dim):
            raise EmbedderError(
                f"embedder {name!r} returned an array of shape {rows.shape} for {len(texts)} "
                f"texts; the store holds {self.dim}-dimensional vectors; nothing was written")
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        if not np.isfinite(rows).all():
            raise EmbedderError(f"embedder {name!r} returned NaN or infinite values; "
                                "nothing was written")
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows, dtype=np.float64))
        bad = (norms != 0) & (np.abs(norms - 1.0) > _UNIT_TOLERANCE)
        if bad.any():
            raise EmbedderError(
                f"embedder {name!r} returned a row of L2 norm {norms[bad][0]:.6g}; rows must be "
                "normalized to length 1 (or all zero); nothing was written")
        return rows


def default_embedder() -> HashingEmbedder:
    """The embedder a new store uses when none is given: ``HashingEmbedder(256)``."""
    return HashingEmbedder(256)


def _hashing(dim: int) -> Callable[[], Embedder]:
    return lambda: HashingEmbedder(dim)


# embedder_id -> factory, so a store can re-create the embedder its vectors were made with.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    f"hash-v{HashingEmbedder.version}-d{d}": _hashing(d)
    for d in (64, 128, 256, 384, 512, 768, 1024)
}
# Registered even without the neural extra: a store made with it then fails to open with an error
# that names the extra to install, not with "unknown embedder". Creating it imports no model
# library (that waits for the first embed), so the entry costs nothing.
EMBEDDERS[MINILM_ID] = MiniLMEmbedder
