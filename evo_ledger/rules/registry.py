"""The rulesets installed: found through the entry point group `evo_ledger.rulesets`, so that another package
adds one by declaring it (`NAME = "package.module:RulesetClass"`), with no edit here."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from evo_ledger.rules.base import OptionSpec, OptionValue
from evo_ledger.rules.contract import AnyRuleset, at_version, contract_problems

GROUP = "evo_ledger.rulesets"


class UnknownRuleset(LookupError):
    pass


class BadRuleset(TypeError):
    """An entry point of the group that does not give a ruleset of its own name."""


_LOADING = threading.Lock()


def rulesets() -> dict[str, AnyRuleset]:
    """Every installed ruleset by name, each made once, whichever thread asks first (a ruleset made twice would
    name its events twice)."""
    with _LOADING:
        return installed()


@cache
def installed() -> dict[str, AnyRuleset]:
    """Every installed ruleset by name. An entry point whose ruleset cannot be loaded or does not keep the contract
    is left out, with a warning that says why: the others still serve."""
    found: dict[str, AnyRuleset] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda entry: entry.name):
        try:
            found.setdefault(entry.name, checked(entry.name, entry.load()()))
        except Exception as error:  # a plug-in's own failure, whatever it is, must not take the others down
            warnings.warn(f"ruleset {entry.name!r} left out: {error}", RuntimeWarning, stacklevel=2)
    return found


def checked(entry: str, ruleset: Any) -> AnyRuleset:
    """The ruleset an entry point of the group gives, refused unless it keeps the contract (every member of the
    core, each capability whole, the contract's parameters) and has the entry point's name."""
    problems = contract_problems(ruleset)
    if problems:
        raise BadRuleset(f"entry point {entry!r} of {GROUP} gives a ruleset with {'; '.join(problems)}")
    if ruleset.name != entry:
        raise BadRuleset(f"entry point {entry!r} of {GROUP} gives a ruleset named {ruleset.name!r}")
    return ruleset  # type: ignore[no-any-return]


def get_ruleset(name: str, version: str | None = None) -> AnyRuleset:
    """The ruleset called `name`, at the version a game pinned: an earlier version the ruleset keeps decides as it
    did; a game pinned to a version it does not keep is refused rather than misread."""
    ruleset = rulesets().get(name)
    if ruleset is None:
        raise UnknownRuleset(f"no ruleset {name!r}; known: {', '.join(sorted(rulesets()))}")
    if version is None or version == ruleset.version:
        return ruleset
    earlier = at_version(ruleset, version)
    if earlier is None:
        raise UnknownRuleset(f"ruleset {name} is at version {ruleset.version}; this game was recorded with {version}")
    return earlier


@cache
def seat_options() -> dict[str, OptionSpec]:
    """The options naming seats, of every installed ruleset, by name."""
    return {spec.name: spec for ruleset in rulesets().values() for spec in ruleset.options if spec.seat_mark}


def marked_seats(marks: Mapping[str, Sequence[str]]) -> dict[str, OptionValue]:
    """The options that seats marked (by mark, the seats' names) give."""
    by_mark = {spec.seat_mark: spec.name for spec in seat_options().values()}
    return {by_mark[mark]: " ".join(names) for mark, names in marks.items() if names}
