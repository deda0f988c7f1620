"""The caller's input to ``remember``/``remember_many``, checked.

``check_items`` turns texts and mappings into :class:`Item` records with every option filled in,
or raises InvalidInputError naming the bad item; nothing is written for a batch with a bad item.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import msgspec

from eventmem import checks, metadata
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.events import Actor, MemoryKind, session_key
from eventmem.policies.category import CALLER_TIERS
from eventmem.policies.gate import STRATEGIES, Strategy
from eventmem.policies.observer.rules import ObserverParams, mask_secrets


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """One checked memory to write: what the write path decides from."""

    text: str  # normalized
    namespace: str
    kind: MemoryKind | None = None  # None: classified from the text
    source: Actor = "user"
    importance: float | None = None  # None: scored from the text
    confidence: float = 1.0
    valid_from: int | None = None  # epoch microseconds, as given
    valid_until: int | None = None
    pinned: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    session: str | None = None  # the session's key (eventmem.events.session_key)
    session_label: str | None = None  # the session as the caller gave it (erasable content)
    on_conflict: Strategy | None = None  # None: the store's conflict strategy
    metadata: dict[str, Any] | None = None  # the caller's JSON object (eventmem.metadata)
    # Set by update() and import only, never by a caller's mapping: the memory this item is
    # the caller's new version of (recorded as a supersession by the caller), and the time an
    # imported memory was first recorded in its original store.
    replaces: str | None = None
    created_at: int | None = None
    # Only the audit sets it: the gate version a recorded decision was made under, so that it is
    # re-decided as it was (the engine always decides with the current gate).
    gate_policy: str | None = None
    # Likewise the classifier version a recorded kind was decided with, and the version that
    # read the times its text speaks of (eventmem.policies.times).
    classify_policy: str | None = None
    times_policy: str | None = None
    emotion_policy: str | None = None  # likewise the emotion reader's ("": none, as before)
    category_policy: str | None = None
    # Likewise the default plan window in force (eventmem.policies.horizon; None: the config's).
    plan_window_days: float | None = None
    extractor: str | None = None  # likewise the extractor that analysed the content
    coref_policy: str | None = None  # likewise the coreference version ("": none looked)
    # Set by the write path's split of a compound statement (eventmem.write.compound), never by
    # a caller: the whole text's content hash, this clause's position, the splitter's version.
    source_hash: str | None = None
    part: int = 0
    split_policy: str = ""
    tier: str | None = None  # the caller's tier (None: decided; eventmem.policies.category)


# What a caller's mapping may hold (the policies are the audit's, never the caller's).
ITEM_FIELDS = frozenset(Item.__struct_fields__) - {"gate_policy", "classify_policy",
                                                    "session_label", "replaces", "created_at",
                                                    "times_policy", "emotion_policy",
                                                    "category_policy", "plan_window_days",
                                                    "extractor", "coref_policy",
                                                    "source_hash", "part", "split_policy"}


def check_items(items: Iterable[str | Mapping[str, Any]], namespace: str,
                config: Config) -> list[Item]:
    """Checked items; a bare text only has its text checked (its options are the defaults)."""
    default_ns = checks.namespace(namespace, config)
    checked = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, str):
                checked.append(Item(text=checks.text(item, config), namespace=default_ns))
            else:
                checked.append(_check_mapping(index, item, namespace, config))
        except InvalidInputError as exc:
            raise InvalidInputError(f"item {index}: {exc}" if index else str(exc)) from None
    return checked


def _check_mapping(index: int, raw: Any, default_ns: str, config: Config) -> Item:
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"expected a str or a mapping, got {type(raw).__name__}")
    unknown = set(raw) - ITEM_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown fields {sorted(unknown, key=repr)}")  # keys of any type
    valid_from, valid_until = checks.interval(raw.get("valid_from"), raw.get("valid_until"))
    weight = raw.get("importance")
    session = raw.get("session")
    text = checks.text(raw.get("text"), config)
    # Only a missing/None namespace means the default: "" or 0 is an error, never a silent
    # write into another tenant's "default" namespace.
    namespace = checks.namespace(
        default_ns if raw.get("namespace") is None else raw["namespace"], config)
    label = None if session is None else checks.label(session, "session")
    return Item(
        text=text,
        namespace=namespace,
        kind=checks.kind(raw.get("kind")),
        source=checks.actor(raw.get("source", "user")),
        importance=None if weight is None else checks.unit_float(weight, "importance"),
        confidence=checks.unit_float(raw.get("confidence", 1.0), "confidence"),
        valid_from=valid_from,
        valid_until=valid_until,
        pinned=checks.flag(raw.get("pinned", False), "pinned"),
        immutable=checks.flag(raw.get("immutable", False), "immutable"),
        tags=checks.labels(raw.get("tags", ()), "tags"),
        refs=checks.labels(raw.get("refs", ()), "refs"),
        session=None if label is None else session_key(namespace, label),
        session_label=label,
        on_conflict=_strategy(raw.get("on_conflict")),
        metadata=metadata.check(raw.get("metadata")),
        tier=_tier(raw.get("tier")),
    )


def masked(items: list[Item], params: ObserverParams) -> list[Item]:
    """``items`` with their secrets masked when the observer is set to mask them
    (``ObserverParams(secrets="mask")``): what is stored, embedded and decided from is the
    masked text, so the secret never reaches the disk (eventmem.policies.observer.rules)."""
    out = []
    for item in items:
        text, count = mask_secrets(item.text, params)
        out.append(msgspec.structs.replace(item, text=text) if count else item)
    return out


def _tier(value: Any) -> str | None:
    if value is None or value in CALLER_TIERS:
        return cast(str | None, value)
    raise InvalidInputError(f"tier must be one of {', '.join(CALLER_TIERS)}, got {value!r} "
                            "(working memory comes with a session)")


def _strategy(value: Any) -> Strategy | None:
    if value is None or value in STRATEGIES:
        return cast(Strategy | None, value)
    raise InvalidInputError(f"on_conflict must be one of {', '.join(STRATEGIES)}, got {value!r}")
