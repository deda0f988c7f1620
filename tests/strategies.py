"""Hypothesis strategies and the data they draw from, shared by the tests: memory texts,
namespaces, kinds, time steps, every event type of :mod:`eventmem.events`, the facts the
engine's write path and dream cycle are tested on, text that trips the text policies and the
fast paths, and the state projection's memory records.

Memory texts come mostly from a small vocabulary, so that duplicates and their case, spacing and
Unicode-form variants happen often (they are what the write gate has to get right), and now and
then from arbitrary Unicode (never lone surrogates: they are not text, and the API refuses them).

Event strategies are built from each event's own annotations (``msgspec.inspect``), with realistic
values for the fields whose meaning is known (ids, hashes, kinds, times), so a new event type or
field is covered without touching this file.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Literal

import msgspec
from hypothesis import strategies as st

from eventmem.events import ACTORS, EVENT_TYPES, MEMORY_KINDS, Event
from projections.state import MemoryRecord

__all__ = [
    "ACTORS_ST",
    "BASE_TEXTS",
    "CAT",
    "CITIES",
    "EVENT_STRATEGIES",
    "HIKES",
    "NAMES",
    "NAMESPACES",
    "ORGS",
    "OTHERS",
    "PEOPLE",
    "QUERIES",
    "any_event",
    "arbitrary_texts",
    "ats",
    "cat",
    "chat_texts",
    "event_strategy",
    "fast_path_texts",
    "hikes",
    "kinds",
    "memory_ids",
    "memory_record",
    "memory_texts",
    "namespaces",
    "queries",
    "statements",
    "text_variants",
    "time_advances",
    "unicode_texts",
    "vocabulary_texts",
]

# -- memory texts -----------------------------------------------------------------------------

# Overlapping words on purpose: recall has to rank among near neighbours, not pick the only match.
BASE_TEXTS: tuple[str, ...] = (
    "Alice moved to Berlin in March",
    "Alice works at Acme as a data engineer",
    "Alice prefers tea over coffee",
    "Bob prefers coffee over tea",
    "Bob lives in Paris with his dog",
    "The team standup is at nine every Monday",
    "Deploys are frozen during the Berlin offsite",
    "Zoë likes café au lait",  # non-ASCII: NFC/NFD and case variants must still deduplicate
)

QUERIES: tuple[str, ...] = (
    "where does alice live",
    "tea or coffee",
    "Berlin",
    "who works at Acme",
    "standup time",
    "dog",
    "café",
    "nothing here matches xyzzy",
)

NAMESPACES: tuple[str, ...] = ("default", "alice", "bob", "team/ops", "zoë")

_WS = st.sampled_from([" ", "  ", "\t", "\n", " \u00a0", "\u3000"])  # ASCII and Unicode spaces
_EDGE = st.sampled_from(["", "", " ", "\t", "\n ", "\u2003"])  # around the text


@st.composite
def text_variants(draw: st.DrawFn, base: str) -> str:
    """``base`` as a user might retype it: other case, other spacing, other Unicode form.
    Every variant has the same dedup key as ``base`` (NFKC, casefold, collapsed whitespace)."""
    words = base.split()
    case = draw(st.sampled_from(["same", "lower", "upper", "title", "swap"]))
    if case != "same":
        words = [getattr(w, case if case != "swap" else "swapcase")() for w in words]
    text = words[0]
    for word in words[1:]:
        text += draw(_WS) + word
    text = draw(_EDGE) + text + draw(_EDGE)
    form: Literal["NFC", "NFD", "NFKC"] = draw(st.sampled_from(["NFC", "NFC", "NFD", "NFKC"]))
    text = unicodedata.normalize(form, text)
    if draw(st.booleans()) and text.isascii():
        # Fullwidth letters are compatibility forms of ASCII ones: NFKC folds them back.
        text = "".join(chr(ord(c) + 0xFEE0) if c.isalpha() and c.isascii() else c for c in text)
    return text


def vocabulary_texts() -> st.SearchStrategy[str]:
    """A vocabulary sentence, as given or as a case/space/Unicode-form variant."""
    return st.sampled_from(BASE_TEXTS).flatmap(
        lambda base: st.one_of(st.just(base), text_variants(base))
    )


_text_chars = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")


def arbitrary_texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Arbitrary Unicode that the API accepts as a memory: no lone surrogates, no NUL, and at
    least one non-whitespace character."""
    return st.tuples(
        st.text(_text_chars, max_size=max_size // 2),
        st.characters(exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]),
        st.text(_text_chars, max_size=max_size // 2),
    ).map("".join).filter(lambda s: bool(s.split()))


def memory_texts() -> st.SearchStrategy[str]:
    """Mostly vocabulary (so duplicates are common), occasionally arbitrary Unicode."""
    return st.one_of(vocabulary_texts(), vocabulary_texts(), vocabulary_texts(), arbitrary_texts())


def queries() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(QUERIES), st.sampled_from(BASE_TEXTS), vocabulary_texts())


def namespaces() -> st.SearchStrategy[str]:
    return st.sampled_from(NAMESPACES)


def kinds() -> st.SearchStrategy[str]:
    return st.sampled_from(MEMORY_KINDS)


ACTORS_ST = st.sampled_from(ACTORS)


def unicode_texts(max_size: int) -> st.SearchStrategy[str]:
    """Any Unicode text (empty and whitespace too) but lone surrogates, which are not text."""
    return st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=max_size)


# The words the text policies' rules look for (names, plans, times, feelings, urgency), with
# apostrophes of both kinds and a little punctuation and non-ASCII.
_CHAT_WORDS = (
    "I i'm am a my name is call me tomorrow next week yesterday we went to love hate sister "  # noqa: SIM905
    "boss urgent breach !! ASAP Friday by in 3 days right now brb hi working on every morning "
    "May 3 2025-02-10 ’ ' . , ? é 東京".split()
)


def chat_texts() -> st.SearchStrategy[str]:
    """Chat-like text made of the words the text policies (classify, importance, timebound)
    react to, in any order: it reaches their rules far more often than arbitrary text."""
    return st.lists(st.sampled_from(_CHAT_WORDS), max_size=25).map(" ".join)


# Text that hits the interesting cases of the write path's fast paths: causal words in any case,
# apostrophes of every kind, contractions, runs of odd whitespace, and letters that fold or
# case-map specially.
_PIECES = st.sampled_from([
    "because", "BeCause", "since", "so that", "SO  THAT", "therefore", "as a result", "due to",
    "led to", "caused", "thanks to", "I'm", "i’m", "I`m", "dont", "can't", "gonna", "im",
    "ſince", "\u212aelvin", "ﬁne", "İstanbul", " ", "  ", "\t", "\n", "\u00a0", ".", ",", "!",
    "'", "’", "`", "´", "x", "Tom", "because_", "_since", "caused9", "é",
])


def fast_path_texts() -> st.SearchStrategy[str]:
    """Text for checking a fast path against the plain computation it replaced: arbitrary text,
    the tricky pieces glued together, and the pieces among short random words."""
    return st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=12).map("".join),
                     st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=12).map(" ".join))


def time_advances() -> st.SearchStrategy[timedelta]:
    """How far a ManualClock moves between operations: often not at all, up to 400 days."""
    return st.one_of(
        st.just(timedelta(0)),
        st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400)),
    )


# -- facts ------------------------------------------------------------------------------------

NAMES: tuple[str, ...] = ("Alice", "Bob")
PEOPLE: tuple[str, ...] = ("Alice", "Bob", "Carol")
CITIES: tuple[str, ...] = ("Berlin", "Paris", "Oslo")
ORGS: tuple[str, ...] = ("Acme", "Globex")


def statements(template: str, subjects: Sequence[str], objects: Sequence[str]
               ) -> st.SearchStrategy[str]:
    """``template`` filled with a subject and an object: ``statements("{} lives in {}", NAMES,
    CITIES)`` draws "Bob lives in Oslo". Statements about the same subject and attribute are what
    the write gate has to find contradictory, or a restatement."""
    return st.builds(template.format, st.sampled_from(subjects), st.sampled_from(objects))


def hikes(*companions: str) -> list[str]:
    """One sentence per companion, otherwise the same: pairwise cosine about 0.82 with the
    default embedder, under the write gate's near-duplicate band, so each is kept as a memory of
    its own and the dream cycle clusters them."""
    return [f"Alice went hiking in the Alps with {who} last summer" for who in companions]


HIKES: list[str] = hikes("Bob", "Carol", "Erin", "Finn")
# Calm facts (no flashbulb cue), unlike the hikes and each other: nothing clusters them.
OTHERS: list[str] = [
    "Carol keeps bees on the allotment", "Dan restores old radios in his shed",
    "Erin teaches piano on Tuesdays", "Frank collects vintage maps",
    "Gina walks the dog along the canal", "The team standup is at nine every Monday"]


def cat(name: str = "Alice") -> str:
    """A long fact that a restatement with one more sentence merges into (a near duplicate that
    adds information)."""
    return (f"{name} adopted a cat named Biscuit last spring in Lisbon and the cat is grey with "
            "white paws")


CAT = cat()


# -- memory records ---------------------------------------------------------------------------


def memory_record(mid: str, *, created: int = 0, session: str | None = None,
                  importance: float = 0.5, utility: float = 0.5, accesses: int = 0,
                  status: str = "active", source: str = "user", confidence: float = 1.0
                  ) -> MemoryRecord:
    """A row of the state projection as an event memory (base stability 60 days) created at
    ``created`` and never accessed since, for scoring and channel tests that need no store."""
    r = MemoryRecord(mid, "ns", "h" + mid, "d" + mid, "event", "test", source, 60.0, importance,
                     confidence, False, False, None, None, (), (), created, 1, created, 1)
    r.session, r.utility, r.access_count = session, utility, accesses
    r.status = status  # type: ignore[assignment]
    return r


# -- events -----------------------------------------------------------------------------------

_MAX_AT = 2**62  # epoch microseconds: far past year 9999, well inside msgpack's int64
ats = st.integers(min_value=0, max_value=_MAX_AT)
_hex16 = st.binary(min_size=8, max_size=8).map(bytes.hex)
_hex32 = st.binary(min_size=16, max_size=16).map(bytes.hex)
memory_ids = _hex16.map(lambda h: f"mem_{h}")
_unit = st.floats(min_value=0.0, max_value=1.0)
_any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)

# Strategies for fields whose meaning is known; anything else is derived from its type.
_BY_NAME: dict[str, st.SearchStrategy[Any]] = {
    "at": ats,
    "namespace": st.one_of(namespaces(), st.just("")),
    "actor": ACTORS_ST,
    "source": ACTORS_ST,
    "memory_id": memory_ids,
    "memory_ids": st.lists(memory_ids, max_size=5).map(tuple),
    "content_hash": _hex32,
    "dedup_key": _hex32,
    "kind": kinds(),
    "importance": _unit,
    "confidence": _unit,
    "similarity": _unit,
    "stability": st.floats(min_value=0.0, max_value=3650.0),
    "valid_from": st.none() | ats,
    "valid_until": st.none() | ats,
    "valid_at": st.none() | ats,
    "k": st.integers(min_value=1, max_value=1000),
    "dim": st.integers(min_value=1, max_value=4096),
    "query": queries(),
}


def _from_type(info: msgspec.inspect.Type) -> st.SearchStrategy[Any]:
    match info:
        case msgspec.inspect.IntType():
            return st.integers(min_value=-(2**63), max_value=2**63 - 1)
        case msgspec.inspect.FloatType():
            return st.floats(allow_nan=False)  # NaN != NaN: a round trip could not be checked
        case msgspec.inspect.StrType():
            return _any_text
        case msgspec.inspect.BoolType():
            return st.booleans()
        case msgspec.inspect.NoneType():
            return st.none()
        case msgspec.inspect.LiteralType(values=values):
            return st.sampled_from(values)
        case msgspec.inspect.UnionType(types=types):
            return st.one_of(*(_from_type(t) for t in types))
        case msgspec.inspect.VarTupleType(item_type=item):
            return st.lists(_from_type(item), max_size=5).map(tuple)
        case msgspec.inspect.DictType(key_type=key, value_type=value):
            return st.dictionaries(_from_type(key), _from_type(value), max_size=4)
        case msgspec.inspect.StructType(cls=cls, fields=fields):  # nested records (changes)
            return st.fixed_dictionaries({f.name: _from_type(f.type) for f in fields}).map(
                lambda kw: cls(**kw))
        case _:
            raise NotImplementedError(f"tests/strategies.py has no strategy for {info!r}")


def event_strategy(cls: type[Event]) -> st.SearchStrategy[Event]:
    """Instances of one event type: ``at``, ``namespace``, ``actor`` and every field filled.

    Optional fields are sometimes left at their default, so defaults are exercised as well.
    """
    fields = msgspec.inspect.type_info(cls).fields  # type: ignore[attr-defined]
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for field in fields:
        if field.name == "scores":
            continue  # drawn below, one score per memory id
        strategy = _BY_NAME[field.name] if field.name in _BY_NAME else _from_type(field.type)
        (required if field.required else optional)[field.name] = strategy
    base = st.fixed_dictionaries(required, optional=optional)
    if any(f.name == "scores" for f in fields):
        base = base.flatmap(
            lambda kw: st.lists(
                st.floats(min_value=0.0, max_value=1.0),
                min_size=len(kw.get("memory_ids", ())),
                max_size=len(kw.get("memory_ids", ())),
            ).map(lambda scores: {**kw, "scores": tuple(scores)})
        )
    return base.map(lambda kw: cls(**kw))


EVENT_STRATEGIES: dict[type[Event], st.SearchStrategy[Event]] = {
    cls: event_strategy(cls) for cls in EVENT_TYPES
}


def any_event() -> st.SearchStrategy[Event]:
    """An event of any registered type."""
    return st.one_of(*EVENT_STRATEGIES.values())
