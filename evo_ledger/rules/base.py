"""The values the contract between the core and a ruleset speaks in (evo_ledger.rules.contract): refusals,
consequences, warnings, outcomes, views, explanations, options and the read models' plain descriptions. Nothing
here knows a particular game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

OptionValue = bool | int | str


class RuleViolation(Exception):
    """An action the rules refuse. `ruling` is the id in RULINGS.md that forbids it; None when the action names
    something the game does not have (a space not on the island, a player not at the table)."""

    def __init__(self, ruling: str | None, message: str, waivable: bool = False, public: str | None = None) -> None:
        super().__init__(f"[{ruling}] {message}" if ruling else message)
        self.ruling = ruling
        self.message = message
        self.waivable = waivable
        """True when a played card may override the rule (never for what would break the board itself)."""
        self.public = public
        """For a refusal that rests on a player's hidden facts (a hand, a peek): what a reader who may not see them
        is told, the same whatever they are. None: the refusal rests on what everyone sees."""

    def in_batch(self, place: int, size: int, action: str) -> RuleViolation:
        """The same refusal, naming the action's place in the batch it came in."""
        where = f"action {place} of {size} ({action!r})"
        public = None if self.public is None else f"{where}: {self.public}"
        return RuleViolation(self.ruling, f"{where}: {self.message}", self.waivable, public)


class SetupError(ValueError):
    """Players or options that no game of this ruleset can start with."""


class Consequence(NamedTuple):
    """A fact the rules derive from an action: a combat resolved, an auction settled, MP awarded.

    `kind` is a stable snake_case name; `data` holds only plain values (str, int, bool, None, lists, dicts),
    never changed once made. A named tuple, since the rules make one for most actions (pays for:
    bench.rules_speed check+apply).
    """

    kind: str
    data: Mapping[str, Any] = MappingProxyType({})


DEVIATION, OPEN_TIE = "deviation", "open tie"


@dataclass(frozen=True)
class Warning:
    """Something the rules accept but a reader should know of (a draw the kit says is impossible). `kind`, for a
    seat the rules run: `deviation`, a legal choice other than the rules' own; `open tie`, a choice among those
    the rules' decision left tied."""

    ruling: str
    message: str
    kind: str = ""


@dataclass(frozen=True)
class Advice:
    """The decision the rules make themselves for a seat they run (an automated opponent): `actions`, the choices
    it leaves, the one offered first (several: an open tie, where the recorder's choice stands); `ruling` and
    `reason` say what decided it."""

    actions: tuple[Any, ...]
    ruling: str
    reason: str


@dataclass(frozen=True)
class NextWords:
    """An action entered a word at a time: the `words` that may follow those entered in a legal action (in the
    order a player meets them), and whether those entered are a legal action as they stand (`complete`)."""

    words: tuple[str, ...]
    complete: bool


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
    """A position as a person at the table reads it: what is awaited, each player's line, who stands where, and
    what lies on the table besides the board (the climate and its zones, the genes up for auction and their
    bids). It is public: every reader is given it as it is, so it names nothing the rules keep from a player (a
    hand only by its count, no card drawn, no peek); a fact some may not see belongs in the state, which
    `HiddenInformation` gives each reader as it may see it."""

    headline: str
    players: tuple[str, ...]
    occupants: Mapping[str, str]
    table: tuple[str, ...] = ()
    round: int = field(kw_only=True)
    """The round (or turn, or generation) the game is in, counted from 1; 0 before the first begins."""
    phase: str = field(kw_only=True)
    """The part of the round the game is in, in the ruleset's words (`movement`, `births`); a game over says so."""
    step: str = field(kw_only=True)
    """What the table awaits now, in words (`ann to move`), empty once the game is over."""


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """A ruleset's events: the fact each kind of action records (`fact_of` names one), and the event each kind of
    consequence is stored as, both named in the past tense. An event's stored topic is `topic_prefix` and its
    name; a topic, once stored, keeps its meaning for ever."""

    topic_prefix: str
    facts: tuple[str, ...]
    consequences: Mapping[str, str]

    def topic(self, name: str) -> str:
        return f"{self.topic_prefix}.{name}"


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
    span: tuple[int, int] | None = None
    """The first and last effective actions the explanation covers: chance actions undone between them (re-rolls)
    are listed with it."""


@dataclass(frozen=True)
class OptionSpec:
    """A named option of a ruleset: where the sources leave a gap, the reading is chosen here, not in code."""

    name: str
    default: OptionValue
    ruling: str
    help: str
    seat_mark: str = ""
    """For an option naming seats (its value their names, separated by spaces): the word that marks a seat with
    it where players are given (the API's player `{"name": ..., MARK: true}`, the command line's `--MARK NAME`);
    a game file writes it as a header line `NAME SEAT...`."""


@dataclass(frozen=True)
class ReadColumn:
    """A column of a read table: `kind` is text, integer, real or boolean; `key` columns join the row's key;
    `values`, where the rules fix them, are the values it takes, each as often as chance gives it (a die's faces)."""

    name: str
    kind: str
    nullable: bool = False
    key: bool = False
    values: tuple[str, ...] = ()


def text_column(name: str, nullable: bool = False, key: bool = False) -> ReadColumn:
    return ReadColumn(name, "text", nullable, key)


def integer_column(name: str, nullable: bool = False) -> ReadColumn:
    return ReadColumn(name, "integer", nullable)


# A read table's player: the key of a row that is one player's, and the columns of a row that names one.
PLAYER_KEY = text_column("player_id", key=True)
PLAYER_COLUMNS = (text_column("player_id"), text_column("name"))


@dataclass(frozen=True)
class ReadTable:
    """A read table of a ruleset's facts. Beside its own columns, each row has the game, the event it was made
    from (with the key columns, the row's key), the action that event followed from, the round, and whether that
    action was undone since."""

    name: str
    columns: tuple[ReadColumn, ...]
    die: str | None = None
    """The name of the die whose rolls the table holds (its `face` column's values are the die's faces, its
    `purpose` column what each roll decided), for the generic dice statistics; None: not a table of rolls."""


@dataclass(frozen=True)
class ReadRow:
    """A row for one of the ruleset's read tables, made from the event being read."""

    table: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class ReadAmend:
    """A change to the row of `table` made from the game's event `event` (still to be written, or written)."""

    table: str
    event: int
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class ReadResult:
    """The game is over: its standings, as `Outcome` gives them."""

    outcome: Outcome


@dataclass(frozen=True)
class ReadOrder:
    """The order of play the event sets (for the round the game is in), as the players' names, first first."""

    order: tuple[str, ...]


ReadItem = ReadRow | ReadAmend | ReadResult | ReadOrder


class ReadContext(Protocol):
    """What a ruleset's reading sees of a game while the read tables follow it: `memory` is its own, plain
    values kept with the game's row (with `round`, the round the game is in); `player` gives a player's columns."""

    memory: dict[str, Any]

    @property
    def recorder(self) -> str | None:
        """Who records the game, as the read tables name a recorder (None: no recorder token)."""

    def player(self, name: str) -> dict[str, str]:
        """The player's `player_id` and `name` columns."""

    @property
    def seats(self) -> tuple[str, ...]:
        """The players' names in seat order."""

    def kit(self) -> Any:
        """The game's kit."""

    def options(self) -> Mapping[str, Any]:
        """The game's options, as its setup named them."""


@dataclass(frozen=True)
class GameRows:
    """A part of a report on one game: the game's rows of a read table that stand (not undone), with every column
    but the bookkeeping ones (game, action, undone), in the order named."""

    table: str
    order: tuple[str, ...] = ("event",)


GameReport = Mapping[str, GameRows]
"""A report on one game read from the tables, by its parts' names."""
REPORTS = ("standings", "auctions")
"""The reports on one game a reading may give: `standings` (each player's standing as the game went, and at its
end) and `auctions` (every bid and what each auction settled)."""


MEASURES = ("count", "count_true", "mean", "sum", "min", "max")


@dataclass(frozen=True)
class Measure:
    """One number of a statistic's group (MEASURES): `count` (its rows), `count_true` (its rows where the boolean
    `column` holds), or the `mean`, `sum`, `min` or `max` of `column`."""

    kind: str
    column: str | None = None


@dataclass(frozen=True)
class Statistic:
    """A statistic over the ruleset's games (those public, or every one for the admin): the rows that stand of one
    of its read tables, grouped by the columns `by`, each group measured; `means` says what it shows, with the
    rulings it rests on."""

    table: str
    by: tuple[str, ...]
    measures: Mapping[str, Measure]
    means: str


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
