"""The core knows rulesets through their interface only: no module outside a ruleset's own package imports a
ruleset package (or the island boards they share), or names a fact or consequence of any ruleset, one of its read
tables or one of its rulings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evo_ledger.rules import rulesets
from projections.schema import RULESET_SPECS
from tests.support import ROOT

RULING_ID = re.compile(r"\b(?:E2|E1|AS|TR)-\d\d\b")
RULESET_PACKAGES = ("evo_ledger.rules.hexisland", *(f"evo_ledger.rules.{name}" for name in ("evo2", "evo1", "traits")))


def core_modules() -> list[str]:
    folders = [ROOT / "evo_ledger", ROOT / "api", ROOT / "projections"]
    paths = [path for folder in folders for path in folder.rglob("*.py")]
    ruleset_folders = {ROOT / "evo_ledger" / "rules" / name for name in ("hexisland", *rulesets())}
    return sorted(
        str(path.relative_to(ROOT)) for path in paths if not any(folder in path.parents for folder in ruleset_folders)
    )


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found


def vocabulary_words() -> set[str]:
    words: set[str] = set()
    for ruleset in rulesets().values():
        words |= {*ruleset.vocabulary.facts, *ruleset.vocabulary.consequences.values()}
        words |= set(ruleset.vocabulary.consequences)
    return words


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_imports_no_ruleset_and_names_no_fact(module: str) -> None:
    path = ROOT / module
    imports = {name for name in imported_modules(path) if name.startswith(RULESET_PACKAGES)}
    assert not imports, f"{module} imports {sorted(imports)}"
    text = path.read_text()
    named = sorted(
        word for word in vocabulary_words() | set(RULESET_SPECS) if re.search(rf"\b{re.escape(word)}\b", text)
    )
    assert not named, f"{module} names {named}"
    rulings = sorted(set(RULING_ID.findall(text)))
    assert not rulings, f"{module} names the rulings {rulings}"


def test_the_walk_reads_the_core() -> None:
    modules = core_modules()
    assert "evo_ledger/game/aggregate.py" in modules and "api/app.py" in modules
    assert not any(module.startswith("evo_ledger/rules/evo2/") for module in modules)
