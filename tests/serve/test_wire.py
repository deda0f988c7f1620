"""The error mapping both ends share: each eventmem error answers its status, and the client
raises the class the body names again."""

from __future__ import annotations

import msgspec
import pytest

import eventmem
from eventmem.serve import wire

CASES = [
    (eventmem.InvalidInputError("bad k"), 400),
    (eventmem.NotFoundError("no memory 'x'"), 404),
    (eventmem.ReadOnlyError("a view"), 409),
    (eventmem.ClosedError("closed"), 409),
    (eventmem.StoreLockedError("locked"), 423),
    (eventmem.StorageFullError("full"), 507),
    (eventmem.CorruptStoreError("cut short"), 500),
    (wire.AccessDeniedError("no token", status=401), 401),
    (wire.AccessDeniedError("not yours"), 403),
    (RuntimeError("a bug"), 500),
]


@pytest.mark.parametrize(("error", "status"), CASES, ids=lambda c: type(c).__name__)
def test_each_error_has_its_status(error: BaseException, status: int) -> None:
    assert wire.status_of(error) == status


@pytest.mark.parametrize(("error", "status"), CASES[:-1], ids=lambda c: type(c).__name__)
def test_the_client_raises_the_same_class(error: BaseException, status: int) -> None:
    body = msgspec.json.encode(wire.ErrorBody(error=type(error).__name__, message=str(error)))
    again = wire.error_from(status, body)
    assert type(again) is type(error) and str(again) == str(error)
    if isinstance(error, wire.AccessDeniedError):
        assert again.status == error.status  # type: ignore[attr-defined]


def test_an_answer_that_is_not_eventmems_is_a_server_error() -> None:
    assert isinstance(wire.error_from(502, b"<html>bad gateway</html>"), wire.ServerError)
    unknown = msgspec.json.encode(wire.ErrorBody(error="KeyError", message="x"))
    assert isinstance(wire.error_from(500, unknown), wire.ServerError)
