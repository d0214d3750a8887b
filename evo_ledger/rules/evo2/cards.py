"""Event cards [E2-15]: hidden in hand, played with their effects recorded as facts or lasting modifiers.

The 2nd edition's card texts are not public, so a play is recorded with what it did, and is checked against
the card's definition only when the kit's catalogue defines that card.
"""

from __future__ import annotations

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo2.actions import FACT_EFFECTS, Drew, Effect, PlayCard, format_effect
from evo_ledger.rules.evo2.movement import check_space
from evo_ledger.rules.evo2.state import Modifier, State


def unnamed_cards(state: State, player: str) -> int:
    holder = state.players[player]
    return holder.event_cards - len(holder.named_cards)


def check_drew(state: State, action: Drew) -> None:
    if unnamed_cards(state, action.player) < 1:
        raise RuleViolation("E2-15", f"{action.player} holds no event card that is not named yet")


def apply_drew(state: State, action: Drew) -> None:
    state.own_player(action.player).named_cards.append(action.card)


def check_play(state: State, action: PlayCard) -> None:
    holder = state.players[action.player]
    if holder.event_cards < 1:
        raise RuleViolation("E2-15", f"{action.player} holds no event card")
    if action.card not in holder.named_cards and unnamed_cards(state, action.player) < 1:
        raise RuleViolation(
            "E2-15",
            f"{action.player} holds {', '.join(holder.named_cards)}, not {action.card}",
            public=f"{action.player} cannot play that card now",
        )
    for effect in action.effects:
        check_effect(state, action.player, effect)
    definition = state.kit.cards.get(action.card)
    if definition is not None:
        check_against_catalogue(state, action, definition.phases, definition.effects)


def check_effect(state: State, player: str, effect: Effect) -> None:
    if effect.space is not None:
        check_space(state, effect.space)
        if effect.space not in state.board:
            raise RuleViolation("E2-15", f"the card removes a dinosaur from {effect.space}, which is empty")
    if effect.player is not None and effect.player not in state.players:
        raise RuleViolation(None, f"no player named {effect.player!r} sits at this table")
    if effect.kind == "peace" and effect.player == player:
        raise RuleViolation("E2-15", "peace is made with another player")


def check_against_catalogue(state: State, action: PlayCard, phases: tuple[str, ...], kinds: tuple[str, ...]) -> None:
    if phases and state.phase not in phases:
        raise RuleViolation("E2-15", f"{action.card} is played in the {' or '.join(phases)} phase, not {state.phase}")
    played = tuple(effect.kind for effect in action.effects)
    if sorted(played) != sorted(kinds):
        raise RuleViolation("E2-15", f"the kit's catalogue says {action.card} does {', '.join(kinds) or 'nothing'}")


def apply_play(state: State, action: PlayCard, effects: Effects) -> None:
    holder = state.own_player(action.player)
    holder.event_cards -= 1
    if action.card in holder.named_cards:
        holder.named_cards.remove(action.card)
    state.cards_played = (*state.cards_played, (state.round, action.player, action.card))
    effects.add(
        "card_played",
        round=state.round,
        player=action.player,
        card=action.card,
        effects=[format_effect(e) for e in action.effects],
        checked=action.card in state.kit.cards,
    )
    for effect in action.effects:
        apply_effect(state, action, effect, effects)


def apply_effect(state: State, action: PlayCard, effect: Effect, effects: Effects) -> None:
    if effect.kind == "remove" and effect.space is not None:
        owner = state.own_board().pop(effect.space)
        effects.add("dinosaur_removed", round=state.round, player=owner, space=effect.space, card=action.card)
    elif effect.kind == "shift":
        positions = len(state.kit.climate.positions)
        state.climate_position = (state.climate_position + effect.value) % positions
        zones = dict(state.kit.climate.positions[state.climate_position])
        effects.add(
            "climate_changed", round=state.round, card=action.card, position=state.climate_position, zones=zones
        )
    elif effect.kind == "mp" and effect.player is not None:
        state.own_player(effect.player).mp += effect.value
    elif effect.kind not in FACT_EFFECTS:
        phase = state.phase if effect.until == "phase" else None
        modifier = Modifier(action.card, action.player, effect.kind, effect.value, effect.player, state.round, phase)
        state.modifiers = (*state.modifiers, modifier)


def played_this_round(state: State, player: str, card: str) -> bool:
    return (state.round, player, card) in state.cards_played
