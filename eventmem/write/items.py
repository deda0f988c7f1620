"""The caller's input to ``remember``/``remember_many``, checked.

``check_items`` turns texts and mappings into checked dicts with every option filled in, or raises
InvalidInputError naming the bad item; nothing is written for a batch with a bad item.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from eventmem import checks
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.policies.gate import STRATEGIES

ITEM_FIELDS = frozenset({
    "text", "namespace", "kind", "source", "importance", "confidence", "valid_from",
    "valid_until", "pinned", "immutable", "tags", "refs", "session", "on_conflict",
})


def check_items(items: Iterable[str | Mapping[str, Any]], namespace: str,
                config: Config) -> list[dict[str, Any]]:
    """Checked items; a bare text only has its text checked (its options are the defaults)."""
    plain = {
        "namespace": checks.namespace(namespace, config), "kind": None, "source": "user",
        "importance": None, "confidence": 1.0, "valid_from": None, "valid_until": None,
        "pinned": False, "immutable": False, "tags": (), "refs": (), "session": None,
        "on_conflict": None,
    }
    checked = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, str):
                checked.append({**plain, "text": checks.text(item, config)})
            else:
                checked.append(_check_mapping(index, item, namespace, config))
        except InvalidInputError as exc:
            raise InvalidInputError(f"item {index}: {exc}" if index else str(exc)) from None
    return checked


def _check_mapping(index: int, raw: Any, default_ns: str, config: Config) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"expected a str or a mapping, got {type(raw).__name__}")
    unknown = set(raw) - ITEM_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown fields {sorted(unknown, key=repr)}")  # keys of any type
    valid_from, valid_until = checks.interval(raw.get("valid_from"), raw.get("valid_until"))
    weight = raw.get("importance")
    session = raw.get("session")
    return {
        "text": checks.text(raw.get("text"), config),
        # Only a missing/None namespace means the default: "" or 0 is an error, never a silent
        # write into another tenant's "default" namespace.
        "namespace": checks.namespace(
            default_ns if raw.get("namespace") is None else raw["namespace"], config),
        "kind": checks.kind(raw.get("kind")),
        "source": checks.actor(raw.get("source", "user")),
        "importance": None if weight is None else checks.unit_float(weight, "importance"),
        "confidence": checks.unit_float(raw.get("confidence", 1.0), "confidence"),
        "valid_from": valid_from,
        "valid_until": valid_until,
        "pinned": checks.flag(raw.get("pinned", False), "pinned"),
        "immutable": checks.flag(raw.get("immutable", False), "immutable"),
        "tags": checks.labels(raw.get("tags", ()), "tags"),
        "refs": checks.labels(raw.get("refs", ()), "refs"),
        "session": None if session is None else checks.label(session, "session"),
        "on_conflict": _strategy(raw.get("on_conflict")),
    }


def _strategy(value: Any) -> str | None:
    if value is None or value in STRATEGIES:
        return value
    raise InvalidInputError(f"on_conflict must be one of {', '.join(STRATEGIES)}, got {value!r}")
