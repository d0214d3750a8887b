"""The contract every rule system fulfils, whatever the game.

A ruleset is pure: it turns a kit, the players and the options into a starting state, says whether an action
is legal in a state (or why not, naming the ruling), and applies an action, returning the next state with the
consequences the rules derive and any warnings. Nothing here knows a particular edition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from evo_ledger.rules.kit import Kit

OptionValue = bool | int | str


class RuleViolation(Exception):
    """An action the rules refuse. `ruling` is the id in RULINGS.md that forbids it; None when the action names
    something the game does not have (a space not on the island, a player not at the table)."""

    def __init__(self, ruling: str | None, message: str, waivable: bool = False) -> None:
        super().__init__(f"[{ruling}] {message}" if ruling else message)
        self.ruling = ruling
        self.message = message
        self.waivable = waivable
        """True when a played card may override the rule (never for what would break the board itself)."""


class SetupError(ValueError):
    """Players or options that no game of this ruleset can start with."""


@dataclass(frozen=True)
class Consequence:
    """A fact the rules derive from an action: a combat resolved, an auction settled, MP awarded.

    `kind` is a stable snake_case name; `data` holds only plain values (str, int, bool, None, lists, dicts).
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Warning:
    """Something the rules accept but a reader should know of (a draw the kit says is impossible)."""

    ruling: str
    message: str


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    score: tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    """A finished game: the standings in rank order; equal ranks are shared places."""

    standings: tuple[Standing, ...]
    score_labels: tuple[str, ...]

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.standings if s.rank == 1)


@dataclass(frozen=True)
class StateView:
    """A position as a person at the table reads it: what is awaited, each player's line, who stands where."""

    headline: str
    players: tuple[str, ...]
    occupants: Mapping[str, str]


StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")


class Transition(NamedTuple, Generic[StateT]):
    """The state after an action, with what the rules derived from it and what they warn of."""

    state: StateT
    consequences: tuple[Consequence, ...] = ()
    warnings: tuple[Warning, ...] = ()


class Step(NamedTuple, Generic[StateT, ActionT]):
    """One effective action of a game: the state before it, the action, and what the rules derived from it."""

    before: StateT
    action: ActionT
    consequences: tuple[Consequence, ...]


@dataclass(frozen=True)
class Explanation:
    """Why the rules decided as they did about one part of a game, as data and in words.

    `kind` names what is explained (`combat`, `survival`, `auction`, `climate`); `data` holds only plain values."""

    kind: str
    data: Mapping[str, Any]
    words: tuple[str, ...]


@dataclass(frozen=True)
class OptionSpec:
    """A named option of a ruleset: where the sources leave a gap, the reading is chosen here, not in code."""

    name: str
    default: OptionValue
    ruling: str
    help: str


class Ruleset(Protocol[StateT, ActionT]):
    name: str
    version: str
    options: tuple[OptionSpec, ...]

    def setup(self, kit: Kit, players: Sequence[str], options: Mapping[str, OptionValue]) -> StateT: ...

    def legal(self, state: StateT, action: ActionT) -> None:
        """Return if `action` is legal in `state`; raise RuleViolation naming the ruling otherwise."""

    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]:
        """Check `action` and return the next state; `state` itself is never changed."""

    def replay(self, state: StateT, action: ActionT) -> StateT:
        """The state after an action already found legal (read back from a log): no checks, no consequences."""

    def legal_actions(self, state: StateT) -> Iterator[ActionT]: ...

    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the game has ended, None while it goes on."""

    def standings(self, state: StateT) -> Outcome:
        """The standings as the game stands now: the outcome's, once it has ended."""

    def parse_action(self, text: str) -> ActionT:
        """Read an action in notation; raise NotationError naming the column and what was expected."""

    def format_action(self, action: ActionT) -> str: ...

    def action_from_data(self, data: Any) -> ActionT:
        """Read an action given as data (evo_ledger.rules.structured); raise ActionDataError naming the field."""

    def action_data(self, action: ActionT) -> dict[str, Any]:
        """The action as data, as `action_from_data` reads it."""

    def snapshot_state(self, state: StateT) -> dict[str, Any]:
        """The state as plain values (str, int, bool, None, lists, dicts), without the kit."""

    def restore_state(self, kit: Kit, data: dict[str, Any]) -> StateT:
        """The state `snapshot_state` gave `data` for, on the same kit."""

    def fact_of(self, action: ActionT) -> str:
        """The kind of fact the action records, named in the past tense: `DieRolled`, `BidPlaced`."""

    def visible_only_to(self, action: ActionT) -> str | None:
        """The one player who may see `action` until it is revealed, or None when everyone may."""

    def reveals(self, hidden: ActionT, later: ActionT) -> bool:
        """Whether `later` shows everyone the action `hidden` that only its player could see."""

    def public_state(self, state: StateT) -> dict[str, Any]:
        """The state as `snapshot_state` gives it, less what the rules keep from all but one player."""

    def view(self, state: StateT) -> StateView:
        """The position in words: round, phase and whose turn, a line a player, the occupant of each space."""

    def explain(self, steps: Sequence[Step[StateT, ActionT]], at: int) -> Explanation | None:
        """Why the rules decided as they did about the part of the game that `steps[at]` belongs to (a combat,
        a survival phase, an auction...), or None when there is nothing the rules decided there."""


def passing(
    check: Callable[[StateT, ActionT], None], state: StateT, candidates: Iterable[ActionT]
) -> Iterator[ActionT]:
    """The candidate actions `check` does not refuse in `state`."""
    for action in candidates:
        try:
            check(state, action)
        except RuleViolation:
            continue
        yield action


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
    """Defaults overlaid with the given options; an unknown name or a value of the wrong type is refused."""
    known = {spec.name: spec for spec in specs}
    for name, value in given.items():
        spec = known.get(name)
        if spec is None:
            names = ", ".join(sorted(known)) or "none"
            raise SetupError(f"unknown option {name!r}; this ruleset has: {names}")
        if type(value) is not type(spec.default):
            expected = type(spec.default).__name__
            raise SetupError(f"option {name!r} takes a {expected}, got {value!r}")
    return {spec.name: given.get(spec.name, spec.default) for spec in specs}
