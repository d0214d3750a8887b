"""A position and what may be done from it, as a reader may see them: the state, the picture of the board, the
legal actions, the rules' decision for a seat they run, the words that may come next in one, and a refusal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from evo_ledger.app.readers.sight import Perspective, reads_hidden
from evo_ledger.game.aggregate import Game
from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import (
    ALL_SEATS,
    advice_in_notation,
    forced_next_words,
    hidden_information,
    layout,
    listed_next_words,
    next_words,
)


def state_for(reader: Perspective, latest: Game, game: Game) -> Any:
    """`game`'s state as the reader may see it: whole for a reader who may see every hidden fact in the game as it
    stands now (`latest`), with a seat's own hidden facts for its seat, as the public sees it otherwise."""
    rules = game.rules
    if reads_hidden(reader, latest):
        return rules.snapshot_state(game.state)
    if reader.seat is not None:
        return hidden_information(rules).seat_state(game.state, reader.seat)
    return hidden_information(rules).public_state(game.state)


def layout_for(reader: Perspective, latest: Game, game: Game) -> Any:
    """The picture of `game`'s position for the reader: a seat's own hidden facts for its seat, every one for a
    reader who may see them in the game as it stands now (`latest`)."""
    return layout(game.rules, game.state, ALL_SEATS if reads_hidden(reader, latest) else reader.seat)


def shown_actions(reader: Perspective, game: Game, actions: Iterable[Any]) -> list[Any]:
    """Those of `actions` (each one that may be taken now) that follow from what the reader may see: every one for
    a reader who sees every hidden fact; for another, not the hidden actions, nor those whose legality rests on
    another player's hidden facts (a held card, a peek)."""
    if reads_hidden(reader, game):
        return list(actions)
    hidden, state = hidden_information(game.rules), game.state
    return [
        action
        for action in actions
        if hidden.visible_only_to(action) is None and hidden.rests_on(state, action) in (None, reader.seat)
    ]


def legal_for(reader: Perspective, game: Game) -> list[str]:
    """The legal actions now that follow from what the reader may see (`shown_actions`)."""
    rules = game.rules
    return [rules.format_action(action) for action in shown_actions(reader, game, rules.legal_actions(game.state))]


def advice_for(reader: Perspective, game: Game) -> dict[str, Any] | None:
    """The decision the rules make now for a seat they run (an Autosaur), in notation (`advice_in_notation`), as
    the reader may be offered it: where every action it offers follows from what the reader may see
    (`shown_actions`); None otherwise. The rules decide it from facts no seat keeps hidden (`Advising`)."""
    rules = game.rules
    offered = advice_in_notation(rules, game.state)
    if offered is None or reads_hidden(reader, game):
        return offered
    actions = [rules.parse_action(words) for words in offered["actions"]]
    return offered if len(shown_actions(reader, game, actions)) == len(actions) else None


def choices_for(reader: Perspective, game: Game, words: Sequence[str]) -> NextWords:
    """The words that may follow `words` in a legal action now, for the reader: every one the rules compose for a
    reader who sees every hidden fact; for another, those of the legal actions it is shown (`legal_for`)."""
    if reads_hidden(reader, game):
        return next_words(game.rules, game.state, words)
    return listed_next_words(legal_for(reader, game), words)


def forced_choices_for(reader: Perspective, game: Game, words: Sequence[str]) -> tuple[list[str], NextWords]:
    """The words that follow `words` as the only ones possible, one after another, until a choice is needed or the
    words are a legal action; and the choices after them (`choices_for`)."""
    return forced_next_words(lambda entered: choices_for(reader, game, entered), words)


def refusal_for(reader: Perspective, game: Game, violation: RuleViolation) -> RuleViolation:
    """The refusal as the reader may be told it: its public part where it rests on facts hidden from the reader."""
    if violation.public is None or reads_hidden(reader, game):
        return violation
    return RuleViolation(violation.ruling, violation.public, violation.waivable)
