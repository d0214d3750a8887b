"""eventsourcing's private names are used in one module only, the store's fast paths: every other module of the
project, its benchmarks and its tests reach the library through its public API, so that an upgrade within 9.x is a
one-line change. The library's own names are read from its source, so that a name it adds is checked too."""

from __future__ import annotations

import ast
import builtins
import collections.abc
import contextlib
import importlib
import importlib.util
import inspect
import pkgutil
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import eventsourcing
import pytest

from bench.fast_paths import measurements
from evo_ledger.store.fast_paths import FAST_PATHS
from tests.helpers.modules import shipped_packages, source, spec_of, walk

FAST_PATHS_MODULE = "evo_ledger.store.fast_paths"
# This module names the library's private names as strings in order to look for them; no other module may.
CHECKER_MODULE = __name__
# The library's documentation names `_create` as the way an aggregate class's own factory method makes its first
# event: `cls._create(...)`, called in a classmethod of a class derived from the library's, is the one use allowed.
FACTORY = "_create"
# Names Python itself gives a meaning to that no class of `builtins`, `types`, `collections.abc` or `contextlib`
# carries: hooks of the data model, of dataclasses, of inspect and of the module system.
PYTHON_DUNDERS = frozenset(
    {
        "__post_init__",
        "__init_subclass__",
        "__class_getitem__",
        "__set_name__",
        "__match_args__",
        "__mro_entries__",
        "__prepare__",
        "__del__",
        "__get__",
        "__set__",
        "__delete__",
        "__missing__",
        "__fspath__",
        "__copy__",
        "__deepcopy__",
        "__length_hint__",
        "__signature__",
        "__wrapped__",
        "__slots__",
        "__weakref__",
        "__orig_bases__",
        "__parameters__",
        "__type_params__",
        "__dataclass_fields__",
        "__dataclass_params__",
        "__annotations__",
        "__all__",
        "__version__",
        "__file__",
        "__path__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__main__",
    }
)


@cache
def library_defined_names() -> frozenset[str]:
    """Every name the library's source defines: functions, classes, attributes, module-level and local names."""
    names: set[str] = set()
    folder = Path(eventsourcing.__file__).parent
    for path in folder.rglob("*.py"):
        if "tests" in path.relative_to(folder).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names.update(defined_names(node))
    return frozenset(names)


@cache
def python_dunders() -> frozenset[str]:
    """The `__x__` names Python gives a meaning to: those its own classes carry, and the hooks named above."""
    kinds: list[type] = [value for value in vars(builtins).values() if isinstance(value, type)]
    kinds += [value for value in vars(types).values() if isinstance(value, type)]
    kinds += [value for value in vars(collections.abc).values() if isinstance(value, type)]
    kinds += [contextlib.AbstractContextManager, contextlib.AbstractAsyncContextManager]
    return frozenset(name for kind in kinds for name in dir(kind) if is_dunder(name)) | PYTHON_DUNDERS


@cache
def library_dunders() -> frozenset[str]:
    """The `__x__` names the library defines that Python gives no meaning to, such as `__base_init__`."""
    return frozenset(name for name in library_defined_names() if is_dunder(name)) - python_dunders()


@cache
def library_private_names() -> frozenset[str]:
    """Every single-underscore name the library defines (`_` alone names nothing) and its own dunders."""
    single = {name for name in library_defined_names() if is_private(name) and name != "_"}
    return frozenset(single) | library_dunders()


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


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def project_modules() -> list[str]:
    modules = [module for package in [*shipped_packages(), "bench", "tests"] for module in walk(package)]
    return sorted(module for module in modules if module != FAST_PATHS_MODULE)


def library_class_names(module_name: str) -> set[str]:
    """The qualified names of the module's classes that derive from one of the library's, as the imported module
    holds them (a `__main__` module, which runs when imported, defines none). Classes made inside functions are
    found from the source by `PrivateUses`."""
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


def dotted(node: ast.expr) -> str | None:
    """`a.b.C` for a base written so; a subscripted base (`A[int]`) by what it subscripts; None for anything else."""
    if isinstance(node, ast.Subscript):
        return dotted(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None


def class_body_names(body: Sequence[ast.stmt | ast.excepthandler]) -> Iterator[tuple[int, str]]:
    """The line and name of every name a class body binds: its methods (`def` or `async def`), classes and
    assignments, also under an `if`, `try`, `for` or `with` of the body."""
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield statement.lineno, statement.name
            continue
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [statement.target]
        elif isinstance(statement, ast.With | ast.AsyncWith):
            targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    yield statement.lineno, node.id
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from class_body_names(getattr(statement, field, []))


@dataclass
class Scope:
    kind: str  # "class" or "function"
    name: str
    library: bool = False  # a class that derives from one of the library's
    classmethod: bool = False  # a function decorated as a classmethod


class PrivateUses(ast.NodeVisitor):
    """Where a module uses one of the library's private names: imports it from the library, names it in a string
    (as `getattr`, `setattr`, `vars(x)[...]` or `x.__dict__[...]` take it), reads or sets it on anything but an
    instance of the module's own classes or on an instance of a class that derives from the library's, or binds it
    in the body of such a class (overriding the library's). The one use allowed is the documented factory call,
    `cls._create(...)` in a classmethod of a class that derives from the library's.

    A class derives from the library's when `library_classes` (qualified names found at run time) holds it, or
    when one of its bases is a name imported from eventsourcing, a class imported from elsewhere that derives from
    the library's, or another such class of the module: so classes made inside functions are found too."""

    def __init__(
        self, private: frozenset[str], library_classes: set[str], package: str = "", strings: bool = True
    ) -> None:
        self.private, self.library_classes, self.package, self.strings = private, library_classes, package, strings
        self.scopes: list[Scope] = []
        self.imported: dict[str, str] = {}  # a name an import binds, and the dotted name it stands for
        self.local_library: set[str] = set()  # the names the module's classes that derive from the library go by
        self.factory_calls: set[int] = set()  # the attributes of the allowed `cls._create(...)` calls
        self.found: list[str] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "eventsourcing" and any(is_private(part) for part in parts):
                self.found.append(f"line {node.lineno}: imports {alias.name}")
            if alias.asname is not None:
                self.imported[alias.asname] = alias.name
            else:
                self.imported[parts[0]] = parts[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        try:
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), self.package)
        except ImportError:
            base = node.module or ""
        for alias in node.names:
            if base.startswith("eventsourcing") and (is_private(alias.name) or alias.name in self.private):
                self.found.append(f"line {node.lineno}: imports {alias.name} from {base}")
            if alias.name != "*":
                self.imported[alias.asname or alias.name] = f"{base}.{alias.name}"

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = self.qualname(node.name)
        library = qualname in self.library_classes or any(self.derives(base) for base in node.bases)
        if library:
            path = [scope.name for scope in self.scopes[self.function_depth() :]] + [node.name]
            self.local_library |= {".".join(path[start:]) for start in range(len(path))}
            for line, name in class_body_names(node.body):
                if name in self.private:
                    self.found.append(f"line {line}: {qualname} overrides the library's {name}")
        self.scopes.append(Scope("class", node.name, library=library))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        decorated = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)
        self.scopes.append(Scope("function", node.name, classmethod=decorated))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_FunctionDef(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.scopes.append(Scope("function", "<lambda>"))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == FACTORY and self.is_factory_call(node.func):
            self.factory_calls.add(id(node.func))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.private and id(node) not in self.factory_calls:
            on_own_instance = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not on_own_instance or self.in_library_class():
                self.found.append(f"line {node.lineno}: {ast.unparse(node)}")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if self.strings and isinstance(node.value, str) and node.value in self.private:
            self.found.append(f"line {node.lineno}: the string {node.value!r}")

    def qualname(self, name: str) -> str:
        """The name Python gives the class `name` defined here (`f.<locals>.A` for a class made in `f`)."""
        parts = [f"{scope.name}.<locals>" if scope.kind == "function" else scope.name for scope in self.scopes]
        return ".".join([*parts, name])

    def function_depth(self) -> int:
        """How many scopes reach to the innermost function (the classes inside it follow)."""
        kinds = [scope.kind for scope in self.scopes]
        return len(kinds) - kinds[::-1].index("function") if "function" in kinds else 0

    def derives(self, base: ast.expr) -> bool:
        name = dotted(base)
        if name is None:
            return False
        if name in self.local_library:
            return True
        root, _, rest = name.partition(".")
        origin = self.imported.get(root)
        if origin is None:
            return False
        full = f"{origin}.{rest}" if rest else origin
        if full.partition(".")[0] == "eventsourcing":
            return True
        try:
            found = pkgutil.resolve_name(full)
        except Exception:  # a name that cannot be resolved here is none of the library's
            return False
        return isinstance(found, type) and from_library(found)

    def is_factory_call(self, attribute: ast.Attribute) -> bool:
        if not (isinstance(attribute.value, ast.Name) and attribute.value.id == "cls") or len(self.scopes) < 2:
            return False
        method, owner = self.scopes[-1], self.scopes[-2]
        return method.kind == "function" and method.classmethod and owner.kind == "class" and owner.library

    def in_library_class(self) -> bool:
        classes = [scope for scope in self.scopes if scope.kind == "class"]
        return bool(classes) and classes[-1].library


def package_of(module: str) -> str:
    return module if spec_of(module).submodule_search_locations is not None else module.rpartition(".")[0]


def uses_in(module: str) -> list[str]:
    uses = PrivateUses(
        library_private_names(), library_class_names(module), package_of(module), strings=module != CHECKER_MODULE
    )
    uses.visit(ast.parse(source(module)))
    return uses.found


@pytest.mark.parametrize("module", project_modules())
def test_a_module_uses_no_private_name_of_eventsourcing(module: str) -> None:
    found = uses_in(module)
    assert not found, f"{module} uses eventsourcing's private names: " + "; ".join(found)


def test_the_check_knows_the_library_names() -> None:
    private = library_private_names()
    assert {"_record", "_notify", "_pending_events", "_insert_events", "_create_connection", FACTORY} <= private
    assert "__base_init__" in library_dunders() and library_dunders() <= private
    python_own = {"__init__", "__post_init__", "__init_subclass__", "__class_getitem__", "__set_name__", "__del__"}
    assert not python_own & private, "Python's own names are not the library's"
    assert "_" not in private
    assert CHECKER_MODULE in project_modules(), "the module exempt from the string check is this one"


ES = "from eventsourcing.domain import Aggregate\n"
PLANTED = {
    "a private name read on a library class's own instance": (
        ES + "class A(Aggregate):\n    def f(self):\n        self._record(None)\n",
        ["line 4: self._record"],
    ),
    "getattr with the name as a string": (
        "def f(app):\n    return getattr(app, '_notify')\n",
        ["line 2: the string '_notify'"],
    ),
    "setattr with the name as a string": (
        "def f(app):\n    setattr(app, '_pending_events', [])\n",
        ["line 2: the string '_pending_events'"],
    ),
    "vars() subscripted by the name": (
        "def f(game):\n    return vars(game)['_pending_events']\n",
        ["line 2: the string '_pending_events'"],
    ),
    "__dict__ subscripted by the name": (
        "def f(game):\n    return game.__dict__['_id']\n",
        ["line 2: the string '_id'"],
    ),
    "a class-body assignment overriding the library's": (
        ES + "class A(Aggregate):\n    _notify = print\n",
        ["line 3: A overrides the library's _notify"],
    ),
    "an async def overriding the library's": (
        ES + "class A(Aggregate):\n    async def _notify(self):\n        pass\n",
        ["line 3: A overrides the library's _notify"],
    ),
    "a library class made inside a function": (
        ES + "def f():\n    class A(Aggregate):\n        def g(self):\n            return self._id\n",
        ["line 5: self._id"],
    ),
    "a class made inside a function from another such class": (
        ES + "def f():\n    class A(Aggregate):\n        pass\n    class B(A):\n        _notify = print\n",
        ["line 6: f.<locals>.B overrides the library's _notify"],
    ),
    "a class made inside a function from the game's aggregate": (
        "from evo_ledger.game.aggregate import Game\n"
        "def f():\n    class G(Game):\n        def _record(self, event):\n            pass\n",
        ["line 4: f.<locals>.G overrides the library's _record"],
    ),
    "a class made inside a function from a library module imported whole": (
        "import eventsourcing.domain as domain\n"
        "def f():\n    class A(domain.Aggregate):\n        def g(self):\n            return self._id\n",
        ["line 5: self._id"],
    ),
    "__base_init__ called on the class's own instance": (
        ES + "class A(Aggregate):\n    def __init__(self):\n        self.__base_init__()\n",
        ["line 4: self.__base_init__"],
    ),
    "_create called from a module-level function": (
        ES + "class A(Aggregate):\n    pass\ndef make():\n    return A._create(A.Created, id=1)\n",
        ["line 5: A._create"],
    ),
    "_create called in an instance method": (
        ES + "class A(Aggregate):\n    def make(cls):\n        return cls._create(cls.Created, id=1)\n",
        ["line 4: cls._create"],
    ),
    "_create read, not called, in a classmethod": (
        ES + "class A(Aggregate):\n    @classmethod\n    def make(cls):\n        return cls._create\n",
        ["line 5: cls._create"],
    ),
    "_create called inside a lambda of a classmethod": (
        ES + "class A(Aggregate):\n    @classmethod\n    def make(cls):\n        return lambda: cls._create()\n",
        ["line 5: cls._create"],
    ),
}
ALLOWED = {
    "the documented factory method": ES
    + "class A(Aggregate):\n    @classmethod\n    def make(cls):\n        return cls._create(cls.Created, id=1)\n",
    "a name of the module's own class on its own instance": "class Own:\n    def f(self):\n        return self._id\n",
    "a string that is no private name of the library": "def f(name):\n    return name.replace('-', '_')\n",
}


@pytest.mark.parametrize("name", PLANTED)
def test_the_check_finds_a_planted_use(name: str) -> None:
    planted, expected = PLANTED[name]
    uses = PrivateUses(library_private_names(), set())
    uses.visit(ast.parse(planted))
    assert uses.found == expected


@pytest.mark.parametrize("name", ALLOWED)
def test_the_check_lets_an_allowed_use_pass(name: str) -> None:
    uses = PrivateUses(library_private_names(), set())
    uses.visit(ast.parse(ALLOWED[name]))
    assert uses.found == []


def test_the_fast_paths_module_is_where_the_private_names_are() -> None:
    assert uses_in(FAST_PATHS_MODULE), "the fast paths use no private name: the module and this test's exception can go"


def test_every_fast_path_is_measured_against_the_librarys_way() -> None:
    assert set(measurements("postgresql://unused")) == {fast_path.name for fast_path in FAST_PATHS}
