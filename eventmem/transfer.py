"""A namespace's memories as JSON lines, out of a store and back into one.

One JSON object per line, one line per memory, fields left out at their defaults::

    {"id":"mem_...","namespace":"default","text":"I live in Denver.","kind":"fact",
     "created_at":"2026-03-01T09:00:00Z","valid_from":"2026-03-01T09:00:00Z",
     "importance":0.62,"metadata":{"user":"u42"}}

``id`` is the memory's id in the store it came from (information only: an import gives new
ids). Times are RFC 3339. The format carries what a memory *is* (its text and what the caller or
the engine said about it), not its life in the store it left: accesses, utility and lifecycle
start afresh in the store that imports it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import msgspec

from eventmem import checks, codec
from eventmem.clock import from_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.write.items import Item, check_items
from projections.state import MemoryRecord

Destination = str | os.PathLike[str] | TextIO


class Exported(msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """One line of an export."""

    text: str
    kind: str
    created_at: datetime
    importance: float
    namespace: str = "default"
    id: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    confidence: float = 1.0
    pinned: bool = False
    immutable: bool = False
    source: str = "user"
    tags: list[str] = msgspec.field(default_factory=list)
    refs: list[str] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


_ENCODER = msgspec.json.Encoder(order="deterministic")
_DECODER = msgspec.json.Decoder(Exported)


def exported(record: MemoryRecord, text: str) -> Exported:
    """The export line of a memory holding ``text``."""
    return codec.canonical(Exported(
        id=record.memory_id, namespace=record.namespace, text=text, kind=record.kind,
        created_at=from_micros(record.created_at),
        valid_from=None if record.valid_from is None else from_micros(record.valid_from),
        valid_until=None if record.valid_until is None else from_micros(record.valid_until),
        importance=record.importance, confidence=record.confidence,
        # A flashbulb memory was pinned by the engine: the importer's engine decides again.
        pinned=record.pinned and not record.flashbulb, immutable=record.immutable,
        source=record.source, tags=list(record.tags), refs=list(record.refs),
        metadata=dict(record.metadata or {})))


def write(lines: Iterable[Exported], destination: Destination) -> int:
    """Write ``lines`` as JSON lines to a path or a text stream; returns how many."""
    if isinstance(destination, str | os.PathLike):
        with Path(destination).open("w", encoding="utf-8") as stream:
            return write(lines, stream)
    count = 0
    for line in lines:
        destination.write(_ENCODER.encode(line).decode() + "\n")
        count += 1
    return count


def records(source: Destination) -> list[tuple[int, Exported]]:
    """The lines of an export (a path or a text stream) with their line numbers, decoded but
    not yet checked; blank lines are skipped. Raises InvalidInputError naming the first line
    that is not an export record."""
    if isinstance(source, str | os.PathLike):
        try:
            with Path(source).open(encoding="utf-8") as stream:
                return records(stream)
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"cannot read {os.fspath(source)!r}: {exc}") from None
    found = []
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            found.append((number, _DECODER.decode(line)))
        except msgspec.DecodeError as exc:
            raise InvalidInputError(f"line {number}: {exc}") from None
    return found


def read(source: Destination, *, namespace: str | None, config: Config, now: int
         ) -> list[Item]:
    """The items an export describes, every line checked as ``remember`` checks its input and
    first recorded no later than ``now``; ``namespace`` (when given) replaces each line's.
    Raises InvalidInputError naming the first bad line."""
    if namespace is not None:
        namespace = checks.namespace(namespace, config)
    items = []
    for number, record in records(source):
        try:
            mapping = {
                "text": record.text, "namespace": namespace or record.namespace,
                "kind": record.kind, "source": record.source, "importance": record.importance,
                "confidence": record.confidence, "valid_from": record.valid_from,
                "valid_until": record.valid_until, "pinned": record.pinned,
                "immutable": record.immutable, "tags": record.tags, "refs": record.refs,
                "metadata": record.metadata or None,
            }
            item = check_items([mapping], "default", config)[0]
            created = checks.optional_time(record.created_at, "created_at")
            if created is None or created > now:
                raise InvalidInputError("created_at is later than now")
        except InvalidInputError as exc:
            raise InvalidInputError(f"line {number}: {exc}") from None
        # Never valid before it was first recorded, as the store that exported it decided.
        starts = item.valid_from
        if starts is None and (item.valid_until is None or created < item.valid_until):
            starts = created
        items.append(msgspec.structs.replace(item, created_at=created, valid_from=starts))
    return items

