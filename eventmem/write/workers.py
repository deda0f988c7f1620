"""The analysis of a large batch's texts, spread over worker processes.

What the store derives from a text alone (its BM25 terms, its extracted entities and relations,
its vector, and the readings the decisions ask for: :mod:`eventmem.write.readings`) does not
depend on the store, so a large ``remember_many`` or import computes it in worker processes,
in chunks, and gets it back in input order. Everything that reads the store -- which texts it
already holds, the neighbours, the gate, the user's declared name, sessions -- stays in the
engine's process, and the decisions are taken there one item after another, so the log is the
same bytes as a single-process write.

The workers never touch LMDB: they are started with ``spawn`` (a forked child must not use the
parent's LMDB environment, and forking a process that runs threads is unsafe), receive texts
and send back bytes. They live as long as the engine (:class:`Pool`), since starting one costs
about a second (importing numpy and the policies).

The embedder travels to each worker by pickle, and a worker embeds only when the embedder says
it is ``deterministic`` (the same text always gives the same bytes, whatever batch it is in);
otherwise the engine's process embeds the batch as before and the workers do the rest. A custom
embedder used with workers must therefore pickle (as its parameters, not as a loaded model if
that is large) and say ``deterministic = True`` only when its rows do not depend on the batch.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Sequence
from typing import NamedTuple

from eventmem.errors import InvalidInputError
from eventmem.policies.extract import relations as extract
from eventmem.text.blas import single_thread
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import packed_terms
from eventmem.write import readings

# Texts each worker must get for the hand-off to pay: below it a batch is analysed in-process.
# (Measured here: analysing a text costs about 0.3 ms, sending it and its vector back about
# 0.02 ms; 100 texts a worker keeps the fixed cost of a round trip under a tenth.)
MIN_TEXTS_PER_WORKER = 100
# Chunks per worker: small enough that a worker slowed by another process does not hold the
# batch up, large enough that each costs one round trip among many texts.
CHUNKS_PER_WORKER = 4


class Analysed(NamedTuple):
    """What the store derives from one text alone."""

    vector: bytes | None  # float32; None when the engine's process embeds (see the module doc)
    terms: bytes  # eventmem.text.normalize.packed_terms
    extraction: bytes | None  # eventmem.policies.extract.relations.encoded (None: no entity)
    reading: readings.Reading


def analyse(texts: Sequence[str], embedder: Embedder | None) -> list[Analysed]:
    """The analysis of ``texts``, in order; their vectors from ``embedder`` (None: no vectors).
    A worker runs this on its chunk; so does the engine for a batch too small to share."""
    rows = None
    if embedder is not None:
        with single_thread():  # workers share the cores: one BLAS thread each
            rows = embedder.embed(list(texts))
    return [Analysed(None if rows is None else rows[i].tobytes(), packed_terms(text),
                     extract.encoded(text), readings.read(text))
            for i, text in enumerate(texts)]


def workers_for(requested: int | None) -> int:
    """The number of workers ``requested`` means: 0 or None, every core this process may run
    on; else the number given."""
    if requested is None or requested == 0:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count() or 1
    if not isinstance(requested, int) or isinstance(requested, bool) or requested < 0:
        raise InvalidInputError(
            f"workers must be a positive int, or 0 or None for every core; got {requested!r}")
    return requested


def worth_sharing(count: int, workers: int) -> bool:
    """Whether ``count`` texts are enough to share among ``workers`` processes."""
    return workers > 1 and count >= 2 * MIN_TEXTS_PER_WORKER


_EMBEDDER: Embedder | None = None  # a worker's copy of the store's embedder


def _start(embedder: bytes | None) -> None:
    global _EMBEDDER
    _EMBEDDER = None if embedder is None else pickle.loads(embedder)


def _analyse_chunk(texts: list[str]) -> list[Analysed]:
    return analyse(texts, _EMBEDDER)


class Pool:
    """Worker processes that analyse texts for one engine (see the module doc)."""

    def __init__(self, embedder: Embedder, workers: int) -> None:
        self.workers = workers
        # The embedder goes to the workers only if it pickles and says its rows are a pure
        # function of the text; else the engine embeds and the workers do the rest.
        shipped = None
        if getattr(embedder, "deterministic", False) is True:
            try:
                shipped = pickle.dumps(embedder)
            except (pickle.PicklingError, TypeError, AttributeError):
                shipped = None
        self.embeds = shipped is not None
        self.broken = False  # a worker died: the engine starts a new pool for the next write
        # Imported here, where a pool starts: multiprocessing and concurrent.futures cost a
        # command that writes no large batch (most of them) tens of milliseconds at start-up.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start, initargs=(shipped,))

    def worth(self, count: int) -> bool:
        """Whether ``count`` texts are enough to share among the workers."""
        return worth_sharing(count, self.workers)

    def analyse(self, texts: Sequence[str]) -> list[Analysed] | None:
        """The analysis of ``texts`` in order, from the workers (vectors only if
        :attr:`embeds`); None if the pool broke (a worker died): the caller analyses them
        itself, which gives the same result."""
        parts = min(self.workers * CHUNKS_PER_WORKER, max(1, len(texts) // MIN_TEXTS_PER_WORKER))
        size = -(-len(texts) // parts)
        chunks = [list(texts[lo:lo + size]) for lo in range(0, len(texts), size)]
        from concurrent.futures.process import BrokenProcessPool  # imported with the pool

        try:
            return [a for chunk in self._executor.map(_analyse_chunk, chunks) for a in chunk]
        except BrokenProcessPool:
            self.broken = True
            return None

    def close(self) -> None:
        """Stop the workers."""
        self._executor.shutdown(wait=True, cancel_futures=True)
