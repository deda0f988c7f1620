"""Erasure reaches everything the engine derived from the erased text (ARCHITECTURE section 8):
each scenario ends in a scan of every byte of every file of the store for the erased text and
for what was derived from it and stored (entity names, relation values, conflict evidence,
merged, consolidated and summary texts).

Conflicts under every strategy (at ingest and by resolve) with either side erased, evidence
another conflict shares, a dream-cycle cluster, a category summary, a namespace erase whose
entities another namespace also names, and a reader in another process that catches up after
the erase and never shows the text again."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.config import Config
from eventmem.errors import StoreLockedError
from eventmem.policies.dream.params import DreamParams
from replay import rebuild
from tests import ROOT
from tests.strategies import hikes
from tests.write.logged import checked

DAY = timedelta(days=1)

OLD, NEW = "Alice lives in Quorvathby", "Alice moved to Zentrisund"

UNRELATED = "Bob works at Initech"


def everything(path: Path) -> bytes:
    """Every file under the store directory, concatenated and lowercased."""
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()).lower()


def assert_gone(path: Path, *words: str) -> None:
    raw = everything(path)
    assert [w for w in words if w.lower().encode() in raw] == []


def settled(mem: eventmem.Engine) -> None:
    assert rebuild(mem.store).digests() == mem._views.digests()
    report = mem.verify()
    assert report.ok, report.findings


def _conflicted(mem: eventmem.Engine, clock: eventmem.ManualClock, strategy: str,
                resolve: bool) -> tuple[str, str]:
    """The old and the new memory of a contradiction settled by ``strategy``: at ingest, or
    flagged ``ask`` and then resolved. The "new" side is the memory whose text is NEW, or the
    merge made of it at ingest (which keeps NEW only as its input)."""
    old = mem.remember(OLD, namespace="c")
    mem.remember(UNRELATED, namespace="c")
    clock.advance(DAY)
    got = mem.remember(NEW, namespace="c", on_conflict="ask" if resolve else strategy)
    assert got.conflict_id is not None, got
    if resolve:
        got = mem.resolve(got.conflict_id, strategy=strategy)
    texts = {m.memory_id: m.text for m in mem.memories(namespace="c")}
    own = [mid for mid, text in texts.items() if text == NEW]
    new = own[0] if own else got.memory_id  # a merge at ingest keeps NEW only as its input
    assert old.memory_id is not None and new is not None and new != old.memory_id
    return old.memory_id, new


@pytest.mark.parametrize("side", ["old", "new"])
@pytest.mark.parametrize(("strategy", "resolve"), [
    ("ask", False), ("keep_existing", False), ("use_new", False), ("merge", False),
    ("temporal", False), ("keep_existing", True), ("use_new", True), ("merge", True),
    ("temporal", True)])
def test_a_conflicts_either_side_is_erased_under_every_strategy(
        store_path: Path, clock: eventmem.ManualClock, strategy: str, resolve: bool,
        side: str) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        old, new = _conflicted(mem, clock, strategy, resolve)
        done = mem.erase(memory_id=old if side == "old" else new)
        assert mem.get(done.memory_ids[0]).text is None
        for conflict in mem.conflicts(namespace="c", status=None):
            assert (conflict.old_value, conflict.new_value) == ("", "")
        settled(mem)
        mem.compact()
    assert_gone(store_path, "quorvathby" if side == "old" else "zentrisund")
    assert b"initech" in everything(store_path)


HIKES = hikes("Vexmoorfell", "Carol", "Erin")  # pairwise close: one cluster


def test_a_dream_cluster_goes_with_its_erased_member(store_path: Path,
                                                     clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock, config=Config(sync=False)) as mem:
        members = [mem.remember(text, kind="event").memory_id for text in HIKES]
        mem.remember("Dan restores old radios in his shed", kind="event")
        clock.advance(DAY)
        [made] = mem.consolidate().consolidated
        assert "Vexmoorfell" in (mem.get(made.memory_id).text or "")
        assert members[0] is not None
        done = mem.erase(memory_id=members[0])
        assert set(done.memory_ids) == {members[0], made.memory_id}
        clock.advance(DAY)
        mem.consolidate()  # the cluster's survivors do not bring the text back
        settled(mem)
        mem.compact()
    assert_gone(store_path, "vexmoorfell")
    assert b"radios" in everything(store_path)


def test_a_category_summary_goes_with_its_erased_source(store_path: Path,
                                                        clock: eventmem.ManualClock) -> None:
    config = Config(sync=False, dream=DreamParams(cluster=False))
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        texts = [f"Reading list item {n}: {title} signed Grimwald{n}x" for n, title in
                 enumerate(["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Rebecca",
                            "Persuasion", "Walden", "Kindred", "Solaris"])]
        ids = [mem.remember(text, kind="plan").memory_id for text in texts]
        [summary] = mem.consolidate().summarized
        source = summary.sources[0]
        secret = f"grimwald{ids.index(source)}x"
        assert secret in (mem.get(summary.memory_id).text or "").lower()
        done = mem.erase(memory_id=source)
        assert summary.memory_id in done.cascaded
        clock.advance(DAY)
        mem.consolidate()  # a fresh summary of the nine left
        settled(mem)
        mem.compact()
    assert_gone(store_path, secret)


def test_a_namespace_erase_leaves_another_namespaces_entities_whole(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    person = "Zebrafishov Kettleburn"
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember(f"{person} works at Quokkanine Labs", namespace="a")
        mem.remember("Ottoline Brassmoor works at Quokkanine Labs", namespace="a")
        mem.remember(f"{person} lives in Pellucidar", namespace="b")
        theirs = mem.graph.entity(person, namespace="b")
        mem.erase(namespace="a")
        assert mem.graph.entity(person, namespace="b") == theirs
        with pytest.raises(eventmem.NotFoundError):
            mem.graph.entity(person, namespace="a")
        settled(mem)
        mem.compact()
    assert_gone(store_path, "quokkanine", "ottoline", "brassmoor")
    raw = everything(store_path)
    assert b"pellucidar" in raw and b"zebrafishov" in raw


READER = """
import sys, eventmem
mem = eventmem.open(sys.argv[1], readonly=True)
def show():
    m = mem.get(sys.argv[2])
    hits = mem.recall("Quillanbrack ledger attic", namespace="r", include_hidden=True)
    print(m.status, m.text, sorted(h.memory_id for h in hits), flush=True)
show()
for line in sys.stdin:
    mem.refresh()
    show()
mem.close()
"""


@pytest.mark.slow
def test_a_reader_in_another_process_blocks_compaction_and_never_shows_the_text_again(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with eventmem.open(store_path, clock=clock) as mem:
        secret = mem.remember("Quillanbrack Zephyrodd keeps the ledger in the attic",
                              namespace="r").memory_id
        kept = mem.remember("the bicycle needs new brake pads", namespace="r").memory_id
        assert secret is not None and kept is not None
        mem.snapshot()
        reader = subprocess.Popen([sys.executable, "-c", READER, str(store_path), secret],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env)
        try:
            assert reader.stdout is not None and reader.stdin is not None
            assert reader.stdout.readline().startswith("active Quillanbrack")
            mem.erase(memory_id=secret)
            with pytest.raises(StoreLockedError):
                mem.compact()
            reader.stdin.write("refresh\n")
            reader.stdin.flush()
            # Erased: no text, and nothing left that shares a word with the query (the other
            # memory shares none, so it is not returned as padding).
            assert reader.stdout.readline().split() == ["erased", "None", "[]"]
            reader.stdin.close()
            assert reader.wait(timeout=30) == 0
        finally:
            reader.kill()
            reader.wait()
        mem.compact()
    assert_gone(store_path, "quillanbrack", "zephyrodd")
    with eventmem.open(store_path, clock=clock) as mem:  # reopened from the fresh snapshot
        assert mem.get(secret).text is None
        assert mem.as_of(seq=2).get(secret).text is None
        settled(mem)


# -- conflict evidence another conflict shares -----------------------------------------------------


def test_erasing_one_conflict_keeps_the_evidence_another_shares(mem, clock):
    # Two conflicts with the same evidence (here in two namespaces) share its blob; erasing
    # one side of the first dropped it, so the second lost its values on a rebuild and
    # verify failed (the erase reached into another namespace).
    for ns in ("a", "b"):
        mem.remember("Bob works at Acme", namespace=ns)
        mem.remember("Bob does not work at Acme", namespace=ns, on_conflict="ask")
    [first] = mem.conflicts(namespace="a")
    mem.erase(first.memory_id)
    [second] = mem.conflicts(namespace="b")
    assert (second.subject, second.old_value, second.new_value) == ("bob", "acme", "not acme")
    checked(mem)
