"""The write path's pluggable judges (eventmem.judges): a contradiction judge, a link judge and a
fact extractor decide in place of the rules; their answers are in the events; replay without
them rebuilds the same state; audit checks the decisions against the recorded answers; and the
default judges leave the log byte for byte as it was."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
import replay
from eventmem import (
    ContradictionAnswer,
    ContradictionQuestion,
    ExtractedEntity,
    ExtractedFact,
    FactAnswer,
    FactQuestion,
    JudgedLink,
    Judges,
    LinkAnswer,
    LinkQuestion,
)
from eventmem.config import Config
from eventmem.events import ConflictFlagged, JudgeRef, MemoryReinforced
from eventmem.policies.extract.relations import EXTRACTOR_VERSION
from tests.write.logged import checked, ingested

TEXTS = ["Alice lives in Berlin with her cat", "Alice drinks tea every morning",
         "Bob works at Acme in Paris", "Alice lives in Berlin with her cat",
         "Alice moved to Madrid last spring"]


class EveryPairContradicts:
    """A fake contradiction judge: whatever it is asked, the new text contradicts the old."""

    judge_id = "always-1"

    def __init__(self) -> None:
        self.asked: list[ContradictionQuestion] = []

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        self.asked.append(question)
        return ContradictionAnswer(contradicts=True, subject="alice", attribute="habit",
                                   old_value=question.old_text[:12],
                                   new_value=question.new_text[:12], rule="judged",
                                   confidence=0.75)


class NeverContradicts:
    judge_id = "never-1"

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        return ContradictionAnswer(contradicts=False)


class EverythingCauses:
    """A fake link judge: the new memory causes every candidate, at weight 0.9; it also answers
    what a link may not be (dropped)."""

    judge_id = "causes-1"

    def __init__(self) -> None:
        self.asked: list[LinkQuestion] = []

    def links(self, question: LinkQuestion) -> LinkAnswer:
        self.asked.append(question)
        every = [JudgedLink(memory_id=c.memory_id, relation="causes", weight=0.9)
                 for c in question.candidates]
        stray = JudgedLink(memory_id="mem-not-asked", relation="causes", weight=1.0)
        return LinkAnswer(links=(*every, stray))


class FixedFact:
    """A fake fact extractor: every text names Zed, who works at Initech."""

    judge_id = "fixed-facts-1"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def facts(self, question: FactQuestion) -> FactAnswer:
        self.asked.append(question.text)
        return FactAnswer(
            entities=(ExtractedEntity(name="Zed", type="person"),
                      ExtractedEntity(name="Initech", type="organization")),
            facts=(ExtractedFact(subject="Zed", relation="works at", object="Initech",
                                 confidence=0.6),))


class Raises:
    judge_id = "raises-1"

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        raise RuntimeError("the model is down")


def opened(path: Path, clock: eventmem.ManualClock, judges: Judges | None = None
           ) -> eventmem.Engine:
    return eventmem.open(path, clock=clock, config=Config(sync=False), judges=judges)


def rebuilt_digests(path: Path, clock: eventmem.ManualClock) -> dict[str, str]:
    """The projections folded from the log by a process that has no judge at all."""
    with eventmem.open(path, clock=clock, readonly=True) as again:
        return replay.rebuild(again.store).digests()


def test_a_contradiction_judge_decides_and_its_answer_is_recorded(store_path, clock):
    judge = EveryPairContradicts()
    mem = opened(store_path, clock, Judges(contradiction=judge))
    first = mem.remember("Alice lives in Berlin", namespace="a")
    second = mem.remember("Alice drinks tea every morning", namespace="a")
    # The rules see no contradiction here; the judge does, and the default strategy settles it.
    assert eventmem.RuleContradictionJudge().contradiction(ContradictionQuestion(
        new_text="Alice drinks tea every morning", old_text="Alice lives in Berlin")
    ).contradicts is False
    assert second.action == "superseded" and second.conflict_id is not None
    assert judge.asked[-1] == ContradictionQuestion(new_text="Alice drinks tea every morning",
                                                    old_text="Alice lives in Berlin")
    [flagged] = [e for _, e in mem.events() if isinstance(e, ConflictFlagged)]
    assert (flagged.judge, flagged.confidence, flagged.rule) == ("always-1", 0.75, "judged")
    assert flagged.memory_id == first.memory_id
    [conflict] = mem.conflicts(namespace="a", status=None)
    assert conflict.rule == "judged"
    assert ingested(mem, second.memory_id).judges == (JudgeRef("contradiction", "always-1"),)
    checked(mem)
    digests = mem._views.digests()
    mem.close()
    assert rebuilt_digests(store_path, clock) == digests


def test_a_judge_that_finds_nothing_is_followed_and_the_audit_agrees(store_path, clock):
    # "Alice moved to Madrid" contradicts "Alice lives in Berlin" by the rules; this judge
    # says no, so both stay current. Audit must not re-decide it with the rules.
    with opened(store_path, clock, Judges(contradiction=NeverContradicts())) as mem:
        mem.remember("Alice lives in Berlin", namespace="a")
        moved = mem.remember("Alice moved to Madrid", namespace="a")
        assert moved.action == "created" and moved.conflict_id is None
        assert ingested(mem, moved.memory_id).judges == (JudgeRef("contradiction", "never-1"),)
        checked(mem)
    with opened(store_path.parent / "rules", clock) as rules:
        rules.remember("Alice lives in Berlin", namespace="a")
        assert rules.remember("Alice moved to Madrid", namespace="a").action == "superseded"


def test_a_link_judge_decides_the_links_and_replay_never_asks_it(store_path, clock):
    judge = EverythingCauses()
    mem = opened(store_path, clock, Judges(links=judge))
    made = [mem.remember(text, namespace="a") for text in
            ("I went hiking in the Alps with Tom", "I went hiking in the Alps with Tom again",
             "Tom and I went hiking in the Alps last summer")]
    event = ingested(mem, made[-1].memory_id)
    assert judge.asked and event.links
    asked = {c.memory_id for c in judge.asked[-1].candidates}
    judged = [link for link in event.links if link.relation != "same_entity"]
    assert {link.target for link in judged} == asked
    assert all(link.relation == "causes" and link.weight == 0.9 for link in judged)
    assert "mem-not-asked" not in {link.target for link in event.links}
    assert event.judges == (JudgeRef("links", "causes-1"),)
    checked(mem)
    calls = len(judge.asked)
    digests = mem._views.digests()
    mem.close()
    assert rebuilt_digests(store_path, clock) == digests
    assert len(judge.asked) == calls


def test_a_fact_extractor_decides_the_graph_and_its_answer_is_stored(store_path, clock):
    extractor = FixedFact()
    mem = opened(store_path, clock, Judges(facts=extractor))
    result = mem.remember("The quarterly report is due on Friday", namespace="a")
    assert extractor.asked == ["The quarterly report is due on Friday"]
    event = ingested(mem, result.memory_id)
    assert event.extractor == "fixed-facts-1"
    assert event.judges == (JudgeRef("facts", "fixed-facts-1"),)
    zed = mem.graph.entity("Zed", namespace="a")
    assert zed is not None and zed.type == "person"
    assert [(r.subject, r.relation, r.object) for r in zed.relations
            if not r.derived] == [("zed", "works_at", "initech")]
    checked(mem)
    digests = mem._views.digests()
    mem.close()
    assert rebuilt_digests(store_path, clock) == digests
    assert len(extractor.asked) == 1


def test_a_judge_that_raises_fails_the_write_and_records_nothing(store_path, clock):
    with opened(store_path, clock, Judges(contradiction=Raises())) as mem:
        mem.remember("Alice lives in Berlin", namespace="a")
        head = mem.seq
        with pytest.raises(RuntimeError, match="the model is down"):
            mem.remember("Alice moved to Madrid", namespace="a")
        assert mem.seq == head
        checked(mem)


def test_a_judge_without_its_method_is_refused_at_open(store_path, clock):
    with pytest.raises(eventmem.InvalidInputError, match="contradiction judge"):
        opened(store_path, clock, Judges(contradiction=object()))  # type: ignore[arg-type]
    with pytest.raises(eventmem.InvalidInputError, match=r"eventmem\.Judges"):
        eventmem.open(store_path, clock=clock, judges={"links": None})  # type: ignore[arg-type]


def raw_log(path: Path, clock: eventmem.ManualClock, judges: Judges | None) -> list[bytes]:
    with opened(path, clock, judges) as mem:
        for text in TEXTS:
            mem.remember(text, namespace="a")
            clock.advance(timedelta(hours=1))
        mem.recall("where does Alice live", namespace="a")
        return [raw.payload for raw in mem.store.iter_raw(1)]


def test_the_default_judges_give_the_same_log_byte_for_byte(tmp_path, t0):
    defaults = Judges(contradiction=eventmem.RuleContradictionJudge(),
                      facts=eventmem.RuleFactExtractor(), links=eventmem.RuleLinkJudge(),
                      intent=eventmem.RuleIntentClassifier())
    given = raw_log(tmp_path / "given", eventmem.ManualClock(start=t0), defaults)
    none = raw_log(tmp_path / "none", eventmem.ManualClock(start=t0), None)
    assert given == none
    with eventmem.open(tmp_path / "none", clock=eventmem.ManualClock(start=t0),
                       readonly=True) as mem:
        events = [e for _, e in mem.events()]
    assert any(isinstance(e, MemoryReinforced) for e in events)
    for event in events:  # every new field at its default, so omitted from the bytes
        assert getattr(event, "judges", ()) == ()
        assert getattr(event, "judge", "") == "" and getattr(event, "intent_judge", "") == ""
        assert getattr(event, "extractor", "") in ("", EXTRACTOR_VERSION)
    assert b"judges" not in b"".join(none) and b"intent_judge" not in b"".join(none)


class Hashed:
    """A fake judge of every write role whose answers look arbitrary but are a pure function of
    the question (a digest): what an LLM might say, reproducibly."""

    judge_id = "hashed-1"

    @staticmethod
    def _digest(*texts: str) -> int:
        return hashlib.blake2b("\x00".join(texts).encode(), digest_size=4).digest()[0]

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        yes = self._digest(question.new_text, question.old_text) % 3 == 0
        return ContradictionAnswer(contradicts=yes, subject="s", attribute="a",
                                   old_value="o", new_value="n", rule="hashed", confidence=0.5)

    def links(self, question: LinkQuestion) -> LinkAnswer:
        relations = ("causes", "elaborates", "related_to", "same_entity")
        return LinkAnswer(links=tuple(
            JudgedLink(memory_id=c.memory_id, weight=c.similarity,
                       relation=relations[self._digest(question.text, c.memory_id) % 4])
            for c in question.candidates))

    def facts(self, question: FactQuestion) -> FactAnswer:
        names = [w.strip(".,") for w in question.text.split() if w[:1].isupper()]
        return FactAnswer(
            entities=tuple(ExtractedEntity(name=n, type="person") for n in names),
            facts=tuple(ExtractedFact(subject="I", relation="knows", object=n,
                                      confidence=0.7) for n in names[:1]))


WORDS = ["Alice", "Bob", "lives", "in", "Oslo", "Paris", "likes", "tea", "coffee", "moved",
         "to", "works", "at", "Acme", "now", "because", "it", "rains"]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=3, max_size=7).map(" ".join),
                min_size=2, max_size=8),
       st.sampled_from(["temporal", "use_new", "keep_existing", "ask", "merge"]))
def test_with_every_write_judge_replay_and_audit_hold(tmp_path_factory, t0, texts, strategy):
    path = tmp_path_factory.mktemp("judged") / "store"
    clock = eventmem.ManualClock(start=t0)
    judge = Hashed()
    mem = opened(path, clock, Judges(contradiction=judge, links=judge, facts=judge))
    for n, text in enumerate(texts):
        mem.remember_many([{"text": text, "on_conflict": strategy},
                           {"text": f"{text} again", "on_conflict": strategy}][: 1 + n % 2],
                          namespace="a")
        clock.advance(timedelta(minutes=5))
    checked(mem)
    digests = mem._views.digests()
    mem.close()
    assert rebuilt_digests(path, clock) == digests


def test_audit_reports_a_judged_decision_that_names_no_judge(store_path, clock, monkeypatch):
    # A log whose decision does not say a judge made it is re-derived with the rules, which
    # find no contradiction here: the audit reports it (it checks, it does not trust).
    from eventmem.write.batch import Batch

    real = Batch.__init__

    def unnamed(self: Batch, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        self.judge_refs = ()

    monkeypatch.setattr(Batch, "__init__", unnamed)
    with opened(store_path, clock, Judges(contradiction=EveryPairContradicts())) as mem:
        mem.remember("Alice lives in Berlin", namespace="a")
        assert mem.remember("Alice drinks tea every morning", namespace="a").conflict_id
        report = mem.audit()
        assert not report.ok and report.findings[0].field == "action"
