"""The games themselves: pure rules, no I/O. One sub-package per rule system, found through the registry.

May import the standard library alone and no other part of the project, so that the rules run anywhere."""

from __future__ import annotations

from evo_ledger.rules.contract import AnyRuleset
from evo_ledger.rules.registry import UnknownRuleset, get_ruleset, marked_seats, rulesets, seat_options

__all__ = ["AnyRuleset", "UnknownRuleset", "get_ruleset", "marked_seats", "rulesets", "seat_options"]
