"""The codec: every event type round-trips, the bytes are a function of the value alone, garbage is
reported as corruption naming its seq, and old tags decode through upcasters."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from eventmem import codec
from eventmem.errors import CorruptRecordError, InvalidInputError
from eventmem.events import EVENT_TYPES, Event, FeedbackGiven, MemoryPinned, event_tag
from tests.strategies import EVENT_STRATEGIES
from tests.strategies import any_event as any_event_strategy

SETTINGS = settings(max_examples=40, deadline=None)

# msgpack holds 64-bit integers; strings must be valid UTF-8 (no lone surrogates).
_ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=30)
_floats = st.floats(allow_nan=False)  # NaN != NaN would make "round-trips" meaningless


# Event strategies live in tests/strategies.py, built from each event's own annotations, so a new
# event type or field is covered without touching this file.
any_event = any_event_strategy()


def test_every_event_type_has_a_unique_tag() -> None:
    tags = [cls.__struct_config__.tag for cls in EVENT_TYPES]
    assert all(isinstance(t, str) and t for t in tags)
    assert len(set(tags)) == len(tags)


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data())
def test_round_trip(cls: type[Event], data: st.DataObject) -> None:
    event = data.draw(EVENT_STRATEGIES[cls])
    encoded = codec.encode(event)
    decoded = codec.decode(encoded, seq=1)
    assert type(decoded) is cls
    assert decoded == event
    assert codec.encode(decoded) == encoded  # decoding loses nothing the bytes depend on


@SETTINGS
@given(event=any_event)
def test_encoding_is_byte_deterministic(event: Event) -> None:
    assert codec.encode(event) == codec.encode(event)
    # An equal value built separately (fresh containers, fresh struct) encodes to the same bytes.
    rebuilt = type(event)(**{
        name: tuple(value) if isinstance(value, tuple) else value
        for name, value in msgspec.structs.asdict(event).items()
    })
    assert rebuilt == event
    assert codec.encode(rebuilt) == codec.encode(event)


@SETTINGS
@given(a=any_event, b=any_event)
def test_different_values_give_different_bytes(a: Event, b: Event) -> None:
    # The hash chain relies on the converse of determinism too: equal bytes mean equal values.
    if codec.encode(a) == codec.encode(b):
        assert a == b


_NOT_A_STR = st.one_of(_floats, st.none(), st.lists(_text, max_size=2), _ints)


@SETTINGS
@given(event=any_event, value=_NOT_A_STR, data=st.data())
def test_an_event_with_a_mistyped_field_is_refused(event: Event, value: Any,
                                                   data: st.DataObject) -> None:
    # Whatever field of whatever event holds a value of the wrong type, encode() refuses it
    # rather than handing the log bytes that would never decode.
    fields = [field.name for field in msgspec.structs.fields(event)
              if field.type is str]  # a str | None field may rightly hold None
    if not fields:
        return
    name = data.draw(st.sampled_from(fields))
    broken = msgspec.structs.replace(event, **{name: value})
    with pytest.raises(InvalidInputError, match=f"would not read back.*{name}"):
        codec.encode(broken)


def test_an_int_in_a_float_field_is_refused() -> None:
    # It would decode (as 1.0) but re-encode to other bytes: the live fold would hold an int and
    # a replay a float, and their digests would differ.
    event = FeedbackGiven(at=1, namespace="n", memory_id="m", target=1, utility=0.5)
    with pytest.raises(InvalidInputError, match="reads back as another value"):
        codec.encode(event)
    assert codec.decode(codec.encode(msgspec.structs.replace(event, target=1.0))).target == 1.0


def test_a_value_equal_to_its_default_is_written_as_the_default() -> None:
    # msgspec omits a default by identity: "system" read from JSON is another object than the
    # field's default, and was refused as "reads back as another value".
    made_at_run_time = "".join(["sys", "tem"])
    assert made_at_run_time is not "system"  # noqa: F632 - the identity is the point
    event = MemoryPinned(at=1, namespace="n", memory_id="m", actor=made_at_run_time)
    assert codec.encode(event) == codec.encode(MemoryPinned(at=1, namespace="n", memory_id="m"))
    assert codec.decode(codec.encode(event)) == event


def test_tag_is_stored_in_the_bytes() -> None:
    event = MemoryPinned(at=1, namespace="n", memory_id="m")
    raw = msgspec.msgpack.decode(codec.encode(event))
    assert raw["type"] == event_tag(event) == "memory.pinned"


def _damaged(event: Event, index: int, mask: int) -> bytes:
    data = bytearray(codec.encode(event))
    data[index % len(data)] ^= mask
    return bytes(data)


@SETTINGS
@given(garbage=st.binary(max_size=64), seq=st.integers(min_value=1, max_value=2**40))
@example(garbage=b"\xa1\xff", seq=3)  # a msgpack str that is not UTF-8
@example(garbage=b"\x81\xa4type\xa2\xff\xfe", seq=4)  # ...as the tag
@example(garbage=b"", seq=5)
def test_garbage_raises_corrupt_record_with_seq(garbage: bytes, seq: int) -> None:
    try:
        codec.decode(garbage, seq=seq)
    except CorruptRecordError as exc:
        assert exc.seq == seq
        assert str(seq) in str(exc)
    # Random bytes that happen to be a valid event are fine: nothing to report then.


@SETTINGS
@given(event=any_event, index=st.integers(min_value=0), mask=st.integers(1, 255),
       seq=st.integers(min_value=1, max_value=2**40))
def test_damaged_event_bytes_decode_or_raise_corrupt_record(
    event: Event, index: int, mask: int, seq: int
) -> None:
    # A flipped byte in a stored record either still decodes (the hash chain catches it) or is
    # reported as corruption of that seq; never another exception.
    try:
        codec.decode(_damaged(event, index, mask), seq=seq)
    except CorruptRecordError as exc:
        assert exc.seq == seq


_msgpack_values = st.recursive(
    st.none() | st.booleans() | _ints | _floats | _text | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)


@SETTINGS
@given(
    value=st.one_of(
        _msgpack_values,
        # Maps that look like events: a "type" key of any shape, other keys anything.
        st.dictionaries(_text, _msgpack_values, max_size=4).flatmap(
            lambda d: _msgpack_values.map(lambda t: {**d, "type": t})
        ),
        st.sampled_from([cls.__struct_config__.tag for cls in EVENT_TYPES]).map(
            lambda tag: {"type": tag}
        ),
    ),
    seq=st.integers(min_value=1, max_value=2**40),
)
def test_well_formed_msgpack_that_is_no_event_raises_corrupt_record(value: Any, seq: int) -> None:
    data = msgspec.msgpack.encode(value)
    with pytest.raises(CorruptRecordError) as info:
        codec.decode(data, seq=seq)
    assert info.value.seq == seq


def test_decode_without_seq_still_raises_corrupt_record() -> None:
    with pytest.raises(CorruptRecordError) as info:
        codec.decode(b"\xc1")
    assert info.value.seq is None


def _old_pinned(raw: dict[str, Any]) -> dict[str, Any]:
    """v0 of memory.pinned used short field names."""
    return {"type": "memory.pinned", "at": raw["ts"], "namespace": raw["ns"],
            "memory_id": raw["id"], "actor": "user"}


def test_upcaster_decodes_an_old_tag_into_the_current_event() -> None:
    old = msgspec.msgpack.encode({"type": "memory.pinned.v0", "ts": 42, "ns": "alice",
                                  "id": "mem_1"})
    with pytest.raises(CorruptRecordError):  # unknown tag without an upcaster
        codec.decode(old, seq=9)
    codec.UPCASTERS["memory.pinned.v0"] = _old_pinned
    try:
        event = codec.decode(old, seq=9)
        assert event == MemoryPinned(at=42, namespace="alice", actor="user", memory_id="mem_1")
        # Current-tag records are not routed through upcasters.
        current = MemoryPinned(at=1, namespace="n", memory_id="m")
        assert codec.decode(codec.encode(current)) == current
    finally:
        del codec.UPCASTERS["memory.pinned.v0"]
    with pytest.raises(CorruptRecordError):
        codec.decode(old, seq=9)


def test_failing_upcast_is_a_corrupt_record_with_seq() -> None:
    broken = msgspec.msgpack.encode({"type": "memory.pinned.v0", "ns": "alice"})  # no ts, no id
    codec.UPCASTERS["memory.pinned.v0"] = _old_pinned
    try:
        with pytest.raises(CorruptRecordError) as info:
            codec.decode(broken, seq=13)
        assert info.value.seq == 13
        assert "memory.pinned.v0" in str(info.value)
    finally:
        del codec.UPCASTERS["memory.pinned.v0"]


# -- packed records (a store of format 3 stores every record through codec.pack) -------------


@SETTINGS
@given(event=any_event, seq=st.integers(min_value=1, max_value=2**40))
def test_a_packed_record_decodes_to_the_event(event: Event, seq: int) -> None:
    plain = codec.encode(event)
    packed = codec.pack(plain)
    assert packed[0] == codec.PACKED
    assert codec.unpack(packed, seq=seq) == plain
    assert codec.decode(packed, seq=seq) == event


@SETTINGS
@given(event=any_event)
def test_plain_records_read_as_they_always_did(event: Event) -> None:
    """A record of an older log (plain msgpack: a map, never the PACKED byte) is not touched."""
    plain = codec.encode(event)
    assert plain[0] != codec.PACKED
    assert codec.unpack(plain) is plain


def test_the_pack_dictionary_is_frozen() -> None:
    """Every packed record ever written inflates with exactly these bytes: an edit of the
    dictionary would make every format 3 log unreadable (a new one needs a new marker)."""
    import hashlib

    assert hashlib.sha256(codec.PACK_DICTIONARY).hexdigest() == (
        "d2aaadd836b4c8c1aae1712d3fa49257b866e1d23d20499e09bf453476ad0ffe")


def test_a_typical_ingest_packs_to_under_half() -> None:
    from eventmem.events import MemoryIngested, MemoryLink

    event = MemoryIngested(
        at=1735722780000000, namespace="alice", actor="user", memory_id="mem_e22f8f043dbf1cd6",
        content_hash="f1e175477433914a4437f4211ced0d3e",
        dedup_key="2c94e280470d37e6ba7d60732524bcba", kind="relationship",
        kind_rule="relationship:my_relation", kind_policy="classify-3", stability=180.0,
        importance=0.2966826319694519, valid_from=1735722780000000, policy="gate-7",
        priority="low", importance_channels=(0.2867305278778076, 0.0, 0.5, 0.5),
        neighbour="mem_39706982751e8ae1", similarity=0.713269,
        links=(MemoryLink("mem_39706982751e8ae1", "related_to", 0.713269),
               MemoryLink("mem_cde857a76c04ebd8", "same_entity", 0.5)),
        extractor="extract-1", item=125, valid_from_rule="transaction_time")
    plain = codec.encode(event)
    assert len(codec.pack(plain)) < len(plain) / 2


@SETTINGS
@given(event=any_event, index=st.integers(min_value=1), mask=st.integers(1, 255),
       cut=st.booleans(), seq=st.integers(min_value=1, max_value=2**40))
@example(event=MemoryPinned(at=1, namespace="n", memory_id="m"), index=1, mask=1, cut=True,
         seq=7)
def test_a_damaged_packed_record_decodes_or_raises_corrupt_record(
    event: Event, index: int, mask: int, cut: bool, seq: int
) -> None:
    packed = bytearray(codec.pack(codec.encode(event)))
    if cut:  # cut short, or (index past the end) with bytes after its end
        packed = packed[:index % len(packed)] if index < len(packed) else packed + b"\x00"
    else:
        packed[1 + index % (len(packed) - 1)] ^= mask
    try:
        codec.decode(bytes(packed), seq=seq)
    except CorruptRecordError as exc:
        assert exc.seq == seq
