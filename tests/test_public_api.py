"""The public surface is the one ARCHITECTURE.md section 10 documents: the names in ``__all__``,
the methods and their keyword-only options, docstrings, the documented actions and the error
tree, the types a caller annotates with, and times that are aware datetimes in every record the
API returns (a consolidation report's ``now`` included)."""

from __future__ import annotations

import inspect
import re
import typing
from datetime import datetime, timedelta

import pytest

import eventmem
from eventmem.graph import GraphReader
from eventmem.reader import View
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


def test_all_is_exactly_the_list_the_readme_documents():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Public API", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([A-Za-z_]\w*)`", section)) - {"eventmem"}
    assert sorted(documented) == eventmem.__all__


def test_every_public_name_but_the_errors_loads_lazily():
    import subprocess
    import sys

    code = ("import sys, eventmem; "
            "print(sorted(m for m in sys.modules if m.startswith(('projections', 'replay', "
            "'eventmem.policies', 'eventmem.storage', 'eventmem.write', 'eventmem.recall', "
            "'eventmem.maintain', 'numpy'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"
# -- what the API returns and raises ---------------------------------------------------------------


def _aware_times(record: object) -> list[str]:
    """The names of the fields of a returned record holding a time that is not an aware
    datetime (an int of microseconds, or a naive datetime)."""
    bad = []
    for name in record.__struct_fields__:  # type: ignore[attr-defined]
        value = getattr(record, name)
        is_time = name == "now" or name.endswith("_at") or name in ("valid_from", "valid_until")
        if value is None or not is_time:
            continue
        if not (isinstance(value, datetime) and value.tzinfo is not None):
            bad.append(name)
    return bad


def test_consolidate_report_time_is_an_aware_datetime(mem, t0):
    """Section 10: times are timezone-aware datetimes at the API; the report's ``now`` was the
    internal int of microseconds."""
    note = mem.remember("The spare key is under the blue pot", namespace="a", kind="context")
    at = t0 + timedelta(days=9)
    report = mem.consolidate(now=at)
    assert report.now == at
    assert _aware_times(report) == []
    assert report.changed and any(c.memory_id == note.memory_id for c in report.status_changes)
    assert mem.consolidate(now=at).changed is False  # twice at the same now: nothing


def test_every_returned_record_speaks_aware_datetimes(mem, clock, t0):
    r = mem.remember("Alice moved to Berlin in March", namespace="a", valid_from=t0)
    clock.advance(timedelta(days=1))
    for record in (mem.get(r.memory_id), *mem.recall("Berlin", namespace="a"),
                   *mem.history(r.memory_id), *mem.timeline(r.memory_id)):
        assert _aware_times(record) == [], record


def test_return_types_of_the_public_api_are_importable_from_eventmem():
    """A developer annotating code that holds what the API returns (a Conflict, a graph Entity,
    a verify report...) needs those names from ``eventmem``, as the other results are."""
    missing = set()
    for cls in (eventmem.Engine, View, GraphReader):
        for name, member in inspect.getmembers(cls):
            if name.startswith("_") or not callable(member):
                continue
            hints = typing.get_type_hints(member)
            returned = hints.get("return")
            for t in (returned, *typing.get_args(returned)):
                ours = isinstance(t, type) and t.__module__.split(".")[0] in (
                    "eventmem", "replay", "projections")
                if ours and getattr(eventmem, t.__name__, None) is not t:
                    missing.add(t.__name__)
    assert missing == set()
    assert eventmem.__all__ == sorted(eventmem.__all__)


def test_every_public_method_has_a_docstring():
    undocumented = []
    for cls in (eventmem.Engine, View, GraphReader, eventmem.ManualClock, eventmem.SystemClock):
        for name, member in inspect.getmembers(cls):
            if name.startswith("_"):
                continue
            target = member.fget if isinstance(member, property) else member
            if callable(target) and not getattr(target, "__doc__", None):
                undocumented.append(f"{cls.__name__}.{name}")
    assert undocumented == []


def test_actions_are_exactly_the_documented_ones():
    from eventmem.results import Action

    assert set(typing.get_args(Action)) == {
        "created", "reinforced", "merged", "updated", "superseded", "skipped", "rejected"}


def test_errors_derive_as_the_tree_draws_them(mem):
    assert issubclass(eventmem.NotFoundError, KeyError)
    assert issubclass(eventmem.InvalidInputError, ValueError)
    assert issubclass(eventmem.EmbedderError, ValueError)
    assert issubclass(eventmem.EmbedderMismatchError, eventmem.IncompatibleStoreError)
    for cls in (eventmem.StoreLockedError, eventmem.IncompatibleStoreError,
                eventmem.StorageFullError, eventmem.CorruptRecordError):
        assert issubclass(cls, eventmem.StoreError)
    assert eventmem.CorruptRecordError("bad", seq=7).seq == 7
    with pytest.raises(KeyError):
        mem.get("mem_missing")
    with pytest.raises(ValueError):
        mem.recall("x", valid_at=datetime(2025, 1, 1))  # naive
    with pytest.raises(eventmem.NotFoundError):
        mem.graph.entity("Nobody", namespace="a")
    with pytest.raises(eventmem.StoreLockedError):
        eventmem.open(mem.path)
