"""A map a snapshot stores in columns (projections.columns): read back lazily, it behaves as the
dict it was dumped from, read back in key order (or the order kept), under any mix of reads and
changes; its columns are canonical whatever was decoded."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections import columns
from projections.columns import (
    Deflated,
    LazyMap,
    MapColumns,
    Strings,
    map_columns,
    same_strings,
    strings_columns,
)


class Value(msgspec.Struct, array_like=True):
    n: int
    tag: str


_ENCODE = msgspec.msgpack.Encoder(order="deterministic").encode
_DECODE = msgspec.msgpack.Decoder(Value).decode

keys = st.text(alphabet="abcdé\x00\x01z", min_size=0, max_size=4)
values = st.builds(Value, st.integers(-3, 3), st.sampled_from(["", "x", "yy"]))
ops = st.lists(st.one_of(
    st.tuples(st.just("set"), keys, values),
    st.tuples(st.just("del"), keys),
    st.tuples(st.just("get"), keys),
    st.tuples(st.just("mutate"), keys),  # a fold changes a record in place
), max_size=30)


def loaded(mapping: dict[str, Value], *, ordered: bool = False) -> LazyMap[Value]:
    columns = map_columns(mapping, _ENCODE, ordered=ordered)
    # Through bytes, as from a file: nothing is shared with the dict.
    return LazyMap(MapColumns(*(bytes(part) for part in columns)), _DECODE)


def reread(mapping: dict[str, Value], *, ordered: bool = False) -> dict[str, Value]:
    """The dict an eager load of the columns gives: key order unless the order is kept."""
    items = mapping.items() if ordered else sorted(mapping.items())
    return {k: _DECODE(_ENCODE(v)) for k, v in items}


def apply(target: dict[str, Value] | LazyMap[Value], op: tuple) -> object:
    match op:
        case ("set", key, value):
            target[key] = msgspec.structs.replace(value)
        case ("del", key):
            if key in target:
                del target[key]
        case ("get", key):
            return target.get(key)
        case ("mutate", key):
            if key in target:
                target[key].n += 10
    return None


@settings(max_examples=300, deadline=None)
@given(start=st.dictionaries(keys, values, max_size=12), program=ops, ordered=st.booleans())
def test_a_loaded_map_behaves_as_the_dict_it_was_dumped_from(
        start: dict[str, Value], program: list[tuple], ordered: bool) -> None:
    lazy, model = loaded(start, ordered=ordered), reread(start, ordered=ordered)
    for op in program:
        assert apply(lazy, op) == apply(model, op)
        assert len(lazy) == len(model)
    assert list(lazy) == list(model)
    assert list(lazy.items()) == list(model.items())
    assert list(lazy.values()) == list(model.values())
    assert all((op[1] in lazy) == (op[1] in model) for op in program)
    # The columns are canonical: those of the changed map are the changed dict's.
    assert map_columns(lazy, _ENCODE, ordered=ordered) == map_columns(model, _ENCODE,
                                                                      ordered=ordered)


@given(start=st.dictionaries(keys, values, max_size=12), reads=st.lists(keys, max_size=6))
def test_columns_do_not_depend_on_what_was_decoded(start: dict[str, Value],
                                                   reads: list[str]) -> None:
    lazy = loaded(start)
    before = map_columns(lazy, _ENCODE)
    for key in reads:
        lazy.get(key)
    assert map_columns(lazy, _ENCODE) == before == map_columns(start, _ENCODE)


def test_values_are_decoded_on_first_use_only() -> None:
    lazy = loaded({f"k{i}": Value(i, "x") for i in range(100)})
    assert lazy.decoded == 0 and len(lazy) == 100 and "k5" in lazy and "k100" not in lazy
    assert lazy.decoded == 0  # membership and size read the keys only
    first = lazy["k5"]
    assert lazy["k5"] is first and lazy.decoded == 1  # kept: a fold changes it in place
    first.n = -1
    assert lazy["k5"].n == -1
    assert sum(1 for _ in lazy.values()) == 100 and lazy.decoded == 100


def test_the_order_kept_is_the_dicts_and_new_keys_go_last() -> None:
    lazy = loaded({"b": Value(1, ""), "a": Value(2, ""), "c": Value(3, "")}, ordered=True)
    assert list(lazy) == ["b", "a", "c"]
    del lazy["b"]
    lazy["b"] = Value(4, "")  # deleted and set again: last, as in a dict
    lazy["a"] = Value(5, "")  # changed: keeps its place
    lazy["0"] = Value(6, "")
    assert list(lazy) == ["a", "c", "b", "0"]
    assert [v.n for v in lazy.values()] == [5, 3, 4, 6]


# -- deflated values ---------------------------------------------------------------------------

_PACKING = Deflated(_ENCODE(Value(0, "yy")) * 4)
_DECODE_ALL = msgspec.msgpack.Decoder(list[Value]).decode


def _packed(value: Value) -> bytes:
    return _PACKING.pack(_ENCODE(value))


@settings(max_examples=200, deadline=None)
@given(start=st.dictionaries(keys, values, max_size=12), program=ops, ordered=st.booleans(),
       sweep=st.booleans())
def test_a_map_of_deflated_values_behaves_as_the_dict_and_digests_as_plain(
        start: dict[str, Value], program: list[tuple], ordered: bool, sweep: bool) -> None:
    """Values packed one by one (:class:`Deflated`) read back as the plain map does, one at a
    time or all at once; its columns are the packed ones of the changed dict, and ``plain``
    gives the plain columns (what the digests hash) whatever was decoded."""
    columns = map_columns(start, _packed, ordered=ordered)
    lazy = LazyMap(MapColumns(*(bytes(part) for part in columns)), _DECODE,
                   _DECODE_ALL if sweep else None, _PACKING)
    model = reread(start, ordered=ordered)
    assert map_columns(lazy, _ENCODE, ordered=ordered, plain=True) == map_columns(
        model, _ENCODE, ordered=ordered)
    for op in program:
        assert apply(lazy, op) == apply(model, op)
    assert list(lazy.items()) == list(model.items())
    assert map_columns(lazy, _packed, ordered=ordered) == map_columns(model, _packed,
                                                                      ordered=ordered)
    assert map_columns(lazy, _ENCODE, ordered=ordered, plain=True) == map_columns(
        model, _ENCODE, ordered=ordered)


def test_a_deflated_value_packs_smaller_and_a_damaged_one_is_refused() -> None:
    plain = _ENCODE(Value(1, "yy"))
    packed = _PACKING.pack(plain)
    assert _PACKING.unpack(packed) == plain
    with pytest.raises(ValueError, match=r"inflate|cut short"):
        _PACKING.unpack(packed[:-1])
    with pytest.raises(ValueError):
        _PACKING.unpack(packed + b"\x00")


def test_memory_records_pack_to_about_half() -> None:
    """The memories column's dictionary (projections._PACKINGS) against a record as the write
    path makes them."""
    from eventmem import codec
    from projections import _PACKINGS
    from projections.state import MemoryRecord

    at = 1_764_000_000_000_000
    record = MemoryRecord("mem_816b60911aac50df", "bench", "5afcaa2aec4be98e89a39af57b902a93",
                          "b27307baf825da4322dd0bffba8566f1", "event", "event:last_period",
                          "user", 60.0, 0.4120956116914749, 1.0, False, False, at, None, (), (),
                          at, 9263, at, 9263, status_since=at, utility_at=at, arousal=0.05,
                          category="correction")
    plain = codec.encode_value(record)
    packed = _PACKINGS["memories"].pack(plain)
    assert len(packed) < 0.6 * len(plain)
    assert _PACKINGS["memories"].unpack(packed) == plain


def test_a_strings_find_answers_as_its_search_whatever_it_remembered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings.find remembers its answers (the columns never change), a bounded number."""
    monkeypatch.setattr(columns, "_FOUND_KEPT", 3)
    keys = sorted(f"m{i:03d}" for i in range(0, 60, 3))
    strings = Strings(*strings_columns(keys))
    strings.append("m001")  # added since: never among the columns' strings
    for _ in range(2):
        for i in range(60):
            key = f"m{i:03d}"
            assert strings.find(key) == (keys.index(key) if key in keys else None)


def test_strings_are_the_same_as_a_list_of_the_same_strings() -> None:
    keys = ["a", "bé", "c"]
    strings = Strings(*strings_columns(keys))
    assert strings != keys  # no __eq__: why same_strings exists
    assert same_strings(strings, keys) and same_strings(keys, strings)
    assert not same_strings(strings, ["a", "bé"]) and not same_strings(strings, ["a", "b", "c"])
    strings.append("d")
    assert same_strings(strings, [*keys, "d"]) and not same_strings(strings, [*keys, "e"])
    strings.every()  # decoded and kept: compared as a list
    assert same_strings(strings, [*keys, "d"]) and not same_strings(strings, ["x", "bé", "c", "d"])


def test_offsets_are_four_bytes_and_a_column_past_4_gib_is_refused() -> None:
    """A column's offsets are uint32 (4 bytes a memory per column less than uint64); one that
    would not fit is refused, never wrapped into offsets that read other values."""
    dumped = map_columns({"a": 1, "bb": 2}, msgspec.msgpack.encode)
    assert len(dumped.key_at) == len(dumped.value_at) == 3 * 4
    with pytest.raises(ValueError, match="4 GiB"):
        columns._narrow(np.array([0, 1 << 32], dtype=np.uint64))
