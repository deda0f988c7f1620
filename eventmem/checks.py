"""Input checks for the public API. Each failure raises InvalidInputError before anything is
written, with a message that names the field and says what would be accepted."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from eventmem.clock import to_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.events import ACTORS, MEMORY_KINDS, Actor, MemoryKind
from eventmem.storage.log import HASH_SIZE, Head
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import normalize


def utf8_clean(value: str, field: str) -> None:
    """Refuse text that cannot be stored: a lone surrogate (not UTF-8) or a NUL."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field} is not valid Unicode text (lone surrogate at position {exc.start}); "
            "decode your input with errors='replace' or fix its source"
        ) from None
    if "\x00" in value:
        raise InvalidInputError(f"{field} contains a NUL character")


def text(value: Any, config: Config, field: str = "text") -> str:
    """The normalized text, or an error for non-strings, empty, oversize or invalid Unicode."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a str, got {type(value).__name__}")
    utf8_clean(value, field)
    normalized = normalize(value)
    if not normalized:
        raise InvalidInputError(f"{field} is empty or only whitespace")
    if len(normalized) > config.max_text_chars:
        raise InvalidInputError(
            f"{field} has {len(normalized)} characters, over the limit of {config.max_text_chars}; "
            "split it or raise Config.max_text_chars"
        )
    return normalized


def query(value: Any, config: Config) -> str:
    """The normalized query, read up to ``config.max_query_chars``."""
    if not isinstance(value, str):
        raise InvalidInputError(f"query must be a str, got {type(value).__name__}")
    utf8_clean(value, "query")
    normalized = normalize(value)
    if not normalized:
        raise InvalidInputError("query is empty or only whitespace")
    return normalized[: config.max_query_chars]


def namespace(value: Any, config: Config) -> str:
    """A non-empty namespace of valid text within ``config.max_namespace_chars``."""
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"namespace must be a non-empty str, got {value!r}")
    utf8_clean(value, "namespace")
    if len(value) > config.max_namespace_chars:
        raise InvalidInputError(f"namespace is longer than {config.max_namespace_chars} characters")
    if any(ord(c) < 32 for c in value):
        raise InvalidInputError("namespace contains control characters")
    return value


def kind(value: Any) -> MemoryKind | None:
    """A memory kind, or None (classify it from the text)."""
    if value is None:
        return None
    if value not in MEMORY_KINDS:
        raise InvalidInputError(f"unknown kind {value!r}; use one of {', '.join(MEMORY_KINDS)}")
    return cast(MemoryKind, str(value))


def actor(value: Any, field: str = "source") -> Actor:
    """Who a memory comes from: one of the actors of the events."""
    if value not in ACTORS:
        raise InvalidInputError(f"unknown {field} {value!r}; use one of {', '.join(ACTORS)}")
    return cast(Actor, str(value))


def unit_float(value: Any, field: str) -> float:
    """A finite number in [0, 1] (booleans are refused: they are almost always a mistake)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{field} must be a number in [0, 1], got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{field} must be a finite number in [0, 1], got {value!r}")
    return number


def optional_time(value: Any, field: str) -> int | None:
    """Microseconds since the epoch, or None: a time that reads back as a datetime
    (:func:`eventmem.clock.to_micros` refuses the others)."""
    return None if value is None else to_micros(value, name=field)


def interval(
    valid_from: datetime | None, valid_until: datetime | None
) -> tuple[int | None, int | None]:
    """A valid-time interval in epoch microseconds; ``valid_until`` comes after ``valid_from``."""
    start = optional_time(valid_from, "valid_from")
    end = optional_time(valid_until, "valid_until")
    if start is not None and end is not None and end <= start:
        raise InvalidInputError("valid_until must be after valid_from")
    return start, end


MAX_LABELS = 256  # tags or refs per memory: each event carries them all, and so every replay


def labels(value: Any, field: str) -> tuple[str, ...]:
    """Tags or refs: at most MAX_LABELS non-empty strings of at most 256 characters."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(f"{field} must be a sequence of str")
    if len(value) > MAX_LABELS:
        raise InvalidInputError(f"{field} takes at most {MAX_LABELS} items, got {len(value)}")
    out = []
    for item in value:
        if not isinstance(item, str) or not item or len(item) > 256:
            raise InvalidInputError(f"each of {field} must be a non-empty str of at most 256 chars")
        utf8_clean(item, field)
        out.append(item)
    return tuple(out)


def k(value: Any, config: Config) -> int:
    """How many hits a recall returns: an int from 1 to ``config.max_k``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= config.max_k:
        raise InvalidInputError(f"k must be an int from 1 to {config.max_k}, got {value!r}")
    return value


def flag(value: Any, field: str) -> bool:
    """A bool, and only a bool (1 or "yes" are refused)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{field} must be True or False, got {value!r}")
    return value


def label(value: Any, field: str) -> str:
    """A short identifier such as a session id: a non-empty str of at most 256 characters."""
    if not isinstance(value, str) or not value or len(value) > 256:
        raise InvalidInputError(f"{field} must be a non-empty str of at most 256 chars")
    utf8_clean(value, field)
    return value


_REASON = lazy_re(r"[a-z0-9][a-z0-9_.:-]{0,63}")


def reason(value: Any) -> str:
    """Why a memory was forgotten or erased, as recorded: a short code (``explicit``,
    ``gdpr:art17``), never prose. The log is immutable and an erasure cannot take back what an
    event carries in the clear, so a reason must not be able to carry the user's text."""
    if not isinstance(value, str) or not _REASON.fullmatch(value):
        raise InvalidInputError(
            "reason must be a short code: lowercase letters, digits and _.:- (at most 64), "
            f"got {value!r}")
    return value


MAX_SEQ = 2**63 - 1  # a seq is a msgpack int and an 8-byte key: larger ones cannot exist


def seq(value: Any, field: str) -> int:
    """A seq to read from or up to: an int from 0 (before the first event)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEQ:
        raise InvalidInputError(f"{field} must be an int from 0, got {value!r}")
    return value


def optional_seq(value: Any, field: str) -> int | None:
    """A seq, or None (the head)."""
    return None if value is None else seq(value, field)


def head(value: Any) -> Head | None:
    """A head saved earlier (``engine.head()``, or its seq and hash as a pair), or None."""
    if value is None:
        return None
    if not isinstance(value, tuple) or len(value) != 2:
        raise InvalidInputError(f"expected_head must be a Head (engine.head()), got {value!r}")
    number, digest = value
    if not isinstance(digest, bytes) or len(digest) != HASH_SIZE:
        raise InvalidInputError(f"expected_head's hash must be {HASH_SIZE} bytes")
    return Head(seq(number, "expected_head's seq"), digest)


def tolerance(value: Any) -> float:
    """How far a re-derived score may be from the recorded one: a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or value < 0:
        raise InvalidInputError(f"tolerance must be a finite number >= 0, got {value!r}")
    return float(value)


def _lacks(value: Any, methods: tuple[str, ...]) -> str | None:
    return next((name for name in methods if not callable(getattr(value, name, None))), None)


def plugins(*, clock: Any, embedder: Any, summarizer: Any, config: Any) -> None:
    """What open() is given to plug in has the methods it will call: each left out (None) or
    of the right shape, so a wrong one fails here, clearly, and not at its first use deep in
    some later call."""
    if clock is not None and _lacks(clock, ("now",)):
        raise InvalidInputError(f"clock must have a now() method (eventmem.SystemClock, "
                                f"ManualClock), got {type(clock).__name__}")
    if embedder is not None:
        missing = _lacks(embedder, ("embed",))
        dim = getattr(embedder, "dim", None)
        if missing or not isinstance(getattr(embedder, "embedder_id", None), str) \
                or isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise InvalidInputError(
                "embedder must have embed(texts), a str embedder_id and a positive int dim "
                f"(see eventmem.Embedder), got {type(embedder).__name__}")
    if summarizer is not None and _lacks(summarizer, ("summarize",)):
        raise InvalidInputError(f"summarizer must have a summarize(texts) method, got "
                                f"{type(summarizer).__name__}")
    if config is not None and not isinstance(config, Config):
        raise InvalidInputError(f"config must be an eventmem.Config, got {type(config).__name__}")


def min_score(value: object) -> float | None:
    """A recall's ``min_score``: None, or a finite number."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(f"min_score must be a finite number or None, got {value!r}")
    return float(value)


STATUSES = ("active", "stale", "archived", "dormant", "superseded", "deleted", "purged",
            "erased")


def statuses(value: Any) -> frozenset[str] | None:
    """A listing's status filter: None, one status, or several."""
    if value is None:
        return None
    given = [value] if isinstance(value, str) else value
    if not isinstance(given, list | tuple | set | frozenset):
        raise InvalidInputError(f"status must be a status or a sequence of them, got {value!r}")
    unknown = [s for s in given if s not in STATUSES]
    if unknown or not given:
        raise InvalidInputError(f"unknown status {unknown or given!r}; the statuses are "
                                f"{', '.join(STATUSES)}")
    return frozenset(given)
