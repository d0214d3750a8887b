"""Each part imports only from itself and the parts below it, in the order docs/architecture.md lists them, and only
the third-party packages it lists for it; the rules import the standard library alone, so they run anywhere."""

from __future__ import annotations

import ast
import pkgutil
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import pytest

import evo_ledger
from tests.helpers.modules import Import, imports, packages, shipped_packages, source, walk
from tests.helpers.support import ROOT

DOC = ROOT / "docs" / "architecture.md"
HEADING = "## Layers, bottom to top"
NAMED = re.compile(r"`([\w.]+)`")
MAY_IMPORT = "May import"


@dataclass(frozen=True)
class Layer:
    rank: int
    name: str
    modules: tuple[str, ...]
    third_party: frozenset[str]


def table_rows(text: str) -> Iterator[list[str]]:
    """The cells of each row of the first table after the heading, header and rule left out."""
    assert HEADING in text, f"{DOC.name} has no section {HEADING!r}"
    lines = iter(text.split(HEADING, 1)[1].splitlines())
    for line in lines:
        if line.startswith("|"):
            break
    next(lines, None)  # the rule under the header
    for line in lines:
        if not line.startswith("|"):
            return
        yield [cell.strip() for cell in line.strip().strip("|").split("|")]


@cache
def layers() -> tuple[Layer, ...]:
    """The layers as the document lists them, bottom to top."""
    rows = table_rows(DOC.read_text(encoding="utf-8"))
    found = tuple(
        Layer(rank, name.strip("`"), tuple(NAMED.findall(modules)), frozenset(NAMED.findall(packages)))
        for rank, (name, modules, packages) in enumerate(rows)
    )
    assert found, f"{DOC.name} lists no layers under {HEADING!r}"
    return found


def layer_of(name: str) -> Layer | None:
    """The layer of the longest module name in the table that `name` is or lies under; None outside the project."""
    claims = [(len(module), layer) for layer in layers() for module in layer.modules if is_under(name, module)]
    return max(claims, key=lambda claim: claim[0])[1] if claims else None


def is_under(name: str, module: str) -> bool:
    return name == module or name.startswith(f"{module}.")


@cache
def project_modules() -> tuple[str, ...]:
    """Every module of every layer, by import name."""
    return tuple(sorted({name for layer in layers() for module in layer.modules for name in walk(module)}))


def modules_of(layer: Layer) -> list[str]:
    return [module for module in project_modules() if layer_of(module) == layer]


def layer_named(name: str) -> Layer:
    [layer] = [layer for layer in layers() if layer.name == name]
    return layer


def project_tops() -> set[str]:
    return {module.partition(".")[0] for layer in layers() for module in layer.modules}


def described(found: Import) -> str:
    return f"{found.module}, line {found.line}, imports {found.name}"


LAYER_NAMES = [layer.name for layer in layers()]


@pytest.mark.parametrize("name", LAYER_NAMES)
def test_a_layer_imports_only_itself_and_the_layers_below(name: str) -> None:
    layer = layer_named(name)
    below = ", ".join(lower.name for lower in layers()[: layer.rank + 1])
    wrong = []
    for module in modules_of(layer):
        for found in imports(module):
            target = layer_of(found.name)
            if target is not None and target.rank > layer.rank:
                wrong.append(f"{described(found)}, of the layer {target.name}, above {layer.name}")
    assert not wrong, f"{layer.name} may import only {below}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", LAYER_NAMES)
def test_a_layer_imports_only_the_third_party_packages_listed_for_it(name: str) -> None:
    layer = layer_named(name)
    ours = project_tops()
    wrong = [
        f"{described(found)}, a package {layer.name} may not import"
        for module in modules_of(layer)
        for found in imports(module)
        if found.top not in sys.stdlib_module_names and found.top not in ours and found.top not in layer.third_party
    ]
    listed = " and " + ", ".join(sorted(layer.third_party)) if layer.third_party else " alone"
    assert not wrong, f"{layer.name} may import the standard library{listed} ({DOC.name}):\n" + "\n".join(wrong)


def test_the_rules_import_only_the_standard_library_and_themselves() -> None:
    rules = layer_named("rules")
    assert layers()[0] == rules, "the rules are the bottom layer"
    wrong = [
        f"{described(found)}: the rules run anywhere Python does, a browser included, so they import nothing but "
        f"the standard library and {', '.join(rules.modules)}"
        for module in modules_of(rules)
        for found in imports(module)
        if found.top not in sys.stdlib_module_names and not any(is_under(found.name, own) for own in rules.modules)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_walk_finds_the_modules_of_every_layer() -> None:
    empty = [layer.name for layer in layers() if not modules_of(layer)]
    assert not empty, f"no module found in the layers {empty}"
    unfound = [module for layer in layers() for module in layer.modules if module not in project_modules()]
    assert not unfound, f"{DOC.name} names modules that do not exist: {unfound}"
    deep = {
        "rules": "evo_ledger.rules.evo2.ruleset",
        "game": "evo_ledger.game.aggregate",
        "store": "evo_ledger.store.recorders",
        "app": "evo_ledger.app.ledger",
        "projections": "projections.runner",
        "api": "api.routes.games",
        "cli": "evo_ledger.cli.main",
    }
    for name, module in deep.items():
        assert module in modules_of(layer_named(name)), f"the walk missed {module} in {name}"
    assert any(found.name.startswith("evo_ledger.app.") for found in imports("api.routes.games"))
    assert "api.create_app" in {found.name for found in imports("evo_ledger.cli.main")}, "an import in a function"


def test_the_document_names_every_folder_and_package_there_is() -> None:
    named = {module for layer in layers() for module in layer.modules}
    inside = {f"evo_ledger.{info.name}" for info in pkgutil.iter_modules(evo_ledger.__path__)}
    there = {"evo_ledger", *inside, *shipped_packages()}
    assert not there - named, f"{DOC.name} gives no layer to {sorted(there - named)}"
    assert not named - there, f"{DOC.name} names {sorted(named - there)}, which are not there"


def test_a_module_is_in_the_layer_of_the_longest_name_that_holds_it() -> None:
    assert layer_of("evo_ledger") == layer_of("evo_ledger.settings") == layer_named("settings")
    assert layer_of("evo_ledger.__version__") == layer_named("settings")
    assert layer_of("evo_ledger.rules.contract") == layer_named("rules")
    assert layer_of("evo_ledger.rulesets") == layer_named("settings")
    assert layer_of("api.routes.games.router") == layer_named("api")
    assert layer_of("fastapi") is None


@pytest.mark.parametrize("package", packages())
def test_a_package_says_what_it_is_and_what_it_may_import(package: str) -> None:
    docstring = ast.get_docstring(ast.parse(source(package), package)) or ""
    lines = docstring.splitlines()
    assert lines and lines[0] and not lines[0].startswith(MAY_IMPORT), f"{package}'s docstring says first what it is"
    assert any(line.startswith(MAY_IMPORT) for line in lines), (
        f"{package}'s docstring has no line starting {MAY_IMPORT!r} to say what it may import ({DOC.name})"
    )


def test_every_package_is_checked_for_what_it_may_import() -> None:
    found = set(packages())
    assert {"evo_ledger", "evo_ledger.rules", "evo_ledger.rules.evo2", "api", "api.routes", "projections"} <= found
    assert "evo_ledger.settings" not in found and "api.app" not in found, "modules are not packages"
