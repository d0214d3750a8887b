"""A second implementation of the Autosaur algorithm, written from RULINGS.md's AS-03 and AS-06 to AS-16 alone. It
shares no code with the ledger's (`evo_ledger.rules.evo1.autosaur`, nor the board's or the auction's helpers): it
reads the game's state as plain data, and `Referee` follows a game action by action, computing each Autosaur
decision again and counting where the recorded one differs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Keys = tuple[int, ...]
HORN_CARDS = 2
AUTOSAUR_GENES = ("tail", "horn")


def distance(state: Any, a: str, b: str) -> int:
    """Hexes between two spaces, from their axial coordinates."""
    first, second = state.kit.spaces[a], state.kit.spaces[b]
    dq, dr = first.q - second.q, first.r - second.r
    hexes: int = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    return hexes


def zone(state: Any, space: str) -> str:
    """The chart's colour is ideal, one warmer hot, one colder cold, the rest deadly (hottest first)."""
    terrains = list(state.kit.terrains)
    ideal = state.kit.chart[state.climate_position]
    step = terrains.index(state.kit.spaces[space].terrain) - terrains.index(ideal)
    return {0: "ideal", -1: "hot", 1: "cold"}.get(step, "deadly")


def in_force(state: Any, card: str, player: str | None = None) -> list[Any]:
    return [m for m in state.modifiers if m.card == card and (player is None or m.player == player)]


def horn_genes(state: Any, player: str) -> int:
    return int(state.kit.sheet.get("horn", 0)) + int(state.seats[player].genes.get("horn", 0))


def may_attack(state: Any, me: str, enemy: str) -> bool:
    """E1-09 as AS-06 reads it: no no_fighting, no peace treaty between them, and not 2 horns or more behind."""
    if in_force(state, "no_fighting"):
        return False
    if any({m.player, m.value} == {me, enemy} for m in in_force(state, "peace_treaty")):
        return False
    attack = horn_genes(state, me) + (HORN_CARDS if in_force(state, "attack_horns", me) else 0)
    defence = horn_genes(state, enemy) + (HORN_CARDS if in_force(state, "defence_horns", enemy) else 0)
    return attack - defence > -2


def centre(state: Any) -> tuple[int, int]:
    if state.kit.center is not None:
        q, r = state.kit.center
        return q, r
    spaces = sorted(state.kit.spaces.values(), key=lambda space: space.id)
    q = sum(space.q for space in spaces) / len(spaces)
    r = sum(space.r for space in spaces) / len(spaces)
    best = min(spaces, key=lambda s: ((abs(s.q - q) + abs(s.r - r) + abs(s.q - q + s.r - r)) / 2, s.id))
    return best.q, best.r


def keys(state: Any, me: str, space: str) -> Keys:
    """AS-07's seven keys, smaller better; a deadly space (only ever seen at the setup) after hot and cold."""
    board = state.board
    enemies = [other for other, owner in board.items() if owner != me]
    mine = horn_genes(state, me)
    weaker = [other for other in enemies if horn_genes(state, board[other]) < mine]
    richer = {name for name, seat in state.seats.items() if seat.mp > state.seats[me].mp}
    near = [other for other in board if other == space or distance(state, other, space) == 1]
    cq, cr = centre(state)
    spot = state.kit.spaces[space]
    dq, dr = spot.q - cq, spot.r - cr
    return (
        0 if space not in board else 1,
        {"ideal": 0, "hot": 1, "cold": 1}.get(zone(state, space), 2),
        distance(state, space, state.starts[me]),
        (abs(dq) + abs(dr) + abs(dq + dr)) // 2,
        -min((distance(state, space, other) for other in enemies), default=0),
        min((distance(state, space, other) for other in weaker), default=0),
        -sum(1 for other in near if board[other] in richer),
    )


def best_of(scored: Mapping[str, Keys]) -> set[str]:
    """Only the best on one key go on to the next: the spaces with the least keys, compared in order."""
    if not scored:
        return set()
    least = min(scored.values())
    return {space for space, found in scored.items() if found == least}


def setup_choices(state: Any, me: str) -> set[str]:
    """AS-03: the best empty beach next to the start; with none, the best empty space next to it."""
    start = state.starts[me]
    empty = [s for s in state.kit.spaces if distance(state, s, start) == 1 and s not in state.board]
    beaches = [s for s in empty if state.kit.spaces[s].terrain == state.kit.terrains[0]]
    return best_of({s: keys(state, me, s) for s in beaches or empty})


def birth_candidates(state: Any, me: str, tried: Iterable[str]) -> list[str]:
    """AS-06: not deadly now, no dinosaur of its own, empty or an enemy it may attack, not tried this turn."""
    if in_force(state, "no_births"):
        return []
    tried = set(tried)
    found = []
    for space in state.kit.spaces:
        owner = state.board.get(space)
        if zone(state, space) == "deadly" or space in tried or owner == me:
            continue
        if owner is None or may_attack(state, me, owner):
            found.append(space)
    return found


def birth_step(state: Any, me: str) -> tuple[str, dict[str, Keys]]:
    """AS-06's step as the slot begins, and its spaces with their keys then (AS-09: ranked once)."""
    adults = [s for s in state.adults.get(me, ()) if state.board.get(s) == me]
    found = birth_candidates(state, me, ())
    touching = {s: sum(1 for a in adults if distance(state, s, a) == 1) for s in found}
    if adults and any(count >= 2 for count in touching.values()):
        step, spaces = "A", [s for s in found if touching[s] >= 2]
    elif adults and any(count == 1 for count in touching.values()):
        step, spaces = "B", [s for s in found if touching[s] == 1]
    else:
        start = state.starts[me]
        nearest = min((distance(state, s, start) for s in found), default=0)
        step, spaces = "C", [s for s in found if distance(state, s, start) == nearest]
    return step, {s: keys(state, me, s) for s in spaces}


def survival_losses(state: Any, me: str, board: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """AS-10: its dinosaurs in deadly zones, then those with none of its own next to them."""
    mine = [s for s, owner in board.items() if owner == me]
    deadly = sorted(s for s in mine if zone(state, s) == "deadly")
    left = [s for s in mine if s not in deadly]
    alone = sorted(s for s in left if not any(distance(state, s, o) == 1 for o in left if o != s))
    return deadly, alone


def gene_class(gene: str) -> str:
    return gene if gene in AUTOSAUR_GENES else "general"


def required(state: Any, row: int) -> int:
    """r(row): 0 for an empty row, else the holder's bid + 1, + 3 over an outbid_plus3 holder."""
    held = state.bids.get(row)
    if held is None:
        return 0
    holder, amount = held
    return int(amount) + (3 if in_force(state, "outbid_plus3", holder) else 1)


def bid_choice(state: Any, me: str, roll: int, current: int | None) -> tuple[int, int]:
    """AS-13 to AS-16: (row, amount) of its bid, or (0, 0) for a pass; `current`, the row it was outbid from."""
    rows = list(range(1, len(state.rows) + 1))
    need = {row: required(state, row) for row in rows}
    mp = state.seats[me].mp
    can = [row for row in rows if need[row] <= mp]
    if state.passes_open > 0 and roll < min(need.values()):
        return 0, 0
    if not can:
        return 0, 0
    if current is None:
        row = min(can, key=lambda r: (need[r], r))
        return row, need[row]
    others = [seat.mp for name, seat in state.seats.items() if name != me]
    kind = gene_class(state.rows[current - 1])
    modified = roll
    if all(mp > other for other in others):
        modified += 1
    if all(mp < other for other in others):
        modified -= 1
    if any(r != current and gene_class(state.rows[r - 1]) == kind and need[r] < need[current] for r in rows):
        modified -= 1
    if state.options.get("costly_rebid") and need[current] >= 3:
        modified += 1
    if modified >= 5 and current in can:
        return current, need[current]
    moves = [r for r in can if r != current]
    if not moves:
        return current, need[current]
    row = min(
        moves,
        key=lambda r: (
            not need[r] < need[current],
            gene_class(state.rows[r - 1]) != kind,
            need[r],
            abs(r - current),
            r,
        ),
    )
    return row, need[row]


@dataclass
class Referee:
    """Follows one game: each Autosaur decision computed again from the state before it and compared."""

    autosaurs: frozenset[str]
    decisions: Counter[str] = field(default_factory=Counter)
    differences: list[str] = field(default_factory=list)
    slot: tuple[int, str] | None = None
    step: tuple[str, dict[str, Keys]] = ("", {})
    tried: list[str] = field(default_factory=list)
    last_roll: int = 0
    outbid_from: dict[str, int] = field(default_factory=dict)

    def differ(self, what: str) -> None:
        self.differences.append(what)

    def follow(self, before: Any, action: Any, after: Any, consequences: Sequence[Any]) -> None:
        kind = type(action).__name__
        player = getattr(action, "player", None)
        if kind == "Roll":
            self.last_roll = action.face
        elif player in self.autosaurs and kind == "Birth":
            self.birth(before, action)
        elif player in self.autosaurs and kind in ("Bid", "Pass") and before.phase == "evolution":
            self.bid(before, action)
        for consequence in consequences:
            if consequence.kind == "bid_outbid":
                self.outbid_from[consequence.data["player"]] = consequence.data["row"]
            elif consequence.kind == "auction_settled":
                self.outbid_from.clear()
        self.survival(after, consequences)

    def birth(self, before: Any, action: Any) -> None:
        me, space = action.player, action.space
        self.decisions["setup" if before.phase == "setup" else "birth"] += 1
        if before.phase == "setup":
            if space not in setup_choices(before, me):
                self.differ(f"setup: {me} on {space}, not {sorted(setup_choices(before, me))}")
            return
        if self.slot != (before.turn, me):
            self.slot, self.step, self.tried = (before.turn, me), birth_step(before, me), []
            if before.birth_step != self.step[0]:
                self.differ(f"turn {before.turn}: {me}'s step is {self.step[0]}, not {before.birth_step}")
        untried = {s: k for s, k in self.step[1].items() if s not in self.tried}
        if space not in best_of(untried):
            self.differ(f"turn {before.turn}: {me} birth on {space}, not {sorted(best_of(untried))}")
        self.tried.append(space)

    def bid(self, before: Any, action: Any) -> None:
        self.decisions["bid" if type(action).__name__ == "Bid" else "pass"] += 1
        me = action.player
        current = self.outbid_from.pop(me, None) if before.outbid == me else None
        row, amount = bid_choice(before, me, self.last_roll, current)
        made = (int(action.target.removeprefix("row")), action.amount) if type(action).__name__ == "Bid" else (0, 0)
        if made != (row, amount):
            self.differ(f"turn {before.turn}: {me} {made} on roll {self.last_roll}, not {(row, amount)}")

    def survival(self, after: Any, consequences: Sequence[Any]) -> None:
        if not any(c.kind == "mp_awarded" for c in consequences):
            return
        lost = {c.data["player"]: c.data for c in consequences if c.kind == "autosaur_survived"}
        for me in self.autosaurs:
            self.decisions["survival"] += 1
            gone = lost.get(me, {"deadly": [], "isolated": []})
            board = {**after.board, **{s: me for s in (*gone["deadly"], *gone["isolated"])}}
            if any(after.board.get(s) not in (None, me) for s in (*gone["deadly"], *gone["isolated"])):
                self.differ(f"turn {after.turn}: {me} lost a space another species holds")
            if list(survival_losses(after, me, board)) != [gone["deadly"], gone["isolated"]]:
                self.differ(f"turn {after.turn}: {me}'s survival took {gone}")
