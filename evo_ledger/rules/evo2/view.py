"""An Evo 2nd edition position in words, for people at the table."""

from __future__ import annotations

from evo_ledger.rules.base import StateView
from evo_ledger.rules.boards import BoardLayout
from evo_ledger.rules.evo2 import auction, survival
from evo_ledger.rules.evo2.state import ATTACK_ROLL, ESCAPE, Pending, Phase, PlayerState, State
from evo_ledger.rules.hexisland.kitmap import board_spaces
from evo_ledger.rules.hexisland.layout import AuctionItem, Island, island_board
from evo_ledger.rules.words import counted

# Genes every species starts with on its sheet, shown as totals.
SHEET_GENES = ("legs", "eggs")
AWAITED = {
    Phase.ORDER: "the clan markers' order to be drawn",
    Phase.CLIMATE: "the climate token to be revealed",
    Phase.MUTATIONS: "genes to be drawn for the lab",
}


ZONES = ("ideal", "hot", "cold", "deadly")


def view(state: State) -> StateView:
    players = tuple(player_line(state, player) for player in state.players.values())
    number, phase, step = where(state)
    return StateView(
        headline(number, phase, step),
        players,
        dict(state.board),
        table_lines(state),
        round=number,
        phase=phase,
        step=step,
    )


def where(state: State) -> tuple[int, str, str]:
    """The round, the phase and what is awaited: the headline says them, and the view gives each apart."""
    if state.phase == Phase.OVER:
        return state.round, Phase.OVER, ""
    return state.round, state.phase, awaited(state)


def layout(state: State, seat: str | None = None) -> BoardLayout:
    """The island as a board, its zones and the auction: nothing hidden is drawn, whoever the `seat`."""
    kit = state.kit
    starts = [space for marks in kit.start_marks.values() for space in marks]
    auction: tuple[AuctionItem, ...] = ()
    if state.phase in (Phase.MUTATIONS, Phase.AUCTION):
        auction = tuple(
            AuctionItem(
                f"column {column}",
                "event card" if column == 1 else (state.lab[column - 2] or "empty").replace("_", " "),
                tuple((name, marker.amount) for name, marker in state.markers.items() if marker.column == column),
            )
            for column in range(1, len(state.lab) + 2)
        )
    zones = dict(kit.climate.positions[state.climate_position])
    players = tuple(player.name for player in sorted(state.players.values(), key=lambda player: player.seat))
    return island_board(Island(kit.terrains, zones, board_spaces(kit, state.board, starts), auction, players))


def table_lines(state: State) -> tuple[str, ...]:
    """The climate wheel's zones and, while genes are drawn or bid for, the lab with the markers on it."""
    zones = state.kit.climate.positions[state.climate_position]
    named = [f"{' and '.join(t for t in zones if zones[t] == zone)} {zone}" for zone in ZONES if zone in zones.values()]
    lines = [f"climate: wheel at position {state.climate_position}: {', '.join(named)}"]
    if state.phase in (Phase.MUTATIONS, Phase.AUCTION):
        lines.append("lab: " + "; ".join(lab_column(state, column) for column in range(1, len(state.lab) + 2)))
    return tuple(lines)


def lab_column(state: State, column: int) -> str:
    item = "event card" if column == 1 else (state.lab[column - 2] or "empty").replace("_", " ")
    bids = [f"{name} {marker.amount}" for name, marker in state.markers.items() if marker.column == column]
    return f"column {column} {item}" + (f" ({', '.join(bids)})" if bids else "")


def headline(number: int, phase: str, step: str) -> str:
    """`round 3 · movement · ann to move (2 steps left)`; `game over after round 10`."""
    if phase == Phase.OVER:
        return f"game over after round {number}"
    return f"round {number} · {phase} · {step}"


def awaited(state: State) -> str:
    if state.pending is not None:
        return pending_text(state.pending)
    match state.phase:
        case Phase.AUCTION:
            return f"{auction.bidder(state)} to bid"
        case Phase.INITIATIVE:
            return "adrenaline rush to be placed, or the phase to be passed"
        case Phase.MOVEMENT:
            return f"{state.current_player} to move ({counted(state.movement_left, 'step')} left)"
        case Phase.BIRTH:
            return f"{state.current_player} to give birth or pass"
        case Phase.SURVIVAL:
            return survival_choice(state) if state.to_choose else "the survival to be settled"
    return AWAITED.get(state.phase, state.phase)


def survival_choice(state: State) -> str:
    """Who chooses, how many of their dinosaurs go, and why: the zones' excess over what keeps them [E2-12]."""
    owed = survival.due(state, state.to_choose[0])
    keepers = {"hot": "thermoregulation", "cold": "fur", "deadly": "cave dweller"}
    why = "; ".join(
        f"{len(owed.at_risk[zone])} in {zone} zones, {keepers[zone]} keeps {owed.keep[zone]}"
        for zone in survival.AT_RISK
        if owed.excess[zone]
    )
    return f"{owed.player} to choose {owed.count} of their dinosaurs to go ({why})"


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
