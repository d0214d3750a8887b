"""Every ruling an installed ruleset implements (an id of the `rulings.toml` its package ships) is named by at least
one test; each ruleset's file holds whole families of ids, no family shared, and where the project's RULINGS.md is
present, a ruleset's file names every id of its families there and no other."""

from __future__ import annotations

import os
import re
from pathlib import Path

from evo_ledger.rules import rulesets
from evo_ledger.rules.reference import rulings_of
from tests.helpers.support import ROOT

RULING_ID = re.compile(r"\[([A-Z][A-Z0-9])-(\d\d)\]")
# An id in a test's text or in its name (`test_E1_07_zones`).
NAMED_IN_TESTS = re.compile(r"(?<![A-Za-z0-9])([A-Z][A-Z0-9]+)[-_](\d+)(?![0-9])")


def rulings_file() -> Path:
    """The rulings the project ships; EVO_RULINGS may name another copy."""
    return Path(os.environ.get("EVO_RULINGS") or ROOT / "docs" / "rulings" / "RULINGS.md")


def implemented() -> dict[str, set[str]]:
    """Each installed ruleset's ruling ids, as its rulings file gives them."""
    return {name: set(rulings_of(ruleset)) for name, ruleset in rulesets().items()}


def family(ruling: str) -> str:
    return ruling.rsplit("-", 1)[0]


def ids_named_by_tests() -> set[str]:
    named = set()
    for path in (ROOT / "tests").rglob("*"):
        if path.suffix in (".py", ".evo") and path.name != Path(__file__).name:
            named |= {f"{family}-{number}" for family, number in NAMED_IN_TESTS.findall(path.read_text())}
    return named


def test_every_ruling_an_installed_ruleset_implements_has_a_test() -> None:
    rulings = set().union(*implemented().values())
    assert {"E2-07", "E1-16", "AS-07", "TR-11"} <= rulings
    missing = sorted(rulings - ids_named_by_tests())
    assert not missing, f"rulings no test names: {', '.join(missing)}"


def test_each_family_of_ruling_ids_belongs_to_one_ruleset() -> None:
    owners: dict[str, str] = {}
    for name, rulings in implemented().items():
        for found in {family(ruling) for ruling in rulings}:
            assert owners.setdefault(found, name) == name, f"{found}-NN is in {owners[found]}'s and {name}'s files"


def test_each_rulesets_file_names_every_id_of_its_families_in_RULINGS_md() -> None:
    """The project ships RULINGS.md (docs/rulings), so this runs on every clone."""
    text = rulings_file().read_text(encoding="utf-8")
    in_rulings = {f"{found}-{number}" for found, number in RULING_ID.findall(text)}
    for name, rulings in implemented().items():
        families = {family(ruling) for ruling in rulings}
        of_families = {ruling for ruling in in_rulings if family(ruling) in families}
        if name in ("evo1", "evo2", "traits"):
            assert of_families, f"RULINGS.md has no id of {name}'s families {sorted(families)}"
        if of_families:
            assert rulings == of_families, (name, sorted(rulings ^ of_families))
