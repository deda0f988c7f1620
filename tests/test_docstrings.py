"""A docstring on every public function, method and class (CONVENTIONS.md: "Comments say why, not
what. A docstring on every public function"), and on every module. Read from the source with
ast; nothing is imported.

Public: a module-level function or class whose name does not start with ``_``, and a method
(properties included) of such a class whose name does not start with ``_`` (so dunders are
exempt). An ``@overload`` stub is exempt: its documentation is the implementation's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("eventmem", "projections", "replay")

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def sources() -> list[Path]:
    """Every module of the packages, sorted."""
    return [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]


def _is_overload(node: Definition) -> bool:
    return any((isinstance(d, ast.Name) and d.id == "overload")
               or (isinstance(d, ast.Attribute) and d.attr == "overload")
               for d in node.decorator_list)


def public_definitions(tree: ast.Module) -> Iterator[tuple[str, Definition]]:
    """(qualified name, node) of every public function, class and method of a module."""
    for node in tree.body:
        if not isinstance(node, Definition) or node.name.startswith("_"):
            continue
        yield node.name, node
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if (isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                        and not member.name.startswith("_")):
                    yield f"{node.name}.{member.name}", member


def undocumented() -> list[str]:
    """``path:line: name`` of every public definition without a docstring."""
    missing = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        for name, node in public_definitions(ast.parse(path.read_text(), filename=rel)):
            if ast.get_docstring(node) is None and not _is_overload(node):
                missing.append(f"{rel}:{node.lineno}: {name}")
    return missing


def test_every_public_definition_has_a_docstring() -> None:
    missing = undocumented()
    assert not missing, (f"{len(missing)} public definitions without a docstring:\n"
                         + "\n".join(missing))


def test_every_module_has_a_docstring() -> None:
    missing = [path.relative_to(ROOT).as_posix() for path in sources()
               if ast.get_docstring(ast.parse(path.read_text())) is None]
    assert not missing, "modules without a docstring:\n" + "\n".join(missing)
