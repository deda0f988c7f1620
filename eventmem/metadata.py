"""A memory's metadata: a small JSON object the caller attaches to it (a user id, the source of
the text, a thread, a score), returned with the memory and matched by the filters of ``recall``
and ``memories``.

Metadata is caller data, like tags: it is stored as content beside the text (the memory's Labels
document), so an erasure removes it with the text. It never takes part in a decision of the
engine (the gate, decay, ranking): only the caller's filters read it.

A filter is a mapping of metadata keys to conditions, all of which must hold:

* a value (``{"user": "u42"}``): the memory's value equals it, or, for a list, contains it;
* ``{"$in": [..]}`` / ``{"$nin": [..]}``: the value is (not) one of these;
* ``{"$ne": v}``: the key is missing or its value differs;
* ``{"$gt": n}``, ``{"$gte": n}``, ``{"$lt": n}``, ``{"$lte": n}``: a number compared with ``n``
  (a missing or non-numeric value never matches);
* ``{"$exists": true|false}``: the key is (not) there.

Equality is JSON equality: ``true`` is not ``1``, and ``1`` is ``1.0``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from eventmem.checks import utf8_clean
from eventmem.errors import InvalidInputError

Scalar = str | int | float | bool | None
Metadata = dict[str, Any]  # str -> a Scalar or a list of Scalars

MAX_KEYS = 32
MAX_KEY_CHARS = 64
MAX_BYTES = 4096  # the whole object, encoded as JSON
MAX_LIST = 64
# Integers beyond 2**53 do not survive a JavaScript or JSON-to-double client.
_MAX_INT = 2**53

_ENCODER = msgspec.json.Encoder(order="deterministic")


def check(value: Any) -> Metadata | None:
    """``value`` as stored metadata (a new dict, keys in sorted order), or None for none given.
    Raises InvalidInputError naming what is wrong: not a mapping, a key that is not a short
    string, a value that is not a JSON scalar or a list of them, too many keys, too large."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"metadata must be a mapping, got {type(value).__name__}")
    if len(value) > MAX_KEYS:
        raise InvalidInputError(f"metadata holds at most {MAX_KEYS} keys, got {len(value)}")
    checked: Metadata = {}
    for key in sorted(value, key=repr):  # keys of any type, for the error
        _check_key(key)
        item = value[key]
        if isinstance(item, list | tuple):
            if len(item) > MAX_LIST:
                raise InvalidInputError(
                    f"metadata {key!r}: a list holds at most {MAX_LIST} values")
            checked[key] = [_scalar(key, x) for x in item]
        else:
            checked[key] = _scalar(key, item)
    if not checked:
        return None
    size = len(_ENCODER.encode(checked))
    if size > MAX_BYTES:
        raise InvalidInputError(f"metadata is {size} bytes as JSON; at most {MAX_BYTES}")
    return dict(sorted(checked.items()))


def merged(first: Mapping[str, Any] | None, second: Mapping[str, Any] | None
           ) -> Metadata | None:
    """``first`` with ``second``'s keys laid over it: what a new version of a memory carries
    (the caller's new values win, the old ones it does not restate are kept)."""
    if not first:
        return dict(second) if second else None
    return dict(sorted({**first, **(second or {})}.items()))


class Filter:
    """A caller's filters, checked: called with a memory's metadata, whether every condition
    holds. ``key`` is the filters as canonical JSON (what a recall cache keys on)."""

    def __init__(self, tests: list[tuple[str, Callable[[bool, Any], bool]]], key: str) -> None:
        self._tests, self.key = tests, key

    @classmethod
    def of(cls, filters: Any) -> Filter | None:
        """The filter ``filters`` describe; None for none (None or an empty mapping). Raises
        InvalidInputError for a malformed one."""
        if filters is None:
            return None
        if not isinstance(filters, Mapping):
            raise InvalidInputError(f"filters must be a mapping, got {type(filters).__name__}")
        tests = []
        for key in sorted(filters, key=repr):
            _check_key(key, "filters")
            tests.append((key, _condition(key, filters[key])))
        if not tests:
            return None
        return cls(tests, _ENCODER.encode(dict(filters)).decode())

    def __call__(self, metadata: Mapping[str, Any] | None) -> bool:
        data = metadata or {}
        return all(test(key in data, data.get(key)) for key, test in self._tests)


def _condition(key: str, spec: Any) -> Callable[[bool, Any], bool]:
    """One key's condition as ``(present, value) -> bool``."""
    if not isinstance(spec, Mapping):
        wanted = _scalar(key, spec)
        return lambda present, value: present and _has(value, wanted)
    if len(spec) != 1:
        raise InvalidInputError(f"filters {key!r}: one operator per key, got {sorted(spec)}")
    (op, operand), = spec.items()
    match op:
        case "$in" | "$nin":
            if not isinstance(operand, list | tuple):
                raise InvalidInputError(f"filters {key!r}: {op} takes a list")
            options = [_scalar(key, x) for x in operand]
            if op == "$in":
                return lambda present, value: present and any(_has(value, o) for o in options)
            return lambda present, value: not (present and any(_has(value, o) for o in options))
        case "$ne":
            other = _scalar(key, operand)
            return lambda present, value: not (present and _has(value, other))
        case "$gt" | "$gte" | "$lt" | "$lte":
            if not _is_number(operand):
                raise InvalidInputError(f"filters {key!r}: {op} takes a number")
            compare = _COMPARISONS[op]
            return lambda present, value: (present and _is_number(value)
                                           and compare(value, operand))
        case "$exists":
            if not isinstance(operand, bool):
                raise InvalidInputError(f"filters {key!r}: $exists takes true or false")
            return lambda present, value: present is operand
    raise InvalidInputError(f"filters {key!r}: unknown operator {op!r}; use $in, $nin, $ne, "
                            "$gt, $gte, $lt, $lte or $exists")


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b,
}


def _has(value: Any, wanted: Scalar) -> bool:
    """``value`` equals ``wanted`` or, as a list, contains it (JSON equality)."""
    if isinstance(value, list):
        return any(_same(x, wanted) for x in value)
    return _same(value, wanted)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None \
            or isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    return bool(a == b)  # int and float: 1 == 1.0


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_key(key: Any, field: str = "metadata") -> None:
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS \
            or not key.isprintable():  # (a lone surrogate is not printable)
        raise InvalidInputError(
            f"{field} keys are printable strings of 1 to {MAX_KEY_CHARS} characters, "
            f"got {key!r}")


def _scalar(key: str, value: Any) -> Scalar:
    if isinstance(value, str):
        utf8_clean(value, f"metadata {key!r}")
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > _MAX_INT:
            raise InvalidInputError(f"metadata {key!r}: an integer beyond +-2**53")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"metadata {key!r}: a number must be finite")
        return value
    raise InvalidInputError(f"metadata {key!r}: a value is a string, number, true, false, "
                            f"null or a list of them, got {type(value).__name__}")
