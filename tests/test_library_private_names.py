"""eventsourcing's private names are used in one module only, the store's fast paths: every other module of the
project, its benchmarks and its tests reach the library through its public API, so that an upgrade within 9.x is a
one-line change. The library's own names are read from its source, so that a name it adds is checked too."""

from __future__ import annotations

import ast
import importlib
import inspect
from functools import cache
from pathlib import Path

import eventsourcing
import pytest

from bench.fast_paths import measurements
from evo_ledger.store.fast_paths import FAST_PATHS
from tests.modules import shipped_packages, source, walk

FAST_PATHS_MODULE = "evo_ledger.store.fast_paths"
# The library's documentation names `_create` as the way an aggregate class's own factory method makes its first
# event; the one protected name it offers to subclasses.
DOCUMENTED = frozenset({"_create"})


@cache
def library_private_names() -> frozenset[str]:
    """Every single-underscore name the library defines: functions, classes, attributes and module names."""
    names: set[str] = set()
    folder = Path(eventsourcing.__file__).parent
    for path in folder.rglob("*.py"):
        if "tests" in path.relative_to(folder).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names.update(name for name in defined_names(node) if is_private(name))
    return frozenset(names - DOCUMENTED)


def defined_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return [node.attr]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    return []


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def project_modules() -> list[str]:
    modules = [module for package in [*shipped_packages(), "bench", "tests"] for module in walk(package)]
    return sorted(module for module in modules if module != FAST_PATHS_MODULE)


def library_class_names(module_name: str) -> set[str]:
    """The qualified names of the module's classes that derive from one of the library's (a `__main__` module,
    which runs when imported, defines none)."""
    if module_name.endswith("__main__"):
        return set()
    module = importlib.import_module(module_name)
    found: set[str] = set()
    for _, cls in inspect.getmembers(module, inspect.isclass):
        found |= {c.__qualname__ for c in nested_classes(cls) if c.__module__ == module_name and from_library(c)}
    return found


def nested_classes(cls: type) -> list[type]:
    inner = [value for value in vars(cls).values() if isinstance(value, type) and value is not cls]
    return [cls, *(nested for value in inner for nested in nested_classes(value))]


def from_library(cls: type) -> bool:
    return any(base.__module__.startswith("eventsourcing") for base in cls.__mro__[1:])


class PrivateUses(ast.NodeVisitor):
    """Where a module names one of the library's private names: imported from it, read or set on an object other
    than an instance of the module's own classes, or on (or defined by) a class that derives from the library's."""

    def __init__(self, private: frozenset[str], library_classes: set[str]) -> None:
        self.private, self.library_classes = private, library_classes
        self.classes: list[str] = []
        self.found: list[str] = []

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").startswith("eventsourcing"):
            for alias in node.names:
                if is_private(alias.name):
                    self.found.append(f"line {node.lineno}: imports {alias.name} from {node.module}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in self.private and self.in_library_class():
            self.found.append(f"line {node.lineno}: {'.'.join(self.classes)} overrides the library's {node.name}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.private:
            on_own_instance = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not on_own_instance or self.in_library_class():
                self.found.append(f"line {node.lineno}: {ast.unparse(node)}")
        self.generic_visit(node)

    def in_library_class(self) -> bool:
        return bool(self.classes) and ".".join(self.classes) in self.library_classes


@pytest.mark.parametrize("module", project_modules())
def test_a_module_uses_no_private_name_of_eventsourcing(module: str) -> None:
    uses = PrivateUses(library_private_names(), library_class_names(module))
    uses.visit(ast.parse(source(module)))
    assert not uses.found, f"{module} uses eventsourcing's private names: " + "; ".join(uses.found)


def test_the_check_knows_the_library_names_and_finds_a_use() -> None:
    private = library_private_names()
    assert {"_record", "_notify", "_pending_events", "_insert_events", "_create_connection"} <= private
    planted = "from eventsourcing.application import Application\nclass A(Application):\n    def f(self):\n"
    uses = PrivateUses(private, {"A"})
    uses.visit(ast.parse(planted + "        self._record(None)\n"))
    assert uses.found == ["line 4: self._record"]


def test_the_fast_paths_module_is_where_the_private_names_are() -> None:
    uses = PrivateUses(library_private_names(), library_class_names(FAST_PATHS_MODULE))
    uses.visit(ast.parse(source(FAST_PATHS_MODULE)))
    assert uses.found, "the fast paths use no private name: the module and this test's exception can go"


def test_every_fast_path_is_measured_against_the_librarys_way() -> None:
    assert set(measurements("postgresql://unused")) == {fast_path.name for fast_path in FAST_PATHS}
