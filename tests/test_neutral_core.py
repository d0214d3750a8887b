"""The core knows rulesets through their interface only: no module outside a ruleset's own package imports a
ruleset package (or the island boards they share), or names a fact or consequence of any ruleset, one of its read
tables or one of its rulings."""

from __future__ import annotations

import re

import pytest

from evo_ledger.rules import rulesets
from projections.schema import ruleset_specs
from tests.helpers.modules import imports, shipped_packages, source, walk

RULING_ID = re.compile(r"\b(?:E2|E1|AS|TR)-\d\d\b")
RULESET_PACKAGES = ("evo_ledger.rules.hexisland", *(f"evo_ledger.rules.{name}" for name in ("evo2", "evo1", "traits")))


def core_modules() -> list[str]:
    """Every module the distribution ships, by import name, but those of a ruleset's package or the boards they
    share."""
    modules = [module for package in shipped_packages() for module in walk(package)]
    ruleset_packages = [f"evo_ledger.rules.{name}" for name in ("hexisland", *rulesets())]
    return sorted(
        module
        for module in modules
        if not any(module == package or module.startswith(f"{package}.") for package in ruleset_packages)
    )


def vocabulary_words() -> set[str]:
    words: set[str] = set()
    for ruleset in rulesets().values():
        words |= {*ruleset.vocabulary.facts, *ruleset.vocabulary.consequences.values()}
        words |= set(ruleset.vocabulary.consequences)
    return words


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_imports_no_ruleset_and_names_no_fact(module: str) -> None:
    named_rulesets = {found.name for found in imports(module) if found.name.startswith(RULESET_PACKAGES)}
    assert not named_rulesets, f"{module} imports {sorted(named_rulesets)}"
    text = source(module)
    named = sorted(
        word for word in vocabulary_words() | set(ruleset_specs()) if re.search(rf"\b{re.escape(word)}\b", text)
    )
    assert not named, f"{module} names {named}"
    rulings = sorted(set(RULING_ID.findall(text)))
    assert not rulings, f"{module} names the rulings {rulings}"


def test_the_walk_reads_the_core() -> None:
    modules = core_modules()
    assert {"evo_ledger.game.aggregate", "api.app", "api.routes.games", "projections.runner"} <= set(modules)
    assert "evo_ledger.rules.contract" in modules
    assert not any(module.startswith(("evo_ledger.rules.evo2", "evo_ledger.rules.hexisland")) for module in modules)
