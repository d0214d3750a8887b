"""The reading of a ruleset that has no read models of its own: its games folded by the rules as the read tables
follow the log, so that every game's rounds and result reach the tables every ruleset fills."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from evo_ledger.rules import AnyRuleset
from evo_ledger.rules.base import GameReport, ReadContext, ReadItem, ReadResult, ReadTable, Statistic
from evo_ledger.rules.contract import Reading, replayer
from evo_ledger.rules.contract import reading as reading_of


class FoldedOutcome:
    """Keeps the game's state (as `snapshot_state` gives it) and its effective actions in the game's memory; the
    action that ends the game gives its result."""

    tables: tuple[ReadTable, ...] = ()
    consequences: frozenset[str] = frozenset()
    reports: Mapping[str, GameReport] = MappingProxyType({})
    statistics: Mapping[str, Statistic] = MappingProxyType({})

    def __init__(self, rules: AnyRuleset) -> None:
        self.rules = rules
        self.facts = frozenset(rules.vocabulary.facts)

    def from_action(self, context: ReadContext, action: Any) -> Iterator[ReadItem]:
        rules, memory = self.rules, context.memory
        state = self._state(context)
        state = replayer(rules)(state, action)
        memory["actions"] = [*memory.get("actions", []), rules.format_action(action)]
        self._keep(context, state)
        outcome = rules.outcome(state)
        if outcome is not None:
            yield ReadResult(outcome)

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        return iter(())

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        raise NotImplementedError("a folded game is taken back by `undone`, which knows how many actions went")

    def undone(self, context: ReadContext, count: int) -> dict[str, Any]:
        """The memory again once the game's last `count` effective actions are undone: folded from the setup."""
        actions = context.memory.get("actions", [])[: -count or None]
        context.memory = {}
        state = self._state(context)
        replay = replayer(self.rules)
        for notation in actions:
            state = replay(state, self.rules.parse_action(notation))
        context.memory["actions"] = actions
        self._keep(context, state)
        return context.memory

    def _state(self, context: ReadContext) -> Any:
        kept = context.memory.get("state")
        if kept is None:
            return self.rules.setup(context.kit(), context.seats, context.options())
        return self.rules.restore_state(context.kit(), kept)

    def _keep(self, context: ReadContext, state: Any) -> None:
        """The state kept as the games' row stores it, JSON: a snapshot that JSON changes (a key not a string)
        reads back the same at once as after a restart."""
        context.memory["state"] = json.loads(json.dumps(self.rules.snapshot_state(state)))
        context.memory["round"] = self.rules.view(state).round


_FOLDED: dict[int, FoldedOutcome] = {}


def reading_for(rules: AnyRuleset) -> Reading:
    """The ruleset's own reading, or its games folded for their result (one fold a ruleset)."""
    own = reading_of(rules)
    if own is not None:
        return own
    folded = _FOLDED.get(id(rules))
    if folded is None or folded.rules is not rules:
        folded = _FOLDED[id(rules)] = FoldedOutcome(rules)
    return folded
