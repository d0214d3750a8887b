"""The games themselves: pure rules, no I/O. One sub-package per rule system."""

from __future__ import annotations

from typing import Any

from evo_ledger.rules.base import Ruleset
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset

AnyRuleset = Ruleset[Any, Any]
RULESETS: dict[str, AnyRuleset] = {"evo2": Evo2Ruleset()}


class UnknownRuleset(LookupError):
    pass


def get_ruleset(name: str, version: str | None = None) -> AnyRuleset:
    """The ruleset called `name`; a game pinned to another version of it is refused rather than misread."""
    ruleset = RULESETS.get(name)
    if ruleset is None:
        raise UnknownRuleset(f"no ruleset {name!r}; known: {', '.join(sorted(RULESETS))}")
    if version is not None and version != ruleset.version:
        raise UnknownRuleset(f"ruleset {name} is at version {ruleset.version}; this game was recorded with {version}")
    return ruleset
