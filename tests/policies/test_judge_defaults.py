"""The default judges are the rules, and what the write path keeps of any judge's answer:
a contradiction judge's default answers as detect_texts; a link judge's answer keeps only links
to candidates asked about, of a relation a judge may decide; a fact extractor's answer becomes an
extraction the graph can hold."""

from __future__ import annotations

import math

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from eventmem.events import Extraction, MemoryLink
from eventmem.policies.conflict.detect import detect_texts
from eventmem.policies.conflict.judge import RULES, ContradictionQuestion
from eventmem.policies.extract import relations
from eventmem.policies.extract.judge import RULES as FACT_RULES
from eventmem.policies.extract.judge import (
    ExtractedEntity,
    ExtractedFact,
    FactAnswer,
    FactQuestion,
    extraction,
)
from eventmem.policies.links import (
    JudgedLink,
    LinkAnswer,
    LinkCandidate,
    LinkQuestion,
    RuleLinkJudge,
    judged_links,
)

SAYINGS = ["Alice lives in Berlin", "Alice moved to Paris", "I love coffee", "I hate coffee",
           "Bob works at Acme", "Bob joined Globex", "I no longer drink tea", "I drink tea",
           "My birthday is May 3", "My birthday is June 9", "the meeting is on Friday"]


@given(st.sampled_from(SAYINGS), st.sampled_from(SAYINGS))
def test_the_default_contradiction_judge_answers_as_the_rules(new, old):
    answer = RULES.contradiction(ContradictionQuestion(new_text=new, old_text=old))
    found = detect_texts(new, old)
    assert answer.contradicts is (found is not None)
    if found is not None:
        assert (answer.subject, answer.attribute, answer.old_value, answer.new_value,
                answer.rule) == tuple(found)


def test_the_default_link_judge_is_the_write_paths_rule():
    question = LinkQuestion(text="I quit my job because my boss yelled at me", candidates=(
        LinkCandidate(memory_id="a", text="I quit my job", similarity=0.8),
        LinkCandidate(memory_id="b", text="my boss yelled", similarity=0.6)))
    assert [(x.memory_id, x.relation) for x in RuleLinkJudge().links(question).links] == [
        ("a", "causes"), ("b", "related_to")]
    elaborates = LinkQuestion(text="I quit my job at the bank in May", candidates=(
        LinkCandidate(memory_id="a", text="I quit my job", similarity=0.8),))
    assert RuleLinkJudge().links(elaborates).links[0].relation == "elaborates"
    assert RuleLinkJudge(elaborates_similarity=0.9).links(elaborates).links[0].relation \
        == "related_to"


def test_only_links_a_judge_may_decide_are_kept():
    question = LinkQuestion(text="t", candidates=(
        LinkCandidate(memory_id="a", text="u", similarity=0.7),
        LinkCandidate(memory_id="b", text="v", similarity=0.6)))
    answer = LinkAnswer(links=(
        JudgedLink(memory_id="a", relation="causes", weight=1.7),
        JudgedLink(memory_id="a", relation="related_to", weight=0.2),  # a second to a: dropped
        JudgedLink(memory_id="b", relation="supersedes", weight=0.5),  # not the judge's
        JudgedLink(memory_id="zzz", relation="related_to", weight=0.5),  # not asked about
        JudgedLink(memory_id="b", relation="elaborates", weight=math.nan)))
    assert judged_links(answer, question) == (
        MemoryLink(target="a", relation="causes", weight=1.0),
        MemoryLink(target="b", relation="elaborates", weight=0.0))


def decoded(data: bytes | None) -> Extraction:
    assert data is not None
    return msgspec.msgpack.decode(data, type=Extraction)


def test_a_fact_answer_becomes_an_extraction_the_graph_can_hold():
    answer = FactAnswer(
        entities=(ExtractedEntity(name="Zed Smith", type="person"),
                  ExtractedEntity(name="Initech", type="company"),  # unknown type: other
                  ExtractedEntity(name="zed smith", type="place"),  # same key: first wins
                  ExtractedEntity(name="  ", type="person")),
        facts=(ExtractedFact(subject="I", relation="Works With", object="Zed Smith",
                             confidence=3.0),
               ExtractedFact(subject="Zed Smith", relation="works at", object="Initech",
                             confidence=0.4),
               ExtractedFact(subject="Zed Smith", relation="knows", object="Nobody"),  # unnamed
               ExtractedFact(subject="Initech", relation="x", object="Initech"),  # to itself
               ExtractedFact(subject="Initech", relation="owns", object="Zed Smith",
                             confidence=math.inf)))
    found = decoded(extraction(answer))
    assert [(e.key, e.name, e.type) for e in found.entities] == [
        ("self", "I", "person"), ("zed smith", "Zed Smith", "person"),
        ("initech", "Initech", "other")]
    assert [(r.subject, r.relation, r.object, r.confidence) for r in found.relations] == [
        ("self", "works_with", "zed smith", 1.0), ("zed smith", "works_at", "initech", 0.4)]
    assert extraction(FactAnswer()) is None


@given(st.sampled_from([*SAYINGS, "Caroline: I work at Acme with Dave", "I met Ann in Rome"]))
def test_the_default_fact_extractor_names_what_the_rules_extract(text):
    ruled = relations.extract(text)
    kept = extraction(FACT_RULES.facts(FactQuestion(text=text)))
    if not ruled[0]:
        assert kept is None or not [e for e in decoded(kept).entities if e.key != "self"]
        return
    found = decoded(kept)
    assert {e.key for e in found.entities} - {"self"} == {e.key for e in ruled[0]} - {"self"}
