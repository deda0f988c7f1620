"""The public names are the ones ARCHITECTURE.md section 10 documents."""

from __future__ import annotations

import inspect

import eventmem
from tests import ROOT

DOCUMENTED_ENGINE_METHODS = {
    "remember", "remember_many", "recall", "get", "history", "pin", "unpin", "forget",
    "as_of", "verify", "close",
}
DOCUMENTED_MEMORY_FIELDS = {
    "memory_id", "namespace", "text", "kind", "status", "tier", "importance", "utility",
    "stability", "access_count", "pinned", "immutable", "retention", "valid_from", "valid_until",
    "source",
}


def test_all_is_sorted_and_importable():
    assert eventmem.__all__ == sorted(eventmem.__all__)
    for name in eventmem.__all__:
        assert hasattr(eventmem, name), name


def test_documented_names_exist():
    for name in ("open", "ManualClock", "SystemClock", "Config", "Memory", "Hit",
                 "RememberResult", "View"):
        assert name in eventmem.__all__
    assert DOCUMENTED_ENGINE_METHODS <= {n for n, _ in inspect.getmembers(eventmem.Engine)}
    assert DOCUMENTED_MEMORY_FIELDS <= set(eventmem.Memory.__struct_fields__)
    assert {"memory_id", "text", "score", "signals"} <= set(eventmem.Hit.__struct_fields__)
    assert {"memory_id", "action", "seq"} <= set(eventmem.RememberResult.__struct_fields__)


def test_view_has_the_same_query_methods():
    for name in ("recall", "get", "history", "stats", "memories"):
        assert callable(getattr(eventmem.View, name))


def test_query_options_are_keyword_only():
    for method in (eventmem.Engine.recall, eventmem.Engine.remember, eventmem.Engine.as_of):
        params = list(inspect.signature(method).parameters.values())[2:]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), method


def test_py_typed_ships():
    from pathlib import Path

    assert (Path(eventmem.__file__).parent / "py.typed").exists()


def test_installed_distribution_ships_every_module():
    """Tests import the checkout; this catches a wheel that leaves a module out (CI installs the
    project non-editable, so the distribution's file list is the wheel's)."""
    from importlib import metadata

    import pytest

    try:
        dist = metadata.distribution("eventmem")
    except metadata.PackageNotFoundError:
        pytest.skip("eventmem is not installed; run from an installed copy to check packaging")
    shipped = {str(f).replace("\\", "/") for f in dist.files or ()}
    if not any(name.endswith(".py") for name in shipped):
        pytest.skip("an editable install lists no module files")
    root = ROOT
    for package in ("eventmem", "projections", "replay"):
        for module in (root / package).rglob("*.py"):
            assert module.relative_to(root).as_posix() in shipped, module
    assert "eventmem/py.typed" in shipped
