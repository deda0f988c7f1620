"""The code's layout keeps its rules (ARCHITECTURE.md section 1): imports flow one way, no two
modules import each other, no module takes another's ``_private`` names, and ``ops/`` uses only
the public API. Read from the source with ast; nothing is imported."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import eventmem
from tests import ROOT

PACKAGES = ("eventmem", "projections", "replay")

# The layers, lowest first: a module imports only from its own layer or a lower one. The kernel
# (errors, clock, events, codec, results, progress) at the bottom; the facade above the write,
# recall and maintain paths it composes; the server and the CLI on top; the package's __init__
# loads the facade lazily and so sits above everything.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("eventmem.errors", "eventmem.clock", "eventmem.events", "eventmem.codec", "eventmem.results",
     "eventmem.progress"),
    ("eventmem.storage", "eventmem.text"),
    ("projections",),
    ("eventmem.policies",),
    ("eventmem.config", "eventmem.checks", "eventmem.metadata"),
    ("eventmem.write", "eventmem.recall", "eventmem.maintain"),
    ("replay",),
    ("eventmem.engine", "eventmem.reader", "eventmem.graph", "eventmem.transfer",
     "eventmem.judges"),
    ("eventmem.serve", "eventmem.cli"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    if module == "eventmem":
        return len(LAYERS)
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} is in no layer of ARCHITECTURE.md section 1: place it")


def sources(*packages: str) -> dict[str, Path]:
    return {module_name(p): p for pkg in packages for p in sorted((ROOT / pkg).rglob("*.py"))}


MODULES = sources(*PACKAGES)


def imports(path: Path, module: str) -> Iterator[tuple[str, str | None, int]]:
    """(module imported, name taken from it or None, line) for every import, lazy ones too."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:  # "from package import module"
                    yield f"{base}.{alias.name}", None, node.lineno
                else:
                    yield base, alias.name, node.lineno


def edges() -> Iterator[tuple[str, str, str | None, str]]:
    for module, path in MODULES.items():
        for target, name, line in imports(path, module):
            if target in MODULES and target != module:
                yield module, target, name, f"{path.relative_to(ROOT)}:{line}"


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer(module)


def test_imports_flow_one_way() -> None:
    # The server and the CLI use the public API (``import eventmem``), as any user does.
    public = {(m, "eventmem") for m in MODULES if layer(m) == len(LAYERS) - 1}
    wrong = [f"{where}: {module} (layer {layer(module)}) imports {target} (layer {layer(target)})"
             for module, target, _, where in edges()
             if layer(target) > layer(module) and (module, target) not in public]
    assert wrong == []


def test_no_two_modules_import_each_other() -> None:
    pairs = {(m, t) for m, t, _, _ in edges()}
    both = sorted({tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs})
    assert both == []


def test_no_module_takes_another_modules_private_names() -> None:
    private = [f"{where}: {module} takes {name} from {target}"
               for module, target, name, where in edges()
               if name and name.startswith("_") and not name.startswith("__")]
    assert private == []


# Internals a benchmark times on their own, with why: the dream cycle's pair search is its one
# quadratic step, measured apart from the cycle at sizes no test store reaches; the ANN layout
# is compared with the former one on the same rows, and its masked indexes through a snapshot;
# the bare read of the log under a rebuild inflates packed records as any reader of them must,
# and so does the comparison of two checkouts' logs, event by event.
BENCH_INTERNALS = {"ops.bench.consolidate": {"eventmem.policies.dream.cluster"},
                   "ops.bench.log": {"eventmem.codec"},
                   "ops.bench.samelog": {"eventmem.codec"},
                   "ops.bench.segments": {"projections", "projections.ann",
                                          "projections.vectors"}}


@pytest.mark.parametrize("path", sorted((ROOT / "ops").rglob("*.py")), ids=str)
def test_ops_uses_only_the_public_api(path: Path) -> None:
    module = module_name(path)
    wrong = []
    for target, name, line in imports(path, module):
        top = target.split(".")[0]
        if target in BENCH_INTERNALS.get(module, ()):
            continue
        if top in ("projections", "replay") or (top == "eventmem" and target != "eventmem"):
            wrong.append(f"line {line}: {target}")
        elif target == "eventmem" and name is not None and name not in eventmem.__all__:
            wrong.append(f"line {line}: eventmem.{name} is not in eventmem.__all__")
    assert wrong == []
