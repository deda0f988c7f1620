"""Erasure with an immutable log (ARCHITECTURE section 8): after ``erase`` and ``compact`` no byte
of the erased text is left in any file of the store, while the hash chain still verifies, replay
shows the memory as erased, and nothing of another memory or namespace changes."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.cli.commands import main as cli_main
from eventmem.errors import InvalidInputError, NotFoundError, ReadOnlyError, StoreLockedError
from eventmem.events import MemoryErased, MemoryIngested, MemoryReinforced, MemorySkipped
from eventmem.storage import snapfiles
from eventmem.storage.environment import COMPACT_TMP
from eventmem.text.normalize import content_hash
from eventmem.write.erase import contents_to_drop, referenced_contents, targets
from projections.state import MemoryRecord, Status
from replay import rebuild
from tests import ROOT
from tests.maps import held_snapshot_files, mmaps_of

WAIT = 30.0
T0 = datetime(2025, 1, 1, tzinfo=UTC)

SECRET = "my grandmother keeps a cobalt porcelain teapot beside the marmalade jars in her pantry"
REINFORCING = SECRET + " cupboard"  # a semantic duplicate: reinforces, kept as an input blob
MERGING = ("my grandmother keeps a cobalt porcelain teapot beside the marmalade jars and "
           "lavender in her pantry")  # a near duplicate that adds: a merged memory, derived
KEPT = "the bicycle needs new brake pads before the weekend ride"


def store_bytes(path: Path) -> dict[str, bytes]:
    """Every file under the store directory, as bytes."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def distinctive(*texts: str) -> set[str]:
    kept = set(KEPT.split())
    return {w for t in texts for w in t.split() if len(w) >= 6 and w not in kept}


def words(key: object) -> str:
    """Made-up words, distinct per key: texts the gate never sees as near duplicates."""
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    return " ".join("q" + digest[i:i + 6] for i in range(0, 48, 6))


def stored(result: eventmem.RememberResult) -> str:
    """The id of the memory a remember landed in (it was not rejected)."""
    assert result.memory_id is not None, result
    return result.memory_id


# -- the file scan -------------------------------------------------------------------------------


def test_erased_text_is_in_no_file_of_the_store_after_compact(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        secret = stored(mem.remember(SECRET, namespace="alice"))
        clock.advance(timedelta(minutes=1))
        assert mem.remember(REINFORCING, namespace="alice").action == "reinforced"
        merging = mem.remember(MERGING, namespace="alice")
        merged = stored(merging)
        assert merging.action == "merged" and merged != secret
        kept = stored(mem.remember(KEPT, namespace="alice"))
        mem.recall("brake pads", namespace="alice")  # returns the secret too: its query goes
        mem.snapshot()  # a snapshot holding the secret's vector and terms
        before_seq, before_at = mem.head().seq, mem.now()
        clock.advance(timedelta(minutes=1))

        done = mem.erase(memory_id=secret)

        assert done.memory_ids == (secret, merged)
        assert done.cascaded == (merged,)
        # The secret, its reinforcement, the merge (which is its input's own text: the input
        # says all the secret did and more, so the merge keeps it alone), and the query of the
        # recall that returned the secret.
        assert done.contents_removed == 4
        assert mem.store.snapshot_seqs() == [mem.head().seq]  # the old ones gone, a fresh one
        for mid in done.memory_ids:
            got = mem.get(mid)
            assert (got.status, got.text) == ("erased", None)
        assert mem.get(kept).text == KEPT
        history = [e.type for e in mem.history(secret)]
        assert history[0] == "memory.ingested" and "memory.reinforced" in history
        assert history[-1] == "memory.erased"
        report = mem.verify()
        assert report.ok, report.findings
        assert rebuild(mem.store).digests() == report.digests
        # Erasure reaches into the past: the bytes are gone, so every view shows it erased.
        for view in (mem.as_of(seq=before_seq), mem.as_of(at=before_at)):
            old = view.get(secret)
            assert (old.status, old.text) == ("erased", None)
            hits = view.recall("grandmother porcelain teapot", namespace="alice",
                               include_hidden=True)
            assert {h.memory_id for h in hits}.isdisjoint(done.memory_ids)
        assert mem.compact()[1] > 0
        assert mem.verify().ok

    files = store_bytes(store_path)
    assert {"data.mdb", "ops.log"} <= set(files)
    everything = b"".join(files.values()).lower()
    for text in (SECRET, REINFORCING, MERGING):
        assert text.encode() not in everything
    for word in distinctive(SECRET, REINFORCING, MERGING):
        assert word.encode() not in everything, word
    assert KEPT.encode() in files["data.mdb"]
    assert b"bicycle" not in files["ops.log"]  # the ops log never holds text

    with eventmem.open(store_path, clock=clock) as mem:  # reopened from the fresh snapshot
        assert mem.get(secret).status == "erased"
        assert mem.get(kept).text == KEPT
        assert mem.verify().ok


MARKER = "zanzibarquill"  # in every field a caller writes; no byte of it may survive


@pytest.mark.parametrize("by", ["memory", "namespace"])
def test_no_field_the_caller_wrote_survives_erase_and_compact(
    store_path: Path, clock: eventmem.ManualClock, by: str
) -> None:
    """Text, tags, refs, session, recall queries (one that found the memory, one that found
    nothing), and a reason: after erase and compact no byte of the marker is in any file."""
    with eventmem.open(store_path, clock=clock) as mem:
        victim = stored(mem.remember(
            f"the {MARKER} ledger sits in the attic trunk", namespace="vic",
            tags=(f"tag-{MARKER}", "plain"), refs=(f"https://example.org/{MARKER}",),
            session=f"session-{MARKER}"))
        other = stored(mem.remember("the garden hose is coiled by the shed", namespace="vic",
                                    tags=("garden",), session="chores"))
        kept = stored(mem.remember("the kettle whistles when the water boils", namespace="ok",
                                   tags=("kitchen",), session="home"))
        mem.recall(f"where is the {MARKER} ledger", namespace="vic")
        mem.recall(f"{MARKER} {MARKER} quasar nebula", namespace="vic", k=1)
        mem.recall("kettle", namespace="ok")
        with pytest.raises(InvalidInputError):  # a reason is a code, never the caller's prose
            mem.forget(other, reason=f"she said the {MARKER} is gone")
        mem.forget(other, reason="outdated")
        got = mem.get(victim)
        assert (got.tags, got.refs, got.session) == (
            (f"tag-{MARKER}", "plain"), (f"https://example.org/{MARKER}",), f"session-{MARKER}")
        assert MARKER.encode() not in b"".join(  # the events carry none of it now
            msgspec.json.encode(e) for _, e in mem.events())
        mem.snapshot()
        assert MARKER.encode() in b"".join(store_bytes(store_path).values())  # the scan sees it
        if by == "memory":
            mem.erase(memory_id=victim)
        else:
            mem.erase(namespace="vic")
        got = mem.get(victim)
        assert (got.status, got.text, got.tags, got.refs, got.session) == (
            "erased", None, (), (), None)
        assert mem.get(kept).tags == ("kitchen",) and mem.get(kept).session == "home"
        if by == "namespace":
            assert mem.get(other).tags == () and mem.get(other).session is None
        else:
            assert mem.get(other).tags == ("garden",) and mem.get(other).session == "chores"
        assert mem.verify().ok and mem.audit().ok
        mem.compact()
    everything = b"".join(store_bytes(store_path).values()).lower()
    assert MARKER.encode() not in everything
    assert b"kitchen" in everything  # the other namespace's labels stay
    with eventmem.open(store_path, clock=clock) as mem:  # a rebuild agrees
        assert mem.verify().ok
        assert rebuild(mem.store).digests() == mem.verify().digests
        assert mem.get(victim).tags == ()


def test_recall_never_returns_erased_memories(mem: eventmem.Engine) -> None:
    ids = [stored(mem.remember(f"{words(i)} harbour lantern", namespace="n"))
           for i in range(4)]
    mem.erase(memory_id=ids[1])
    for kwargs in ({}, {"include_hidden": True}, {"valid_at": mem.now()}):
        hits = mem.recall(f"{words(1)} harbour lantern", namespace="n", k=10, **kwargs)
        assert ids[1] not in {h.memory_id for h in hits}
        assert {h.memory_id for h in hits} <= set(ids)
    assert ids[1] not in [m.memory_id for m in mem.hot(namespace="n", k=10)]


# -- what the open engine still holds -----------------------------------------------------------


def current_snapshot(store: Path, mem: eventmem.Engine) -> Path:
    """The one snapshot file the store names."""
    (seq,) = mem.store.snapshot_seqs()
    return store / snapfiles.DIRECTORY / snapfiles.name_of(seq)


def assert_holds_only_the_current_snapshot(store: Path, mem: eventmem.Engine) -> None:
    """The engine maps no removed snapshot file, and its projections read only the current one."""
    current = current_snapshot(store, mem)
    assert held_snapshot_files(store) == [str(current)]
    maps = mmaps_of(mem._views)
    assert maps, "the projections read their columns from the snapshot file"
    assert all(bytes(m) == current.read_bytes() for m in maps)


def test_an_erase_lets_go_of_the_snapshot_file_it_removed(
    store_path: Path, clock: eventmem.ManualClock,
) -> None:
    """An engine opened from a snapshot reads its columns from the mapped file, which holds the
    memory's vector and terms; the erase removes the file, and the engine lets go of it at once
    (an unlinked file stays on disk while mapped), its answers those of a fresh open."""
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember_many([f"{words(i)} harbour lantern" for i in range(12)], namespace="n")
        secret = stored(mem.remember(SECRET, namespace="n"))
    with eventmem.open(store_path, clock=clock) as mem:  # from the snapshot close wrote
        assert mem.opened_from.startswith("snapshot")
        (opened,) = held_snapshot_files(store_path)
        vector = mem.embedder.embed([SECRET])[0]
        assert mem._views.vectors.search("n", vector, 1)[0][0] == secret
        mem.erase(memory_id=secret)
        assert not (store_path / snapfiles.DIRECTORY / Path(opened).name).exists()
        assert_holds_only_the_current_snapshot(store_path, mem)
        assert secret not in mem._views.vectors.spaces["n"].ids
        assert secret not in dict(mem._views.vectors.search("n", vector, 20))
        assert not mem._views.text.search("n", "cobalt porcelain teapot marmalade", 20)
        assert mem.get(secret).text is None
        fresh = mem.as_of(seq=mem.head().seq)  # folded afresh, from the new snapshot
        assert fresh._views.digests() == mem._views.digests()
        for query in ("cobalt porcelain teapot marmalade", f"{words(3)} harbour lantern"):
            expected = fresh.recall(query, namespace="n", k=5, include_hidden=True)
            hits = mem.recall(query, namespace="n", k=5, include_hidden=True)
            assert secret not in {h.memory_id for h in hits}
            assert [(h.memory_id, h.text, h.score) for h in hits] == \
                [(h.memory_id, h.text, h.score) for h in expected]
        digests = mem._views.digests()
    with eventmem.open(store_path, clock=clock, readonly=True) as reopened:
        assert reopened._views.digests() == digests


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["erase", "purge", "snapshot", "remember"]),
                                st.integers(0, 7)), min_size=1, max_size=5))
def test_the_engine_holds_no_removed_snapshot_whatever_the_writes(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]],
) -> None:
    """Whatever mix of erases, purges, snapshots and writes follows an open from a snapshot,
    the engine maps only the snapshot file the store names, and its projections equal a
    rebuild."""
    path = tmp_path_factory.mktemp("held") / "s"
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(sync=False)
    with eventmem.open(path, clock=clock, config=config) as mem:
        ids = [stored(r) for r in mem.remember_many(
            [f"{words(i)} harbour lantern" for i in range(8)], namespace="n")]
    with eventmem.open(path, clock=clock, config=config) as mem:
        for i, (step, at) in enumerate(steps):
            status = mem.get(ids[at]).status
            if step == "erase" and status != "erased":
                mem.erase(memory_id=ids[at])
            elif step == "purge" and status not in ("erased", "purged"):
                mem.forget(ids[at])  # deleted, then purged by a sweep 90 days on
                clock.advance(timedelta(days=100))
                mem.consolidate()
                mem.snapshot()
            elif step == "snapshot":
                mem.snapshot()
            else:
                ids.append(stored(mem.remember(f"{words((i, at))} harbour", namespace="n")))
                mem.snapshot()
            assert_holds_only_the_current_snapshot(path, mem)
            assert mem._views.digests() == rebuild(mem.store).digests()


# -- what is erased and what stays ---------------------------------------------------------------


def test_a_conflict_merge_is_erased_with_its_source_and_the_conflict_is_blanked(
    mem: eventmem.Engine,
) -> None:
    green = stored(mem.remember("my favourite colour is green", namespace="a"))
    merging = mem.remember("my favourite colour is purple", namespace="a", on_conflict="merge")
    assert merging.action == "merged"
    done = mem.erase(memory_id=green)
    assert done.memory_ids == (green, stored(merging))
    assert mem.store.blob(content_hash("my favourite colour is purple")) is None  # its input
    (conflict,) = mem.conflicts(namespace="a", status=None)
    assert (conflict.subject, conflict.old_value, conflict.new_value) == ("", "", "")
    assert mem.verify().ok


def test_text_another_memory_holds_stays(mem: eventmem.Engine) -> None:
    mine = stored(mem.remember("the spare key is under the geranium pot", namespace="a"))
    theirs = stored(mem.remember("the spare key is under the geranium pot", namespace="b"))
    done = mem.erase(namespace="a")
    assert done.memory_ids == (mine,) and done.contents_removed == 0
    assert mem.get(mine).text is None  # even though the bytes stay for "b"
    assert mem.get(theirs).text == "the spare key is under the geranium pot"
    assert [h.memory_id for h in mem.recall("spare key geranium", namespace="b")] == [
        theirs]
    assert mem.verify().ok


def test_remembering_an_erased_text_again_makes_a_new_memory(mem: eventmem.Engine) -> None:
    old = stored(mem.remember("the spare key is under the geranium pot", namespace="a"))
    before = mem.head().seq
    mem.erase(memory_id=old)
    new = mem.remember("the spare key is under the geranium pot", namespace="a")
    assert new.action == "created" and new.memory_id != old
    assert mem.get(old).text is None
    assert mem.as_of(seq=before).get(old).text is None  # the bytes are back, but not for it
    assert [h.memory_id for h in mem.recall("spare key geranium", namespace="a")] == [
        new.memory_id]
    report = mem.verify()
    assert report.ok, report.findings


def test_plan_functions() -> None:
    def record(mid: str, seq: int, chash: str, derived: tuple[str, ...] = (),
               status: Status = "active") -> MemoryRecord:
        r = MemoryRecord(mid, "n", chash, "k", "event", "caller", "user", 7.0, 0.5, 1.0, False,
                         False, None, None, (), (), seq, seq, seq, seq)
        r.derived_from, r.status = derived, status
        return r

    memories = {r.memory_id: r for r in [
        record("a", 1, "ha"), record("b", 2, "hb", ("a",)), record("x", 3, "hx"),
        record("c", 4, "hc", ("b", "x")), record("d", 5, "ha"),
        record("e", 6, "he", ("a",), "erased")]}
    assert targets(memories, ["a"]) == ["a", "b", "c"]  # transitive; e already erased
    assert targets(memories, ["x"]) == ["x", "c"]
    refs = referenced_contents([
        MemoryIngested(at=1, namespace="n", memory_id="b", content_hash="hb", dedup_key="k",
                       kind="event", input_hash="hin"),
        MemoryReinforced(at=2, namespace="n", memory_id="a", content_hash="hr", similarity=1.0,
                         rule="r"),
        MemorySkipped(at=3, namespace="n", memory_id="a", content_hash="hs", similarity=0.9,
                      rule="r"),
        MemoryReinforced(at=4, namespace="n", memory_id="x", content_hash="hx2", similarity=1.0,
                         rule="r"),  # another memory's input: not named by the erased ones
    ], {"a", "b", "c"})
    assert refs == {"hb", "hin", "hr", "hs"}
    # "ha" stays: d (not erased) holds the same text.
    assert contents_to_drop(memories, {"a", "b", "c"}, refs) == ["hb", "hc", "hin", "hr", "hs"]


# -- refusals, idempotence, isolation ------------------------------------------------------------


def test_erasing_an_unknown_id_or_empty_namespace_raises_and_writes_nothing(
    mem: eventmem.Engine,
) -> None:
    mem.remember("the violin case smells of rosin", namespace="a")
    head = mem.head()
    with pytest.raises(NotFoundError):
        mem.erase(memory_id="mem_nope")
    with pytest.raises(NotFoundError):
        mem.erase(namespace="nobody")
    for bad in ({}, {"memory_id": "x", "namespace": "a"}):
        with pytest.raises(InvalidInputError):
            mem.erase(**bad)
    with pytest.raises(InvalidInputError):
        mem.erase(namespace="a", reason="because she said: the violin case smells of rosin")
    assert mem.head() == head


def test_erase_is_idempotent_and_final(mem: eventmem.Engine) -> None:
    mid = stored(mem.remember("the violin case smells of rosin", namespace="a"))
    first = mem.erase(memory_id=mid)
    head = mem.head()
    assert mem.erase(memory_id=mid).memory_ids == ()
    assert mem.erase(namespace="a").seqs == ()
    assert mem.head() == head and first.seqs == (head.seq,)
    for write in (mem.forget, mem.pin, mem.touch, mem.feedback):
        with pytest.raises(InvalidInputError):
            write(mid)
    assert mem.head() == head
    mem.consolidate(now=mem.now() + timedelta(days=400))  # no sweep revives or purges it
    assert mem.get(mid).status == "erased" and mem.verify().ok


def test_views_refuse_erase_and_compact(mem: eventmem.Engine) -> None:
    mid = stored(mem.remember("the violin case smells of rosin"))
    view = mem.as_of(seq=mem.head().seq)
    with pytest.raises(ReadOnlyError):
        view.erase(memory_id=mid)
    with pytest.raises(ReadOnlyError):
        view.compact()


NAMESPACES = ("ann", "bob", "cy")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.lists(st.tuples(st.sampled_from(NAMESPACES), st.integers(0, 4)),
                       min_size=1, max_size=9, unique=True),
       victim=st.sampled_from(NAMESPACES))
def test_a_namespace_erase_touches_no_other_namespace(
    tmp_path_factory: pytest.TempPathFactory, clock: eventmem.ManualClock,
    layout: list[tuple[str, int]], victim: str,
) -> None:
    # The same text index in two namespaces is the same text: shared content must stay.
    with eventmem.open(tmp_path_factory.mktemp("ns") / "s", clock=clock) as mem:
        mem.remember_many([{"text": words(i), "namespace": ns} for ns, i in layout])
        before = {m.memory_id: m for m in mem.memories()}
        view = mem.as_of(seq=mem.head().seq)
        recalls = {(ns, i): [(h.memory_id, h.score)
                             for h in view.recall(words(i), namespace=ns)]
                   for ns, i in layout if ns != victim}
        head = mem.head()
        if victim not in {ns for ns, _ in layout}:
            with pytest.raises(NotFoundError):
                mem.erase(namespace=victim)
            assert mem.head() == head
            return
        done = mem.erase(namespace=victim)
        assert set(done.memory_ids) == {m for m, r in before.items() if r.namespace == victim}
        for mid, old in before.items():
            now = mem.get(mid)
            if old.namespace == victim:
                assert (now.status, now.text) == ("erased", None)
            else:
                assert now == old
        view = mem.as_of(seq=mem.head().seq)
        for ns, i in layout:
            if ns != victim:
                assert [(h.memory_id, h.score) for h in view.recall(words(i), namespace=ns)] \
                    == recalls[ns, i]
            else:
                assert view.recall(words(i), namespace=ns) == []
        assert mem.verify().ok


# -- verify --------------------------------------------------------------------------------------


def test_verify_reports_a_missing_blob_and_a_tampered_erasure_record(
    mem: eventmem.Engine,
) -> None:
    a = stored(mem.remember("the violin case smells of rosin", namespace="a"))
    mem.remember("the kettle whistles a flat note", namespace="a")
    mem.erase(memory_id=a)
    assert mem.verify().ok
    log = mem.store
    kettle = content_hash("the kettle whistles a flat note")
    log.environment.write(lambda txn: log.content.drop(txn, kettle))
    findings = mem.verify().findings
    assert [f.message for f in findings if f.check == "blob"] == [
        f"blob {content_hash('the kettle whistles a flat note')} is missing "
        "(a memory still holds it)"]
    log.set_meta(b"erasures", b"")
    assert "erasures" in {f.check for f in mem.verify().findings}


# -- CLI -----------------------------------------------------------------------------------------


def test_cli_erase_and_compact(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with eventmem.open(store_path) as mem:
        mid = stored(mem.remember("the violin case smells of rosin", namespace="a"))
        mem.remember("the kettle whistles a flat note", namespace="b")
        head = mem.head()
    store = ["--store", str(store_path)]
    assert cli_main([*store, "erase", "--namespace", "a"]) == 2
    assert "--yes" in capsys.readouterr().err
    with eventmem.open(store_path, readonly=True) as mem:
        assert mem.head() == head
    assert cli_main([*store, "--json", "erase", "--memory", mid]) == 0
    assert json.loads(capsys.readouterr().out)["memory_ids"] == [mid]
    assert cli_main([*store, "erase", "--namespace", "b", "--yes"]) == 0
    assert "erased 1 memories" in capsys.readouterr().out
    assert cli_main([*store, "erase", "--memory", "mem_nope"]) == 3
    capsys.readouterr()
    assert cli_main([*store, "compact", "--json"]) == 0
    sizes = json.loads(capsys.readouterr().out)
    assert sizes["after"] <= sizes["before"]
    assert cli_main([*store, "verify"]) == 0
    assert b"violin" not in b"".join(store_bytes(store_path).values())


# -- other processes and crashes -----------------------------------------------------------------


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


# Opens the store and erases (or holds it open, "read"), printing a marker where the parent
# kills it: inside the erase's uncommitted transaction, after the commit but before the fresh
# snapshot, or inside compact between the finished copy and its rename over data.mdb.
_CHILD = r"""
import sys, time
import eventmem
from eventmem import engine
from eventmem.storage import environment as log_module
from eventmem.storage.log import EventLog

store, mode, target = sys.argv[1:4]


def hang(marker):
    print(marker, flush=True)
    time.sleep(600)


if mode == "inside":
    real = EventLog.erase
    def erase(self, events, *, drop_contents):
        write = self.environment.write
        self.environment.write = lambda body: write(lambda txn: (body(txn), hang("holding"))[0])
        return real(self, events, drop_contents=drop_contents)
    EventLog.erase = erase
elif mode == "before_snapshot":
    engine.Engine.snapshot = lambda self: hang("committed")
elif mode == "compact":
    log_module.os.replace = lambda src, dst: hang("copied")
if mode == "read":
    with eventmem.open(store, readonly=True) as mem:
        mem.get(target)
        hang("reading")
with eventmem.open(store) as mem:
    mem.erase(memory_id=target)
    if mode == "compact":
        mem.compact()
"""


def _kill_at(store: Path, mode: str, target: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(store), mode, target],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_child_env(), cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until the marker (or the child's death)
    assert line.strip() in ("holding", "committed", "copied", "reading"), proc.communicate()
    if mode != "read":
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=WAIT)
    return proc


def _seed(store: Path) -> tuple[str, str]:
    with eventmem.open(store) as mem:
        secret = stored(mem.remember(SECRET, namespace="a"))
        kept = stored(mem.remember(KEPT, namespace="a"))
    return secret, kept


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["inside", "before_snapshot", "compact"])
def test_sigkill_during_erase_or_compact_leaves_a_consistent_store(
    store_path: Path, mode: str
) -> None:
    secret, kept = _seed(store_path)
    _kill_at(store_path, mode, secret)
    with eventmem.open(store_path) as mem:  # the writer lock is free again
        assert not (store_path / COMPACT_TMP).exists()
        report = mem.verify()
        assert report.ok, report.findings
        erased = mem.get(secret)
        if mode == "inside":  # nothing of the uncommitted erase
            assert (erased.status, erased.text) == ("active", SECRET)
            assert not [e for _, e in mem.events() if isinstance(e, MemoryErased)]
        else:
            assert (erased.status, erased.text) == ("erased", None)
            assert mem.store.blob(content_hash(SECRET)) is None
        assert mem.get(kept).text == KEPT
        mem.erase(memory_id=secret)  # and it keeps taking writes
        mem.compact()
    assert SECRET.encode() not in b"".join(store_bytes(store_path).values())


def test_compact_refuses_while_another_process_has_the_store_open(store_path: Path) -> None:
    secret, _ = _seed(store_path)
    reader = _kill_at(store_path, "read", secret)
    try:
        with eventmem.open(store_path) as mem, pytest.raises(StoreLockedError):
            mem.compact()
    finally:
        reader.kill()
        reader.wait(timeout=WAIT)


NAMED = "Margarethe Vollmerhausen works at Quixotelabs and lives in Tromsdalen"


def test_names_and_relations_extracted_from_an_erased_text_go_with_it(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """What the graph extracted is stored with the text, not in the immutable event: erasure
    and compaction leave no name behind either."""
    with eventmem.open(store_path, clock=clock) as mem:
        secret = stored(mem.remember(NAMED, namespace="n"))
        kept = stored(mem.remember("Bob works at Initech", namespace="n"))
        profile = mem.graph.entity("Margarethe Vollmerhausen", namespace="n")
        assert {r.relation for r in profile.relations} == {"works_at", "lives_in"}
        mem.erase(memory_id=secret)
        with pytest.raises(eventmem.NotFoundError):
            mem.graph.entity("Margarethe Vollmerhausen", namespace="n")
        assert mem.graph.entity("Bob", namespace="n").memory_ids == (kept,)
        assert rebuild(mem.store).digests() == mem._views.digests()
        mem.compact()
    everything = b"".join(store_bytes(store_path).values()).lower()
    for word in ("margarethe", "vollmerhausen", "quixotelabs", "tromsdalen"):
        assert word.encode() not in everything, word
    assert b"initech" in everything


def test_a_conflicts_evidence_goes_with_either_text(store_path: Path,
                                                     clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        old = stored(mem.remember("Alice lives in Tromsdalen", namespace="c"))
        clock.advance(timedelta(days=1))
        new = mem.remember("Alice moved to Paris", namespace="c")
        [found] = mem.conflicts(namespace="c", status=None)
        assert (found.old_value, found.new_value) == ("tromsdalen", "paris")
        mem.erase(memory_id=old)
        [blanked] = mem.conflicts(namespace="c", status=None)
        assert (blanked.subject, blanked.old_value, blanked.new_value) == ("", "", "")
        assert mem.get(new.memory_id).text == "Alice moved to Paris"
        assert rebuild(mem.store).digests() == mem._views.digests()
        assert mem.verify().ok
        mem.compact()
    everything = b"".join(store_bytes(store_path).values()).lower()
    assert b"tromsdalen" not in everything and b"alice moved to paris" in everything



@pytest.mark.parametrize("others", range(6))
def test_no_erased_byte_survives_compaction_whatever_the_page_layout(
        tmp_path: Path, clock: eventmem.ManualClock, others: int) -> None:
    """LMDB reuses page buffers without clearing them and its compacting copy copies pages
    whole, so stale text could sit in a page's unused bytes (it did, with one other memory
    written after the secret). Compaction writes live data into a fresh environment instead."""
    path = tmp_path / "store"
    with eventmem.open(path, clock=clock) as mem:
        secret = stored(mem.remember(SECRET, namespace="alice"))
        mem.remember(MERGING, namespace="alice")
        for i in range(others):
            mem.remember(f"unrelated note {i}: {words(i)}", namespace="alice")
        mem.erase(memory_id=secret)
        mem.compact()
        assert mem.verify().ok
    everything = b"".join(store_bytes(path).values()).lower()
    for word in distinctive(SECRET, MERGING):
        assert word.encode() not in everything, word


def test_labels_of_records_before_labels_1_still_read_and_are_blanked_by_erase(
    store_path: Path, clock: eventmem.ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older logs carry tags, refs and the session in the ingest itself: they still open,
    read, verify and audit, and an erase blanks them in the projections and the snapshot (the
    immutable log keeps those older records as they are)."""
    import eventmem.write.batch as batch_module
    import eventmem.write.items as items_module

    with monkeypatch.context() as old:  # the write path as it was: labels in the clear
        old.setattr(batch_module, "with_labels", lambda event, label, metadata=None: (event, {}))
        old.setattr(items_module, "session_key", lambda namespace, session: session)
        with eventmem.open(store_path, clock=clock) as mem:
            mid = stored(mem.remember(f"the {MARKER} ledger sits in the attic", namespace="v",
                                      tags=(f"t-{MARKER}",), session=f"s-{MARKER}"))
            [ingest] = [e for _, e in mem.events() if isinstance(e, MemoryIngested)]
            assert ingest.caller_hash is None and ingest.session == f"s-{MARKER}"
    with eventmem.open(store_path, clock=clock) as mem:
        got = mem.get(mid)
        assert (got.tags, got.session) == ((f"t-{MARKER}",), f"s-{MARKER}")
        assert [m.memory_id for m in mem.working(f"s-{MARKER}", namespace="v")] == [mid]
        assert mem.verify().ok and mem.audit().ok
        mem.erase(memory_id=mid)
        got = mem.get(mid)
        assert (got.tags, got.refs, got.session) == ((), (), None)
        assert mem.verify().ok and mem.audit().ok
        snapshot = mem.store.latest_snapshot()
        assert snapshot is not None and MARKER.encode() not in snapshot.data
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.get(mid).tags == ()
        assert rebuild(mem.store).digests() == mem.verify().digests
