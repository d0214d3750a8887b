"""The writer path: every change the ledger makes is committed by `WriterPath.commit`, alone or with others in one
transaction, each answered as if it had been made alone, in turn.

A change is an append to a game, checked by its rules, by its recorder's token and against the version it expects;
or records made afresh each time the change is tried: a new game with its access, an access changed, a checkpoint,
an import's events. An append is made to a copy of its game, so that the game the cache holds, which readers in
other threads read, is only ever as stored: the copy takes its place once stored. A refused append leaves nothing
behind: its copy is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from copy import copy
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar, cast
from uuid import UUID, uuid4

from eventsourcing.persistence import IntegrityError, StoredEvent

from evo_ledger.app.access import (
    AnsweredAppend,
    GameAccess,
    NotOwnAction,
    answer_id,
    check_recorder,
    check_recorders_own,
    recording_seat,
)
from evo_ledger.app.ledger.application import LedgerApplication
from evo_ledger.app.ledger.queries import Queries
from evo_ledger.app.ledger.values import (
    RETRIES_ON_CONFLICT,
    AppendRequest,
    Contention,
    Idempotency,
    Receipt,
    VersionConflict,
)
from evo_ledger.app.ledger.vouched import VouchedReads, answer_to
from evo_ledger.app.personal import game_owner
from evo_ledger.app.readers import check_seen
from evo_ledger.game.aggregate import Game
from evo_ledger.game.labels import readings
from evo_ledger.rules.structured import ActionDataError
from evo_ledger.rules.text import NotationError

T = TypeVar("T")


@dataclass(frozen=True)
class Made(Generic[T]):
    """What a change other than an append to a stored game makes, afresh each time it is tried: its answer, and what
    it stores: aggregates or events saved (a new game first, then its access; an access changed; a checkpoint), or
    stored events inserted as they are given, then their snapshots (an import's, committed alone)."""

    answer: T
    saved: Sequence[Any] = ()
    inserted: Sequence[StoredEvent] = ()
    snapshots: Sequence[StoredEvent] = ()

    @staticmethod
    def new_game(aggregates: list[Any]) -> Made[Receipt]:
        """A new game and the aggregates stored beside it (its access)."""
        return Made(Receipt.of(aggregates[0]), aggregates)


def no_change(game: Game) -> None:
    """The append of a change that makes records of its own instead."""


@dataclass(frozen=True)
class Change:
    game_id: UUID
    expected: int | None
    change: Callable[[Game], object]
    idempotency: Idempotency | None = None
    token: str | None = None
    token_required: bool = False
    # For records made in place of an append to a stored game: what makes them, each time the change is tried.
    makes: Callable[[], Made[Any]] | None = None
    # What the change gets when the store refuses it, in place of being made again.
    conflict: Exception | None = None
    # For an append: its actions, which a seat's token may append where they are its player's own.
    actions: tuple[Any, ...] | None = None
    # For a change of how the game is read: the recorder's own token alone makes it, a co-recorder's does not.
    recorders_own: bool = False

    @property
    def made_again(self) -> bool:
        """Whether the change is made again when the store refuses it: one that expects no version and names no
        conflict of its own is made on the records as they then stand."""
        return self.expected is None and self.conflict is None

    @classmethod
    def of(cls, item: AppendRequest | Callable[[], list[Any]]) -> Change:
        return cls.recording(item) if isinstance(item, AppendRequest) else cls.starting(item)

    @classmethod
    def starting(cls, make: Callable[[], list[Any]]) -> Change:
        """A new game, made by `make` with the aggregates stored beside it."""
        return cls.making(uuid4(), lambda: Made.new_game(make()))

    @classmethod
    def making(cls, record_id: UUID, makes: Callable[[], Made[Any]], conflict: Exception | None = None) -> Change:
        return cls(record_id, None, no_change, makes=makes, conflict=conflict)

    @classmethod
    def recording(cls, request: AppendRequest) -> Change:
        actions, entered_at = list(request.actions), request.entered_at
        return cls(
            request.game_id,
            request.expected_version,
            lambda game: game.record_all(actions, entered_at),
            request.idempotency,
            request.recorder_token,
            request.token_required,
            actions=tuple(actions),
        )

    def by_seat(self, seat: str) -> Change:
        """The append made with a seat's token: refused unless each of its actions is the seat's own."""
        actions, record = self.actions or (), self.change

        def own_then_record(game: Game) -> object:
            for action in actions:
                check_own(game, seat, action)
            earlier = len(game.pending_events)
            answer = record(game)
            for event in game.pending_events[earlier:]:  # each action as the rules read it, handles and all
                if isinstance(event, Game.ActionRecorded):
                    check_own(game, seat, event.notation)
            return answer

        return replace(self, change=own_then_record)


def check_own(game: Game, seat: str, action: Any) -> None:
    """Refuse an action appended with a seat's token that is not its player's own (the table's actions, which
    name no player, included), before the rules judge it: as the first reading of its handles the rules can read
    (`readings`); once recorded, its action as recorded is checked again. An action the rules
    cannot read is left to them to refuse, whoever appends it."""
    rules = game.rules
    for reading in readings(action, game.labels_by_handle):
        try:
            parsed = rules.parse_action(reading) if isinstance(reading, str) else rules.action_from_data(reading)
        except (NotationError, ActionDataError):
            continue
        if rules.action_data(parsed).get("player") != seat:
            shown = rules.format_action(parsed)
            raise NotOwnAction(game.id, f"{seat}'s token appends {seat}'s own actions only, not {shown!r}")
        return


@dataclass
class _Pending:
    """What a commit holds until it is stored: the games changed and the answers to idempotent appends (each by
    id, for the changes after them), what else is saved beside them, and stored events inserted as given."""

    games: dict[UUID, Game] = field(default_factory=dict)
    answers: dict[UUID, AnsweredAppend] = field(default_factory=dict)
    beside: list[Any] = field(default_factory=list)
    inserted: list[StoredEvent] = field(default_factory=list)
    snapshots: list[StoredEvent] = field(default_factory=list)
    # A game dropped after changes earlier in the commit: they are lost with it, and the commit is made again.
    changes_lost: bool = False

    def add(self, made: Made[Any]) -> None:
        for saved in made.saved:
            if isinstance(saved, Game):
                self.games[saved.id] = saved
            else:
                self.beside.append(saved)
        self.inserted += made.inserted
        self.snapshots += made.snapshots

    def saved(self) -> list[Any]:
        """What `Application.save` stores of the commit."""
        return [*self.games.values(), *self.answers.values(), *self.beside]

    def holds_changes(self) -> bool:
        return bool(self.answers or self.beside or self.inserted) or any(g.pending_events for g in self.games.values())


class WriterPath:
    """The one way the ledger writes: changes made in turn, then stored together (`commit`)."""

    def __init__(self, store: LedgerApplication, queries: Queries, vouched: VouchedReads) -> None:
        self.store = store
        self.queries = queries
        self.vouched = vouched

    def append(self, change: Change) -> Receipt:
        return cast(Receipt, self._committed(change))

    def make(self, record_id: UUID, makes: Callable[[], Made[T]], conflict: Exception | None = None) -> T:
        """What `makes` makes, stored; its answer. Unless it names a `conflict`, it is made again when another
        writer stored first."""
        return cast(T, self._committed(Change.making(record_id, makes, conflict)))

    def _committed(self, change: Change) -> object:
        [outcome] = self.commit([change])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def commit(self, changes: Sequence[Change], retries: int = RETRIES_ON_CONFLICT) -> list[Any]:
        """Make each change in turn and store what they made in one transaction: for each, its answer or the
        error that refused it.

        If the store refuses the transaction (another process appended to one of the games, or two changes carry
        one idempotency key), each change is made again alone, so that each gets the answer it would have had; a
        change that names no expected version is made again on the game as it now stands, `retries` times."""
        try:
            accesses = self.vouched.accesses({change.game_id for change in changes if change.token_required})
        except Exception as error:
            if len(changes) > 1:  # one game's access the key does not vouch for refuses that game's changes alone
                return self._each_alone(changes)
            return [error]
        pending = _Pending()
        outcomes = self._make_each(changes, accesses, pending)
        if pending.changes_lost and len(changes) > 1:
            return self._each_alone(changes)
        return self._stored(changes, outcomes, pending, retries) if pending.holds_changes() else outcomes

    def _make_each(
        self, changes: Sequence[Change], accesses: Mapping[UUID, GameAccess | None], pending: _Pending
    ) -> list[Any]:
        """Each change made in turn into `pending`, until changes to a game are lost (`_drop`): its answer, or the
        error that refused it. The changes are made to copies of the games, never to those the cache holds."""
        outcomes: list[Any] = []
        for change in changes:
            outcomes.append(self._outcome(change, accesses, pending))
            if pending.changes_lost:
                break
        return outcomes

    def _outcome(self, change: Change, accesses: Mapping[UUID, GameAccess | None], pending: _Pending) -> Any:
        try:
            made = self._checked(change, accesses[change.game_id]) if change.token_required else change
            return self._apply(made, pending)
        except Exception as error:
            return error

    def _stored(self, changes: Sequence[Change], outcomes: list[Any], pending: _Pending, retries: int) -> list[Any]:
        """The outcomes once what the changes made is stored, and the games changed put in the cache as stored; if
        the store refuses it, what `commit` says (the cache still holds the games as they were)."""
        try:
            self._store(pending)
        except IntegrityError:
            return self._each_alone(changes) if len(changes) > 1 else self._refused_alone(changes[0], retries)
        except Exception as error:
            return [outcome if isinstance(outcome, Exception) else error for outcome in outcomes]
        for game in pending.games.values():
            self.store.cache_game(game)
        return outcomes

    def _each_alone(self, changes: Sequence[Change]) -> list[Any]:
        return [outcome for change in changes for outcome in self.commit([change])]

    def _refused_alone(self, change: Change, retries: int) -> list[Any]:
        """What a change the store refused gets: made again on the records as they now stand, if it may be."""
        conflict = self._conflict(change)
        if not isinstance(conflict, VersionConflict) or not change.made_again:
            return [conflict]
        return self.commit([change], retries - 1) if retries else [Contention(change.game_id)]

    def _store(self, pending: _Pending) -> None:
        """What a commit made, in one transaction: the games, the answers and what is saved beside them; or the
        stored events of an import, inserted as they are given, then their snapshots."""
        if pending.inserted:
            self.store.recorder.insert_events(pending.inserted)
            if self.store.snapshots is not None and pending.snapshots:
                self.store.snapshots.recorder.insert_events(pending.snapshots)
        saved = pending.saved()
        if saved:
            self.store.save(*saved)

    def _apply(self, change: Change, pending: _Pending) -> Any:
        """One change made: its records made afresh, or an append to its game."""
        if change.makes is not None:
            made = change.makes()
            pending.add(made)
            return made.answer
        if change.idempotency is not None:
            keyed = self._keyed(change.game_id, change.idempotency)
            change = replace(change, idempotency=keyed)
            given = self._given(change.game_id, keyed, pending)
            if given is not None:
                return given
        return self._append_to(change, pending)

    def _keyed(self, game_id: UUID, idempotency: Idempotency) -> Idempotency:
        """The idempotency key with its request's digest keyed under the game's key (evo_ledger.app.personal): the
        digest of a request that names a player is no one's to recompute once the game's key is erased."""
        if idempotency.unkeyed is not None:
            return idempotency
        keyed = self.store.personal.keyed_digest(game_owner(game_id), idempotency.request)
        return replace(idempotency, request=keyed, unkeyed=idempotency.request)

    def _append_to(self, change: Change, pending: _Pending) -> Receipt:
        """An append made to a copy of its game (`Game.__copy__`), kept in the commit for the changes after it, as
        its answer is; a refused one is rolled back (`_drop`). Readers of the game, in other threads, read the game
        as stored until the commit is."""
        game = pending.games.get(change.game_id) or copy(self._current(change.game_id, change.expected))
        game.labels_by_handle = self.store.personal.labels_by_handle(game.player_names)
        pending.games[game.id] = game
        if change.expected is not None and change.expected != game.version:
            raise VersionConflict(game.id, change.expected, game.version)
        earlier = len(game.pending_events)
        try:
            change.change(game)
        except BaseException:
            self._drop(game, pending, earlier)
            raise
        if change.idempotency is not None:
            key, request = change.idempotency.key, change.idempotency.request
            answer = AnsweredAppend.answer(game.id, key, request, game.version, game.head_hash)
            pending.answers[answer.id] = answer
        return Receipt.of(game)

    def _drop(self, game: Game, pending: _Pending, earlier: int) -> None:
        """Roll back a refused change: its game's copy is dropped from the commit (the game the store and the cache
        hold was never changed, and the next change to it copies it again). `earlier` events of changes made to
        it before in the commit go with the copy, and the commit is made again change by change."""
        del pending.games[game.id]
        pending.changes_lost = pending.changes_lost or earlier > 0

    def _given(self, game_id: UUID, idempotency: Idempotency, pending: _Pending) -> Receipt | None:
        """The answer an append with this key was given already, in this commit or stored."""
        answer = pending.answers.get(answer_id(game_id, idempotency.key))
        return answer_to(idempotency, answer) if answer else self.vouched.answered(game_id, idempotency)

    def _current(self, game_id: UUID, expected: int | None) -> Game:
        """A recorder that says which version it expects gets the cached game as it is when it stands there: the
        store's unique key on (game, version) refuses an append on a stale game, so no read is needed first (the
        repository would ask the store for newer events; pays for: bench.ledger_speed appends, one action a save).
        Otherwise the game is read as the store has it, so the rules judge the action on the real game."""
        cached = self.store.cached_game(game_id) if expected is not None else None
        return cached if cached is not None and cached.version == expected else self.queries.game(game_id)

    def _checked(self, change: Change, access: GameAccess | None) -> Change:
        """The change, once its token is found to make it: the recorder's own for a change of how the game is read,
        a recorder's (or a co-recorder's), or a seat's appending its own actions where the recorder lets seats
        record. A private game is unknown to a token that does not see it (`check_seen`)."""
        if access is None:
            self.queries.game(change.game_id)  # an unknown game raises
        check_seen(change.game_id, access, change.token)
        if change.recorders_own:
            check_recorders_own(change.game_id, access, change.token)
            return change
        if change.actions is None:
            check_recorder(change.game_id, access, change.token)
            return change
        seat = recording_seat(change.game_id, access, change.token)
        return change if seat is None else change.by_seat(seat)

    def _conflict(self, change: Change) -> Any:
        """What a change refused by the store gets: the conflict it names, the answer to the same request if it
        was answered meanwhile, or a version conflict."""
        if change.conflict is not None:
            return change.conflict
        if change.idempotency is not None:
            with suppress(Exception):
                keyed = self._keyed(change.game_id, change.idempotency)
                if (answered := self.vouched.answered(change.game_id, keyed)) is not None:
                    return answered
        return VersionConflict(change.game_id, change.expected, None)
