"""The one codec: events <-> msgpack bytes, deterministic, with upcasters for old tags.

``order="deterministic"`` makes the bytes a function of the value alone (dict and set contents are
sorted), which the hash chain and the projection digests rely on.

Schema evolution: a new field with a default needs nothing here. An incompatible change gets a new
tag; the old tag keeps decoding through an upcaster registered in ``UPCASTERS`` that rewrites the
raw mapping into the new shape. Stored bytes are never rewritten.

Packed records: a store of format 3 (:mod:`eventmem.storage.log`) stores each record's bytes
through :func:`pack`: deflated against a fixed dictionary of typical records, so the field names
every map repeats (and tags, ids' shapes, rule names) cost a few bits instead of ~400 bytes an
event. :func:`decode` reads packed and plain bytes alike (a packed record starts with a byte no
msgpack value starts with), so older logs read as they always did. The hash chain covers the
stored bytes, packed or not.
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Callable
from typing import Any, Final, TypeVar

import msgspec

from eventmem.errors import CorruptRecordError, InvalidInputError
from eventmem.events import AnyEvent, Event, event_tag

_encoder = msgspec.msgpack.Encoder(order="deterministic")
_decoder = msgspec.msgpack.Decoder(AnyEvent)
_raw_decoder = msgspec.msgpack.Decoder()
_raw_encode = msgspec.msgpack.Encoder().encode  # plain: the dictionary's maps, in written order

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
# old tag -> function turning its raw mapping into a current event's mapping (with a current tag).
UPCASTERS: dict[str, Upcaster] = {}

# msgspec reports invalid UTF-8 in a msgpack string as UnicodeDecodeError, not DecodeError.
_UNDECODABLE = (msgspec.DecodeError, UnicodeDecodeError)


@functools.cache
def _defaults(cls: type) -> tuple[tuple[str, Any], ...]:
    return tuple((f.name, f.default) for f in msgspec.structs.fields(cls)
                 if f.default is not msgspec.NODEFAULT)


S = TypeVar("S", bound=msgspec.Struct)


def canonical(struct: S) -> S:
    """``struct`` with every field that equals its default holding the default object itself.

    ``omit_defaults`` leaves a field out when its value *is* the default (identity, not
    equality). A value equal to it but made at run time (``"user"`` read from a JSON body or an
    import file) would be written out, then read back as the default object and left out: other
    bytes, and the check below would refuse an honest event. Only a value of the default's own
    type is replaced (an int in a float field stays, for the check to refuse), and never a
    float of the other sign (-0.0 == 0.0)."""
    same = {}
    for name, default in _defaults(type(struct)):
        value = getattr(struct, name)
        if value is default or type(value) is not type(default) or value != default:
            continue
        if not isinstance(value, float) or math.copysign(1, value) == math.copysign(1, default):
            same[name] = default
    return msgspec.structs.replace(struct, **same) if same else struct


def encode(event: Event) -> bytes:
    """The bytes the log stores for ``event``, checked to read back: they must decode with strict
    types into an event that encodes to the same bytes, or InvalidInputError is raised.

    Every event reaches the log through here (appends and erasures alike), so a value the
    argument checks missed (a float where a str belongs, a list, None) is refused before the
    write transaction instead of becoming a record that no read, replay or open can decode
    again. Comparing bytes, not events, also catches a value that decodes as another type (an
    int in a float field): the live fold would see one and a replay the other.
    """
    tag = event_tag(event) if isinstance(event, Event) else type(event).__name__
    try:
        data = _encoder.encode(canonical(event))
        if _encoder.encode(_decoder.decode(data)) == data:
            return data
        problem = "it reads back as another value"
    except (*_UNDECODABLE, TypeError, ValueError, OverflowError) as exc:
        problem = str(exc)
    raise InvalidInputError(
        f"event {tag} would not read back from the log ({problem}); nothing was written. "
        "An argument of the call has the wrong type: pass the documented one"
    )


def encode_value(value: Any) -> bytes:
    """Deterministic msgpack for non-event values (snapshots, digests)."""
    return _encoder.encode(value)


# The first byte of a packed record: 0xc1 is the one byte msgpack never uses, so no plain
# record starts with it.
PACKED = 0xC1
# What a packed record is deflated against: typical records, as msgpack maps. Frozen: every
# packed record ever written inflates with exactly these bytes, so they are written out here
# (not derived from the event classes, which grow) and a test pins their hash. A better
# dictionary would be a new marker byte beside this one, never an edit of it. Neutral values
# (no namespace, zero ids): what repeats is the schema, not any one store's data.
_PROTOTYPES: Final = (
    {"type": "store.embedder_registered", "at": 1700000000000000, "namespace": "",
     "embedder_id": "hash-v1-d256", "dim": 256, "cold_vectors": "int8"},
    {"type": "memory.reinforced", "at": 1700000000000000, "namespace": "", "actor": "user",
     "memory_id": "mem_0000000000000000", "content_hash": "00000000000000000000000000000000",
     "similarity": 0.9, "rule": "semantic_duplicate", "policy": "gate-", "stability": 7.0,
     "item": 1},
    {"type": "memory.skipped", "at": 1700000000000000, "namespace": "", "actor": "user",
     "memory_id": "mem_0000000000000000", "content_hash": "00000000000000000000000000000000",
     "similarity": 0.9, "rule": "near_duplicate_skip", "policy": "gate-", "item": 1},
    {"type": "conflict.flagged", "at": 1700000000000000, "namespace": "", "actor": "user",
     "conflict_id": "cf_0000000000000000", "memory_id": "mem_0000000000000000",
     "other_id": "mem_0000000000000000", "content_hash": "00000000000000000000000000000000",
     "rule": "value_of_", "similarity": 0.5, "strategy": "temporal", "policy": "gate-"},
    {"type": "conflict.resolved", "at": 1700000000000000, "namespace": "", "actor": "user",
     "conflict_id": "cf_0000000000000000", "strategy": "temporal",
     "winner": "mem_0000000000000000", "loser": "mem_0000000000000000", "policy": "gate-"},
    {"type": "memory.superseded", "at": 1700000000000000, "namespace": "", "actor": "user",
     "memory_id": "mem_0000000000000000", "by": "mem_0000000000000000",
     "until": 1700000000000000, "rule": "conflict_temporal", "similarity": 0.5,
     "conflict_id": "cf_0000000000000000", "policy": "gate-"},
    {"type": "memory.ingested", "at": 1700000000000000, "namespace": "", "actor": "user",
     "memory_id": "mem_0000000000000000", "content_hash": "00000000000000000000000000000000",
     "dedup_key": "00000000000000000000000000000000", "kind": "event", "kind_rule": "event:",
     "kind_policy": "classify-", "stability": 60.0, "importance": 0.5, "confidence": 1.0,
     "valid_from": 1700000000000000, "valid_until": 1700000000000000, "policy": "gate-",
     "priority": "low", "importance_channels": [0.5, 0.0, 0.5, 0.5],
     "valid_until_rule": "timebound:", "neighbour": "mem_0000000000000000", "similarity": 0.5,
     "links": [["mem_0000000000000000", "related_to", 0.5],
               ["mem_0000000000000000", "same_entity", 0.5]],
     "extractor": "extract-", "item": 1, "valid_from_rule": "transaction_time"},
)
PACK_DICTIONARY: Final = b"".join(_raw_encode(p) for p in _PROTOTYPES)


def pack(data: bytes) -> bytes:
    """A record's bytes as a store of format 3 keeps them (raw deflate against
    :data:`PACK_DICTIONARY`, after the :data:`PACKED` byte)."""
    # Level 6 (zlib's default): level 9 packs no smaller here at twice the time.
    packer = zlib.compressobj(6, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, PACK_DICTIONARY)
    return bytes((PACKED,)) + packer.compress(data) + packer.flush()


def unpack(data: bytes | memoryview, *, seq: int | None = None) -> bytes | memoryview:
    """A stored record's msgpack bytes: a packed one inflated, a plain one as it is.
    CorruptRecordError (naming ``seq``) when a packed one does not inflate."""
    if not data or data[0] != PACKED:
        return data
    try:
        inflater = zlib.decompressobj(-15, PACK_DICTIONARY)
        plain = inflater.decompress(data[1:])
        if inflater.eof and not inflater.unused_data:
            return plain
        problem = "it is cut short" if not inflater.eof else "bytes follow its end"
    except zlib.error as exc:
        problem = str(exc)
    raise CorruptRecordError(f"packed record does not inflate: {problem}", seq=seq)


def decode(data: bytes | memoryview, *, seq: int | None = None) -> Event:
    """Decode one event, packed (:func:`pack`) or plain; an old tag goes through its
    upcaster. Bad bytes raise :class:`CorruptRecordError` naming ``seq``."""
    data = unpack(data, seq=seq)
    try:
        return _decoder.decode(data)
    except _UNDECODABLE as exc:
        try:
            raw = _raw_decoder.decode(data)
        except _UNDECODABLE:
            raise CorruptRecordError(f"event does not decode: {exc}", seq=seq) from None
        tag = raw.get("type") if isinstance(raw, dict) else None
        # Garbage may carry an unhashable "type" (a list, a map): that is corruption, not a crash.
        upcast = UPCASTERS.get(tag) if isinstance(tag, str) else None
        if upcast is None:
            raise CorruptRecordError(f"event does not decode: {exc}", seq=seq) from None
        try:
            return msgspec.convert(upcast(raw), AnyEvent)
        except (msgspec.ValidationError, KeyError, TypeError, ValueError) as up_exc:
            raise CorruptRecordError(f"upcast of {tag!r} failed: {up_exc}", seq=seq) from None
