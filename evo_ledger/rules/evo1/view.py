"""An Evo 1st edition position in words, and its board as a picture, for people at the table."""

from __future__ import annotations

from collections.abc import Mapping

from evo_ledger.rules.base import StateView
from evo_ledger.rules.boards import BoardLayout
from evo_ledger.rules.evo1 import auction, board, modifiers
from evo_ledger.rules.evo1.kit import Kit, zone
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.hexisland.kitmap import board_spaces, render_map
from evo_ledger.rules.hexisland.layout import AuctionItem, Island, island_board
from evo_ledger.rules.words import counted, spoken

ZONES = ("ideal", "hot", "cold", "deadly")
GENE_ORDER = ("tail", "foot", "horn", "egg", "fur", "parasol", "mutant")
# Green and grey share a first letter: grey spaces are the mountains.
TERRAIN_INITIALS = {"yellow": "y", "green": "g", "brown": "b", "grey": "m"}


# What the end window awaits, after the impact [E1-20].
END_WINDOW = "the end window after the meteor struck: fossils may be played, then 'end'"


def view(state: State) -> StateView:
    players = tuple(seat_line(state, name) for name in state.seats)
    number, phase, step = where(state)
    return StateView(
        headline(state, number, phase, step),
        players,
        dict(state.board),
        table_lines(state),
        round=number,
        phase=phase,
        step=step,
    )


def where(state: State) -> tuple[int, str, str]:
    """The turn (0 during the setup), the phase and what is awaited: the headline says them, and the view gives
    each apart."""
    if state.phase == Phase.OVER:
        return state.turn, Phase.OVER, ""
    if state.phase == Phase.END:
        return state.turn, Phase.END, END_WINDOW
    return state.turn, state.phase, awaited(state)


def layout(state: State, seat: str | None = None) -> BoardLayout:
    """The island as a board, its zones and the auction: nothing hidden is drawn, whoever the `seat`."""
    kit = state.kit
    colour = kit.chart[state.climate_position]
    zones = {terrain: zone(kit.terrains, colour, terrain) for terrain in kit.terrains}
    auction = tuple(
        AuctionItem(
            f"row {row}",
            state.rows[row - 1] if row <= len(state.rows) else "to be drawn",
            (state.bids[row],) if row in state.bids else (),
        )
        for row in range(1, state.rows_due + 1)
    )
    players = tuple(seat.name for seat in sorted(state.seats.values(), key=lambda seat: seat.seat))
    spaces = board_spaces(kit, state.board, kit.start_beaches)
    return island_board(Island(kit.terrains, zones, spaces, auction, players))


def table_lines(state: State) -> tuple[str, ...]:
    """The chart's zones and the meteor track; during an auction, its rows and their bids."""
    if state.phase == Phase.SETUP:
        return ()
    kit = state.kit
    zones = kit.zones[state.climate_position]
    by_zone = {zone: sorted({kit.spaces[s].terrain for s, z in zones.items() if z == zone}) for zone in ZONES}
    named = [f"{' and '.join(terrains)} {zone}" for zone, terrains in by_zone.items() if terrains]
    numbered = [f"{number} on {space}" for space, number in enumerate(kit.meteor_track) if number]
    lines = [
        f"climate: marker on {kit.chart[state.climate_position]}: {', '.join(named)}",
        f"meteor: on space {state.meteor} of {len(kit.meteor_track) - 1} (die numbers: {', '.join(numbered)})",
    ]
    if state.rows_due:
        rows = [auction_row(state, row) for row in range(1, state.rows_due + 1)]
        lines.append("auction: " + "; ".join(rows))
    if state.modifiers or state.embargo:
        lines.append("cards in force this turn: " + ", ".join(cards_in_force(state)))
    if state.discards:
        lines.append(f"played: {', '.join(spoken(card) for card in state.discards)}")
    return tuple(lines)


def cards_in_force(state: State) -> list[str]:
    found = []
    for modifier in state.modifiers:
        named = f" with {modifier.value}" if modifier.card == modifiers.PEACE_TREATY else ""
        found.append(f"{spoken(modifier.card)} ({modifier.player}{named})")
    if state.embargo:
        found.append("card embargo: no play until the next turn")
    return found


def auction_row(state: State, row: int) -> str:
    if row > len(state.rows):
        return f"row {row} to be drawn"
    standing = state.bids.get(row)
    bid = f" ({standing[0]} {standing[1]})" if standing else ""
    return f"row {row} {state.rows[row - 1]}{bid}"


def headline(state: State, number: int, phase: str, step: str) -> str:
    """`turn 3 · movement · climate green · meteor on 4 · ann to move (2 steps left)`: the turn, the phase, the
    climate and the meteor, and what is awaited; `setup · ...` before the first turn."""
    if phase == Phase.OVER:
        return f"game over in turn {number}: the meteor struck"
    if phase == Phase.SETUP:
        return f"setup · {step}"
    if phase == Phase.END:
        return f"turn {number} · {phase} · {step}"
    colour = state.kit.chart[state.climate_position]
    return f"turn {number} · {phase} · climate {colour} · meteor on {state.meteor} · {step}"


def awaited(state: State) -> str:
    if state.cards_due:
        return f"{state.cards_due[0]} to draw an event card"
    if state.due:
        return f"the table's '{state.due}' step, a card may come first"
    if state.paying:
        return f"{state.paying[0]} to play the vouchers that cover its payment"
    if state.heat_rolls:
        space = state.heat_rolls[0]
        return f"the heat stroke die for {state.board[space]}'s dinosaur on {space}"
    if state.combat is not None:
        combat = state.combat
        source = "with a baby" if combat.birth else f"from {combat.source}"
        return f"{combat.attacker} to roll for the attack {source} on {combat.target}"
    player = state.current_player
    match state.phase:
        case Phase.SETUP:
            return "the starred beaches to be assigned"
        case Phase.INITIATIVE:
            return f"{state.to_roll[0]} to roll for initiative, {len(state.to_roll)} tied seats still to roll"
        case Phase.CLIMATE:
            return f"{state.first_player} to roll the climate die"
        case Phase.MOVEMENT:
            return f"{player} to move ({counted(state.movement_left, 'step')} left)"
        case Phase.BIRTHS:
            return f"{player} to place a baby ({state.births_left} eggs left)"
        case Phase.SURVIVAL:
            return survival_choice(state, player)
    if state.awaiting_meteor_roll:
        return f"{state.first_player} to roll for the meteor"
    if len(state.rows) < state.rows_due:
        return f"{state.first_player} to draw gene {len(state.rows) + 1} of {state.rows_due}"
    return f"{auction.bidder(state)} to bid"


def survival_choice(state: State, player: str | None) -> str:
    """Who chooses, and how many go from which zone, and why: the zone's excess over the genes that keep them."""
    survival = board.survival_of(state, player or state.order[state.acting])
    owed = [
        f"{survival.excess(zone)} of the {len(survival.in_zone[zone])} in the {zone} zone "
        f"({board.LIMITED_ZONES[zone]} keeps {survival.limits[zone]})"
        for zone in survival.choices
    ]
    return f"{survival.player} to choose which go: {'; '.join(owed)}"


def seat_line(state: State, name: str) -> str:
    seat = state.seats[name]
    genes = ", ".join(f"{gene} {state.gene(name, gene)}" for gene in GENE_ORDER)
    cards = len(seat.hand)
    return (
        f"{name} (seat {seat.seat}): {seat.mp} MP, {counted(state.count_of(name), 'dinosaur')}, {genes}, "
        f"{cards} event card{'' if cards == 1 else 's'}"
    )


def draw_board(kit: Kit, labels: Mapping[str, str] | None = None) -> str:
    beaches = f"starred beaches: {' '.join(kit.start_beaches)}; halves: {' + '.join(kit.halves)}"
    chart = f"climate chart: {' '.join(kit.chart)} (clockwise), marker starts on {kit.chart[kit.chart_start]}"
    track = " ".join("·" if number is None else str(number) for number in kit.meteor_track[:-1]) + " end"
    meteor = f"meteor track: {track}, starting on space {kit.meteor_start}"
    terrains = "y yellow beach, g green plain, b brown hill, m grey mountain"
    legend = f"board: space, terrain ({terrains}), * on the coast" + (", then its occupant" if labels else "")
    header = [] if labels else [beaches, chart, meteor]
    return "\n".join([*header, f"\n{legend}\n", render_map(kit, labels, TERRAIN_INITIALS)])
