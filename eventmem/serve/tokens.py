"""Bearer tokens, each granting a set of namespaces to read, or to read and write.

The operator manages them with ``eventmem token add|list|revoke``; they live in a JSON file
(``<store>/tokens.json`` unless ``--tokens FILE``), owner-only, holding each token's sha256 and
never the token itself: ``token add`` prints the token once, and a copy of the file gives no
one access. The namespace ``*`` grants every namespace and the store-wide operations (stats,
verify, audit, consolidate).

The server re-reads the file when it changes, so a revoked token is refused from its next call.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from eventmem.errors import InvalidInputError, NotFoundError

ALL = "*"  # the grant of every namespace and of the store-wide operations
TOKEN_PREFIX = "emt_"

Mode = Literal["read", "write"]


class TokenRecord(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One token as the file keeps it: its id, the sha256 of its text, and its grant."""

    token_id: str
    sha256: str
    namespaces: tuple[str, ...]
    read_only: bool
    created_at: datetime
    revoked_at: datetime | None = None
    label: str = ""


class TokenFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The file's contents."""

    version: int = 1
    tokens: list[TokenRecord] = msgspec.field(default_factory=list)


class Grant(msgspec.Struct, frozen=True, kw_only=True):
    """What one caller may do: the namespaces it may read, and whether it may write them.
    ``token_id`` None is the open server's grant (no token file: everything)."""

    token_id: str | None
    namespaces: frozenset[str]
    read_only: bool

    def allows(self, namespace: str, mode: Mode) -> bool:
        """Whether this grant covers ``namespace`` (``*``: the store-wide operations) for
        ``mode``."""
        if mode == "write" and self.read_only:
            return False
        return ALL in self.namespaces or namespace in self.namespaces


OPEN = Grant(token_id=None, namespaces=frozenset({ALL}), read_only=False)


def digest(token: str) -> str:
    """The sha256 (hex) of a token's text: what the file stores."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def default_path(store: str | os.PathLike[str]) -> Path:
    """Where a store's token file is unless ``--tokens`` says otherwise."""
    return Path(store) / "tokens.json"


def load(path: str | os.PathLike[str]) -> TokenFile:
    """The token file at ``path`` (an empty one when there is no file)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return TokenFile()
    try:
        return msgspec.json.decode(data, type=TokenFile)
    except msgspec.DecodeError as exc:
        raise InvalidInputError(f"the token file {path} is not valid: {exc}") from None


def save(path: str | os.PathLike[str], tokens: TokenFile) -> None:
    """Write the token file atomically (a temporary file renamed over it), owner-only."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tokens-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(msgspec.json.format(msgspec.json.encode(tokens)) + b"\n")
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add(path: str | os.PathLike[str], namespaces: list[str], *, read_only: bool = False,
        label: str = "") -> tuple[str, TokenRecord]:
    """Make a new token granting ``namespaces``; returns its text (shown once, never stored)
    and its record."""
    if not namespaces or any(not isinstance(n, str) or not n for n in namespaces):
        raise InvalidInputError("a token grants at least one namespace (or * for all)")
    tokens = load(path)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    # The operator's token file lies outside the log and every projection: wall time and
    # randomness are what it needs (a token must be unguessable).
    now = datetime.now(UTC)  # allow-nondeterminism: a token's creation time, not an event
    record = TokenRecord(token_id="tok_" + secrets.token_hex(6), sha256=digest(token),
                         namespaces=tuple(sorted(set(namespaces))), read_only=read_only,
                         created_at=now, label=label)
    tokens.tokens.append(record)
    save(path, tokens)
    return token, record


def revoke(path: str | os.PathLike[str], token_id: str) -> TokenRecord:
    """Revoke a token by id (it stays in the file, marked revoked); returns its record."""
    tokens = load(path)
    for index, record in enumerate(tokens.tokens):
        if record.token_id == token_id:
            if record.revoked_at is None:
                now = datetime.now(UTC)  # allow-nondeterminism: the token file, not the log
                record = msgspec.structs.replace(record, revoked_at=now)
                tokens.tokens[index] = record
                save(path, tokens)
            return record
    raise NotFoundError(f"no token {token_id!r} in {path}")


def bearer(headers: Any) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    value = headers.get("authorization") if headers is not None else None
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


class Tokens:
    """The server's view of a token file: checks a presented token, re-reading the file when
    it changed (so ``token revoke`` takes effect at once, without a restart)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._by_digest: dict[str, TokenRecord] = {}
        self._reload()

    def _reload(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            stamp = (0, 0, 0)
        else:
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        if stamp != self._stamp:
            self._by_digest = {r.sha256: r for r in load(self.path).tokens}
            self._stamp = stamp

    def grant(self, token: str | None) -> Grant | None:
        """The grant of ``token``, or None when it is missing, unknown or revoked."""
        if not token:
            return None
        with self._lock:
            self._reload()
            record = self._by_digest.get(digest(token))
        if record is None or record.revoked_at is not None:
            return None
        return Grant(token_id=record.token_id, namespaces=frozenset(record.namespaces),
                     read_only=record.read_only)
