"""Each event of a game as a sentence for people, without its number: the log's lines, in the terminal and online."""

from __future__ import annotations

import re
from typing import Any

from evo_ledger.game.aggregate import Game
from evo_ledger.rules import AnyRuleset

WORD_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])")


def event_sentence(event: Any, rules: AnyRuleset) -> str:
    """What the event says, without its number: an action as recorded, a consequence in the ruleset's words."""
    if isinstance(event, Game.Started):
        names = ", ".join(player["name"] for player in event.players)
        return f"started {event.ruleset} {event.version} on kit {event.kit}: {names}"
    if isinstance(event, Game.ActionRecorded):
        return str(event.notation) + _hidden(event.visible_only_to)
    if isinstance(event, Game.ActionCorrected):
        return f"corrected event {event.replaced} to: {event.notation} ({event.reason})"
    if isinstance(event, Game.ConsequenceDerived):
        return rules.describe(consequence_kind(rules, event), event.data)
    if isinstance(event, Game.ActionsUndone):
        events = "event" if len(event.versions) == 1 else "events"
        return f"undone: {events} {', '.join(map(str, event.versions))} ({event.reason})"
    if isinstance(event, Game.AnnotationAdded):
        return f"note on event {event.about}: {event.text}"
    if isinstance(event, Game.EndRevealSet):
        return reveal_at_end_sentence(event.reveal_at_end)
    return WORD_BOUNDARY.sub(" ", type(event).__name__).lower()


def reveal_at_end_sentence(reveal: bool) -> str:
    """What an event that says whether a finished game's hidden facts are shown to every reader says."""
    if reveal:
        return "once the game is over, its hidden facts are shown to every reader"
    return "once the game is over, its hidden facts stay hidden from readers who could not see them during play"


def _hidden(player: str | None) -> str:
    return f"   (seen by {player} only)" if player else ""


def consequence_kind(rules: AnyRuleset, event: Game.ConsequenceDerived) -> str:
    """The kind of consequence the event was stored as, by the ruleset's vocabulary."""
    name = type(event).__name__
    return next((kind for kind, stored in rules.vocabulary.consequences.items() if stored == name), name)
