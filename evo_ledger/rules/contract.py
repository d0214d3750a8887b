"""The contract between the core and a rule system: the core every ruleset writes, and the capabilities it may add.

The core (`Ruleset`) is what any game needs to be recorded, checked, replayed, exported, audited and viewed.
Each capability is a protocol of its own that the core finds with `isinstance`; a ruleset without one is served
as if it had the plain default named beside the protocol: nothing hidden, no chance, no bots, no explanations,
no read tables of its own, no board (picture or text), no advice, replays through `apply`, no earlier versions,
actions entered a word at a time from the listed legal actions.

A ruleset may be written over `evo_ledger.rules.defaults.BaseRuleset`, which gives a default for every member that
can have one: it writes only what its game decides.

Beside its code, a ruleset's package may ship `kits/*.json` (its built-in kits) and `rulings.toml` (what each
ruling id it names means); the core finds both by the package's name.
"""

from __future__ import annotations

import inspect
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from evo_ledger.rules.base import (
    Advice,
    Explanation,
    GameReport,
    NextWords,
    OptionSpec,
    OptionValue,
    Outcome,
    ReadContext,
    ReadItem,
    ReadTable,
    StateView,
    Statistic,
    Step,
    Transition,
    Vocabulary,
)
from evo_ledger.rules.boards import BoardLayout

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
KitT = TypeVar("KitT", bound="Kit")
KitT_contra = TypeVar("KitT_contra", bound="Kit", contravariant=True)
StateT_contra = TypeVar("StateT_contra", contravariant=True)
ActionT_contra = TypeVar("ActionT_contra", contravariant=True)
F = TypeVar("F", bound=Callable[..., Any])
# The marks a base class's members carry (`contract_default`, `contract_required`).
CONTRACT_DEFAULT = "contract_default"
CONTRACT_REQUIRED = "contract_required"


class Kit(Protocol):
    """What the core reads of any ruleset's kit: the rest is the ruleset's own."""

    @property
    def name(self) -> str: ...

    @property
    def stand_in(self) -> bool: ...

    @property
    def players(self) -> int: ...

    @property
    def content_hash(self) -> str: ...


class Ruleset(Protocol[StateT, ActionT, KitT]):
    """The core of a rule system: every member is written by every ruleset. A state is never changed in place."""

    name: str
    version: str
    options: tuple[OptionSpec, ...]
    """Where the sources leave a gap, the reading is a named option with its ruling id."""
    vocabulary: Vocabulary

    def parse_kit(self, document: Any, label: str) -> KitT:
        """The kit a JSON document describes; raise KitError naming the field and what is wrong."""

    def setup(self, kit: KitT, players: Sequence[str], options: Mapping[str, OptionValue]) -> StateT:
        """The state a game starts in; raise SetupError for players or options no game can start with."""

    def legal(self, state: StateT, action: ActionT) -> None:
        """Return if `action` is legal in `state`; raise RuleViolation naming the ruling otherwise."""

    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]:
        """Check `action` and return the next state, with the consequences the rules derive."""

    def legal_actions(self, state: StateT) -> Iterator[ActionT]:
        """The legal actions the ruleset can list (those whose content only the table knows may be left out)."""

    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the game has ended, None while it goes on."""

    def standings(self, state: StateT) -> Outcome:
        """The standings as the game stands now: the outcome's, once it has ended."""

    def parse_action(self, text: str) -> ActionT:
        """Read an action in notation; raise NotationError naming the column and what was expected."""

    def format_action(self, action: ActionT) -> str:
        """The action in notation, as `parse_action` reads it back."""

    def action_from_data(self, data: Any) -> ActionT:
        """Read an action given as data (evo_ledger.rules.structured); raise ActionDataError naming the field."""

    def action_data(self, action: ActionT) -> dict[str, Any]:
        """The action as data, as `action_from_data` reads it."""

    def fact_of(self, action: ActionT) -> str:
        """The fact the action records, one of `vocabulary.facts`, named in the past tense."""

    def snapshot_state(self, state: StateT) -> dict[str, Any]:
        """The state as JSON values (str, int, bool, None, lists, dicts with string keys), without the kit."""

    def restore_state(self, kit: KitT, data: dict[str, Any]) -> StateT:
        """The state `snapshot_state` gave `data` for, on the same kit."""

    def view(self, state: StateT) -> StateView:
        """The position in words: its round, phase and step, a line a player, the occupant of each space. Public:
        every reader is given it, so it names nothing the rules keep hidden (`StateView`)."""

    def describe(self, kind: str, data: Mapping[str, Any]) -> str:
        """A consequence of `kind` with its `data`, as a sentence a player would say."""


AnyRuleset = Ruleset[Any, Any, Any]
_CORE_METHODS = (name for name, value in vars(Ruleset).items() if name[0] != "_" and callable(value))
CORE_MEMBERS = tuple(sorted({*Ruleset.__annotations__, *_CORE_METHODS}))
"""The names of the core's members, as `Ruleset` declares them."""


@runtime_checkable
class HiddenInformation(Protocol[StateT_contra, ActionT_contra]):
    """Facts some players may not see (a held card, a peek). Default: everything is public.

    The core stores a hidden action under a salted commitment, answers each reader with what it may see, and
    publishes the salt when the action is revealed. A refusal that rests on hidden facts carries its public
    part, the same whatever they are (`RuleViolation(..., public=...)`)."""

    def visible_only_to(self, action: ActionT_contra) -> str | None:
        """The one player who may see `action` until it is revealed, or None when everyone may."""

    def reveals(self, hidden: ActionT_contra, later: ActionT_contra) -> bool:
        """Whether `later` shows everyone the action `hidden` that only its player could see."""

    def rests_on(self, state: StateT_contra, action: ActionT_contra) -> str | None:
        """The player whose hidden facts the action's legality rests on here (a held card, a peek): listing it as
        legal, or refusing it, would show them; None when it rests on what everyone sees."""

    def public_state(self, state: StateT_contra) -> dict[str, Any]:
        """The state as `snapshot_state` gives it, less what the rules keep from all but one player."""

    def seat_state(self, state: StateT_contra, seat: str) -> dict[str, Any]:
        """The state as the player `seat` may see it: `public_state` with that player's own hidden facts."""


@runtime_checkable
class Chance(Protocol[ActionT_contra]):
    """Actions chance makes (a die face, a token or a card drawn). Default: none; the audit names undone chance
    actions as re-rolls."""

    def is_chance(self, action: ActionT_contra) -> bool: ...


Bot = Callable[[StateT, Sequence[ActionT], random.Random], ActionT]


class SelfPlay(Protocol[StateT, ActionT, KitT_contra]):
    """Seeded bots that play whole games, with chance drawn from the seed: a game the service generates commits
    to `generator`, a secret salt and its seed in its first event and reveals them at its end, and the audit
    draws every chance action again (`first_unseeded`)."""

    generator: str
    bots: Mapping[str, Bot[StateT, ActionT]]
    player_counts: range

    def default_kit(self, players: int) -> str:
        """The built-in kit a generated game of so many players is played on."""

    def play(
        self,
        kit: KitT_contra,
        names: Sequence[str],
        seed: int,
        bot: str,
        options: Mapping[str, OptionValue] | None = None,
        seat_bots: Mapping[str, str] | None = None,
    ) -> Iterator[tuple[ActionT, Transition[StateT]]]:
        """A whole game, action by action, with the transition each made; the last transition ends the game;
        `seat_bots` gives seats bots of their own."""

    def first_unseeded(
        self,
        kit: KitT_contra,
        names: Sequence[str],
        seed: int,
        actions: Sequence[ActionT],
        options: Mapping[str, OptionValue] | None = None,
    ) -> int | None:
        """The index of the first chance action in `actions` that the seed does not draw, or None."""

    def comments(self, transition: Transition[StateT]) -> list[str]:
        """Comment lines a self-played game file gives after the action (the standings after a round)."""


@runtime_checkable
class Bots(Protocol):
    """Seeded bots (`selfplay`, `generate`, the audit of a generated game). Default: none."""

    def self_play(self) -> SelfPlay[Any, Any, Any]: ...


@runtime_checkable
class Explanations(Protocol):
    """Why the rules decided as they did. Default: nothing is explained."""

    def explain(self, steps: Sequence[Step[Any, Any]], at: int) -> Explanation | None:
        """About the part of the game `steps[at]` belongs to (a combat, a survival phase, an auction...), or
        None when there is nothing the rules decided there."""


class Reading(Protocol):
    """What a ruleset gives the read tables: its tables, and the rows each of its events makes, as plain values
    (the SQL is the projections'). It reads the facts and consequence kinds it names; the others only count.
    `reports` names the tables that answer each report on one game (REPORTS); a reading without `standings` is
    answered from every ruleset's results. `statistics` are its own, by name, served beside those every ruleset
    has."""

    tables: tuple[ReadTable, ...]
    facts: frozenset[str]
    consequences: frozenset[str]
    reports: Mapping[str, GameReport]
    statistics: Mapping[str, Statistic]

    def from_action(self, context: ReadContext, action: Any) -> Iterable[ReadItem]:
        """The rows an action makes (of a fact the reading names)."""

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterable[ReadItem]:
        """The rows a consequence makes; `cause` is the event of the action it followed from."""

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """The memory again, after an undo, from the rows of the game that stand, by table, in event order."""


@runtime_checkable
class ReadModels(Protocol):
    """Read tables, reports and statistics of the ruleset's own. Default: the tables every ruleset fills (games,
    actions, results: those a game's last consequence gives through `outcome`)."""

    def reading(self) -> Reading: ...


ALL_SEATS = "*"
"""The seat a layout is drawn for when its reader may see every hidden fact."""


@runtime_checkable
class Board(Protocol[StateT_contra]):
    """A picture of the position the viewer and the recording page draw. Default: none (the pages show the view's
    words)."""

    def layout(self, state: StateT_contra, seat: str | None) -> BoardLayout:
        """The position as a board is drawn: an `evo_ledger.rules.boards.BoardLayout` (spaces on a grid and the
        pieces on them, what a tap on a space enters, a legend, panels), which the pages draw with no code of the
        ruleset's own. Hidden facts in it are those of `seat` alone (every seat's for `ALL_SEATS`, none for
        None)."""


@runtime_checkable
class TextBoard(Protocol[KitT_contra]):
    """A text picture of the kit's board, for `kit` and `show`. Default: none."""

    def draw(self, kit: KitT_contra, labels: Mapping[str, str] | None = None) -> str:
        """The board, `labels` written beside its spaces (their occupants)."""


@runtime_checkable
class Advising(Protocol[StateT_contra]):
    """Seats the rules run (automated opponents). Default: none."""

    def advice(self, state: StateT_contra) -> Advice | None:
        """The decision the rules make now for a seat they run, offered to the recorder, and to any reader its
        actions would be listed for: it rests on no fact a seat keeps hidden (a hand, a peek); None: nobody's."""


@runtime_checkable
class FastReplay(Protocol[StateT, ActionT_contra]):
    """A faster fold of actions already found legal (read back from a log). Default: `apply`'s state."""

    def replay(self, state: StateT, action: ActionT_contra) -> StateT: ...


@runtime_checkable
class EarlierVersions(Protocol):
    """Versions the ruleset keeps, deciding as they did, for the games recorded with them. Default: none."""

    def at_version(self, version: str) -> AnyRuleset | None: ...


@runtime_checkable
class Composing(Protocol[StateT_contra]):
    """Actions entered a word at a time (a tap a word on a phone), those `legal_actions` leaves out included (a card
    drawn, a move of several steps). Default: the words of the listed legal actions (`listed_next_words`)."""

    def next_words(self, state: StateT_contra, words: Sequence[str]) -> NextWords:
        """After `words`, the start of an action in notation: the words that may follow in a legal action, and
        whether `words` is a legal action as it stands."""


CAPABILITIES: tuple[type, ...] = (
    HiddenInformation,
    Chance,
    Bots,
    Explanations,
    ReadModels,
    Board,
    TextBoard,
    Advising,
    FastReplay,
    EarlierVersions,
    Composing,
)


class NothingHidden:
    """The default of `HiddenInformation`: everyone sees everything."""

    def __init__(self, rules: AnyRuleset) -> None:
        self.snapshot_state = rules.snapshot_state

    def visible_only_to(self, action: object) -> str | None:
        return None

    def reveals(self, hidden: object, later: object) -> bool:
        return False

    def rests_on(self, state: object, action: object) -> str | None:
        return None

    def public_state(self, state: object) -> dict[str, Any]:
        return self.snapshot_state(state)

    def seat_state(self, state: object, seat: str) -> dict[str, Any]:
        return self.snapshot_state(state)


_FOUND: dict[tuple[type, type], bool] = {}


def has(rules: object, capability: type) -> bool:
    """Whether the ruleset has the capability, found with `isinstance` once for its class (a capability is
    methods its class writes): every member written or a base class's default, at least one written, none merely
    inherited from the protocol's declaration."""
    key = (type(rules), capability)
    found = _FOUND.get(key)
    if found is None:
        members = protocol_methods(capability)
        whole = all(available(rules, capability, member) for member in members)
        own = any(written(rules, capability, member) for member in members)
        found = _FOUND[key] = isinstance(rules, capability) and whole and own
    return found


def hidden_information(rules: AnyRuleset) -> HiddenInformation[Any, Any]:
    """What the ruleset hides from whom; for a ruleset with no hidden information, nothing."""
    return cast(HiddenInformation[Any, Any], rules) if has(rules, HiddenInformation) else NothingHidden(rules)


def is_chance(rules: AnyRuleset, action: object) -> bool:
    return has(rules, Chance) and cast(Chance[Any], rules).is_chance(action)


def self_play(rules: AnyRuleset) -> SelfPlay[Any, Any, Any] | None:
    return cast(Bots, rules).self_play() if has(rules, Bots) else None


def explain(rules: AnyRuleset, steps: Sequence[Step[Any, Any]], at: int) -> Explanation | None:
    return cast(Explanations, rules).explain(steps, at) if has(rules, Explanations) else None


def reading(rules: AnyRuleset) -> Reading | None:
    return cast(ReadModels, rules).reading() if has(rules, ReadModels) else None


def layout(rules: AnyRuleset, state: object, seat: str | None = None) -> BoardLayout | None:
    """The position as the ruleset draws it for `seat` (a `BoardLayout`); None for a ruleset with no board."""
    return cast(Board[Any], rules).layout(state, seat) if has(rules, Board) else None


def draw(rules: AnyRuleset, kit: object, labels: Mapping[str, str] | None = None) -> str:
    return cast(TextBoard[Any], rules).draw(kit, labels) if has(rules, TextBoard) else ""


def advice(rules: AnyRuleset, state: object) -> Advice | None:
    return cast(Advising[Any], rules).advice(state) if has(rules, Advising) else None


def advice_in_notation(rules: AnyRuleset, state: object) -> dict[str, Any] | None:
    """The rules' advice now as a recorder is offered it: its `actions` in notation, its `ruling` and `reason`;
    None: nobody's."""
    offered = advice(rules, state)
    if offered is None:
        return None
    return {
        "actions": [rules.format_action(action) for action in offered.actions],
        "ruling": offered.ruling,
        "reason": offered.reason,
    }


def replayer(rules: AnyRuleset) -> Callable[[Any, Any], Any]:
    """The fold of an action already found legal: the ruleset's fast replay, or `apply`'s state."""
    if has(rules, FastReplay):
        return cast(FastReplay[Any, Any], rules).replay
    return lambda state, action: rules.apply(state, action).state


def at_version(rules: AnyRuleset, version: str) -> AnyRuleset | None:
    return cast(EarlierVersions, rules).at_version(version) if has(rules, EarlierVersions) else None


def next_words(rules: AnyRuleset, state: object, words: Sequence[str]) -> NextWords:
    """The words that may follow `words` in a legal action now, and whether `words` is one."""
    if has(rules, Composing):
        return cast(Composing[Any], rules).next_words(state, words)
    return listed_next_words((rules.format_action(action) for action in rules.legal_actions(state)), words)


# An action's length in words is bounded by its notation's; this bounds the words entered for a reader at once.
MAX_FORCED_WORDS = 64


def forced_next_words(offer: Callable[[Sequence[str]], NextWords], words: Sequence[str]) -> tuple[list[str], NextWords]:
    """The words that follow `words` as the only ones possible (as `offer` offers them), one after another, until
    a choice is needed or the words are a legal action; and the choices after them."""
    forced: list[str] = []
    offered = offer(words)
    while len(offered.words) == 1 and not offered.complete and len(forced) < MAX_FORCED_WORDS:
        forced.append(offered.words[0])
        offered = offer([*words, *forced])
    return forced, offered


def listed_next_words(actions: Iterable[str], words: Sequence[str]) -> NextWords:
    """The words that follow `words` in `actions` (in notation), each once, in the order met; `complete` where
    `words` is one of them."""
    entered, count = list(words), len(words)
    following: dict[str, None] = {}
    complete = False
    for action in actions:
        parts = action.split()
        if parts[:count] == entered:
            if len(parts) == count:
                complete = True
            else:
                following.setdefault(parts[count], None)
    return NextWords(tuple(following), complete)


def capabilities(rules: AnyRuleset) -> tuple[str, ...]:
    """The names of the capabilities the ruleset has, in the order of `CAPABILITIES`."""
    return tuple(capability.__name__ for capability in CAPABILITIES if has(rules, capability))


def package_file(rules: object, name: str) -> Traversable | None:
    """The file or folder `name` beside the ruleset's code (its `kits`, its `rulings.toml`), None where there is
    none."""
    package = package_of(rules)
    found = resources.files(package) / name if package is not None else None
    return found if found is not None and (found.is_file() or found.is_dir()) else None


def package_of(rules: object) -> str | None:
    """The package the ruleset's class is written in; None for a ruleset written in a module of its own, outside
    any package."""
    module = sys.modules[type(rules).__module__]
    spec = module.__spec__
    if spec is not None and spec.submodule_search_locations is not None:
        return module.__name__
    return spec.parent if spec is not None and spec.parent else None


def contract_problems(rules: object) -> list[str]:
    """What keeps `rules` from keeping the contract: a member of the core it lacks, a capability it writes in
    part, a member whose parameters are not the contract's."""
    problems = [f"no {member}" for member in CORE_MEMBERS if not available(rules, Ruleset, member)]
    for capability in CAPABILITIES:
        members = protocol_methods(capability)
        done = [member for member in members if written(rules, capability, member)]
        missing = ", ".join(member for member in members if not available(rules, capability, member))
        if done and missing:
            problems.append(f"{capability.__name__} in part: {', '.join(done)} without {missing}")
    for protocol in (Ruleset, *CAPABILITIES):
        for member in protocol_methods(protocol):
            if available(rules, protocol, member) and not takes_as_contract(getattr(rules, member), protocol, member):
                problems.append(f"{member} does not take the contract's {contract_parameters(protocol, member)}")
    return problems


def protocol_methods(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items() if name[0] != "_" and callable(value)]


def written(rules: object, protocol: type, member: str) -> bool:
    """Whether the ruleset has the member of its own: not the protocol's empty declaration, nor a base class's
    default or place for it (`contract_default`, `contract_required`), inherited."""
    found = getattr(type(rules), member, getattr(rules, member, None))
    marked = getattr(found, CONTRACT_DEFAULT, False) or getattr(found, CONTRACT_REQUIRED, False)
    return found is not None and found is not vars(protocol).get(member) and not marked


def available(rules: object, protocol: type, member: str) -> bool:
    """Whether the ruleset has the member: written, or a base class's default."""
    return written(rules, protocol, member) or getattr(getattr(type(rules), member, None), CONTRACT_DEFAULT, False)


def contract_default(method: F) -> F:
    """Marks a base class's default for a member of the contract (evo_ledger.rules.defaults): a ruleset that
    inherits it has not written the member, and has a capability only where it writes one of its members."""
    setattr(method, CONTRACT_DEFAULT, True)
    return method


def contract_required(method: F) -> F:
    """Marks a base class's place for a member of the core that each ruleset writes: inherited, it is missing."""
    setattr(method, CONTRACT_REQUIRED, True)
    return method


def contract_parameters(protocol: type, member: str) -> str:
    return "(" + ", ".join(list(inspect.signature(vars(protocol)[member]).parameters)[1:]) + ")"


def takes_as_contract(method: Any, protocol: type, member: str) -> bool:
    """Whether the method can be called as the contract calls it: with every parameter the contract declares."""
    wanted = list(inspect.signature(vars(protocol)[member]).parameters)[1:]
    try:
        inspect.signature(method).bind(*wanted)
    except TypeError:
        return False
    except ValueError:  # a callable whose signature cannot be read: taken on trust
        return True
    return True
