"""The one codec: events <-> msgpack bytes, deterministic, with upcasters for old tags.

``order="deterministic"`` makes the bytes a function of the value alone (dict and set contents are
sorted), which the hash chain and the projection digests rely on.

Schema evolution: a new field with a default needs nothing here. An incompatible change gets a new
tag; the old tag keeps decoding through an upcaster registered in ``UPCASTERS`` that rewrites the
raw mapping into the new shape. Stored bytes are never rewritten.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from eventmem.errors import CorruptRecordError, InvalidInputError
from eventmem.events import AnyEvent, Event, event_tag

_encoder = msgspec.msgpack.Encoder(order="deterministic")
_decoder = msgspec.msgpack.Decoder(AnyEvent)
_raw_decoder = msgspec.msgpack.Decoder()

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


def decode(data: bytes | memoryview, *, seq: int | None = None) -> Event:
    """Decode one event; an old tag goes through its upcaster. Bad bytes raise
    :class:`CorruptRecordError` naming ``seq``."""
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
