"""The project's own rules reference: what each ruling id means, in its words, from the `rulings.toml` each
ruleset ships in its package. The ids of a ruleset's file are the rulings it implements: each is named by a test."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from evo_ledger.rules.contract import AnyRuleset, package_file
from evo_ledger.rules.registry import rulesets

RULINGS_FILE = "rulings.toml"


@dataclass(frozen=True)
class Ruling:
    id: str
    title: str
    text: str
    ruleset: str


class UnknownRuling(LookupError):
    pass


def rulings_of(ruleset: AnyRuleset) -> dict[str, Ruling]:
    """The rulings a ruleset's package describes in its `rulings.toml`, by id; none when it ships no such file."""
    rulings = package_file(ruleset, RULINGS_FILE)
    if rulings is None or not rulings.is_file():
        return {}
    document = tomllib.loads(rulings.read_text(encoding="utf-8"))
    return {ruling: Ruling(ruling, entry["title"], entry["text"], ruleset.name) for ruling, entry in document.items()}


@cache
def reference() -> Mapping[str, Ruling]:
    """Every ruling the installed rulesets describe, by id, in id order."""
    found = {ruling.id: ruling for rules in rulesets().values() for ruling in rulings_of(rules).values()}
    return dict(sorted(found.items()))


def ruling(ruling_id: str) -> Ruling:
    found = reference().get(ruling_id.upper())
    if found is None:
        families = sorted({known.split("-")[0] for known in reference()})
        raise UnknownRuling(f"no ruling {ruling_id!r}; the ids are {', '.join(f'{f}-NN' for f in families)}")
    return found
