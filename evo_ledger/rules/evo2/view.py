"""An Evo 2nd edition position in words, for people at the table."""

from __future__ import annotations

from evo_ledger.rules.base import StateView
from evo_ledger.rules.evo2 import auction
from evo_ledger.rules.evo2.state import ATTACK_ROLL, ESCAPE, Pending, Phase, PlayerState, State

# Genes every species starts with on its sheet, shown as totals.
SHEET_GENES = ("legs", "eggs")
AWAITED = {
    Phase.ORDER: "the clan markers' order to be drawn",
    Phase.CLIMATE: "the climate token to be revealed",
    Phase.MUTATIONS: "genes to be drawn for the lab",
}


def view(state: State) -> StateView:
    players = tuple(player_line(state, player) for player in state.players.values())
    return StateView(headline(state), players, dict(state.board))


def headline(state: State) -> str:
    if state.phase == Phase.OVER:
        return f"game over after round {state.round}"
    return f"round {state.round} · {state.phase} · {awaited(state)}"


def awaited(state: State) -> str:
    if state.pending is not None:
        return pending_text(state.pending)
    match state.phase:
        case Phase.AUCTION:
            return f"{auction.bidder(state)} to bid"
        case Phase.INITIATIVE:
            return "adrenaline rush to be placed, or the phase to be passed"
        case Phase.MOVEMENT:
            return f"{state.current_player} to move ({state.movement_left} MP left)"
        case Phase.BIRTH:
            return f"{state.current_player} to give birth or pass"
        case Phase.SURVIVAL:
            return f"{state.to_choose[0]} to choose who dies" if state.to_choose else "the survival to be settled"
    return AWAITED.get(state.phase, state.phase)


def pending_text(pending: Pending) -> str:
    if pending.kind == ESCAPE:
        return f"{pending.player} to choose where the chameleon on {pending.target} escapes"
    if pending.kind == ATTACK_ROLL:
        return f"{pending.player} to roll the die for the attack from {pending.source} on {pending.target}"
    return f"{pending.player} to roll the die for the killer baby on {pending.target}"


def player_line(state: State, player: PlayerState) -> str:
    genes = ", ".join(f"{gene} {n}" for gene, n in sorted(player.genes.items()) if n and gene not in SHEET_GENES)
    cards = f", {player.event_cards} event card{'s' if player.event_cards > 1 else ''}" if player.event_cards else ""
    return (
        f"{player.name} (seat {player.seat}): {player.mp} MP, {state.count_of(player.name)} dinosaurs, "
        f"legs {player.legs}, eggs {player.eggs}{', ' + genes if genes else ''}{cards}"
    )
