"""The state of an Evo 1st edition game between two actions.

States are plain objects, and the ruleset never changes one it was given: `apply` works on a `copy()`, which
shares everything with the state it was copied from until a transition changes it: the board is copied the
first time a transition changes it (`own_board`), a seat likewise (`own_seat`), and every other field is
replaced, never changed in place. Turns run the six phases of E1-04; a phase that needs no input happens
inside the action that ends the phase before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evo_ledger.rules.evo1.kit import Kit


class Phase:
    SETUP = "setup"
    INITIATIVE = "initiative"
    CLIMATE = "climate"
    MOVEMENT = "movement"
    BIRTHS = "births"
    SURVIVAL = "survival"
    EVOLUTION = "evolution"
    END = "end"
    """The end window: the meteor has struck, and fossils may still be played [E1-20]."""
    OVER = "over"


PHASE_NUMBERS = {
    Phase.INITIATIVE: 1,
    Phase.CLIMATE: 2,
    Phase.MOVEMENT: 3,
    Phase.BIRTHS: 4,
    Phase.SURVIVAL: 5,
    Phase.EVOLUTION: 6,
}

# What a die roll decides, when the game awaits one.
INITIATIVE_ROLL = "initiative"
CLIMATE_ROLL = "climate"
COMBAT_ROLL = "combat"
METEOR_ROLL = "meteor"
HEAT_ROLL = "heat stroke"
AUTOSAUR_ROLL = "autosaur bid"

# The table's steps that close a start window where nothing else would wait for a card [E1-24].
SURVIVAL_STEP = "survival"
METEOR_STEP = "meteor"
END_STEP = "end"


class Modifier(NamedTuple):
    """A card in force: its id, who played it, and what it names (the other seat of a treaty, a stampede's
    points); every modifier lasts to the end of the turn [E1-26]."""

    card: str
    player: str
    value: str = ""


@dataclass(slots=True)
class Seat:
    name: str
    seat: int
    mp: int
    genes: dict[str, int] = field(default_factory=dict)
    """Genes bought, beside those printed on the sheet: replaced, never changed in place."""
    hand: tuple[str, ...] = ()

    def copy(self) -> Seat:
        return Seat(self.name, self.seat, self.mp, self.genes, self.hand)


@dataclass(frozen=True)
class Combat:
    attacker: str
    source: str
    """The attacker's space; empty for a baby's birth attack [E1-28]."""
    target: str
    birth: bool = False


NOTHING_OWNED: tuple[str, ...] = ()
AUTOSAUR_GENES = frozenset({"tail", "horn"})
"""The only genes an Autosaur counts, printed or bought [AS-01]."""


@dataclass
class State:
    kit: Kit
    options: dict[str, Any]
    seats: dict[str, Seat]
    board: dict[str, str]
    turn: int = 0
    phase: str = Phase.SETUP
    order: tuple[str, ...] = ()
    tiebreaks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Initiative rolls of this turn, by seat, in the order rolled [E1-05]."""
    climate_position: int = 0
    acting: int = 0
    """The place in `order` of the seat whose turn it is in phases 3 to 5."""
    movement_left: int = 0
    combat: Combat | None = None
    to_roll: tuple[str, ...] = ()
    """The tied seats still to roll for initiative in this round of rolls [E1-05]."""
    adults: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each seat's dinosaurs as the births began, its adults [E1-10]."""
    babies: tuple[str, ...] = ()
    births_left: int = 0
    meteor: int = 0
    awaiting_meteor_roll: bool = False
    drawn: dict[str, int] = field(default_factory=dict)
    """Genes drawn from the bag so far, by gene [E1-03]."""
    rows: tuple[str, ...] = ()
    rows_due: int = 0
    bids: dict[int, tuple[str, int]] = field(default_factory=dict)
    """The bid standing in each row (1 is the top): its seat and amount."""
    to_bid: tuple[str, ...] = ()
    outbid: str | None = None
    passes_open: int = 0
    passed: tuple[str, ...] = ()
    cards_due: tuple[str, ...] = ()
    """The seats owed a card, once each card: the deal, then card genes [E1-02, E1-19]."""
    discards: tuple[str, ...] = ()
    impact: bool = False
    cards: bool = False
    """Whether card plays are recorded and checked (ruleset version 2 on); version 1 refused every play."""
    window_open: bool = True
    """The start window of the phase: no action but a card play has happened in it yet [E1-24]."""
    window_plays: tuple[str, ...] = ()
    """The seats that played in the start window open now, in the order they played [E1-25]."""
    last_play: tuple[str, str] | None = None
    """The seat and card of the play just recorded, the one a response answers [E1-24, E1-28]."""
    climate_card: str = ""
    """The climate card played this turn [E1-25]."""
    modifiers: tuple[Modifier, ...] = ()
    embargo: bool = False
    """A card embargo stands until the next turn [E1-29]."""
    fresh: tuple[str, ...] = ()
    """Cards recovered this turn, which may not be played before the next [E1-28]."""
    heat_rolls: tuple[str, ...] = ()
    """The spaces whose heat stroke die is still to roll, in order [E1-26]."""
    born: tuple[str, ...] = ()
    """The spaces of every baby placed in this turn's births [E1-30]."""
    lost: dict[str, int] = field(default_factory=dict)
    """The dinosaurs each seat lost in this turn's survival [E1-26]."""
    vouchers: dict[str, int] = field(default_factory=dict)
    """The MP vouchers each seat played in this auction [E1-19]."""
    paying: tuple[str, ...] = ()
    """The winners whose payment waits for the vouchers that cover it [E1-19]."""
    due: str = ""
    """The table's step awaited before the phase goes on (`survival`, `meteor`, `end`) [E1-24]."""
    seized: str = ""
    """The seat that seized the initiative before this turn's order was set [E1-26]."""
    fossils: dict[str, int] = field(default_factory=dict)
    """The fossils each seat played in the end window: 2 points each [E1-20]."""
    ending: str = ""
    """What ended the game: the meteor's roll or the end of its track."""
    autosaurs: frozenset[str] = frozenset()
    """The seats run by the Autosaur algorithm [AS-01]."""
    starts: dict[str, str] = field(default_factory=dict)
    """Each Autosaur's starred beach, its start space [AS-03]."""
    placing: tuple[str, ...] = ()
    """The Autosaurs still to place their second dinosaur at the setup, in seat order [AS-03]."""
    birth_step: str = ""
    """The acting Autosaur's step of the births (A, B or C) [AS-06]."""
    step_keys: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """The spaces of that step, best first, with their keys of AS-07 as the step began [AS-09]."""
    tried: tuple[str, ...] = ()
    """The spaces the acting Autosaur has tried this turn [AS-06]."""
    bid_roll: int = 0
    """The roll of the Autosaur deciding its bid now; 0 until rolled [AS-13]."""
    lost_row: int = 0
    """The row the seat bidding again was just outbid from [AS-14]."""
    _owned: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    """What this state no longer shares with the state it was copied from: the seats it owns, and '' for the
    board; None for a state copied from none."""

    def copy(self) -> State:
        clone = object.__new__(State)
        fields = self.__dict__.copy()  # one copy of the dict (pays for: bench.rules_speed check+apply)
        fields["_owned"] = NOTHING_OWNED
        clone.__dict__ = fields
        return clone

    def own_board(self) -> dict[str, str]:
        """The board, to be changed: copied first if this state still shares it."""
        if self._owned is not None and "" not in self._owned:
            self.board = dict(self.board)
            self._owned = (*self._owned, "")
        return self.board

    def own_seat(self, name: str) -> Seat:
        """The seat, to be changed: copied first if this state still shares it."""
        owned = self._owned
        if owned is not None and name not in owned:
            if owned in ((), ("",)):
                self.seats = dict(self.seats)
            self.seats[name] = self.seats[name].copy()
            self._owned = (*owned, name)
        return self.seats[name]

    def gene(self, player: str, gene: str) -> int:
        """The species' count of a gene: the sheet's and those bought [E1-02]; an Autosaur counts tails and horns
        only [AS-01]."""
        if self.autosaurs and player in self.autosaurs and gene not in AUTOSAUR_GENES:
            return 0
        return self.kit.sheet.get(gene, 0) + self.seats[player].genes.get(gene, 0)

    def dinosaurs_of(self, player: str) -> list[str]:
        return [space for space, owner in self.board.items() if owner == player]

    def count_of(self, player: str) -> int:
        return list(self.board.values()).count(player)

    def reserve_of(self, player: str) -> int:
        return self.kit.dinosaurs_per_player - self.count_of(player)

    def zone_of(self, space: str) -> str:
        return self.kit.zones[self.climate_position][space]

    @property
    def first_player(self) -> str:
        return self.order[0]

    @property
    def current_player(self) -> str | None:
        """Whose turn it is in the movement, births and survival phases; None elsewhere."""
        if self.phase in (Phase.MOVEMENT, Phase.BIRTHS, Phase.SURVIVAL) and self.acting < len(self.order):
            return self.order[self.acting]
        return None

    def holds(self, card: str) -> bool:
        return any(card in seat.hand for seat in self.seats.values())

    def in_force(self, card: str, player: str | None = None) -> Modifier | None:
        """The modifier of `card` in force this turn (played by `player`, when named)."""
        for modifier in self.modifiers:
            if modifier.card == card and (player is None or modifier.player == player):
                return modifier
        return None


def state_to_data(state: State) -> dict[str, Any]:
    """The state as plain values (for snapshots); the kit is the game's own and is not repeated."""
    combat = state.combat
    return {
        "options": dict(state.options),
        "seats": {name: [s.seat, s.mp, dict(s.genes), list(s.hand)] for name, s in state.seats.items()},
        "board": dict(state.board),
        "turn": state.turn,
        "phase": state.phase,
        "order": list(state.order),
        "tiebreaks": {name: list(rolls) for name, rolls in state.tiebreaks.items()},
        "climate_position": state.climate_position,
        "acting": state.acting,
        "movement_left": state.movement_left,
        "combat": [combat.attacker, combat.source, combat.target, combat.birth] if combat else None,
        "to_roll": list(state.to_roll),
        "adults": {player: list(spaces) for player, spaces in state.adults.items()},
        "babies": list(state.babies),
        "births_left": state.births_left,
        "meteor": state.meteor,
        "awaiting_meteor_roll": state.awaiting_meteor_roll,
        "drawn": dict(state.drawn),
        "rows": list(state.rows),
        "rows_due": state.rows_due,
        "bids": {str(row): [seat, amount] for row, (seat, amount) in state.bids.items()},
        "to_bid": list(state.to_bid),
        "outbid": state.outbid,
        "passes_open": state.passes_open,
        "passed": list(state.passed),
        "cards_due": list(state.cards_due),
        "discards": list(state.discards),
        "impact": state.impact,
        "cards": state.cards,
        "window_open": state.window_open,
        "window_plays": list(state.window_plays),
        "last_play": list(state.last_play) if state.last_play else None,
        "climate_card": state.climate_card,
        "modifiers": [list(modifier) for modifier in state.modifiers],
        "embargo": state.embargo,
        "fresh": list(state.fresh),
        "heat_rolls": list(state.heat_rolls),
        "born": list(state.born),
        "lost": dict(state.lost),
        "vouchers": dict(state.vouchers),
        "paying": list(state.paying),
        "due": state.due,
        "seized": state.seized,
        "fossils": dict(state.fossils),
        "ending": state.ending,
    } | (autosaur_data(state) if state.autosaurs else {})


def autosaur_data(state: State) -> dict[str, Any]:
    return {
        "autosaurs": sorted(state.autosaurs),
        "starts": dict(state.starts),
        "placing": list(state.placing),
        "birth_step": state.birth_step,
        "step_keys": [[space, list(keys)] for space, keys in state.step_keys.items()],
        "tried": list(state.tried),
        "bid_roll": state.bid_roll,
        "lost_row": state.lost_row,
    }


def state_from_data(kit: Kit, data: dict[str, Any]) -> State:
    combat = data["combat"]
    return State(
        kit=kit,
        options=dict(data["options"]),
        seats={
            name: Seat(name, seat, mp, dict(genes), tuple(hand))
            for name, (seat, mp, genes, hand) in data["seats"].items()
        },
        board=dict(data["board"]),
        turn=data["turn"],
        phase=data["phase"],
        order=tuple(data["order"]),
        tiebreaks={name: tuple(rolls) for name, rolls in data["tiebreaks"].items()},
        climate_position=data["climate_position"],
        acting=data["acting"],
        movement_left=data["movement_left"],
        combat=Combat(*combat) if combat else None,
        to_roll=tuple(data["to_roll"]),
        adults={player: tuple(spaces) for player, spaces in data["adults"].items()},
        babies=tuple(data["babies"]),
        births_left=data["births_left"],
        meteor=data["meteor"],
        awaiting_meteor_roll=data["awaiting_meteor_roll"],
        drawn=dict(data["drawn"]),
        rows=tuple(data["rows"]),
        rows_due=data["rows_due"],
        bids={int(row): (seat, amount) for row, (seat, amount) in data["bids"].items()},
        to_bid=tuple(data["to_bid"]),
        outbid=data["outbid"],
        passes_open=data["passes_open"],
        passed=tuple(data["passed"]),
        cards_due=tuple(data["cards_due"]),
        discards=tuple(data["discards"]),
        impact=data["impact"],
        cards=data.get("cards", False),
        window_open=data.get("window_open", True),
        window_plays=tuple(data.get("window_plays", ())),
        last_play=tuple(data["last_play"]) if data.get("last_play") else None,
        climate_card=data.get("climate_card", ""),
        modifiers=tuple(Modifier(*entry) for entry in data.get("modifiers", ())),
        embargo=data.get("embargo", False),
        fresh=tuple(data.get("fresh", ())),
        heat_rolls=tuple(data.get("heat_rolls", ())),
        born=tuple(data.get("born", ())),
        lost=dict(data.get("lost", {})),
        vouchers=dict(data.get("vouchers", {})),
        paying=tuple(data.get("paying", ())),
        due=data.get("due", ""),
        seized=data.get("seized", ""),
        fossils=dict(data.get("fossils", {})),
        ending=data.get("ending", ""),
        autosaurs=frozenset(data.get("autosaurs", ())),
        starts=dict(data.get("starts", {})),
        placing=tuple(data.get("placing", ())),
        birth_step=data.get("birth_step", ""),
        step_keys={space: tuple(keys) for space, keys in data.get("step_keys", ())},
        tried=tuple(data.get("tried", ())),
        bid_roll=data.get("bid_roll", 0),
        lost_row=data.get("lost_row", 0),
    )
