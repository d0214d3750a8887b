"""The state of an Evo 2nd edition game between two actions.

States are plain objects, and the ruleset never changes one it was given: `apply` works on a `copy()`. A copy
shares everything with its original: the rules replace a container rather than change it in place, and change
the board only through `own_board` and a player only through `own_player`, which copy it the first time a
transition touches it.
Phases run in the order of RULINGS [E2-01]; the initiative phase and the MP award need no input unless a
player holds adrenaline rush, and happen inside the action that completes the phase before them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evo_ledger.rules.hexisland.kit import Kit

SHEET_LEGS = 2
SHEET_EGGS = 1
START_MP = 6


class Phase:
    ORDER = "order"
    CLIMATE = "climate"
    MUTATIONS = "mutations"
    AUCTION = "auction"
    INITIATIVE = "initiative"
    MOVEMENT = "movement"
    BIRTH = "birth"
    SURVIVAL = "survival"
    OVER = "over"


class GeneCount(dict[str, int]):
    """How many of each gene a species has; a gene it lacks counts 0. A dict, copied as one, and read with `get`
    where the rules read it for every action (pays for: bench.rules_speed check+apply)."""

    def __missing__(self, gene: str) -> int:
        return 0


@dataclass
class PlayerState:
    name: str
    seat: int
    mp: int = START_MP
    genes: GeneCount = field(default_factory=GeneCount)
    event_cards: int = 0
    named_cards: list[str] = field(default_factory=list)

    def copy(self) -> PlayerState:
        return PlayerState(
            self.name, self.seat, self.mp, GeneCount(self.genes), self.event_cards, list(self.named_cards)
        )

    def has(self, gene: str) -> bool:
        return self.genes.get(gene, 0) > 0

    @property
    def legs(self) -> int:
        return SHEET_LEGS + self.genes.get("legs", 0)

    @property
    def eggs(self) -> int:
        return SHEET_EGGS + self.genes.get("eggs", 0)

    @property
    def movement_points(self) -> int:
        return self.legs + (2 if self.has("strong_thighs") else 0)

    @property
    def floor(self) -> int:
        """No removal takes a species below this many dinosaurs [E2-09, E2-12]."""
        return 3 if self.has("regeneration") else 2


class Marker(NamedTuple):
    """A clan marker on the biology lab during the auction. A named tuple, since every bid places one (pays for:
    bench.rules_speed check+apply)."""

    column: int
    amount: int


class Pending(NamedTuple):
    """What must happen before anything else: a die roll for an attack or a killer baby, or a chameleon's escape.

    `player` is who acts: the attacker, the baby's owner, or the defender escaping."""

    kind: str
    player: str
    source: str | None
    target: str


ATTACK_ROLL = "attack_roll"
KILLER_BABY_ROLL = "killer_baby_roll"
ESCAPE = "escape"


@dataclass(frozen=True)
class Modifier:
    """A card's effect that lasts: until the end of `phase` in `round`, or all of `round` when `phase` is None."""

    card: str
    player: str
    kind: str
    value: int = 0
    other: str | None = None
    round: int = 0
    phase: str | None = None


NOTHING_OWNED: tuple[str, ...] = ()
BOARD = ""
"""The board's name among what a state owns; no player is named ''."""


@dataclass
class State:
    kit: Kit
    options: dict[str, Any]
    players: dict[str, PlayerState]
    board: dict[str, str]
    round: int = 1
    phase: str = Phase.ORDER
    climate_position: int = 0
    revealed: dict[str, int] = field(default_factory=dict)
    genes_taken: dict[str, int] = field(default_factory=dict)
    lab: tuple[str | None, ...] = ()
    set_aside: tuple[str, ...] = ()
    markers: dict[str, Marker] = field(default_factory=dict)
    to_bid: tuple[str, ...] = ()
    outbid: tuple[str, int] | None = None
    order: tuple[str, ...] = ()
    turn: int = 0
    movement_left: int = 0
    pending: Pending | None = None
    birth_pass: int = 1
    to_choose: tuple[str, ...] = ()
    specials_used: frozenset[str] = frozenset()
    peeked: str | None = None
    modifiers: tuple[Modifier, ...] = ()
    cards_played: tuple[tuple[int, str, str], ...] = ()
    _owned: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    """What this state no longer shares with the state it was copied from: the players it owns, and BOARD; None
    for a state copied from none."""

    def copy(self) -> State:
        """A state sharing every value with this one. Made by the constructor, field by field in their order: an
        object whose `__dict__` was set or read is slower at every attribute read, and keywords are slower than
        places (pays for: bench.rules_speed check+apply)."""
        return State(
            self.kit,
            self.options,
            self.players,
            self.board,
            self.round,
            self.phase,
            self.climate_position,
            self.revealed,
            self.genes_taken,
            self.lab,
            self.set_aside,
            self.markers,
            self.to_bid,
            self.outbid,
            self.order,
            self.turn,
            self.movement_left,
            self.pending,
            self.birth_pass,
            self.to_choose,
            self.specials_used,
            self.peeked,
            self.modifiers,
            self.cards_played,
            NOTHING_OWNED,
        )

    def own_board(self) -> dict[str, str]:
        """The board, to be changed: copied first if this state still shares it."""
        owned = self._owned
        if owned is not None and BOARD not in owned:
            self.board = dict(self.board)
            self._owned = (*owned, BOARD)
        return self.board

    def own_player(self, name: str) -> PlayerState:
        """The player, to be changed: copied first if this state still shares it."""
        owned = self._owned
        if owned is not None and name not in owned:
            if owned in (NOTHING_OWNED, (BOARD,)):
                self.players = dict(self.players)
            self.players[name] = self.players[name].copy()
            self._owned = (*owned, name)
        return self.players[name]

    def dinosaurs_of(self, player: str) -> list[str]:
        return [space for space, owner in self.board.items() if owner == player]

    def count_of(self, player: str) -> int:
        return list(self.board.values()).count(player)

    def dinosaur_counts(self) -> dict[str, int]:
        """Each player's dinosaurs on the board, counted in one pass over it."""
        counts = dict.fromkeys(self.players, 0)
        for owner in self.board.values():
            counts[owner] += 1
        return counts

    def zone_of(self, space: str) -> str:
        return self.kit.zones[self.climate_position][space]

    def active(self, kind: str, player: str | None = None) -> list[Modifier]:
        """The card modifiers of `kind` in force now, those played by `player` if given."""
        if not self.modifiers:
            return []
        return [
            m
            for m in self.modifiers
            if m.kind == kind
            and m.round == self.round
            and m.phase in (None, self.phase)
            and (player is None or m.player == player)
        ]

    @property
    def current_player(self) -> str | None:
        """Whose turn it is in the movement and birth phases; None elsewhere."""
        return player_to_act(self)


TURN_PHASES = (Phase.MOVEMENT, Phase.BIRTH)


def player_to_act(state: State) -> str | None:
    """`State.current_player`, as the checks of every turn read it: a property is slower to read than a function
    is to call (pays for: bench.rules_speed check+apply)."""
    if state.phase in TURN_PHASES and state.turn < len(state.order):
        return state.order[state.turn]
    return None


def state_to_data(state: State) -> dict[str, Any]:
    """The state as plain values (for snapshots); the kit is the game's own and is not repeated."""
    return {
        "options": dict(state.options),
        "players": {
            name: [p.seat, p.mp, dict(p.genes), p.event_cards, list(p.named_cards)] for name, p in state.players.items()
        },
        "board": dict(state.board),
        "round": state.round,
        "phase": state.phase,
        "climate_position": state.climate_position,
        "revealed": dict(state.revealed),
        "genes_taken": dict(state.genes_taken),
        "lab": list(state.lab),
        "set_aside": list(state.set_aside),
        "markers": {name: [m.column, m.amount] for name, m in state.markers.items()},
        "to_bid": list(state.to_bid),
        "outbid": list(state.outbid) if state.outbid else None,
        "order": list(state.order),
        "turn": state.turn,
        "movement_left": state.movement_left,
        "pending": [state.pending.kind, state.pending.player, state.pending.source, state.pending.target]
        if state.pending
        else None,
        "birth_pass": state.birth_pass,
        "to_choose": list(state.to_choose),
        "specials_used": sorted(state.specials_used),
        "peeked": state.peeked,
        "modifiers": [[m.card, m.player, m.kind, m.value, m.other, m.round, m.phase] for m in state.modifiers],
        "cards_played": [list(entry) for entry in state.cards_played],
    }


def state_from_data(kit: Kit, data: dict[str, Any]) -> State:
    players = {
        name: PlayerState(name, seat, mp, GeneCount(genes), cards, list(named))
        for name, (seat, mp, genes, cards, named) in data["players"].items()
    }
    outbid, pending = data["outbid"], data["pending"]
    return State(
        kit=kit,
        options=dict(data["options"]),
        players=players,
        board=dict(data["board"]),
        round=data["round"],
        phase=data["phase"],
        climate_position=data["climate_position"],
        revealed=dict(data["revealed"]),
        genes_taken=dict(data["genes_taken"]),
        lab=tuple(data["lab"]),
        set_aside=tuple(data["set_aside"]),
        markers={name: Marker(column, amount) for name, (column, amount) in data["markers"].items()},
        to_bid=tuple(data["to_bid"]),
        outbid=(outbid[0], outbid[1]) if outbid else None,
        order=tuple(data["order"]),
        turn=data["turn"],
        movement_left=data["movement_left"],
        pending=Pending(*pending) if pending else None,
        birth_pass=data["birth_pass"],
        to_choose=tuple(data["to_choose"]),
        specials_used=frozenset(data["specials_used"]),
        peeked=data["peeked"],
        modifiers=tuple(Modifier(*m) for m in data["modifiers"]),
        cards_played=tuple((r, p, c) for r, p, c in data["cards_played"]),
    )
