"""int8 codes for cold vector rows: what a row becomes once its memory goes cold, and back.

A cold row is kept as 8-bit codes and one float32 scale (``dim + 4`` bytes instead of
``4 * dim``). The codes spread the row's largest component over the int8 range (symmetric,
-127..127, so that a sign flip is exact); the scale is ``1 / ‖codes‖``, not the step between
codes, so that the row it stands for, ``codes * scale``, is a unit vector like every other row
and a dot product with it is still a cosine.

Everything here is a pure, elementwise function of the row (the norm is summed in exact
integers), so the same row gives the same bytes on every machine and in every replay: the
digest of a projection holding cold rows holds, and a decision made against a cold row is
re-derived by the audit from the same bytes.

A cold row's vector *is* ``codes * scale``: every reader (the write gate, the dream cycle, the
ANN indexes) sees that float32 row. A search over many cold rows never holds them all as
float32: :func:`similarities` widens the codes a block at a time and scales the products.
"""

from __future__ import annotations

import numpy as np

# What a store records (``EmbedderRegistered.cold_vectors``) when it keeps cold rows as codes.
CODES = "int8"
CODE_MAX = 127
# Rows dequantized at a time by a search: 4096 x 256 dimensions is 4 MB of float32, small
# enough to stay in cache-sized temporaries and large enough that numpy's per-call cost vanishes.
BLOCK_ROWS = 4096


def quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes (one row per row) and float32 scales of float32 ``rows``."""
    rows = np.asarray(rows, dtype=np.float32)
    codes = np.empty(rows.shape, dtype=np.int8)
    scales = np.empty(len(rows), dtype=np.float32)
    for lo in range(0, len(rows), BLOCK_ROWS):  # a block at a time: small temporaries
        codes[lo : lo + BLOCK_ROWS], scales[lo : lo + BLOCK_ROWS] = _quantize(
            rows[lo : lo + BLOCK_ROWS])
    return codes, scales


def _quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    peak = np.abs(rows).max(axis=1, initial=0.0)
    step = np.where(peak > 0, peak / np.float32(CODE_MAX), np.float32(1.0)).astype(np.float32)
    codes = np.clip(np.rint(rows / step[:, None]), -CODE_MAX, CODE_MAX).astype(np.int8)
    # Summed as integers: exact (127^2 x dim fits an int64 for any dimension), so the norm
    # does not depend on a summation order.
    wide = codes.astype(np.int32)
    norms = np.sqrt((wide * wide).sum(axis=1, dtype=np.int64).astype(np.float64))
    scales = np.divide(1.0, norms, out=np.zeros(len(rows)), where=norms > 0).astype(np.float32)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The float32 rows that ``codes`` and ``scales`` stand for."""
    return codes.astype(np.float32) * scales[:, None]


def similarities(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The dot products of the rows ``codes``/``scales`` stand for with the float32 ``query``:
    ``(codes . query) * scale``, the codes widened to float32 :data:`BLOCK_ROWS` rows at a time
    into one reused buffer (a fresh array per block costs more in page faults than the product
    itself). Equal to ``dequantize(codes, scales) @ query`` within float32 rounding."""
    out = np.empty(len(codes), dtype=np.float32)
    buffer = np.empty((min(len(codes), BLOCK_ROWS), codes.shape[1]), dtype=np.float32)
    for lo in range(0, len(codes), BLOCK_ROWS):
        block = codes[lo : lo + BLOCK_ROWS]
        wide = buffer[: len(block)]
        np.copyto(wide, block, casting="unsafe")
        np.matmul(wide, query, out=out[lo : lo + len(block)])
    out *= scales
    return out
