"""The state of an Evo 2nd edition game between two actions.

States are plain objects, and the ruleset never changes one it was given: `apply` works on a `copy()`. A copy
shares everything but the board: the rules replace a container rather than change it in place, and change a
player only through `own_player`, which copies that player the first time a transition touches it.
Phases run in the order of RULINGS [E2-01]; the initiative phase and the MP award need no input unless a
player holds adrenaline rush, and happen inside the action that completes the phase before them.
"""

from __future__ import annotations

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


class GeneCount(dict[str, int]):
    """How many of each gene a species has; a gene it lacks counts 0. Copies at the speed of a dict."""

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


@dataclass(frozen=True)
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
    _owned: set[str] = field(default_factory=set, compare=False, repr=False)

    def copy(self) -> State:
        clone = object.__new__(State)
        clone.__dict__.update(self.__dict__)
        clone.board = dict(self.board)
        clone.players = dict(self.players)
        clone._owned = set()
        return clone

    def own_player(self, name: str) -> PlayerState:
        """The player, copied first if this state still shares it with the state it was copied from."""
        if name not in self._owned:
            self.players[name] = self.players[name].copy()
            self._owned.add(name)
        return self.players[name]

    def dinosaurs_of(self, player: str) -> list[str]:
        return [space for space, owner in self.board.items() if owner == player]

    def count_of(self, player: str) -> int:
        return list(self.board.values()).count(player)

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
        if self.phase in (Phase.MOVEMENT, Phase.BIRTH) and self.turn < len(self.order):
            return self.order[self.turn]
        return None
