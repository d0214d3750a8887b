"""Disputed outcomes answered from the log: why the rules decided as they did, and what a different action would
have changed. Both fold the game again from its setup; neither touches the log.

An explanation names the part of the game an event belongs to (a combat, a survival phase, an auction...), with
every number the rules used (the ruleset's `explain`). A what-if replaces or drops one action in a branch, plays
the game's later actions on after it for as long as the rules allow them, and compares the standings. Both are
canonical reports carrying their hash, like the audit's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evo_ledger.app.audit import CanonicalReport
from evo_ledger.app.readers import hidden_in_place
from evo_ledger.game.aggregate import Game
from evo_ledger.rules.base import Outcome, RuleViolation, Step
from evo_ledger.rules.contract import Explanations, explain, has, is_chance
from evo_ledger.rules.text import NotationError
from evo_ledger.rules.words import counted

EXPLANATION_FORMAT = "evo-ledger explanation"
WHAT_IF_FORMAT = "evo-ledger what-if"
FORMAT_VERSION = 1


class NotExplainable(ValueError):
    """An event the request cannot be about: out of range, undone, or not something the rules decided."""


class ExplanationReport(CanonicalReport):
    def text(self) -> str:
        data = self.data
        lines = [f"event {data['event']} of game {data['game']}: {data['kind']}", *data["words"]]
        return "\n".join([*lines, f"report hash {self.hash}"]) + "\n"


class WhatIfReport(CanonicalReport):
    def text(self) -> str:
        data = self.data
        change = data["change"]
        what = f"event {change['event']} ({change['was']!r})"
        lines = [f"what if {what} were {repr(change['becomes']) if change['becomes'] else 'dropped'}:"]
        stop = data["branch"]["stopped_at"]
        replayed = counted(data["branch"]["actions_replayed"], "later action")
        lines.append(f"  {replayed} played again in the branch")
        if stop is not None:
            lines.append(f"  the branch stops at event {stop['event']} ({stop['action']!r}): {stop['reason']}")
        for label in ("recorded", "branch"):
            labels = data[label]["score_labels"]
            standings = ", ".join(
                f"{row['rank']}. {row['player']} ({_score_words(row['score'], labels)})"
                for row in data[label]["standings"]
            )
            over = "final" if data[label]["over"] else "so far"
            lines.append(f"  {label:<8} ({over}): {standings}")
        return "\n".join([*lines, f"report hash {self.hash}"]) + "\n"


def _score_words(score: Sequence[int], labels: Sequence[str]) -> str:
    return ", ".join(f"{value} {label}" for value, label in zip(score, labels, strict=True))


def effective_index(game: Game, events: Sequence[Any], version: int) -> int:
    """Where in the game's effective actions the action event `version` is, or the one that caused it."""
    if not 1 <= version <= len(events):
        raise NotExplainable(f"event: the game has events 1 to {len(events)}, not {version}")
    event = events[version - 1]
    action_version = getattr(event, "cause", None) or version
    positions = {entry[0]: index for index, entry in enumerate(game.history)}
    if action_version not in positions:
        why = "it is not an action" if not hasattr(event, "notation") else "it was undone or corrected since"
        raise NotExplainable(f"event {version} ({type(event).__name__}) is not in the game as it stands: {why}")
    return positions[action_version]


def game_steps(game: Game, count: int | None = None) -> list[Step[Any, Any]]:
    """The game's effective actions (the first `count` of them, if given), each with the state before it and what
    the rules derive from it."""
    rules = game.rules
    state = rules.setup(game.kit, game.player_names, game.options)
    steps = []
    for _, notation, _ in game.history[:count]:
        action = rules.parse_action(notation)
        transition = rules.apply(state, action)
        steps.append(Step(state, action, transition.consequences))
        state = transition.state
    return steps


def explain_event(game: Game, events: Sequence[Any], version: int) -> ExplanationReport:
    """Why the rules decided as they did about the part of the game that event `version` belongs to (a combat, a
    survival phase, an auction...)."""
    index = effective_index(game, events, version)
    if not has(game.rules, Explanations):
        raise NotExplainable(f"the {game.rules.name} rules explain none of their decisions")
    explanation = explain(game.rules, game_steps(game), index)
    if explanation is None:
        name = type(events[version - 1]).__name__
        raise NotExplainable(f"event {version} ({name}) is not part of anything the {game.rules.name} rules explain")
    data = dict(explanation.data)
    if explanation.span is not None:
        data["undone_rolls"] = _undone_rolls_between(game, events, explanation.span)
    return ExplanationReport(
        {
            "format": EXPLANATION_FORMAT,
            "version": FORMAT_VERSION,
            "game": str(game.id),
            "event": version,
            "kind": explanation.kind,
            "data": data,
            "words": list(explanation.words),
        }
    )


def _undone_rolls_between(game: Game, events: Sequence[Any], span: tuple[int, int]) -> list[dict[str, Any]]:
    """The chance actions undone between two effective actions (their indices): re-rolls."""
    first, last = game.history[span[0]][0], game.history[span[1]][0]
    return [
        {"event": event.originator_version, "roll": event.notation}
        for event in events[first : last - 1]
        if isinstance(event, Game.ActionRecorded) and is_chance(game.rules, game.rules.parse_action(event.notation))
    ]


def what_if(
    game: Game,
    events: Sequence[Any],
    version: int,
    replacement: str | None,
    told: Callable[[RuleViolation], str] = str,
    hidden: Mapping[int, str] | None = None,
) -> WhatIfReport:
    """The game folded again with action `version` replaced by `replacement` (dropped if None), the later
    actions played on after it while the rules allow them; the branch's standings beside the recorded game's at
    the same point: its end, or the action the branch stopped before. For a reader who may not see the actions
    `hidden` (event: its player), the branch stops before the first of them: whether the rules would allow it
    rests on what it hides."""
    index = effective_index(game, events, version)
    if getattr(events[version - 1], "cause", None) is not None:
        raise NotExplainable(f"event {version} is a consequence: change the action at event {game.history[index][0]}")
    rules = game.rules
    state = game_steps(game, index + 1)[index].before
    if replacement is not None:
        state = _replaced(rules, state, replacement, told)
    replayed, stopped, recorded = 0, None, game.state
    for later_version, notation, _ in game.history[index + 1 :]:
        try:
            if hidden is not None and later_version in hidden:
                stopped = {
                    "event": later_version,
                    "action": hidden_in_place(hidden[later_version]),
                    "reason": HIDDEN_STOP,
                }
            else:
                state = rules.apply(state, rules.parse_action(notation)).state
        except RuleViolation as violation:
            stopped = {"event": later_version, "action": notation, "reason": told(violation)}
        if stopped is not None:
            at = index + 1 + replayed
            recorded = game_steps(game, at + 1)[at].before
            break
        replayed += 1
    return WhatIfReport(
        {
            "format": WHAT_IF_FORMAT,
            "version": FORMAT_VERSION,
            "game": str(game.id),
            "change": {"event": version, "was": game.history[index][1], "becomes": replacement},
            "recorded": {**_standing(rules, recorded), "before_event": stopped["event"] if stopped else None},
            "branch": {**_standing(rules, state), "actions_replayed": replayed, "stopped_at": stopped},
        }
    )


# Why a branch stops, for a reader, before an action hidden from it.
HIDDEN_STOP = "an action hidden from this reader: the branch goes no further for it"


def _replaced(rules: Any, state: Any, notation: str, told: Callable[[RuleViolation], str]) -> Any:
    try:
        return rules.apply(state, rules.parse_action(notation)).state
    except RuleViolation as refusal:
        raise NotExplainable(f"replace: {notation!r} is not legal where the event stood: {told(refusal)}") from None
    except NotationError as refusal:
        raise NotExplainable(f"replace: {notation!r} is not legal where the event stood: {refusal}") from None


def _standing(rules: Any, state: Any) -> dict[str, Any]:
    outcome: Outcome = rules.standings(state)
    return {
        "over": rules.outcome(state) is not None,
        "score_labels": list(outcome.score_labels),
        "standings": [{"rank": row.rank, "player": row.player, "score": list(row.score)} for row in outcome.standings],
    }
