"""The API package's parts: each router stands alone (what several share lives in a module of `api` beside them),
and every pydantic model the API takes or gives is in `api.schemas`, none in a router."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

import api.routes

ROUTERS = sorted(f"{api.routes.__name__}.{found.name}" for found in pkgutil.iter_modules(api.routes.__path__))


def tree_of(module: ModuleType) -> ast.Module:
    """The module's source, read from where its import found it."""
    assert module.__spec__ is not None and module.__spec__.origin is not None, f"{module.__name__} has no source"
    return ast.parse(Path(module.__spec__.origin).read_text(encoding="utf-8"), filename=module.__spec__.origin)


def imported_modules(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """Every module name the import statement could bring in: `from a import b` may import the module a.b."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module
    assert base is not None
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def other_routers_imported(module: ModuleType) -> list[str]:
    found: list[str] = []
    for node in ast.walk(tree_of(module)):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        for name in imported_modules(node, module.__package__ or ""):
            parts = name.split(".")
            prefixes = {".".join(parts[: length + 1]) for length in range(len(parts))}
            routers = sorted(prefixes.intersection(ROUTERS) - {module.__name__})
            found.extend(f"{router} (line {node.lineno}: {ast.unparse(node)})" for router in routers)
    return list(dict.fromkeys(found))


def resolved(expression: ast.expr, module: ModuleType) -> object:
    """What a class's base names in the module's namespace (`BaseModel`, `schemas.Fresh`, `Generic[T]`), or None."""
    if isinstance(expression, ast.Subscript):
        return resolved(expression.value, module)
    if isinstance(expression, ast.Name):
        return vars(module).get(expression.id)
    if isinstance(expression, ast.Attribute):
        return getattr(resolved(expression.value, module), expression.attr, None)
    return None


def pydantic_models_defined(module: ModuleType) -> list[str]:
    found: list[str] = []
    for node in ast.walk(tree_of(module)):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [resolved(base, module) for base in node.bases]
        if any(isinstance(base, type) and issubclass(base, BaseModel) for base in bases):
            found.append(f"{node.name} (line {node.lineno})")
    return found


def test_the_routers_are_found() -> None:
    assert {"api.routes.games", "api.routes.events", "api.routes.statistics"} <= set(ROUTERS)


@pytest.mark.parametrize("name", ROUTERS)
def test_a_router_imports_no_other_router(name: str) -> None:
    imported = other_routers_imported(importlib.import_module(name))
    assert not imported, (
        f"{name} imports another router: {'; '.join(imported)}. What several routers share belongs in a module "
        "of api outside api.routes (api.schemas, api.deps, api.errors)"
    )


@pytest.mark.parametrize("name", ROUTERS)
def test_a_router_defines_no_pydantic_model(name: str) -> None:
    defined = pydantic_models_defined(importlib.import_module(name))
    assert not defined, (
        f"{name} defines the pydantic models {', '.join(defined)}: the models the API takes and gives belong in "
        "api.schemas"
    )
