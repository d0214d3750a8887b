"""The Game aggregate: a game of any ruleset as the sequence of its events.

Every action made at the table is one event, of a class named for the fact it records; the consequences the
rules derive follow it as events of their own, so a reader of the log never re-runs the rules to learn what
happened. The ruleset names both (its `Vocabulary`), and each is stored under its own topic. Undoing, correcting,
annotating and saying whether the game's hidden facts are shown to every reader at its end are events too. Each
event carries the hash of its predecessor and its own, over its canonical bytes, so an edited, dropped or
reordered event shows.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import uuid
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, ClassVar, NamedTuple, cast
from uuid import UUID

from eventsourcing.domain import Aggregate, Snapshot
from eventsourcing.utils import register_topic

from evo_ledger.game.codec import digest
from evo_ledger.game.labels import NO_LABELS, readings
from evo_ledger.rules import AnyRuleset, get_ruleset, rulesets
from evo_ledger.rules.base import Consequence, OptionValue, RuleViolation, SetupError, Transition, Vocabulary
from evo_ledger.rules.contract import Kit, hidden_information, replayer
from evo_ledger.rules.structured import ActionDataError
from evo_ledger.rules.text import NotationError

TOPIC_PREFIX = "evo-ledger:Game"
SNAPSHOT_INTERVAL = 100
# A snapshot keeps the states before this many of the latest actions, so an undo after it need not fold again.
UNDO_REACH = 8
PLAYER_NAMESPACE = uuid.UUID("5e7c1d2a-9a52-4d7e-8f0a-6b7f6c0e2a11")
GENESIS = "0" * 64
# The most events a game may hold: a long game of any ruleset holds a tenth of it.
MAX_GAME_EVENTS = 20_000


class NothingToUndo(ValueError):
    """An undo of more actions than stand, or a correction with none to correct."""


class UnknownEvent(ValueError):
    """A note about an event the game does not have."""


class GameTooLong(ValueError):
    def __init__(self, game_id: UUID | str) -> None:
        super().__init__(f"game {game_id} holds {MAX_GAME_EVENTS} events, the most a game may hold")
        self.game_id = game_id


def topic_of(name: str) -> str:
    return f"{TOPIC_PREFIX}.{name}"


def check_distinct_players(seats: Sequence[Mapping[str, Any]]) -> None:
    """Each seat is a different player: no two share a name or a stable id."""
    for key in ("name", "id"):
        values = [str(seat.get(key)) for seat in seats]
        shared = next((value for value in values if values.count(value) > 1), None)
        if shared is not None:
            raise SetupError(f"two seats share the player {key} {shared!r}: each seat is a different player")


def player_id(name: str, given: str | None = None) -> str:
    """A player's stable id: the one given, or one derived from the name, the same in every game."""
    return given or str(uuid.uuid5(PLAYER_NAMESPACE, name.lower()))


_KITS: dict[str, Any] = {}
# Folding trusts the log's actions, checked when recorded; an import of foreign events checks them again.
CHECK_ON_FOLD: ContextVar[bool] = ContextVar("check_on_fold", default=False)


def kit_of(rules: AnyRuleset, document: Mapping[str, Any], pinned_hash: str) -> Any:
    """The kit a game carries, checked against the hash it pinned (once per hash: kits never change)."""
    kit = _KITS.get(pinned_hash)
    if kit is None:
        kit = rules.parse_kit(document, label=pinned_hash)
        if kit.content_hash != pinned_hash:
            raise ValueError(f"the game's kit has hash {kit.content_hash}, not the {pinned_hash} it pinned")
        _KITS[pinned_hash] = kit
    return kit


# What an event's hash is not over: the hash itself and, of a hidden action, what its commitment stands for.
NOT_HASHED = frozenset({"hash"})
COMMITTED = frozenset({"hash", "notation", "action_salt"})


def hashed_fields(fields: Mapping[str, Any]) -> Mapping[str, Any]:
    """The fields an event's hash is over: a hidden action's notation and salt are left to its commitment."""
    left_out = NOT_HASHED if fields.get("action_commitment") is None else COMMITTED
    if not left_out & fields.keys():
        return fields
    return {key: value for key, value in fields.items() if key not in left_out}


def event_hash(topic: str, game_id: UUID | str, version: int, timestamp: datetime, fields: Mapping[str, Any]) -> str:
    """The hash of an event: over its topic, place, time, predecessor's hash and fields (all but the hash itself,
    and a hidden action's notation and salt, which its commitment covers), in canonical bytes."""
    return digest([topic, str(game_id), version, timestamp.isoformat(), hashed_fields(fields)])


def hidden_commitment(salt: str, notation: str) -> str:
    """What the chain covers of a hidden action: the hash of a 128-bit secret salt and its notation, so that no
    reader without the salt can try the few actions it could be. The salt is published with its reveal."""
    return digest(["hidden action", salt, notation])


def commitment_holds(fields: Mapping[str, Any]) -> bool:
    """Whether a stored action's commitment (if it has one) is that of its salt and notation."""
    commitment = fields.get("action_commitment")
    salt, notation = fields.get("action_salt") or "", fields.get("notation", "")
    return commitment is None or commitment == hidden_commitment(salt, notation)


_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def field_names(event_class: type[Any]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(event_class)
    if names is None:
        names = _FIELD_NAMES[event_class] = tuple(field.name for field in dataclasses.fields(event_class))
    return names


def seed_commitment(generator: str, salt: str, seed: int) -> str:
    """What a generated game's first event carries: the hash of its chance generator, secret salt and seed."""
    return digest({"generator": generator, "salt": salt, "seed": seed})


# What a stored event carries beside the fields its hash is over.
STORED_BESIDE = frozenset({"timestamp", "class_version", "hash"})


def stored_hash(topic: str, game_id: UUID | str, version: int, fields: Mapping[str, Any]) -> str:
    """The hash a stored event's decoded fields should carry (what is stored beside them is left out)."""
    content = {key: value for key, value in fields.items() if key not in STORED_BESIDE}
    return digest([topic, str(game_id), version, fields["timestamp"].isoformat(), hashed_fields(content)])


class Game(Aggregate):
    TOPIC = TOPIC_PREFIX

    class Event(Aggregate.Event):
        prev_hash: str
        hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.head_hash = self.hash
            self.fold(aggregate)

        def fold(self, game: Game) -> None:
            """What the event changes in the game, besides its head hash."""

    class Created(Aggregate.Created):
        TOPIC = topic_of("Created")

    class Started(Created):
        """The game's setup, pinned: ruleset and version, the kit (its whole content and hash), players, options.

        Version 2 gives each player a seat and a stable id; version 1 listed names only. Version 3 adds the
        commitment of a game the service generates: the hash of its chance generator, secret salt and seed,
        revealed by `SeedRevealed` at its end (None for a game played at a table). Version 4 says whether the
        server that stored the game sealed its events with a key: then every event carries a seal."""

        TOPIC = topic_of("Started")
        class_version = 4
        ruleset: str
        version: str
        kit: str
        kit_hash: str
        kit_document: dict[str, Any]
        players: list[dict[str, Any]]
        options: dict[str, Any]
        commitment: str | None
        sealed: bool
        prev_hash: str
        hash: str

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["players"] = [
                {"seat": seat, "name": name, "id": player_id(name)} for seat, name in enumerate(state["players"], 1)
            ]

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            state["commitment"] = None

        @staticmethod
        def upcast_v3_v4(state: dict[str, Any]) -> None:
            state["sealed"] = False

    class ActionRecorded(Event):
        """An action made at the table, in the ruleset's notation. Version 2 adds, for an action only one player
        may see, its salt and commitment (`hidden_commitment`): the hash is over the commitment, not the action.
        Version 3 adds when it was entered at the table (`entered_at`, ISO 8601 in UTC, as the recording device
        said; None where it said nothing, and for an action stored before)."""

        TOPIC = topic_of("ActionRecorded")
        class_version = 3
        notation: str
        warnings: list[list[str]]
        visible_only_to: str | None
        action_salt: str | None
        action_commitment: str | None
        entered_at: str | None

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["action_salt"] = state["action_commitment"] = None

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            state["entered_at"] = None

        def fold(self, game: Game) -> None:
            game.keep_if_uncommitted(self.originator_version, self.visible_only_to, self.action_commitment)
            game.apply_action(self.notation, self.originator_version)

    class ConsequenceDerived(Event):
        """What the rules derived from the action before it (`cause` is that action's version)."""

        TOPIC = topic_of("ConsequenceDerived")
        cause: int
        data: dict[str, Any]

    class ActionsUndone(Event):
        TOPIC = topic_of("ActionsUndone")
        versions: list[int]
        reason: str

        def fold(self, game: Game) -> None:
            game.undo_to(len(game.history) - len(self.versions))

    class ActionCorrected(Event):
        """The latest action replaced by another: the mistake stays in the log, beside its correction."""

        TOPIC = topic_of("ActionCorrected")
        class_version = 3
        replaced: int
        notation: str
        warnings: list[list[str]]
        visible_only_to: str | None
        action_salt: str | None
        action_commitment: str | None
        entered_at: str | None
        reason: str

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["action_salt"] = state["action_commitment"] = None

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            state["entered_at"] = None

        def fold(self, game: Game) -> None:
            game.keep_if_uncommitted(self.originator_version, self.visible_only_to, self.action_commitment)
            game.undo_to(len(game.history) - 1)
            game.apply_action(self.notation, self.originator_version)

    class SeedRevealed(Event):
        """The end of a game the service generated: the generator, salt and seed its first event committed to."""

        TOPIC = topic_of("SeedRevealed")
        generator: str
        salt: str
        seed: int

    class AnnotationAdded(Event):
        TOPIC = topic_of("AnnotationAdded")
        about: int
        text: str

        def fold(self, game: Game) -> None:
            game.annotations.append((self.about, self.text))

    class EndRevealSet(Event):
        """Whether, once the game is over, what its rules keep hidden (a card drawn, a peek, a hand) is shown to
        every reader (`reveal_at_end` true), or kept from those who could not see it during play. A game whose log
        has no such event shows it; the recorder sets it as the game starts, or later, and the latest stands."""

        TOPIC = topic_of("EndRevealSet")
        reveal_at_end: bool

        def fold(self, game: Game) -> None:
            if not isinstance(self.reveal_at_end, bool):
                raise TypeError(f"reveal_at_end is true or false, not {self.reveal_at_end!r}")
            game.reveal_at_end = self.reveal_at_end

    # False only for a game made again beside its log by the audit, which compares everything but the hashes.
    hashed: ClassVar[bool] = True

    def __init__(
        self,
        ruleset: str,
        version: str,
        kit: str,
        kit_hash: str,
        kit_document: dict[str, Any],
        players: list[dict[str, Any]],
        options: dict[str, Any],
        commitment: str | None,
        sealed: bool,
        prev_hash: str,
        hash: str,
    ) -> None:
        self.ruleset_name, self.ruleset_version = ruleset, version
        self.commitment, self.sealed = commitment, sealed
        self.kit_name, self.kit_hash, self.kit_document = kit, kit_hash, kit_document
        self.players = players
        self.options = options
        self.head_hash = hash
        self.annotations: list[tuple[int, str]] = []
        # Whether the hidden facts are shown to every reader once the game is over (`EndRevealSet`).
        self.reveal_at_end = True
        # The hidden actions the chain covers directly, by version and owner (`keep_if_uncommitted`).
        self.uncommitted_hidden: list[tuple[int, str]] | None = []
        # Each effective action: its event's version, its notation, and the state before it (plain values kept
        # by a snapshot, or None when the game came from a snapshot that did not keep it).
        self.history: list[tuple[int, str, Any]] = []
        self._rules: AnyRuleset = get_ruleset(ruleset, version)
        self._event_classes = events_of(self._rules.vocabulary)
        self.state: Any = self._rules.setup(self.kit, self.player_names, options)
        self._prepared: Transition[Any] | None = None

    @classmethod
    def start(
        cls,
        ruleset: AnyRuleset,
        kit_document: Mapping[str, Any],
        kit: Kit,
        players: Sequence[tuple[str, str | None]],
        options: Mapping[str, OptionValue],
        timestamp: datetime | None = None,
        commitment: str | None = None,
        sealed: bool = False,
        game_id: UUID | None = None,
    ) -> Game:
        """A new game; `players` are (name, stable id or None) in seat order; `commitment` is that of a game the
        service generates (`seed_commitment`); `sealed`, whether its events are stored with a seal; `game_id`,
        its id (a new random one if None)."""
        game_id = game_id or uuid.uuid4()
        seats = [
            {"seat": seat, "name": name, "id": player_id(name, given)} for seat, (name, given) in enumerate(players, 1)
        ]
        check_distinct_players(seats)
        # In UTC, as stored: the hash is over the time's ISO text.
        timestamp = (timestamp or cls.Started.create_timestamp()).astimezone(UTC)
        fields: dict[str, Any] = {
            "ruleset": ruleset.name,
            "version": ruleset.version,
            "kit": kit.name,
            "kit_hash": kit.content_hash,
            "kit_document": dict(kit_document),
            "players": seats,
            "options": dict(options),
            "commitment": commitment,
            "sealed": sealed,
            "prev_hash": GENESIS,
            "originator_topic": cls.TOPIC,
        }
        ruleset.setup(kit, [name for name, _ in players], options)  # refuses a game that cannot start
        fields["hash"] = event_hash(cls.Started.TOPIC, game_id, 1, timestamp, fields)
        return cls._create(cls.Started, id=game_id, timestamp=timestamp, **fields)

    @classmethod
    def started_again(cls, game_id: UUID, timestamp: datetime, fields: dict[str, Any]) -> Game:
        """A game started afresh from a stored first event's fields (the audit's game, folded beside the log)."""
        return cls._create(cls.Started, id=game_id, timestamp=timestamp, **fields)

    def __copy__(self) -> Game:
        """A copy to change while this game stays as it is: its lists are copied and its values are immutable, so
        that the events a change appends, its history and its notes are the copy's alone."""
        copied = object.__new__(type(self))
        copied.__dict__.update({name: list(v) if isinstance(v, list) else v for name, v in self.__dict__.items()})
        return copied

    @cached_property
    def id_text(self) -> str:
        return str(self.id)

    @property
    def rules(self) -> AnyRuleset:
        return self._rules

    @property
    def player_names(self) -> list[str]:
        return [player["name"] for player in self.players]

    def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None:
        """Every event after the first is chained: it carries the head hash before it and its own hash."""
        timestamp = event_class.create_timestamp().astimezone(UTC)
        version = self.version + 1
        if version > MAX_GAME_EVENTS:
            raise GameTooLong(self.id_text)
        kwargs["prev_hash"] = self.head_hash
        kwargs["hash"] = event_hash(event_class.TOPIC, self.id_text, version, timestamp, kwargs) if self.hashed else ""
        super().trigger_event(event_class, timestamp=timestamp, **kwargs)
        if version % SNAPSHOT_INTERVAL == 0:
            self.snapshots_due.append(GameSnapshot.take(self))

    @property
    def created_on(self) -> datetime:
        """When the game started (a game made from a snapshot has it from there)."""
        started_on: datetime | None = self.__dict__.get("started_on")
        return started_on if started_on is not None else super().created_on

    @property
    def snapshots_due(self) -> list[GameSnapshot]:
        """Snapshots taken as the game reached each hundredth event, for the ledger to store with the events."""
        due: list[GameSnapshot] | None = self.__dict__.get("_snapshots_due")
        if due is None:
            due = self.__dict__["_snapshots_due"] = []
        return due

    def record(self, notation: str | Mapping[str, Any], entered_at: str | None = None) -> None:
        """Check an action (in notation, or as data) and append it with its consequences, in notation, with when it
        was entered at the table if that is known; an illegal action raises and appends nothing."""
        action, transition = self._prepare(self.state, notation)
        self.trigger_event(
            self._event_classes.facts[self._rules.fact_of(action)],
            **self._action_fields(action, transition),
            entered_at=entered_at,
        )
        self._derive(transition.consequences)

    def record_all(self, actions: Sequence[str | Mapping[str, Any]], entered_at: str | None = None) -> None:
        """Each action in turn; a refusal of one of several names its place in the batch."""
        for place, action in enumerate(actions, start=1):
            try:
                self.record(action, entered_at)
            except RuleViolation as violation:
                if len(actions) == 1:
                    raise
                shown = action if isinstance(action, str) else str(action.get("kind", "action"))
                raise violation.in_batch(place, len(actions), shown) from None

    def correct(self, notation: str, reason: str, entered_at: str | None = None) -> None:
        """Replace the latest action by another, with a reason; the replacement must be legal where it stands."""
        if not self.history:
            raise NothingToUndo("there is no action to correct")
        replaced = self.history[-1][0]
        action, transition = self._prepare(self.state_before(len(self.history) - 1), notation)
        fields = self._action_fields(action, transition)
        self.trigger_event(self.ActionCorrected, replaced=replaced, reason=reason, entered_at=entered_at, **fields)
        self._derive(transition.consequences)

    def undo(self, count: int, reason: str) -> None:
        if not 1 <= count <= len(self.history):
            raise NothingToUndo(f"there are {len(self.history)} actions to undo, not {count}")
        versions = [entry[0] for entry in self.history[-count:]]
        self.trigger_event(self.ActionsUndone, versions=versions, reason=reason)

    def reveal_seed(self, generator: str, salt: str, seed: int) -> None:
        """Reveal, once the game is over, what its first event committed to; anything else is refused."""
        if self.commitment is None:
            raise ValueError("the game was not generated from a committed seed")
        if self._rules.outcome(self.state) is None:
            raise ValueError("the seed is revealed only at the game's end")
        if seed_commitment(generator, salt, seed) != self.commitment:
            raise ValueError("the generator, salt and seed given are not those the game committed to")
        self.trigger_event(self.SeedRevealed, generator=generator, salt=salt, seed=seed)

    def annotate(self, about: int, text: str) -> None:
        if not 1 <= about <= self.version:
            raise UnknownEvent(f"the game has events 1 to {self.version}, not {about}")
        self.trigger_event(self.AnnotationAdded, about=about, text=text)

    def set_reveal_at_end(self, reveal: bool) -> None:
        """Whether, once the game is over, its hidden facts are shown to every reader (the default) or kept from
        those who could not see them during play; it stands from then on, also after the end."""
        self.trigger_event(self.EndRevealSet, reveal_at_end=bool(reveal))

    def _prepare(self, state: Any, notation: str | Mapping[str, Any]) -> tuple[Any, Transition[Any]]:
        """The action checked on `state`, its transition kept for the fold of the event about to be triggered. An
        action entered with handles is read with labels in their place (`readings`): the first reading the rules
        take, else the refusal of the first."""
        refused: Exception | None = None
        for reading in readings(notation, self.labels_by_handle):
            try:
                action = (
                    self._rules.parse_action(reading)
                    if isinstance(reading, str)
                    else self._rules.action_from_data(reading)
                )
                self._prepared = self._rules.apply(state, action)
            except (NotationError, ActionDataError, RuleViolation) as refusal:
                refused = refused or refusal
                continue
            return action, self._prepared
        assert refused is not None
        raise refused

    def _parsed(self, notation: str | Mapping[str, Any]) -> Any:
        if isinstance(notation, str):
            return self._rules.parse_action(notation)
        return self._rules.action_from_data(notation)

    @property
    def labels_by_handle(self) -> Mapping[str, str]:
        """Each seated handle's label, for the change the application makes now (never stored): an action entered
        with a handle is recorded with its seat's label."""
        labels: Mapping[str, str] = self.__dict__.get("_labels_by_handle", NO_LABELS)
        return labels

    @labels_by_handle.setter
    def labels_by_handle(self, labels: Mapping[str, str]) -> None:
        self.__dict__["_labels_by_handle"] = labels

    def _action_fields(self, action: Any, transition: Transition[Any]) -> dict[str, Any]:
        notation = self._rules.format_action(action)
        owner = hidden_information(self._rules).visible_only_to(action)
        salt = secrets.token_hex(16) if owner is not None else None
        return {
            "notation": notation,
            "warnings": [[w.ruling, w.message, *((w.kind,) if w.kind else ())] for w in transition.warnings],
            "visible_only_to": owner,
            "action_salt": salt,
            "action_commitment": hidden_commitment(salt, notation) if salt is not None else None,
        }

    def _derive(self, consequences: Sequence[Consequence]) -> None:
        cause = self.version
        for consequence in consequences:
            self.trigger_event(
                self._event_classes.consequences[consequence.kind], cause=cause, data=dict(consequence.data)
            )

    def apply_action(self, notation: str, version: int) -> None:
        """Fold one action into the game's state: the transition prepared when it was recorded, or anew."""
        transition = self._prepared
        self._prepared = None
        if transition is not None:
            after = transition.state
        elif CHECK_ON_FOLD.get():
            after = self._rules.apply(self.state, self._rules.parse_action(notation)).state
        else:
            after = replayer(self._rules)(self.state, self._rules.parse_action(notation))
        self.history.append((version, notation, self.state))
        self.state = after

    def keep_if_uncommitted(self, version: int, owner: str | None, commitment: str | None) -> None:
        """Keep, in `uncommitted_hidden`, an action only `owner` may see that was stored before hidden actions
        carried a commitment: the chain covers the action itself. Its version and owner are kept, in order, so that
        a reader's answers can leave out the hashes from it on without reading the log; None stays None (a game
        made from a snapshot taken before games kept them does not know them)."""
        if owner is not None and commitment is None and self.uncommitted_hidden is not None:
            self.uncommitted_hidden.append((version, owner))

    def revealed_versions(self) -> set[int]:
        """The versions of the effective actions that only one player could see and a later effective action
        has shown to everyone (a card drawn, then played)."""
        actions = [(version, self._rules.parse_action(notation)) for version, notation, _ in self.history]
        revealed: set[int] = set()
        used: set[int] = set()
        hidden_facts = hidden_information(self._rules)
        for index, (version, hidden) in enumerate(actions):
            if hidden_facts.visible_only_to(hidden) is None:
                continue
            for later_version, later in actions[index + 1 :]:
                if later_version not in used and hidden_facts.reveals(hidden, later):
                    revealed.add(version)
                    used.add(later_version)
                    break
        return revealed

    def state_before(self, index: int) -> Any:
        version, notation, before = self.history[index]
        if before is None:
            self._refold_history()
        elif isinstance(before, dict):  # kept by a snapshot as plain values
            self.history[index] = (version, notation, self._rules.restore_state(self.kit, before))
        return self.history[index][2]

    @property
    def kit(self) -> Any:
        return kit_of(self._rules, self.kit_document, self.kit_hash)

    def undo_to(self, length: int) -> None:
        if length < len(self.history):
            self.state = self.state_before(length)
            del self.history[length:]

    def _refold_history(self) -> None:
        """The states before each action, folded again from the setup (after a snapshot left them out)."""
        state = self._rules.setup(self.kit, self.player_names, self.options)
        replay = replayer(self._rules)
        for index, (version, notation, _) in enumerate(self.history):
            self.history[index] = (version, notation, state)
            state = replay(state, self._rules.parse_action(notation))

    def snapshot_data(self) -> dict[str, Any]:
        """The game as plain values: setup, head hash, annotations, whether its hidden facts are shown at its end,
        its hidden actions stored before commitments, the effective actions and the rules state."""
        uncommitted = self.uncommitted_hidden
        return {
            "setup": [self.ruleset_name, self.ruleset_version, self.kit_name, self.kit_hash, self.kit_document],
            "commitment": self.commitment,
            "sealed": self.sealed,
            "players": self.players,
            "options": self.options,
            "head_hash": self.head_hash,
            "annotations": [list(a) for a in self.annotations],
            "reveal_at_end": self.reveal_at_end,
            "uncommitted_hidden": None if uncommitted is None else [list(action) for action in uncommitted],
            "history": [[version, notation] for version, notation, _ in self.history],
            "recent": [
                [index, before if isinstance(before, dict) else self._rules.snapshot_state(before)]
                for index in range(max(0, len(self.history) - UNDO_REACH), len(self.history))
                if (before := self.history[index][2]) is not None
            ],
            "state": self._rules.snapshot_state(self.state),
            "created_on": self.created_on,
            "modified_on": self.modified_on,
        }

    @classmethod
    def from_snapshot(cls, game_id: UUID, version: int, data: dict[str, Any]) -> Game:
        """The game a snapshot holds: the library makes the bare aggregate from a snapshot of nothing, and the
        game's own attributes are set from the snapshot's plain values."""
        modified_on = data["modified_on"]
        bare = Snapshot(
            originator_id=game_id, originator_version=version, timestamp=modified_on, topic=cls.TOPIC, state={}
        )
        game = cast(Game, bare.mutate(None))
        game.modified_on = modified_on
        game.__dict__["started_on"] = data["created_on"]
        ruleset, ruleset_version, kit, kit_hash, kit_document = data["setup"]
        game.ruleset_name, game.ruleset_version = ruleset, ruleset_version
        game.commitment, game.sealed = data.get("commitment"), data.get("sealed", False)
        game.kit_name, game.kit_hash, game.kit_document = kit, kit_hash, kit_document
        game.players, game.options, game.head_hash = data["players"], data["options"], data["head_hash"]
        game.annotations = [(about, text) for about, text in data["annotations"]]
        game.reveal_at_end = data.get("reveal_at_end", True)  # a snapshot taken before the option was: shown
        kept = data.get("uncommitted_hidden")  # None: taken before games kept them
        game.uncommitted_hidden = None if kept is None else [(version, owner) for version, owner in kept]
        game.history = [(v, notation, None) for v, notation in data["history"]]
        for index, before in data["recent"]:
            version, notation, _ = game.history[index]
            game.history[index] = (version, notation, before)
        game._rules = get_ruleset(ruleset, ruleset_version)
        game._event_classes = events_of(game._rules.vocabulary)
        game.state = game._rules.restore_state(game.kit, data["state"])
        game._prepared = None
        return game


class GameSnapshot(Snapshot):
    """A game's snapshot: its rules state and effective actions as plain values, not its Python objects."""

    TOPIC = f"{TOPIC_PREFIX}.Snapshot"

    @classmethod
    def take(cls, aggregate: Any) -> GameSnapshot:
        return cls(
            originator_id=aggregate.id,
            originator_version=aggregate.version,
            timestamp=cls.create_timestamp(),
            topic=Game.TOPIC,
            state=aggregate.snapshot_data(),
        )

    def mutate(self, _: None) -> Game:
        return Game.from_snapshot(self.originator_id, self.originator_version, self.state)


register_topic(GameSnapshot.TOPIC, GameSnapshot)
Game.Snapshot = GameSnapshot


class VocabularyEvents(NamedTuple):
    """A ruleset's event classes: one per fact, by name, and one per consequence, by kind."""

    facts: dict[str, type[Game.ActionRecorded]]
    consequences: dict[str, type[Game.ConsequenceDerived]]


_VOCABULARIES: dict[Vocabulary, VocabularyEvents] = {}
CORE_EVENTS = frozenset(
    name for name, value in vars(Game).items() if isinstance(value, type) and issubclass(value, Aggregate.Event)
)
_GAME_EVENT_TOPICS = {topic_of(name) for name in CORE_EVENTS}
_ALL_REGISTERED = False
_REGISTERING = threading.RLock()


def events_of(vocabulary: Vocabulary) -> VocabularyEvents:
    """The event classes of a ruleset's vocabulary, each made once with its explicit topic and registered, so
    that a stored event of that topic is read as one."""
    events = _VOCABULARIES.get(vocabulary)
    if events is not None:
        return events
    with _REGISTERING:  # one thread makes them: a topic registered twice would be refused
        events = _VOCABULARIES.get(vocabulary)
        if events is None:
            facts = {name: _event_class(vocabulary, name, Game.ActionRecorded) for name in vocabulary.facts}
            consequences = {
                kind: _event_class(vocabulary, name, Game.ConsequenceDerived)
                for kind, name in vocabulary.consequences.items()
            }
            events = _VOCABULARIES[vocabulary] = VocabularyEvents(facts, consequences)
        return events


def _event_class(vocabulary: Vocabulary, name: str, base: type[Any]) -> Any:
    topic = vocabulary.topic(name)
    if vocabulary.topic_prefix == TOPIC_PREFIX and name in CORE_EVENTS:
        raise ValueError(f"a ruleset's fact cannot be named {name!r}: the game's own event has that topic")
    cls = type(name, (base,), {"TOPIC": topic, "__qualname__": f"Game.{name}"})
    register_topic(topic, cls)
    _GAME_EVENT_TOPICS.add(topic)
    return cls


def register_vocabularies() -> None:
    """Every installed ruleset's events registered (the rulesets loaded, once): done before a stored event whose
    topic is not yet known is read."""
    global _ALL_REGISTERED  # noqa: PLW0603 - once per process
    with _REGISTERING:
        for ruleset in rulesets().values():
            events_of(ruleset.vocabulary)
        _ALL_REGISTERED = True


def is_game_event_topic(topic: str) -> bool:
    """Whether a game's stored event may have this topic: one of the game's own events' or of an installed
    ruleset vocabulary's (registered here if it was not yet). A topic from outside the ledger is looked up here
    before it is resolved (resolving an unknown one would import a module)."""
    if topic not in _GAME_EVENT_TOPICS and not _ALL_REGISTERED:
        register_vocabularies()
    return topic in _GAME_EVENT_TOPICS
