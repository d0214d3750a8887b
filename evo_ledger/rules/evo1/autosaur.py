"""Autosaurs: seats of an Evo 1st edition game run by a fixed algorithm and the dice [AS-01 to AS-18].

Every decision an Autosaur makes is computed here from the state and the recorded rolls: its second dinosaur at
the setup [AS-03], where it tries its births and in what order [AS-06, AS-07, AS-09], what survival takes
[AS-10], and each bid or pass [AS-13 to AS-16]. The ruleset offers the decision (`advice`), accepts a legal one
that differs with a warning naming the AS id, and records what a roll decided (`autosaur_rolled`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evo_ledger.rules.base import Advice, RuleViolation
from evo_ledger.rules.evo1 import auction, board, modifiers
from evo_ledger.rules.evo1.actions import Bid, Birth, Pass
from evo_ledger.rules.evo1.state import AUTOSAUR_GENES, Phase, State
from evo_ledger.rules.hexisland.kit import Space, hex_steps

PREFERENCES = (
    "empty before enemy-occupied",
    "ideal zone before hot or cold",
    "closer to its start space",
    "closer to the centre of the island",
    "farther from the nearest enemy",
    "closer to an enemy with fewer horns",
    "more dinosaurs of seats with more MP on or next to it",
)
"""AS-07's keys, in order."""
REBID_AT = 5
ZONE_RANK = {"ideal": 0, "hot": 1, "cold": 1, "deadly": 2}
"""AS-07's second key; a deadly space, never a birth's candidate, ranks last at the setup [AS-03]."""


@dataclass(frozen=True)
class Ranking:
    """Candidates ranked by AS-07: `best` are those no key tells apart (more than one: an open tie); `dropped`
    gives, for every other candidate, the number of the key that eliminated it (1 to 7)."""

    order: tuple[str, ...]
    best: tuple[str, ...]
    dropped: dict[str, int]


@dataclass(frozen=True)
class BidDecision:
    """A computed bid (`row` and `amount`) or pass (`row` 0), with the ruling and the reason that decided it."""

    row: int
    amount: int
    ruling: str
    reason: str
    modified: int | None = None


def autosaurs_of(option: object) -> tuple[str, ...]:
    """The Autosaur seats an `autosaurs` option names (names separated by spaces or commas)."""
    return tuple(name for name in str(option or "").replace(",", " ").split() if name)


def gene_class(gene: str) -> str:
    """Tail, horn, or general: every other gene [AS-14]."""
    return gene if gene in AUTOSAUR_GENES else "general"


# Spaces [AS-07].


CENTRES: dict[str, tuple[int, int]] = {}
"""Each kit's centre, by its content hash."""


def centre(state: State) -> tuple[int, int]:
    """The kit's `center`, or the land hex nearest the mean of all land coordinates (ties: the first id)."""
    kit = state.kit
    if kit.center is not None:
        return kit.center
    found = CENTRES.get(kit.content_hash)
    if found is None:
        found = CENTRES[kit.content_hash] = mean_hex(list(kit.spaces.values()))
    return found


def mean_hex(spaces: Sequence[Space]) -> tuple[int, int]:
    mean_q = sum(space.q for space in spaces) / len(spaces)
    mean_r = sum(space.r for space in spaces) / len(spaces)

    def off(space: Space) -> tuple[float, str]:
        q, r = space.q - mean_q, space.r - mean_r
        return (abs(q) + abs(r) + abs(q + r)) / 2, space.id

    nearest = min(spaces, key=off)
    return nearest.q, nearest.r


def hex_distance(state: State, space: str, to: tuple[int, int]) -> int:
    found = state.kit.spaces[space]
    return hex_steps(found.q - to[0], found.r - to[1])


def preference_keys(state: State, player: str, space: str) -> tuple[int, ...]:
    """AS-07's seven keys for `space`, each smaller the better."""
    kit, owner = state.kit, state.board.get(space)
    zone = state.zone_of(space)
    enemies = [(other, who) for other, who in state.board.items() if who != player]
    nearest = min((kit.distance(space, other) for other, _ in enemies), default=0)
    horns = state.gene(player, "horn")
    weaker = [other for other, who in enemies if state.gene(who, "horn") < horns]
    mp = state.seats[player].mp
    around = (space, *kit.neighbours[space])
    leaders = {name for name, seat in state.seats.items() if seat.mp > mp}
    crowding = sum(1 for near in around if state.board.get(near) in leaders)
    return (
        0 if owner is None else 1,
        ZONE_RANK[zone],
        kit.distance(space, state.starts[player]),
        hex_distance(state, space, centre(state)),
        -nearest,
        min((kit.distance(space, other) for other in weaker), default=0),
        -crowding,
    )


def rank(state: State, player: str, spaces: Sequence[str]) -> Ranking:
    """The spaces best first by AS-07, compared key by key; each dropped space with the key that dropped it."""
    return rank_by_keys({space: preference_keys(state, player, space) for space in spaces})


def rank_by_keys(keys: Mapping[str, tuple[int, ...]]) -> Ranking:
    spaces = list(keys)
    order = tuple(sorted(spaces, key=lambda space: (keys[space], space)))
    dropped: dict[str, int] = {}
    alive = list(spaces)
    for index in range(len(PREFERENCES)):
        best = min((keys[space][index] for space in alive), default=0)
        for space in alive:
            if keys[space][index] != best:
                dropped[space] = index + 1
        alive = [space for space in alive if keys[space][index] == best]
    return Ranking(order, tuple(sorted(alive)), dropped)


def ranked_tie(state: State, player: str, spaces: Sequence[str]) -> tuple[str, ...]:
    """The best of `spaces` by AS-07 (several: an open tie, the recorder's choice)."""
    return rank(state, player, spaces).best if spaces else ()


# The setup's second dinosaur [AS-03].


def setup_spaces(state: State, player: str) -> tuple[str, ...]:
    """The empty beaches next to the Autosaur's start, or, with none free, the empty spaces next to it."""
    start = state.starts[player]
    beach = state.kit.terrains[0]
    empty = [space for space in sorted(state.kit.neighbours[start]) if space not in state.board]
    beaches = [space for space in empty if state.kit.spaces[space].terrain == beach]
    return tuple(beaches or empty)


def check_setup_birth(state: State, player: str, space: str) -> None:
    if not state.placing or state.placing[0] != player:
        waiting = f"{state.placing[0]} places its second dinosaur first" if state.placing else "no Autosaur is placing"
        raise RuleViolation("AS-03", f"{waiting}: {player} places no dinosaur now")
    allowed = setup_spaces(state, player)
    if space not in allowed:
        where = ", ".join(allowed) or "none is free"
        raise RuleViolation(
            "AS-03",
            f"{player}'s second dinosaur goes on an empty beach next to its start {state.starts[player]}"
            f" (or, with none free, an empty space next to it): {where}; not {space}",
        )


# Births [AS-06 to AS-09].


def adults_of(state: State, player: str) -> list[str]:
    """Its dinosaurs on the board as the births began, still there [AS-06]."""
    return [space for space in state.adults.get(player, ()) if state.board.get(space) == player]


def candidates(state: State, player: str) -> list[str]:
    """Spaces not deadly now, holding no dinosaur of its own, empty or holding an enemy it may attack, and not
    tried this turn [AS-06]."""
    if modifiers.births_banned(state):
        return []
    zones, found = state.kit.zones[state.climate_position], []
    for space in state.kit.spaces:
        if zones[space] == "deadly" or space in state.tried:
            continue
        occupant = state.board.get(space)
        if occupant == player or (occupant is not None and not board.may_fight(state, player, occupant, birth=True)):
            continue
        found.append(space)
    return found


def birth_step(state: State, player: str) -> tuple[str, tuple[str, ...]]:
    """The step of AS-06 and its spaces, best first by AS-07: A, the spaces next to two adults or more; B, those
    next to one; C, with neither or no adult, those nearest its start space. The board is read as the step
    begins, and its ranking kept for the step [AS-09]."""
    found = candidates(state, player)
    adults = set(adults_of(state, player))
    if adults:
        neighbours = state.kit.neighbours
        touching = {space: len(neighbours[space] & adults) for space in found}
        two = [space for space in found if touching[space] >= 2]
        if two:
            return "A", rank(state, player, two).order
        one = [space for space in found if touching[space] == 1]
        if one:
            return "B", rank(state, player, one).order
    if not found:
        return "C", ()
    start = state.starts[player]
    nearest = min(state.kit.distance(space, start) for space in found)
    return "C", rank(state, player, [space for space in found if state.kit.distance(space, start) == nearest]).order


def begin_births(state: State, player: str) -> None:
    """The Autosaur's slot in phase 4: its step, ranked once; eggs ignored, only its reserve (step A) or one
    birth (B and C) counting [AS-06, AS-09]."""
    state.tried = ()  # the spaces another Autosaur tried are its own
    step, spaces = birth_step(state, player)
    state.birth_step = step
    state.step_keys = {space: preference_keys(state, player, space) for space in spaces}
    reserve = state.reserve_of(player)
    state.births_left = reserve if step == "A" else min(1, reserve)


def open_spaces(state: State) -> tuple[str, ...]:
    """The spaces of the step still to try, in AS-07's order."""
    return tuple(space for space in state.step_keys if space not in state.tried)


def births_open(state: State) -> bool:
    return state.births_left > 0 and bool(open_spaces(state)) and not modifiers.births_banned(state)


def next_births(state: State, player: str) -> tuple[str, ...]:
    """The spaces the algorithm tries next: the best untried by AS-07 as its step began (several: an open tie)."""
    return step_ranking(state).best if open_spaces(state) else ()


def step_ranking(state: State) -> Ranking:
    """The untried spaces of the step, ranked by their keys as the step began [AS-09]."""
    return rank_by_keys({space: state.step_keys[space] for space in open_spaces(state)})


def check_birth(state: State, player: str, space: str) -> None:
    """A birth is legal when its space is a candidate of the step [AS-06, AS-18]."""
    if space in state.tried:
        raise RuleViolation("AS-06", f"{player} has tried {space} this turn: each space once a turn")
    if space not in open_spaces(state):
        allowed = ", ".join(open_spaces(state)) or "none"
        raise RuleViolation(
            "AS-06", f"{space} is not a candidate of {player}'s step {state.birth_step} of the births: {allowed}"
        )
    occupant = state.board.get(space)
    if occupant is not None:
        board.check_fight(state, player, occupant, birth=True)


# Survival [AS-10].


def survival_losses(state: State, player: str) -> tuple[list[str], list[str]]:
    """Its dinosaurs in a deadly zone, then those left with no dinosaur of its own next to them."""
    zones = state.kit.zones[state.climate_position]
    mine = state.dinosaurs_of(player)
    deadly = sorted(space for space in mine if zones[space] == "deadly")
    staying = set(mine) - set(deadly)
    isolated = sorted(space for space in staying if not (state.kit.neighbours[space] & (staying - {space})))
    return deadly, isolated


# The auction [AS-11 to AS-16].


def required(state: State, row: int) -> int:
    """r(row): 0 for an empty row, else the holder's bid and the step to outbid it."""
    return auction.lowest_bid(state, row)


def affordable(state: State, player: str, amount: int) -> bool:
    """It pays its bids in full and never bids above its MP [AS-11]."""
    return amount <= state.seats[player].mp


def modified_roll(state: State, player: str, roll: int, current: int) -> int:
    """The roll when outbid: +1 leading every seat in MP, -1 behind every seat, -1 if another row of the same
    class needs less, and under `costly_rebid` +1 if the increase costs 3 or more [AS-14]."""
    mp = state.seats[player].mp
    others = [seat.mp for name, seat in state.seats.items() if name != player]
    r_current = required(state, current)
    cls = gene_class(state.rows[current - 1])
    rows = range(1, len(state.rows) + 1)
    cheaper_alike = any(
        row != current and gene_class(state.rows[row - 1]) == cls and required(state, row) < r_current for row in rows
    )
    return (
        roll
        + (1 if all(mp > other for other in others) else 0)
        - (1 if all(mp < other for other in others) else 0)
        - (1 if cheaper_alike else 0)
        + (1 if state.options.get("costly_rebid") and r_current >= 3 else 0)
    )


def bid_decision(state: State, player: str, roll: int) -> BidDecision:
    """Its bid or pass at this decision point, from its roll [AS-13 to AS-16]."""
    rows = range(1, len(state.rows) + 1)
    r = {row: required(state, row) for row in rows}
    current = state.lost_row if state.outbid == player else 0
    if state.passes_open > 0 and roll < min(r.values()):
        return BidDecision(0, 0, "AS-16", f"a pass is open and its roll {roll} is below the lowest required bid")
    if not any(affordable(state, player, amount) for amount in r.values()):
        if state.passes_open > 0:
            return BidDecision(0, 0, "AS-16", "no row is affordable and a pass is open")
        raise RuleViolation("AS-16", f"{player} can afford no row and no pass is open: the kit leaves it no move")
    if not current:
        row = min((row for row in rows if affordable(state, player, r[row])), key=lambda row: (r[row], row))
        return BidDecision(row, r[row], "AS-13", f"row {row} needs the lowest bid, {r[row]}")
    modified = modified_roll(state, player, roll, current)
    if modified >= REBID_AT and affordable(state, player, r[current]):
        return BidDecision(current, r[current], "AS-15", f"its roll {modified} is {REBID_AT} or more", modified)
    cls = gene_class(state.rows[current - 1])
    others = [row for row in rows if row != current and affordable(state, player, r[row])]
    if others:
        row = min(
            others,
            key=lambda row: (
                r[row] >= r[current],
                gene_class(state.rows[row - 1]) != cls,
                r[row],
                abs(row - current),
                row,
            ),
        )
        why = f"its roll {modified} is below {REBID_AT}: it moves to row {row}"
        return BidDecision(row, r[row], "AS-15", why, modified)
    return BidDecision(current, r[current], "AS-15", "no other row is affordable: it increases", modified)


# What the ledger offers the recorder [AS-18].


def ranking_reason(ranking: Ranking) -> str:
    """The candidates and the AS-07 key that left each out; an open tie named as such."""
    dropped = "; ".join(
        f"{space} out on key {key} ({PREFERENCES[key - 1]})" for space, key in sorted(ranking.dropped.items())
    )
    best = " and ".join(ranking.best)
    tie = f"an open tie after key 7 between {best}: the recorder's choice stands" if len(ranking.best) > 1 else ""
    return "; ".join(part for part in (tie or f"best by AS-07: {best}", dropped) if part)


def advice(state: State) -> Advice | None:
    """The Autosaur's decision now, if one is awaited and is not the die's: its setup dinosaur, the next birth it
    tries, or its bid or pass once rolled."""
    if state.placing:
        player = state.placing[0]
        spaces = setup_spaces(state, player)
        tied = ranked_tie(state, player, spaces)
        why = f"its second dinosaur next to its start {state.starts[player]}; " + ranking_reason(
            rank(state, player, spaces)
        )
        return Advice(tuple(Birth(player, space) for space in tied), "AS-03", why)
    acting = state.current_player
    if acting in state.autosaurs and state.phase == Phase.BIRTHS and state.combat is None:
        why = f"step {state.birth_step} of its births; " + ranking_reason(step_ranking(state))
        return Advice(tuple(Birth(acting, space) for space in next_births(state, acting)), "AS-07", why)
    bidder = auction.bidder(state) if state.phase == Phase.EVOLUTION else None
    if bidder in state.autosaurs and state.bid_roll:
        decision = bid_decision(state, bidder, state.bid_roll)
        action = Bid(bidder, decision.amount, f"row{decision.row}") if decision.row else Pass(bidder)
        return Advice((action,), decision.ruling, decision.reason)
    return None
