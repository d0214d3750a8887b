"""The project's modules by import name: the packages it ships, every module under a package, a module's source and
the imports it makes (at any depth, relative ones made absolute)."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatch
from importlib.machinery import ModuleSpec
from pathlib import Path

from tests.helpers.support import ROOT


@dataclass(frozen=True)
class Import:
    """One name a module imports: `a.b` for `import a.b`, `a.b.c` for `from a.b import c` (which may be a module
    or a name inside `a.b`), `a.b` for `from a.b import *`."""

    module: str
    line: int
    name: str

    @property
    def top(self) -> str:
        return self.name.partition(".")[0]


def shipped_packages() -> list[str]:
    """The top-level packages the distribution ships: those in the checkout that `pyproject.toml`'s package
    finder includes."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        patterns = tomllib.load(file)["tool"]["setuptools"]["packages"]["find"]["include"]
    found = pkgutil.iter_modules([str(ROOT)])
    return sorted(info.name for info in found if info.ispkg and any(fnmatch(info.name, p) for p in patterns))


def spec_of(module: str) -> ModuleSpec:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"no source found for the module {module}"
    return spec


def walk(package: str) -> list[str]:
    """`package` and every module and package under it, by import name. Packages are imported to find what they
    hold; modules are not."""

    def unimportable(name: str) -> None:
        raise ImportError(f"{name} cannot be imported, so the modules under it cannot be found")

    locations = spec_of(package).submodule_search_locations
    if locations is None:
        return [package]
    return [package, *(info.name for info in pkgutil.walk_packages(locations, f"{package}.", onerror=unimportable))]


def is_package(module: str) -> bool:
    return spec_of(module).submodule_search_locations is not None


def packages() -> list[str]:
    """Every package the distribution ships, sub-packages included, by import name."""
    return [module for top in shipped_packages() for module in walk(top) if is_package(module)]


def source(module: str) -> str:
    return Path(str(spec_of(module).origin)).read_text(encoding="utf-8")


def imports(module: str) -> list[Import]:
    """Every import `module` makes, at the top or inside a function, a class or a condition, in order of line."""
    package = module if is_package(module) else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(ast.parse(source(module), module)):
        if isinstance(node, ast.Import):
            found += [Import(module, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            found += [
                Import(module, node.lineno, base if alias.name == "*" else f"{base}.{alias.name}")
                for alias in node.names
            ]
    return sorted(found, key=lambda found: found.line)
