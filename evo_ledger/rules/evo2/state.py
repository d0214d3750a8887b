"""The state of an Evo 2nd edition game between two actions.

States are plain mutable objects for speed, but the ruleset never changes one it was given: `apply` works on
a `copy()`. Phases run in the order of RULINGS [E2-01]; the initiative phase and the MP award need no input
and happen inside the action that completes the phase before them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evo_ledger.rules.kit import Kit

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


@dataclass
class PlayerState:
    name: str
    seat: int
    mp: int = START_MP
    genes: Counter[str] = field(default_factory=Counter)
    event_cards: int = 0
    named_cards: list[str] = field(default_factory=list)

    def copy(self) -> PlayerState:
        return PlayerState(self.name, self.seat, self.mp, Counter(self.genes), self.event_cards, list(self.named_cards))

    def has(self, gene: str) -> bool:
        return self.genes[gene] > 0

    @property
    def legs(self) -> int:
        return SHEET_LEGS + self.genes["legs"]

    @property
    def eggs(self) -> int:
        return SHEET_EGGS + self.genes["eggs"]

    @property
    def movement_points(self) -> int:
        return self.legs + (2 if self.has("strong_thighs") else 0)

    @property
    def floor(self) -> int:
        """No removal takes a species below this many dinosaurs [E2-09, E2-12]."""
        return 3 if self.has("regeneration") else 2


@dataclass
class Marker:
    """A clan marker on the biology lab during the auction."""

    column: int
    amount: int


@dataclass(frozen=True)
class Pending:
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


@dataclass
class State:
    kit: Kit
    options: dict[str, Any]
    players: dict[str, PlayerState]
    board: dict[str, str]
    round: int = 1
    phase: str = Phase.ORDER
    climate_position: int = 0
    revealed: Counter[str] = field(default_factory=Counter)
    genes_taken: Counter[str] = field(default_factory=Counter)
    lab: list[str | None] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)
    markers: dict[str, Marker] = field(default_factory=dict)
    to_bid: list[str] = field(default_factory=list)
    outbid: tuple[str, int] | None = None
    order: tuple[str, ...] = ()
    turn: int = 0
    movement_left: int = 0
    pending: Pending | None = None
    birth_pass: int = 1
    to_choose: list[str] = field(default_factory=list)
    specials_used: frozenset[str] = frozenset()
    peeked: str | None = None
    modifiers: tuple[Modifier, ...] = ()
    cards_played: tuple[tuple[int, str, str], ...] = ()

    def copy(self) -> State:
        return State(
            kit=self.kit,
            options=self.options,
            players={name: p.copy() for name, p in self.players.items()},
            board=dict(self.board),
            round=self.round,
            phase=self.phase,
            climate_position=self.climate_position,
            revealed=Counter(self.revealed),
            genes_taken=Counter(self.genes_taken),
            lab=list(self.lab),
            set_aside=list(self.set_aside),
            markers={name: Marker(m.column, m.amount) for name, m in self.markers.items()},
            to_bid=list(self.to_bid),
            outbid=self.outbid,
            order=self.order,
            turn=self.turn,
            movement_left=self.movement_left,
            pending=self.pending,
            birth_pass=self.birth_pass,
            to_choose=list(self.to_choose),
            specials_used=self.specials_used,
            peeked=self.peeked,
            modifiers=self.modifiers,
            cards_played=self.cards_played,
        )

    def dinosaurs_of(self, player: str) -> list[str]:
        return [space for space, owner in self.board.items() if owner == player]

    def count_of(self, player: str) -> int:
        return sum(1 for owner in self.board.values() if owner == player)

    def zone_of(self, space: str) -> str:
        return self.kit.climate.zone(self.climate_position, self.kit.spaces[space].terrain)

    def active(self, kind: str, player: str | None = None) -> list[Modifier]:
        """The card modifiers of `kind` in force now, those played by `player` if given."""
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
        if self.phase in (Phase.MOVEMENT, Phase.BIRTH) and self.turn < len(self.order):
            return self.order[self.turn]
        return None
