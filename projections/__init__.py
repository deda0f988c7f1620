"""Pure folds of the event log into the views the engine queries.

:class:`Projections` bundles them: ``apply`` folds one envelope into every view, ``to_parts``
gives the snapshot (a small msgpack head, then columns: :mod:`projections.columns`), and
``from_bytes`` reads one back in place, decoding a record when it is first used; ``digests``
hash the same canonical form for ``verify``. Every view can be deleted and rebuilt from the log
and comes out byte-identical.
"""

from __future__ import annotations

import gc
import hashlib
import mmap
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import islice
from typing import Any

import msgspec
import numpy as np

from eventmem import codec
from eventmem.errors import CorruptRecordError
from eventmem.storage.envelope import Envelope
from projections import graph as graph_view
from projections import state as state_view
from projections import temporal as temporal_view
from projections import text as text_view
from projections import vectors as vector_view
from projections.columns import (
    Deflated,
    LazyMap,
    MapColumns,
    Strings,
    map_columns,
    strings_columns,
)
from projections.graph import Edge, EntityNode, Graph, GraphDump, NamespaceDump
from projections.links import LinksDump
from projections.state import MemoryRecord, State
from projections.temporal import Interval, Temporal
from projections.text import Text, TextDump
from projections.vectors import AnnDump, Vectors, VectorsDump, warm_keys

# Bump when a projection's folding rules or dump layout change: older snapshots are then ignored
# and the projections rebuilt from the log.
PROJECTION_VERSION = 22

__all__ = ["PROJECTION_VERSION", "Projections", "RowSource", "Section", "Snapshot", "paused_gc"]

# Where a snapshot that names its float32 vector rows (``Snapshot.rows_by_key``) reads them: given
# the warm rows' content keys (16 bytes each, joined: :func:`projections.vectors.warm_keys`),
# their float32 bytes in that order, or None when any of them is not there.
RowSource = Callable[[bytes], "bytes | bytearray | memoryview | None"]


class Section(msgspec.Struct, array_like=True, frozen=True):
    """One column of a snapshot: its name, where it starts (from the first column; 16-byte
    aligned), its length and its checksum (:func:`_fast_checksum`)."""

    name: str
    at: int
    length: int
    checksum: bytes


class Snapshot(msgspec.Struct, kw_only=True):
    """The head of a snapshot: every view folded to ``seq`` in its serializable form, under
    the :data:`PROJECTION_VERSION` that folded it, except what travels in columns after it
    (``sections``: the big maps, empty here, and the vector rows)."""

    version: int
    seq: int
    state: State
    temporal: Temporal
    vectors: VectorsDump
    text: TextDump
    graph: GraphDump
    # ANN indexes over sealed vector segments: a cache riding along (not in any digest; older
    # snapshots have none and older readers ignore it).
    ann: AnnDump | None = None
    sections: tuple[Section, ...] = ()
    # The warm vector rows are not in the snapshot, only their content keys: they are the rows
    # of the store's vector cache, read back from it (see Projections.to_parts).
    rows_by_key: bool = False


class Projections:
    """Every view of the log, folded to ``seq``."""

    def __init__(self) -> None:
        self.state = State()
        self.temporal = Temporal()
        self.vectors = Vectors()
        self.text = Text()
        self.graph = Graph()

    @property
    def seq(self) -> int:
        """The seq of the last envelope folded in (0: none)."""
        return self.state.seq

    def apply(self, env: Envelope) -> None:
        """Fold one envelope into every view."""
        self.apply_all((env,))

    def apply_all(self, envelopes: Iterable[Envelope]) -> Projections:
        """Fold envelopes in order. The vector, text and graph views take chunks (one slice, one
        index append per namespace), which folds them exactly as one at a time would."""
        it = iter(envelopes)
        return self.apply_chunks(iter(lambda: list(islice(it, _CHUNK)), []))

    def apply_chunks(self, chunks: Iterable[list[Envelope]]) -> Projections:
        """Fold lists of consecutive envelopes in order (:meth:`EventLog.envelope_chunks`): the
        same as :meth:`apply_all` over their concatenation."""
        state, temporal = self.state, self.temporal
        apply_state, apply_temporal = state_view.apply, temporal_view.apply  # the hot loop
        # The folds trust the log: an event the write path appended always fits the state
        # before it. One that does not (a memory never ingested, a row that is not there) is a
        # damaged record that still decodes, reported as such (the hash chain says more).
        for chunk in chunks:
            env = None
            try:
                for env in chunk:
                    apply_state(state, env)
                    apply_temporal(temporal, env)
            except _MISFIT as exc:
                raise _misfit(exc, env.seq if env else 0) from exc
            try:
                vector_view.apply_many(self.vectors, chunk)
                text_view.apply_many(self.text, chunk)
                graph_view.apply_many(self.graph, chunk)
            except _MISFIT as exc:
                raise _misfit(exc, chunk[0].seq, chunk[-1].seq) from exc
        return self

    def to_bytes(self) -> bytes:
        """The snapshot (see :meth:`to_parts`), joined."""
        return b"".join(self.to_parts())

    def to_parts(self, *, rows_by_key: bool = False) -> list[bytes | memoryview]:
        """The snapshot, in parts to be written one after another (the vector rows are views of
        the live matrix: write them before the next fold).

        Layout: magic and version, the checksum of the head, the head's length and the head
        (msgpack :class:`Snapshot`: every view's small parts, and where each column starts),
        then the columns, 16-byte aligned: the big maps (:data:`_COLUMNS`), the text, graph
        and vector columns (:func:`_text_out`, :func:`_graph_out`, :func:`_vectors_out`), the
        vector rows last. Columns of the same bytes are stored once (the memories' and the
        intervals' keys, most namespaces' row ids and their offsets). An open decodes the head
        alone and reads the columns in place (:mod:`projections.columns`).

        ``rows_by_key``: leave the float32 rows out, keeping only each row's content key (the
        store's vector cache holds them, losslessly packed: a second copy here was a third of
        a store's bytes); reading such a snapshot back needs a :data:`RowSource`. Rows added
        without a key (no fold adds one) keep the snapshot holding its rows."""
        with paused_gc():
            columns: dict[str, bytes | memoryview] = dict(self._columns())
            text, more = _text_out(self.text.dump())
            columns |= more
            graph, more = _graph_out(self.graph.dump())
            columns |= more
            vectors, rows = self.vectors.dump_parts()
            keys = self.vectors.dump_keys()
            # Named only when every warm row has a key (all zeros: none).
            by_key = rows_by_key and bool(
                warm_keys(vectors, b"".join(keys)).any(axis=1).all())
            if by_key:  # only the int8 codes of the cold rows stay
                rows = rows[len(vectors.spaces):]
            vectors, named = _vectors_out(vectors, keys)
            columns |= named
            ann, more = _ann_out(self.vectors.ann_dump())
            columns |= more
            parts: list[bytes | memoryview] = [*columns.values(), b"".join(rows)] \
                if len(rows) != 1 else [*columns.values(), rows[0]]
            sections: list[Section] = []
            unique: list[tuple[int, int]] = []  # (where, which part) of each part stored
            at = 0
            stored: dict[tuple[int, bytes], int] = {}  # (length, checksum) -> where
            for name, part in zip((*columns, "vectors"), parts, strict=True):
                checksum = _fast_checksum(part)
                same = stored.get((len(part), checksum))
                if same is None or bytes(part) != bytes(parts[unique[same][1]]):
                    at += -at % 16  # aligned: float32 rows for BLAS, uint64 offsets in place
                    same = len(unique)
                    unique.append((at, len(sections)))
                    stored[(len(part), checksum)] = same
                    at += len(part)
                sections.append(Section(name, unique[same][0], len(part), checksum))
            state = msgspec.structs.replace(self.state, memories={}, by_dedup={})
            temporal = msgspec.structs.replace(self.temporal, intervals={})
            head = codec.encode_value(Snapshot(
                version=PROJECTION_VERSION, seq=self.seq, state=state, temporal=temporal,
                vectors=vectors, text=text, graph=graph,
                ann=ann, sections=tuple(sections), rows_by_key=by_key))
        start = -(_BODY_AT + 8 + len(head)) % 16 + 8 + len(head)  # where the columns begin
        out: list[bytes | memoryview] = [
            _header(), _fast_checksum(head), len(head).to_bytes(8, "big"), head,
            bytes(start - 8 - len(head))]
        done = 0
        for at, i in unique:
            out += [bytes(at - done), parts[i]]
            done = at + len(parts[i])
        return out

    def _columns(self, *, plain: bool = False) -> dict[str, bytes]:
        """The columns of the big maps (:data:`_COLUMNS`), canonical; their values packed as
        a snapshot keeps them (:data:`_PACKINGS`), or ``plain`` (for the digests)."""
        out: dict[str, bytes] = {}
        for name, (mapping, encode, _, ordered) in zip(_COLUMNS, self._maps(), strict=True):
            packing = None if plain else _PACKINGS.get(name)
            if packing is not None:
                encode = _packed(encode, packing)
            out |= {f"{name}.{field}": bytes(value) for field, value in
                    map_columns(mapping, encode, ordered=ordered, plain=plain)
                    ._asdict().items()}
        return out

    def _maps(self) -> tuple[tuple[Mapping[str, Any], Callable[[Any], bytes],
                                   Callable[[memoryview], Any], bool], ...]:
        """Each big map (in :data:`_COLUMNS` order): the map, how a value is encoded and
        decoded, and whether its order is kept."""
        return ((self.state.memories, codec.encode_value, _record_decoder.decode, True),
                (self.state.by_dedup, str.encode, _utf8, False),
                (self.temporal.intervals, codec.encode_value, _interval_decoder.decode, False))

    @classmethod
    def from_bytes(cls, data: bytes | memoryview,
                   rows: RowSource | None = None) -> Projections | None:
        """Restore from a snapshot, reading its columns in place (``data`` must outlive the
        projections: a memory map of the snapshot file); None when it is of another version or
        damaged (the caller rebuilds from the log instead: a snapshot is only a cache).

        ``rows``: where a snapshot that names its vector rows reads them (see
        :meth:`to_parts`); without one, or when it lacks a row, such a snapshot gives None."""
        data = memoryview(data)
        if bytes(data[:_HEADER_SIZE]) != _header() or len(data) < _BODY_AT + 8:
            return None
        size = int.from_bytes(data[_BODY_AT:_BODY_AT + 8], "big")
        head = data[_BODY_AT + 8:_BODY_AT + 8 + size]
        # Without the checksums a flipped bit in a count, an id or a vector would decode fine
        # and silently become the live state.
        if len(head) != size or _fast_checksum(head) != bytes(data[_HEADER_SIZE:_BODY_AT]):
            return None
        try:
            with paused_gc():
                return cls._restore(data, head, rows)
        except (msgspec.DecodeError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def ann_of(data: bytes | memoryview) -> AnnDump | None:
        """The ANN indexes of a snapshot of *any* projection version (None when it has none or
        is damaged). A rebuild that could not use an older snapshot keeps its indexes: they
        are checked against the rows they were built on before they serve (see
        :meth:`Vectors.attach_ann`), so a new folding rule need not cost rebuilding them
        (twenty minutes at 1M memories)."""
        data = memoryview(data)
        if bytes(data[: len(_MAGIC)]) != _MAGIC or len(data) < _BODY_AT + 8:
            return None
        version = int.from_bytes(data[len(_MAGIC):_HEADER_SIZE], "big")
        checksum, body = bytes(data[_HEADER_SIZE:_BODY_AT]), data[_BODY_AT:]
        size = int.from_bytes(body[:8], "big")
        payload = body[8 : 8 + size]
        # Up to version 14 the checksum covered the whole body; since, the head (where the
        # indexes are).
        if (_checksum(body) if version <= 14 else _fast_checksum(payload)) != checksum:
            return None
        try:
            found = _ann_decoder.decode(payload)
            if found.ann is None or version <= 14:
                return found.ann
            # Since version 15 the index blobs are columns after the head.
            start = _BODY_AT + 8 + size
            start += -start % 16
            sections = {}
            for section in found.sections:
                if section.name.startswith("ann\x00"):
                    part = data[start + section.at:start + section.at + section.length]
                    if _fast_checksum(part) != section.checksum:
                        return None
                    sections[section.name] = part
            return _ann_in(found.ann, sections)
        except (msgspec.DecodeError, UnicodeDecodeError, ValueError, KeyError):
            return None

    @classmethod
    def _restore(cls, data: memoryview, head: memoryview,
                 rows: RowSource | None) -> Projections:
        """The projections in a snapshot whose head checked (raises when it does not decode,
        or a column does not match its checksum)."""
        snap = _snapshot_decoder.decode(head)
        start = _BODY_AT + 8 + len(head)
        start += -start % 16
        if len(data) != start + max((s.at + s.length for s in snap.sections), default=0):
            raise ValueError("snapshot of another length than its head says (truncated?)")
        sections = {}
        mapped = data.obj if isinstance(data.obj, mmap.mmap) else None
        for section in snap.sections:
            at = start + section.at
            part = data[at:at + section.length]
            # The vector rows it holds (the cold rows' codes; all rows in to_bytes) are
            # checked by verify (live against rebuilt), not here: reading them all would
            # bring them all into memory at every open.
            if len(part) != section.length or (
                    section.name != "vectors" and _fast_checksum(part) != section.checksum):
                raise ValueError(f"snapshot column {section.name} is damaged")
            sections[section.name] = part
            if mapped is not None and section.length >= _RELEASE_AT:
                _release(mapped, at, section.length)
        restored = cls()
        restored.state, restored.temporal = snap.state, snap.temporal
        maps = [LazyMap(_map_at(sections, f"{name}."), decode, _all_decoders.get(name),
                        _PACKINGS.get(name))
                for name, (_, _, decode, _) in zip(_COLUMNS, restored._maps(), strict=True)]
        snap.state.memories, snap.state.by_dedup, snap.temporal.intervals = maps
        vectors = _vectors_in(snap.vectors, sections)
        if snap.rows_by_key:
            found = None if rows is None else rows(warm_keys(vectors, sections[_KEYS]).tobytes())
            if found is None:
                raise ValueError("the vector rows this snapshot names are not in the store")
            restored.vectors = Vectors.load(vectors, found, sections["vectors"], sections[_KEYS])
        else:
            restored.vectors = Vectors.load(vectors, sections["vectors"], keys=sections[_KEYS])
        if snap.ann is not None:
            restored.vectors.attach_ann(_ann_in(snap.ann, sections))
        restored.text = Text.load(_text_in(snap.text, sections))
        restored.graph = Graph.load(_graph_in(snap.graph, sections))
        return restored

    def decoded(self) -> int:
        """How many values of the big maps were decoded since the snapshot was read (0 for
        projections folded from the log): an open decodes none."""
        maps = [m for m, *_ in self._maps()]
        maps += [m for ns in self.graph.namespaces.values() for m in (ns.entities, ns.edges)]
        return sum(m.decoded for m in maps if isinstance(m, LazyMap))

    def digests(self) -> dict[str, str]:
        """A hash per view of its canonical serialization, to compare live state with a rebuild
        (the big maps by their columns: the same whether a loaded map decoded a value or not)."""
        with paused_gc():
            columns = self._columns(plain=True)
            state = msgspec.structs.replace(self.state, memories={}, by_dedup={})
            temporal = msgspec.structs.replace(self.temporal, intervals={})
            digests = {
                "state": _digest(codec.encode_value(state), *(
                    part for name, part in columns.items() if name.split(".")[0] in
                    ("memories", "by_dedup"))),
                "temporal": _digest(codec.encode_value(temporal), *(
                    part for name, part in columns.items() if name.startswith("intervals."))),
                "text": _digest(*_with_columns(_text_out(self.text.dump()))),
                "graph": _digest(*_with_columns(_graph_out(self.graph.dump()))),
            }
        digests["vectors"] = _digest(self.vectors.digest_bytes())
        return dict(sorted(digests.items()))


_CHUNK = 1024
# What a fold raises on an event that does not fit the state before it (see apply_chunks).
_MISFIT = (KeyError, IndexError, ValueError, TypeError, AttributeError)


def _misfit(exc: Exception, first: int, last: int | None = None) -> CorruptRecordError:
    where = "the event" if last is None else f"an event in seqs {first}..{last}"
    return CorruptRecordError(
        f"{where} does not fit the state folded before it ({type(exc).__name__}: {exc}); the "
        "log is damaged: run verify, and restore the store from a copy", seq=first)
_MAGIC = b"EMSNAP"
_HEADER_SIZE = len(_MAGIC) + 4
_CHECKSUM_SIZE = 16
_BODY_AT = _HEADER_SIZE + _CHECKSUM_SIZE


def _header() -> bytes:
    return _MAGIC + PROJECTION_VERSION.to_bytes(4, "big")


def _checksum(body: bytes | memoryview) -> bytes:
    # sha256 is hardware-accelerated on current x86 and ARM, about twice blake2b's speed here.
    return hashlib.sha256(body).digest()[:_CHECKSUM_SIZE]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a bulk fold, dump or load without the cyclic garbage collector. They make millions
    of objects and no cycles, and each collection would walk every object made so far (and every
    other live one, such as an engine's projections) for nothing: a third of a rebuild's time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _digest(*parts: bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


# The big maps a snapshot stores in columns (see Projections._maps), by column name prefix.
_COLUMNS = ("memories", "by_dedup", "intervals")


def _record_prototypes() -> bytes:
    """Typical memory records, encoded: the preset dictionary the memories column's values are
    deflated against (a few hundred bytes of field layout, kinds, rules, statuses and times;
    against it a record packs to about half). Fixed here: changing it changes every snapshot
    (bump :data:`PROJECTION_VERSION`)."""
    at = 1_735_000_000_000_000  # a time in 2024, microseconds: the ints share their lead bytes
    kinds = ("context", "event", "preference", "identity", "relationship", "activity", "plan",
             "ephemeral")
    return b"".join(codec.encode_value(MemoryRecord(
        "mem_" + "0" * 16, "default", "0" * 32, "0" * 32, kind, f"{kind}:default", "user", 7.0,
        0.4, 1.0, False, False, at, None, (), (), at, 1, at, 1, status_since=at, utility_at=at))
        for kind in kinds)


# The big maps whose values a snapshot keeps deflated (see projections.columns.Deflated): the
# memory records, a third of a snapshot's bytes once the vectors were left out (300 bytes a
# record at 10k memories, 150 packed).
_PACKINGS: dict[str, Deflated] = {"memories": Deflated(_record_prototypes())}


def _packed(encode: Callable[[Any], bytes], packing: Deflated) -> Callable[[Any], bytes]:
    return lambda value: packing.pack(encode(value))
_CHECK_BLOCK = 8192  # words of 8 bytes summed per block of _fast_checksum
_RELEASE_AT = 1 << 20  # columns this long leave the resident set once checked


def _fast_checksum(data: bytes | memoryview) -> bytes:
    """A checksum at memory speed (sha256 runs at a few hundred MB/s here, and a 1M-memory
    snapshot is a gigabyte): the 64-bit sums of the blocks of 64 KiB, hashed. Any one flipped
    bit changes its block's sum; a damaged block anywhere changes the hash. Not a defence
    against a forger: the snapshot is tied to the log's chain hash for that."""
    data = memoryview(data).cast("B")
    words = np.frombuffer(data, dtype="<u8", count=len(data) // 8)
    blocks = len(words) // _CHECK_BLOCK
    sums = words[:blocks * _CHECK_BLOCK].reshape(blocks, _CHECK_BLOCK).sum(axis=1,
                                                                           dtype=np.uint64)
    rest = words[blocks * _CHECK_BLOCK:].sum(dtype=np.uint64)
    digest = hashlib.blake2b(sums.tobytes(), digest_size=_CHECKSUM_SIZE)
    digest.update(rest.tobytes())
    digest.update(data[len(words) * 8:])
    digest.update(len(data).to_bytes(8, "big"))
    return digest.digest()


# The text and graph dumps keep their small fields in the head; their per-memory columns (ids,
# postings, links) go to sections named by view, namespace and field, NUL apart (a namespace
# may hold any other character).


def _with_columns(split: tuple[msgspec.Struct, dict[str, bytes]]) -> list[bytes]:
    """A view's head and columns as one canonical sequence of bytes, for its digest."""
    head, columns = split
    return [codec.encode_value(head), *(part for _, part in sorted(columns.items()))]


def _text_out(dump: TextDump) -> tuple[TextDump, dict[str, bytes]]:
    """The text dump for the head, and its columns: each index's ids, and its postings joined
    (rows, then term frequencies, in term order, with where each term's start)."""
    head, columns = {}, {}
    for ns, index in dump.indexes.items():
        key = f"text\x00{ns}\x00"
        columns[key + "ids"], columns[key + "ids_at"] = strings_columns(index.ids)
        columns[key + "rows"] = b"".join(rows for rows, _ in index.postings)
        tfs = b"".join(tfs for _, tfs in index.postings)
        # A term's count in one memory's text is small: one byte each ("tf8", widened back to
        # uint32 at open; the bytes are few), the uint32 as folded when one is 256 or more.
        wide = np.frombuffer(tfs, dtype="<u4")
        if not len(wide) or int(wide.max()) < 256:
            columns[key + "tf8"] = wide.astype(np.uint8).tobytes()
        else:
            columns[key + "tfs"] = tfs
        sizes = np.fromiter((len(rows) for rows, _ in index.postings), dtype="<u8",
                            count=len(index.postings))
        columns[key + "at"] = np.concatenate(([0], np.cumsum(sizes))).astype("<u8").tobytes()
        head[ns] = msgspec.structs.replace(index, ids=(), postings=())
    return TextDump(indexes=head), columns


def _text_in(dump: TextDump, sections: Mapping[str, memoryview]) -> TextDump:
    """The text dump of :func:`_text_out`'s head and columns, read in place."""
    indexes = {}
    for ns, index in dump.indexes.items():
        key = f"text\x00{ns}\x00"
        at = sections[key + "at"].cast("B").cast("Q")
        rows = sections[key + "rows"]
        tfs = (np.frombuffer(sections[key + "tf8"], dtype=np.uint8).astype("<u4").data.cast("B")
               if key + "tf8" in sections else sections[key + "tfs"])
        if at[-1] != len(rows) or len(tfs) != len(rows):
            raise ValueError("postings do not match their offsets")
        indexes[ns] = msgspec.structs.replace(
            index, ids=Strings(sections[key + "ids"], sections[key + "ids_at"]),
            postings=tuple((rows[at[i]:at[i + 1]], tfs[at[i]:at[i + 1]])
                           for i in range(len(at) - 1)))
    return TextDump(indexes=indexes)


# Every vector row's content key (projections.vectors.KEY_SIZE bytes each), in row order.
_KEYS = "vectors.keys"


def _vectors_out(dump: VectorsDump, keys: list[memoryview]
                 ) -> tuple[VectorsDump, dict[str, bytes | memoryview]]:
    """The vector dump for the head, and its columns: each namespace's row ids (as the text
    index keeps its ids: the same bytes where the two hold the same memories, stored once) and
    every row's content key."""
    columns: dict[str, bytes | memoryview] = {}
    for ns, ids in dump.spaces.items():
        key = f"vectors\x00{ns}\x00"
        columns[key + "ids"], columns[key + "ids_at"] = strings_columns(ids)
    columns[_KEYS] = keys[0] if len(keys) == 1 else b"".join(keys)
    return msgspec.structs.replace(dump, spaces=dict.fromkeys(dump.spaces, ())), columns


def _vectors_in(dump: VectorsDump, sections: Mapping[str, memoryview]) -> VectorsDump:
    """The vector dump of :func:`_vectors_out`'s head and columns (the ids decoded)."""
    return msgspec.structs.replace(dump, spaces={
        ns: tuple(Strings(sections[f"vectors\x00{ns}\x00ids"],
                          sections[f"vectors\x00{ns}\x00ids_at"]).every())
        for ns in dump.spaces})


def _ann_out(dump: AnnDump | None) -> tuple[AnnDump | None, dict[str, bytes]]:
    """The ANN indexes for the head, and their blobs as columns (read in place, not copied,
    by an open: at 1M memories they are hundreds of megabytes)."""
    if dump is None:
        return None, {}
    columns, spaces = {}, {}
    for ns, segments in dump.spaces.items():
        for i, segment in enumerate(segments):
            columns[f"ann\x00{ns}\x00{i}"] = segment.blob
        spaces[ns] = tuple(msgspec.structs.replace(segment, blob=b"") for segment in segments)
    return msgspec.structs.replace(dump, spaces=spaces), columns


def _ann_in(dump: AnnDump, sections: Mapping[str, memoryview]) -> AnnDump:
    """The ANN indexes of :func:`_ann_out`'s head and columns."""
    return msgspec.structs.replace(dump, spaces={
        ns: tuple(msgspec.structs.replace(segment, blob=sections[f"ann\x00{ns}\x00{i}"])
                  for i, segment in enumerate(segments))
        for ns, segments in dump.spaces.items()})


_LINK_COLUMNS = ("counts", "others", "codes", "weights")


def _graph_out(dump: GraphDump) -> tuple[GraphDump, dict[str, bytes]]:
    """The graph dump for the head, and each namespace's columns: its entities and edges (as
    maps, :func:`map_columns`) and its links."""
    namespaces: dict[str, NamespaceDump] = {}
    columns: dict[str, bytes] = {}
    for ns, graph in dump.namespaces.items():
        for name, mapping in (("entities", graph.entities), ("edges", graph.edges)):
            key = f"{name}\x00{ns}\x00"
            columns |= {key + field: value for field, value in
                        map_columns(mapping, codec.encode_value)._asdict().items()}
        key, links = f"links\x00{ns}\x00", graph.links
        columns[key + "ids"], columns[key + "ids_at"] = strings_columns(links.ids)
        columns |= {key + name: getattr(links, name) for name in _LINK_COLUMNS}
        namespaces[ns] = NamespaceDump({}, {}, LinksDump(
            (), links.relations, b"", b"", b"", b""))
    return GraphDump(params=dump.params, namespaces=namespaces), columns


def _graph_in(dump: GraphDump, sections: Mapping[str, memoryview]) -> GraphDump:
    """The graph dump of :func:`_graph_out`'s head and columns, read in place."""
    for ns, graph in dump.namespaces.items():
        graph.entities = LazyMap(_map_at(sections, f"entities\x00{ns}\x00"),
                                 _entity_decoder.decode)
        graph.edges = LazyMap(_map_at(sections, f"edges\x00{ns}\x00"), _edge_decoder.decode)
        key = f"links\x00{ns}\x00"
        graph.links = LinksDump(Strings(sections[key + "ids"], sections[key + "ids_at"]),  # type: ignore[arg-type]
                                graph.links.relations,
                                *(sections[key + name] for name in _LINK_COLUMNS))  # type: ignore[arg-type]
    return dump


def _map_at(sections: Mapping[str, memoryview], prefix: str) -> MapColumns:
    """The columns of a map whose section names start with ``prefix``."""
    return MapColumns(*(sections[prefix + field] for field in MapColumns._fields))


def _release(mapped: mmap.mmap, at: int, length: int) -> None:
    """Let the whole pages of a checked column go from this process: they stay in the page
    cache and come back on first use, so an open does not keep every column it checked
    resident (its resident set would be most of the snapshot)."""
    first = -(-at // mmap.PAGESIZE) * mmap.PAGESIZE
    size = (at + length - first) // mmap.PAGESIZE * mmap.PAGESIZE
    if size > 0:
        mapped.madvise(mmap.MADV_DONTNEED, first, size)


def _utf8(data: memoryview) -> str:
    return str(data, "utf-8")


_snapshot_decoder = msgspec.msgpack.Decoder(Snapshot)
_record_decoder = msgspec.msgpack.Decoder(MemoryRecord)
_interval_decoder = msgspec.msgpack.Decoder(Interval)
_entity_decoder = msgspec.msgpack.Decoder(EntityNode)
# The maps a sweep reads whole: decoded in one call on a first pass over them all.
_all_decoders: dict[str, Callable[[bytes], list[Any]]] = {
    "memories": msgspec.msgpack.Decoder(list[MemoryRecord]).decode,
    "intervals": msgspec.msgpack.Decoder(list[Interval]).decode}
_edge_decoder = msgspec.msgpack.Decoder(Edge)


class _AnnOnly(msgspec.Struct):
    """The fields of a snapshot of any version that :meth:`Projections.ann_of` reads (the
    decoder skips the others): the indexes, and since version 15 where their blobs are."""

    ann: AnnDump | None = None
    sections: tuple[Section, ...] = ()


_ann_decoder = msgspec.msgpack.Decoder(_AnnOnly)
