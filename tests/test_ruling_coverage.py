"""Every ruling of RULINGS.md that an installed ruleset implements is named by at least one test; every id
family of RULINGS.md is known, with the ruleset it belongs to."""

from __future__ import annotations

import os
import re
from pathlib import Path

from evo_ledger.rules import rulesets
from tests.support import ROOT

# Each family of ruling ids and the ruleset whose package implements it (Autosaur seats are evo1's).
FAMILIES = {"E2": "evo2", "E1": "evo1", "AS": "evo1", "TR": "traits"}
RULING_ID = re.compile(r"\[([A-Z][A-Z0-9])-(\d\d)\]")
# An id in a test's text or in its name (`test_E1_07_zones`).
NAMED_IN_TESTS = re.compile(r"(?<![A-Za-z0-9])([A-Z][A-Z0-9])[-_](\d\d)(?![0-9])")


def rulings_file() -> Path:
    """The rulings the project ships; EVO_RULINGS may name another copy."""
    return Path(os.environ.get("EVO_RULINGS") or ROOT / "docs" / "rulings" / "RULINGS.md")


def ruling_ids() -> set[str]:
    return {f"{family}-{number}" for family, number in RULING_ID.findall(rulings_file().read_text())}


def ids_named_by_tests() -> set[str]:
    named = set()
    for path in (ROOT / "tests").rglob("*"):
        if path.suffix in (".py", ".evo") and path.name != Path(__file__).name:
            named |= {f"{family}-{number}" for family, number in NAMED_IN_TESTS.findall(path.read_text())}
    return named


def test_every_ruling_an_installed_ruleset_implements_has_a_test() -> None:
    implemented = {ruling for ruleset in rulesets().values() for ruling in ruleset.rulings}
    missing = sorted(implemented - ids_named_by_tests())
    assert not missing, f"rulings no test names: {', '.join(missing)}"


def test_every_ruling_a_ruleset_implements_is_in_the_rulings_file_and_of_its_family() -> None:
    known = ruling_ids()
    for ruleset in rulesets().values():
        for ruling in ruleset.rulings:
            assert ruling in known, f"{ruleset.name} implements {ruling}, which RULINGS.md does not have"
            assert FAMILIES[ruling[:2]] == ruleset.name, f"{ruling} belongs to {FAMILIES[ruling[:2]]}"


def test_every_family_of_the_rulings_file_is_known() -> None:
    families = {ruling[:2] for ruling in ruling_ids()}
    assert families == set(FAMILIES), f"families of RULINGS.md: {sorted(families)}"


def test_the_rulings_file_has_the_e2_ids() -> None:
    assert {f"E2-{n:02d}" for n in range(1, 17)} <= ruling_ids()
