"""What the write path reads from a text alone, remembered, and computable in another process.

Deciding an item reads its text many times over (its kind, the facts it states, its claims) and
reads the same stored texts item after item (their facts and claims). Each reading is a pure
function of the text and a policy version, so it is remembered here in a bounded :class:`Memo`.
A large batch reads its items' texts ahead in worker processes (:mod:`eventmem.write.workers`)
and :func:`seed` fills the memos with what they read: the decisions then find the same values
whichever process computed them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, NamedTuple, TypeVar

from eventmem.policies import classify, facts
from eventmem.policies.conflict import detect as conflict

R = TypeVar("R")


class Memo(Generic[R]):
    """A pure function's results by positional arguments, at most ``maxsize`` of them (the
    oldest go first), that can also be given results computed elsewhere (:meth:`seed`).

    ``functools.lru_cache`` cannot be seeded; a pure function needs no recency order, only a
    bound on memory."""

    def __init__(self, fn: Callable[..., R], maxsize: int) -> None:
        self.fn, self.maxsize = fn, maxsize
        self.values: dict[tuple[Hashable, ...], R] = {}
        self._lock = threading.Lock()  # two engines of one process may write at once

    def __call__(self, *args: Hashable) -> R:
        try:
            return self.values[args]
        except KeyError:
            pass
        value = self.fn(*args)
        self.seed(args, value)
        return value

    def seed(self, args: tuple[Hashable, ...], value: R) -> None:
        """Remember ``value`` as ``fn(*args)`` (the caller computed it with ``fn``)."""
        with self._lock:
            self.values[args] = value
            while len(self.values) > self.maxsize:
                del self.values[next(iter(self.values))]


# The facts of a text (by text, and the reader's edition when not the current one): gate-7 reads
# those of the same stored memories for item after item and batch after batch, and reading them
# is much of a write's cost. About a few hundred bytes an entry.
facts_of: Memo[tuple[facts.Fact, ...]] = Memo(facts.read, 1 << 16)


def read_with(edition: int) -> Callable[[str], tuple[facts.Fact, ...]]:
    """The remembered facts of a text as the fact reader's ``edition`` reads them (what the
    write gate and recall both ask of the same stored texts)."""
    return lambda text: facts_of(text, edition)


def _classify(text: str, policy: str) -> tuple[str, str]:
    # A kind that may be short-lived is checked against the facts the text states, with the
    # reader's edition the classifier's version reads them with (gate-7 reads the same).
    edition = classify.reader_edition(policy)
    return classify.classify(text, policy, read_facts=lambda t: facts_of(t, edition))


# An item's kind as classified: creating it, its valid-from and gate-7 each ask. Large enough
# for a whole batch read ahead (IMPORT_BATCH is 1,000; a caller's batch may be larger).
classified: Memo[tuple[str, str]] = Memo(_classify, 1 << 14)
# The value words of a text: gate-7 compares an item's with those of the latest memory of each
# attribute it states, and its restatements' with the memories after them, item after item.
values_in: Memo[frozenset[str]] = Memo(facts.values_of, 1 << 14)
# The claims a text makes, compared for contradictions with its neighbours' (and theirs with
# the next item's).
claims_of: Memo[conflict.Claims] = Memo(conflict.claims, 1 << 14)


class Reading(NamedTuple):
    """What :func:`read` reads of one text: what the memos above would compute for it."""

    kind: tuple[str, str]  # classify.classify(text, classify.POLICY_VERSION)
    facts: tuple[facts.Fact, ...]  # facts.read(text, facts.EDITION) (names in any letters)
    claims: conflict.Claims  # conflict.claims(text)
    # facts.values_of(text, facts.EDITION): gate-7 reads every item's value words, whatever it
    # states (a set of a few words: sent back beside the rest for little)
    values: frozenset[str]


def read(text: str) -> Reading:
    """The readings of ``text`` that the write path's decisions ask for (computed afresh: a
    worker process has nothing to remember them for)."""
    stated = facts.read(text, facts.EDITION)
    return Reading(classify.classify(text, classify.POLICY_VERSION, read_facts=lambda _: stated),
                   stated, conflict.claims(text), facts.values_of(text, facts.EDITION))


def seed(texts: Sequence[str], readings: Sequence[Reading]) -> None:
    """Remember readings :func:`read` made (in this process or another) for ``texts``."""
    for text, reading in zip(texts, readings, strict=True):
        classified.seed((text, classify.POLICY_VERSION), reading.kind)
        facts_of.seed((text, facts.EDITION), reading.facts)
        claims_of.seed((text,), reading.claims)
        values_in.seed((text,), reading.values)
