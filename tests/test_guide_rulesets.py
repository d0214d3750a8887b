"""The guide's table of rulesets names each installed ruleset with the version it records games under (those installed
for the tests alone, from `tests/`, aside)."""

from __future__ import annotations

import re

from evo_ledger.rules import rulesets
from tests.helpers.support import ROOT


def test_the_guides_ruleset_table_gives_each_installed_rulesets_version() -> None:
    guide = (ROOT / "docs" / "guide.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` \([^)]*\) \| (\w+) \|", guide, flags=re.MULTILINE))
    shipped = {
        name: ruleset for name, ruleset in rulesets().items() if not type(ruleset).__module__.startswith("tests.")
    }
    installed = {name: str(ruleset.version) for name, ruleset in shipped.items()}
    assert table == installed
