"""The audit's stand-ins for pluggable judges (replay.judges) give back what the events recorded,
and the new event fields keep older records decoding as they were."""

from __future__ import annotations

import msgspec
import pytest

from eventmem import codec
from eventmem.events import (
    ConflictEvidence,
    ConflictFlagged,
    JudgeRef,
    MemoryIngested,
    MemoryLink,
    MemoryRecalled,
    MemorySkipped,
)
from eventmem.policies.conflict.judge import ContradictionQuestion
from eventmem.policies.extract.judge import FactQuestion
from eventmem.policies.links import LinkCandidate, LinkQuestion
from replay.judges import (
    RecordedExtractor,
    judges_named,
    replayed_contradictions,
    replayed_links,
)

EVIDENCE = msgspec.json.encode(ConflictEvidence(subject="alice", attribute="home",
                                                old_value="oslo", new_value="boat")).decode()
TEXTS = {"h-old": "Alice lives in Oslo", "h-new": "Alice lives on a boat", "h-ev": EVIDENCE}


def ingest(memory_id: str, chash: str, **fields: object) -> MemoryIngested:
    return MemoryIngested(at=1, namespace="a", memory_id=memory_id, content_hash=chash,
                          dedup_key=chash, kind="event", **fields)  # type: ignore[arg-type]


def test_the_contradiction_stand_in_answers_only_the_recorded_pair():
    flagged = ConflictFlagged(at=1, namespace="a", conflict_id="cf", memory_id="m-old",
                              other_id="m-new", content_hash="h-ev", rule="llm", similarity=0.4,
                              strategy="temporal", judge="llm-1", confidence=0.8)
    unjudged = msgspec.structs.replace(flagged, judge="", memory_id="m-other")
    ids = {"m-old": "h-old", "m-new": "h-new"}
    stand_in = replayed_contradictions(
        [[ingest("m-new", "h-new"), flagged, unjudged]], ["Alice lives on a boat"],
        lambda mid: TEXTS.get(ids.get(mid, "")), TEXTS.get, "llm-1")
    answer = stand_in.contradiction(ContradictionQuestion(new_text="Alice lives on a boat",
                                                          old_text="Alice lives in Oslo"))
    assert answer.contradicts and (answer.rule, answer.confidence) == ("llm", 0.8)
    assert (answer.subject, answer.old_value, answer.new_value) == ("alice", "oslo", "boat")
    other = stand_in.contradiction(ContradictionQuestion(new_text="Alice lives on a boat",
                                                         old_text="Bob lives in Oslo"))
    assert not other.contradicts
    assert stand_in.judge_id == "llm-1"


def test_the_link_stand_in_gives_back_the_judged_links_of_the_text():
    made = ingest("m-new", "h-new", links=(MemoryLink("m-old", "causes", 0.7),
                                           MemoryLink("m-x", "same_entity", 0.5)))
    stand_in = replayed_links([made], TEXTS.get, "llm-1")
    question = LinkQuestion(text="Alice lives on a boat", candidates=(
        LinkCandidate(memory_id="m-old", text="Alice lives in Oslo", similarity=0.7),))
    assert [(x.memory_id, x.relation, x.weight) for x in stand_in.links(question).links] == [
        ("m-old", "causes", 0.7)]  # same_entity links are the extraction's, re-derived
    assert stand_in.links(LinkQuestion(text="else", candidates=())).links == ()


def test_the_extractor_stand_in_is_never_asked():
    with pytest.raises(ValueError, match="stored with the text"):
        RecordedExtractor("llm-1").facts(FactQuestion(text="x"))


def test_the_judges_a_batch_names():
    skipped = MemorySkipped(at=1, namespace="a", memory_id="m", content_hash="h",
                            similarity=0.9, rule="near_duplicate",
                            judges=(JudgeRef("contradiction", "llm-1"),))
    made = ingest("m2", "h2", judges=(JudgeRef("links", "llm-2"),))
    assert judges_named([skipped, made]) == {"contradiction": "llm-1", "links": "llm-2"}
    assert judges_named([ingest("m3", "h3")]) == {}


def test_records_without_the_new_fields_decode_and_encode_as_before():
    recalled = MemoryRecalled(at=1, namespace="a", query="", k=5, memory_ids=("m",),
                              scores=(0.5,))
    flagged = ConflictFlagged(at=1, namespace="a", conflict_id="cf", memory_id="m",
                              other_id="n", content_hash="h", rule="negation", similarity=0.4,
                              strategy="ask")
    for event in (recalled, flagged, ingest("m", "h")):
        data = codec.encode(event)
        for name in (b"judges", b"judge", b"confidence", b"intent", b"intent_judge"):
            assert name not in data
        assert codec.decode(data) == event
    assert codec.decode(codec.encode(recalled)).intent == ""
    assert codec.decode(codec.encode(flagged)).confidence is None
