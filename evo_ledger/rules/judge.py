"""The rules judging a game's actions in turn, with plain data in and out: what a recorder's device runs in the
browser (through Pyodide) when the server cannot be reached, and what the server's rules are compared with.

A game is given as its setup (`ruleset`, `version`, the kit's `kit` document, `players`, `options`) and its actions
in notation. Each action's answer is its refusal (`ruling`, `message`), or what the rules derived from it
(`consequences`, as kind and data) and a digest of the state after it (`state`: SHA-256 of the state's snapshot as
canonical JSON). A probe is an action tried on the state before one of the game's, answered alike, and never
applied.

A `Table` keeps a game's state as actions are entered one by one, and answers what the recording page shows of it
to those who record the game (who see every hidden fact), as the server answers them: the position
(`GET /v1/games/{id}/view`) with the state (`/state`), the legal actions and the rules' advice (`/legal`), and the
words that may come next (`/choices?forced=true`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.contract import (
    ALL_SEATS,
    AnyRuleset,
    advice_in_notation,
    forced_next_words,
    layout,
    next_words,
)
from evo_ledger.rules.registry import get_ruleset
from evo_ledger.rules.text import NotationError


def judged(setup: Mapping[str, Any], actions: Sequence[str], probes: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """Each action's answer in turn (`actions`), and each probe's, by the index of the action it was tried before
    (`probes`); the game's actions stop at the first refused."""
    try:
        rules, state = set_up(setup)
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


def set_up(setup: Mapping[str, Any]) -> tuple[AnyRuleset, Any]:
    """The game's rules and its state before its first action, as `setup` gives them."""
    rules = get_ruleset(setup["ruleset"], setup.get("version"))
    return rules, rules.setup(rules.parse_kit(setup["kit"], "kit"), setup["players"], setup.get("options", {}))


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


class Table:
    """A game's state as its actions are entered one by one, and what the recording page shows of it to those who
    record the game."""

    def __init__(self, setup: Mapping[str, Any], actions: Sequence[str]) -> None:
        self.rules, self.state = set_up(setup)
        self.entered = 0
        for text in actions:
            answer = self.enter(text)
            if "message" in answer:
                raise SetupError(f"action {self.entered + 1} ({text!r}) is refused: {answer['message']}")

    def enter(self, text: str) -> dict[str, Any]:
        """The rules' answer to `text` (as `judged` gives it), applied to the game if it is legal."""
        answer, after = answer_to(self.rules, self.state, text)
        if after is not None:
            self.state, self.entered = after, self.entered + 1
        return answer

    def position(self) -> dict[str, Any]:
        """The position as `/view` gives it, with the state as `/state` does, and the legal actions and the rules'
        advice as `/legal` does."""
        return position_of(self.rules, self.state)

    def choices(self, words: Sequence[str]) -> dict[str, Any]:
        """The words that may follow `words`, as `/choices?forced=true` gives them."""
        return choices_of(self.rules, self.state, words)

    def ahead(self, text: str) -> dict[str, Any]:
        """What entering `text` would answer, and the position and the first words after it, with the game left as
        it is: what a page draws at once when the action is entered."""
        answer, after = answer_to(self.rules, self.state, text)
        if after is None:
            return {"enter": answer}
        position, choices = position_of(self.rules, after), choices_of(self.rules, after, [])
        return {"enter": answer, "position": position, "choices": choices}

    @classmethod
    def of_json(cls, request: str) -> Table:
        """The table for `{"setup": ..., "actions": [...]}` in JSON text, as the browser's worker opens it."""
        asked = json.loads(request)
        return cls(asked["setup"], asked["actions"])

    def answer_json(self, request: str) -> str:
        """The browser worker's questions in JSON text, answered in turn in one: `enter` (an action's text),
        `position` (any value), `choices` (the words entered), `ahead` (actions' texts, each tried as `ahead` does)
        and `following` (lists of words, the choices after each); each answer under its question's name."""
        asked = json.loads(request)
        answers: dict[str, Any] = {}
        if "ahead" in asked:
            answers["ahead"] = [self.ahead(text) for text in asked["ahead"]]
        if "following" in asked:
            answers["following"] = [self.choices(words) for words in asked["following"]]
        if "enter" in asked:
            answers["enter"] = self.enter(asked["enter"])
        if "position" in asked:
            answers["position"] = self.position()
        if "choices" in asked:
            answers["choices"] = self.choices(asked["choices"])
        return json.dumps(answers, sort_keys=True)


def position_of(rules: AnyRuleset, state: Any) -> dict[str, Any]:
    """The position on `state` as `/view` gives it to those who record the game, with the state as `/state` gives it
    to them, and the legal actions and the rules' advice as `/legal` does."""
    view, picture = rules.view(state), layout(rules, state, ALL_SEATS)
    return {
        "headline": view.headline,
        "round": view.round,
        "phase": view.phase,
        "step": view.step,
        "players": list(view.players),
        "table": list(view.table),
        "layout": plain(asdict(picture)) if picture is not None else None,
        "state": plain(rules.snapshot_state(state)),
        "actions": [rules.format_action(action) for action in rules.legal_actions(state)],
        "advice": advice_in_notation(rules, state),
    }


def choices_of(rules: AnyRuleset, state: Any, words: Sequence[str]) -> dict[str, Any]:
    """The words that may follow `words` on `state`, as `/choices?forced=true` gives them."""
    forced, offered = forced_next_words(lambda entered: next_words(rules, state, entered), words)
    return {"words": list(words), "forced": forced, "next": list(offered.words), "complete": offered.complete}


def judged_json(request: str) -> str:
    """`judged` with its arguments and answer as JSON text, as the browser's worker calls it."""
    asked = json.loads(request)
    probes = {int(index): texts for index, texts in asked.get("probes", {}).items()}
    return json.dumps(judged(asked["setup"], asked["actions"], probes), sort_keys=True)
