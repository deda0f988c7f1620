"""Similar memories: exact cosine pairs over a namespace's vectors, and clusters of them.

``similar_pairs`` is an exact all-pairs search in blocks: float32 matrix products find the
candidates (with a margin under the threshold), then each candidate's cosine is recomputed in
float64 from its two rows alone. A decision therefore depends on the two vectors only, never on
the block layout, the number of rows, the BLAS build or its threads, so an audit (or the next
cycle) that sees the same two memories decides the same. Memory stays bounded (one block of
products at a time) and the cost is n^2 d / 2 multiply-adds per namespace.

``clusters`` groups rows with scikit-learn's ``AgglomerativeClustering`` (``n_clusters=None``, a
``distance_threshold`` of ``1 - similarity``, a precomputed cosine distance, inputs in row order).
It runs once per connected group of the similarity graph (pairs above the threshold): with
complete (or single) linkage two rows can only share a cluster when they are linked in that
graph, and the merges inside one group never depend on another group, so this is exactly the
clustering of the whole namespace at a fraction of its cost. Pairs that are not in the graph get
the largest cosine distance (2), which keeps them apart as the full matrix would. A group larger
than ``max_group`` is clustered in slices of that size, in row order (bounded memory, no longer
exact; documented in :class:`~eventmem.policies.dream.params.DreamParams`).

``blocked_pairs`` is the search for large namespaces (dream-4 on): candidate pairs from pivot
blocks, then the same exact cosine within the candidates. Pivots are vectors of memories chosen by
their id (:func:`pivot_rows`: a keyed hash, so the choice depends on the memory alone, never on
the row order or the process). Every row is scored against every pivot in exact integer
arithmetic (rows and pivots rounded to integers of at most ``QUANT`` in magnitude, so every partial
sum of a float32 product is an integer below 2**24 and the BLAS build, its blocking and its threads
cannot change a bit); its *home* is its best pivot and its *probes* its ``probes`` best (ties: the
lower pivot). A pair is a candidate when the home of one is among the probes of the other, or
when both are *orphans*: rows whose best pivot is below the threshold, for which the ranking of
pivots says little (a small topic among many; up to ``ORPHANS_EXACT_MAX`` of them are compared
with each other).
Whether a pair is a candidate is thus a function of the two rows, the pivots and the number
of orphans (the same on the state an audit rebuilds), and a candidate's decision is the exact
search's. Cost: about ``n P d`` for the scores and
``n probes (n / P) d`` for the products, instead of ``n^2 d / 2``. It can miss a pair whose rows
lie in different regions of the pivots (``ops.bench.consolidate`` measures the candidate recall
against the exact search).
"""

from __future__ import annotations

import hashlib

import numpy as np

POLICY_VERSION = "cluster-1"
MARGIN = 1e-4  # float32 products are within ~1e-6 of the exact cosine of unit rows
_PAIR_CHUNK = 4096
# Rows and pivots are rounded to integers of at most QUANT (plus one half) in magnitude: a product
# of two such unit rows sums to at most QUANT^2 + QUANT sqrt(d) + d / 4 < 2**24 for any d up to
# 2**16, so float32 holds every partial sum exactly and the scores do not depend on the summation
# order.
QUANT = 2048.0
_SCORE_CHUNK = 8192  # rows scored against the pivots at a time
# Up to this many orphans (rows whose best pivot is below the threshold) are compared pairwise:
# at most ORPHANS_EXACT_MAX^2 d / 2 multiply-adds, a few seconds.
ORPHANS_EXACT_MAX = 20_000


def algorithm(linkage: str, similarity: float) -> str:
    """The name of the clustering, with its fixed parameters (recorded in the event)."""
    return (f"sklearn.AgglomerativeClustering(linkage={linkage!r}, metric='precomputed', "
            f"distance_threshold={1.0 - similarity!r})")


def pair_cosines(matrix: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cosines (float64) of the row pairs ``(i[k], j[k])`` of a matrix of unit rows, each from
    its two rows alone."""
    out = np.empty(len(i), dtype=np.float64)
    for start in range(0, len(i), _PAIR_CHUNK):
        stop = start + _PAIR_CHUNK
        a = matrix[i[start:stop]].astype(np.float64)
        b = matrix[j[start:stop]].astype(np.float64)
        out[start:stop] = (a * b).sum(axis=1)
    return out


def similar_pairs(matrix: np.ndarray, threshold: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of rows ``i < j`` with cosine ``>= threshold``: (rows i, rows j, cosines),
    ordered by ``(i, j)``. ``matrix`` holds unit rows (float32)."""
    n = len(matrix)
    if n < 2:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0, dtype=np.float64)
    block = max(64, min(1024, (1 << 24) // n))  # at most ~64 MiB of products at a time
    low = threshold - MARGIN
    rows_i: list[np.ndarray] = []
    rows_j: list[np.ndarray] = []
    for start in range(0, n, block):
        stop = min(n, start + block)
        sims = matrix[start:stop] @ matrix[start:].T
        r, c = np.nonzero(sims >= low)
        upper = c > r  # column c of this block is row start + c: keep j > i only
        rows_i.append(r[upper] + start)
        rows_j.append(c[upper] + start)
    i = np.concatenate(rows_i).astype(np.int64)
    j = np.concatenate(rows_j).astype(np.int64)
    exact = pair_cosines(matrix, i, j)
    keep = exact >= threshold
    return i[keep], j[keep], exact[keep]


def pair_search(probes: int, every: int) -> str:
    """The name of the blocked pair search with its parameters (recorded in the event)."""
    return (f"pivot-blocks(every={every}, probes={probes}, quant={int(QUANT)}, "
            f"orphans-exact<={ORPHANS_EXACT_MAX}, exact-within)")


def pivot_rows(ids: list[str], every: int) -> np.ndarray:
    """The rows (ascending) of the memories chosen as pivots: about one in ``every``, by a keyed
    hash of the memory id (the choice of a memory is its own, whatever else the namespace
    holds or in what order)."""
    chosen = [row for row, mid in enumerate(ids)
              if int.from_bytes(hashlib.blake2b(mid.encode(), digest_size=8,
                                                person=b"dream-pivot").digest(), "big")
              % every == 0]
    return np.asarray(chosen, dtype=np.int64)


def _quantized(matrix: np.ndarray) -> np.ndarray:
    return np.rint(matrix.astype(np.float64) * QUANT).astype(np.float32)


def pivot_probes(matrix: np.ndarray, pivots: np.ndarray, probes: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``probes`` best pivots (positions into the unit rows ``pivots``), best first:
    by exact integer score, ties to the lower pivot; and each row's best score (an integer, the
    cosine times ``QUANT**2``)."""
    count = len(pivots)
    probes = min(probes, count)
    q_pivots = _quantized(pivots).T.copy()
    tie = np.arange(count - 1, -1, -1, dtype=np.int64)  # higher for the lower pivot
    out = np.empty((len(matrix), probes), dtype=np.int64)
    best = np.empty(len(matrix), dtype=np.int64)
    for start in range(0, len(matrix), _SCORE_CHUNK):
        scores = _quantized(matrix[start:start + _SCORE_CHUNK]) @ q_pivots  # exact integers
        keys = scores.astype(np.int64) * count + tie  # distinct: no tie left to order
        top = np.argpartition(-keys, probes - 1, axis=1)[:, :probes]
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1)
        out[start:start + _SCORE_CHUNK] = np.take_along_axis(top, order, axis=1)
        best[start:start + _SCORE_CHUNK] = scores.max(axis=1).astype(np.int64)
    return out, best


def blocked_pairs(matrix: np.ndarray, threshold: float, pivots: np.ndarray, probes: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of rows ``i < j`` with cosine ``>= threshold`` among the candidates of the
    blocks of the unit rows ``pivots`` (see the module docstring): (rows i, rows j, exact
    cosines), ordered by ``(i, j)``. With no more pivots than ``probes`` every pair is a
    candidate: that is :func:`similar_pairs`."""
    n = len(matrix)
    if n < 2 or len(pivots) <= probes:
        return similar_pairs(matrix, threshold)
    top, best = pivot_probes(matrix, pivots, probes)
    home = top[:, 0]
    by_home = np.argsort(home, kind="stable")
    home_bounds = np.searchsorted(home[by_home], np.arange(len(pivots) + 1))
    flat = top.ravel()
    by_probe = np.argsort(flat, kind="stable")
    probe_rows = by_probe // probes
    probe_bounds = np.searchsorted(flat[by_probe], np.arange(len(pivots) + 1))
    low = threshold - MARGIN
    keys: list[np.ndarray] = []
    for cell in range(len(pivots)):
        homed = by_home[home_bounds[cell]:home_bounds[cell + 1]]
        if not len(homed):
            continue
        probing = probe_rows[probe_bounds[cell]:probe_bounds[cell + 1]]
        r, c = np.nonzero(matrix[homed] @ matrix[probing].T >= low)
        a, b = homed[r], probing[c]
        differ = a != b
        a, b = a[differ], b[differ]
        keys.append(np.minimum(a, b) * n + np.maximum(a, b))
    # Orphans: rows no pivot is near (a small topic among many others). Their pivot ranks are
    # noise, so two of them alike would rarely meet in a block: they are compared directly,
    # while there are few enough.
    orphans = np.flatnonzero(best < int(low * QUANT * QUANT))
    if 1 < len(orphans) <= ORPHANS_EXACT_MAX:
        oi, oj, _ = similar_pairs(matrix[orphans], low)
        a, b = orphans[oi], orphans[oj]
        keys.append(np.minimum(a, b) * n + np.maximum(a, b))
    found = np.unique(np.concatenate(keys)) if keys else np.empty(0, dtype=np.int64)
    i, j = found // n, found % n
    exact = pair_cosines(matrix, i, j)
    keep = exact >= threshold
    return i[keep], j[keep], exact[keep]


def _components(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The connected-component label of each of ``n`` rows in the graph with edges ``(i, j)``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(i), dtype=np.int8), (i, j)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def clusters(matrix: np.ndarray, i: np.ndarray, j: np.ndarray, sims: np.ndarray, *,
             similarity: float, min_size: int, linkage: str, max_group: int
             ) -> list[np.ndarray]:
    """Clusters of ``min_size`` rows or more (each in row order, ordered by their first row):
    rows whose cosines, by ``linkage``, are above ``similarity``. ``(i, j, sims)`` must hold
    every pair of rows with a cosine above ``similarity`` (:func:`similar_pairs`)."""
    above = sims > similarity
    i, j, sims = i[above], j[above], sims[above]
    if not len(i):
        return []
    labels = _components(len(matrix), i, j)
    rows_by_label = np.argsort(labels, kind="stable")  # row order within each group
    row_bounds = np.flatnonzero(np.diff(labels[rows_by_label])) + 1
    edge_labels = labels[i]
    edges_by_label = np.argsort(edge_labels, kind="stable")
    sorted_edge_labels = edge_labels[edges_by_label]
    found: list[np.ndarray] = []
    for group in np.split(rows_by_label, row_bounds):
        if len(group) < min_size:
            continue
        label = labels[group[0]]
        lo, hi = np.searchsorted(sorted_edge_labels, [label, label + 1])
        edges = edges_by_label[lo:hi]
        for start in range(0, len(group), max_group):
            part = group[start:start + max_group]
            if len(part) >= min_size:
                found += _cluster_part(part, i[edges], j[edges], sims[edges], similarity,
                                       min_size, linkage)
    found.sort(key=lambda rows: int(rows[0]))
    return found


def _cluster_part(part: np.ndarray, i: np.ndarray, j: np.ndarray, sims: np.ndarray,
                  similarity: float, min_size: int, linkage: str) -> list[np.ndarray]:
    """Agglomerative clustering of the rows ``part`` (ascending) given the edges among them
    (edges to rows outside ``part`` are ignored)."""
    # scikit-learn loads in ~1 s; only a cycle that has something to cluster pays for it.
    from sklearn.cluster import AgglomerativeClustering

    m = len(part)
    local = np.full(int(part[-1]) + 1, -1, dtype=np.int64)
    local[part] = np.arange(m)
    inside = (i <= part[-1]) & (j <= part[-1])
    li, lj, ls = local[i[inside]], local[j[inside]], sims[inside]
    both = (li >= 0) & (lj >= 0)
    li, lj, ls = li[both], lj[both], ls[both]
    distances = np.full((m, m), 2.0)  # not linked: as far apart as cosines go
    np.fill_diagonal(distances, 0.0)
    distances[li, lj] = distances[lj, li] = 1.0 - ls
    labels = AgglomerativeClustering(
        n_clusters=None, metric="precomputed", linkage=linkage,
        distance_threshold=1.0 - similarity,
    ).fit_predict(distances)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    return [part[rows] for rows in np.split(order, bounds) if len(rows) >= min_size]


def cohesion(matrix: np.ndarray, rows: np.ndarray) -> float:
    """The smallest cosine between two of ``rows`` (1.0 for a single row)."""
    if len(rows) < 2:
        return 1.0
    a, b = np.triu_indices(len(rows), k=1)
    return float(pair_cosines(matrix, rows[a], rows[b]).min())


def centroid_cosines(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's cosine (float64) to the normalized mean of ``rows``, each from its own row."""
    vectors = matrix[rows].astype(np.float64)
    centre = vectors.sum(axis=0)
    norm = float(np.sqrt((centre * centre).sum()))
    if norm == 0.0:
        return np.zeros(len(rows))
    return (vectors * (centre / norm)).sum(axis=1)
