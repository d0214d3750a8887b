"""The rules judging a game's actions in turn, with plain data in and out: what a recorder's device runs in the
browser (through Pyodide) when the server cannot be reached, and what the server's rules are compared with.

A game is given as its setup (`ruleset`, `version`, the kit's `kit` document, `players`, `options`) and its actions
in notation. Each action's answer is its refusal (`ruling`, `message`), or what the rules derived from it
(`consequences`, as kind and data) and a digest of the state after it (`state`: SHA-256 of the state's snapshot as
canonical JSON). A probe is an action tried on the state before one of the game's, answered alike, and never
applied.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.contract import AnyRuleset
from evo_ledger.rules.registry import get_ruleset
from evo_ledger.rules.text import NotationError


def judged(setup: Mapping[str, Any], actions: Sequence[str], probes: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """Each action's answer in turn (`actions`), and each probe's, by the index of the action it was tried before
    (`probes`); the game's actions stop at the first refused."""
    rules = get_ruleset(setup["ruleset"], setup.get("version"))
    try:
        state = rules.setup(rules.parse_kit(setup["kit"], "kit"), setup["players"], setup.get("options", {}))
    except SetupError as error:
        return {"setup": str(error), "actions": [], "probes": {}}
    answers: list[dict[str, Any]] = []
    tried: dict[str, list[dict[str, Any]]] = {}
    for index, text in enumerate(actions):
        if index in probes:
            tried[str(index)] = [answer_to(rules, state, probe)[0] for probe in probes[index]]
        answer, after = answer_to(rules, state, text)
        answers.append(answer)
        if after is None:
            break
        state = after
    return {"actions": answers, "probes": tried}


def answer_to(rules: AnyRuleset, state: Any, text: str) -> tuple[dict[str, Any], Any]:
    """The rules' answer to `text` on `state`, and the state after it (None if refused)."""
    try:
        transition = rules.apply(state, rules.parse_action(text))
    except RuleViolation as refusal:
        return {"ruling": refusal.ruling, "message": refusal.message}, None
    except NotationError as error:
        return {"ruling": None, "message": str(error)}, None
    consequences = [[consequence.kind, plain(consequence.data)] for consequence in transition.consequences]
    return {"consequences": consequences, "state": digest(rules.snapshot_state(transition.state))}, transition.state


def digest(snapshot: Mapping[str, Any]) -> str:
    canonical = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), default=plain)
    return hashlib.sha256(canonical.encode()).hexdigest()


def plain(value: Any) -> Any:
    """A value as JSON has it: mappings as dicts, sequences as lists (and sets in order)."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return value


def judged_json(request: str) -> str:
    """`judged` with its arguments and answer as JSON text, as the browser's worker calls it."""
    asked = json.loads(request)
    probes = {int(index): texts for index, texts in asked.get("probes", {}).items()}
    return json.dumps(judged(asked["setup"], asked["actions"], probes), sort_keys=True)
