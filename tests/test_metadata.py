"""A memory's metadata (eventmem.metadata): checked on the way in, carried by new versions,
returned on hits and listings, matched by filters, erased with the text; and the filter
semantics as a property against a plain reading of the documented rules."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import eventmem
from eventmem.metadata import MAX_KEYS, Filter, check, merged
from replay import rebuild


@pytest.mark.parametrize("bad", [
    ["not", "a", "mapping"], {"": 1}, {1: "int key"}, {"k" * 65: 1}, {"nested": {"a": 1}},
    {"nan": math.nan}, {"big": 2**60}, {"nul": "a\x00b"}, {"obj": object()},
    {f"k{i}": i for i in range(MAX_KEYS + 1)}, {"long": "x" * 5000}, {"list": [[1]]},
])
def test_bad_metadata_is_refused_and_writes_nothing(mem: eventmem.Engine, bad: Any) -> None:
    seq = mem.seq
    with pytest.raises(eventmem.InvalidInputError):
        mem.remember("Gina runs the Tuesday standup", metadata=bad)
    assert mem.seq == seq


def test_metadata_is_kept_returned_and_survives_a_rebuild(mem: eventmem.Engine) -> None:
    made = mem.remember("Gina runs the Tuesday standup",
                        metadata={"user": "u7", "score": 2.5, "labels": ["ops", "team"]})
    assert mem.get(made.memory_id).metadata == {"labels": ["ops", "team"], "score": 2.5,
                                                "user": "u7"}
    [hit] = mem.recall("who runs the standup")
    assert hit.metadata["user"] == "u7"
    hit.metadata["labels"].append("mutated")  # the caller's copy, not the store's
    assert mem.get(made.memory_id).metadata["labels"] == ["ops", "team"]
    assert rebuild(mem.store).state.memories[made.memory_id].metadata \
        == mem.get(made.memory_id).metadata
    assert mem.verify().ok and mem.audit().ok


def test_a_merge_or_update_carries_metadata_on(mem: eventmem.Engine) -> None:
    first = mem.remember("Hugo's team meets on Mondays at 10", metadata={"a": 1, "b": 1})
    newer = mem.update(first.memory_id, "Hugo's team meets on Mondays at 11", metadata={"b": 2})
    assert mem.get(newer.memory_id).metadata == {"a": 1, "b": 2}
    assert merged(None, {"x": 1}) == {"x": 1} and merged({"x": 1}, None) == {"x": 1}


def test_filters_narrow_recall_and_listing(mem: eventmem.Engine) -> None:
    for user, text in [("u1", "Ivy drinks oat milk lattes"), ("u2", "Ivy drinks black coffee")]:
        mem.remember(text, metadata={"user": user})
    assert [h.text for h in mem.recall("what does Ivy drink", filters={"user": "u2"})] \
        == ["Ivy drinks black coffee"]
    assert [m.text for m in mem.memories(filters={"user": {"$ne": "u2"}})] \
        == ["Ivy drinks oat milk lattes"]
    assert list(mem.memories(filters={"missing": {"$exists": True}})) == []
    # Filters are part of the answer: the recall cache does not serve one for the other.
    assert len(mem.recall("what does Ivy drink", filters={"user": "u1"})) == 1


def test_erasure_removes_metadata(mem: eventmem.Engine) -> None:
    made = mem.remember("Jon's badge number is 4471", metadata={"employee": "jon"})
    mem.erase(made.memory_id)
    assert mem.get(made.memory_id).metadata == {}
    assert rebuild(mem.store).state.memories[made.memory_id].metadata is None
    assert mem.verify().ok


@pytest.mark.parametrize("bad", [
    [("a", 1)], {"a": {"$in": 3}}, {"a": {"$gt": "x"}}, {"a": {"$exists": 1}},
    {"a": {"$in": [1], "$ne": 2}}, {"a": {"$like": "x"}}, {"": 1},
])
def test_bad_filters_are_refused(bad: Any) -> None:
    with pytest.raises(eventmem.InvalidInputError):
        Filter.of(bad)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                    st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from(["a", "b", "c"]))
values = st.one_of(scalars, st.lists(scalars, max_size=3))
metadata = st.dictionaries(st.sampled_from(["k", "m", "n"]), values, max_size=3)


def _same(a: Any, b: Any) -> bool:
    """JSON equality, as the module documents it: true is not 1, 1 is 1.0."""
    def sort(x: Any) -> str:
        return {bool: "bool", type(None): "null", str: "str"}.get(type(x), "number")
    return sort(a) == sort(b) and a == b


def _has(value: Any, wanted: Any) -> bool:
    return any(_same(v, wanted) for v in value) if isinstance(value, list) \
        else _same(value, wanted)


conditions = st.one_of(
    scalars.map(lambda v: ("eq", v)),
    st.lists(scalars, max_size=3).map(lambda v: ("$in", v)),
    scalars.map(lambda v: ("$ne", v)),
    st.tuples(st.sampled_from(["$gt", "$lt"]), st.integers(-5, 5)),
    st.booleans().map(lambda v: ("$exists", v)),
)


@given(metadata, st.dictionaries(st.sampled_from(["k", "m"]), conditions, max_size=2))
def test_filters_match_as_documented(data: dict[str, Any],
                                     spec: dict[str, tuple[str, Any]]) -> None:
    stored = check(data)
    filters = {key: v if op == "eq" else {op: v} for key, (op, v) in spec.items()}
    found = Filter.of(filters)

    def holds(key: str, op: str, operand: Any) -> bool:
        present, value = key in (stored or {}), (stored or {}).get(key)
        if op == "eq":
            return present and _has(value, operand)
        if op == "$in":
            return present and any(_has(value, o) for o in operand)
        if op == "$ne":
            return not (present and _has(value, operand))
        if op == "$exists":
            return present is operand
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return present and number and (value > operand if op == "$gt" else value < operand)

    expected = all(holds(key, op, v) for key, (op, v) in spec.items())
    assert (found is None and not spec) or (found is not None and found(stored) == expected)
