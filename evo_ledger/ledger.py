"""The Ledger application: one method per use case over the event-sourced games.

Every change is appended, never updated; an append returns a receipt (the game's new version and head hash)
that a recorder can keep as proof of what it wrote.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.persistence import IntegrityError, InternalError, StoredEvent, Transcoder

from evo_ledger.access import AnsweredAppend, GameAccess, access_id, answer_id
from evo_ledger.codec import MsgpackTranscoder
from evo_ledger.game import SNAPSHOT_INTERVAL, Game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.base import OptionValue
from evo_ledger.rules.kit import load_kit_document
from evo_ledger.settings import Settings

CACHED_GAMES = 256
STARTUP_ATTEMPTS = 5


def fold_events(game: Any, events: Iterable[Any]) -> Any:
    """Each event applied in turn (the library's own projector checks a typing protocol per event: slow)."""
    for event in events:
        game = event.mutate(game)
    return game


@dataclass(frozen=True)
class Receipt:
    """What a recorder keeps after an append: the game, its new version and its head hash."""

    game_id: UUID
    version: int
    head_hash: str

    @classmethod
    def of(cls, game: Game) -> Receipt:
        return cls(game.id, game.version, game.head_hash)


class UnknownGame(LookupError):
    def __init__(self, game_id: UUID) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class GameReferenceError(LookupError):
    """A reference that names no game, or more than one."""


@dataclass(frozen=True)
class Idempotency:
    """An append's idempotency key, and the digest of the request it came with."""

    key: str
    request: str


class IdempotencyKeyReused(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was used for a different request")
        self.key = key


class VersionConflict(Exception):
    """The game moved on since the recorder last saw it: nothing was appended."""

    def __init__(self, game_id: UUID, expected: int, actual: int | None) -> None:
        now = f"it is at version {actual}" if actual is not None else "another recorder appended first"
        super().__init__(f"game {game_id}: expected version {expected}, but {now}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class Ledger(Application[UUID]):
    snapshotting_intervals = {Game: SNAPSHOT_INTERVAL}  # noqa: RUF012

    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        settings = settings or Settings.from_environment()
        self.settings = settings
        full_env = {
            **settings.persistence_env(),
            "AGGREGATE_CACHE_MAXSIZE": str(CACHED_GAMES),
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            "IS_SNAPSHOTTING_ENABLED": "y",
            **env,
        }
        for attempt in range(STARTUP_ATTEMPTS):
            try:
                super().__init__(env=full_env)
                return
            except InternalError as error:
                # PostgreSQL refuses one of two servers creating the same tables at the same moment.
                if "concurrently" not in str(error) or attempt == STARTUP_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def construct_transcoder(self) -> Transcoder:
        return MsgpackTranscoder()

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """Store the games' new events in one transaction, then the snapshots they took on the way.

        The library's own `save` checks typing protocols on every object and re-folds each game to snapshot it;
        games here bring their snapshots, taken while their events were made."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate in objs:
            processing_event.events.extend(aggregate.collect_events())
            processing_event.aggregates[aggregate.id] = aggregate
        recordings = self._record(processing_event)
        games = [game for game in objs if isinstance(game, Game)]
        self.store_snapshots([snapshot for game in games for snapshot in game.snapshots_due])
        for game in games:
            game.snapshots_due.clear()
        self._notify(recordings)
        return recordings

    def store_snapshots(self, snapshots: Sequence[Any]) -> None:
        if self.snapshots is not None and snapshots:
            self.snapshots.put(list(snapshots))

    def create_game(
        self,
        ruleset: str,
        kit: str,
        players: Sequence[str | tuple[str, str | None]],
        options: Mapping[str, OptionValue] | None = None,
        recorder_token: str | None = None,
    ) -> Receipt:
        """A new game: `players` in seat order, each a name or (name, stable id); with a recorder token, only
        its holder may append (its digest is stored with the game's first event, in one transaction)."""
        document, loaded = load_kit_document(kit)
        seats = [(p, None) if isinstance(p, str) else p for p in players]
        game = Game.start(get_ruleset(ruleset), document, loaded, seats, options or {})
        access = [GameAccess.grant(game.id, recorder_token)] if recorder_token is not None else []
        return self.save_games([game], also=access)[0]

    def record(
        self,
        game_id: UUID,
        notations: str | Sequence[str],
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Receipt:
        """Append one action or a batch, all or nothing: an illegal action in the batch appends none of them.

        With an idempotency key, a request already answered gets its answer again and appends nothing."""
        batch = [notations] if isinstance(notations, str) else list(notations)
        return self._change(game_id, expected_version, lambda game: [game.record(n) for n in batch], idempotency)

    def access(self, game_id: UUID) -> GameAccess | None:
        """Who may write to the game; None for a game made without a recorder token."""
        try:
            access: Any = self.repository.get(access_id(game_id))
        except AggregateNotFoundError:
            return None
        assert isinstance(access, GameAccess)
        return access

    def grant_recorder(self, game_id: UUID, token: str) -> None:
        """Make `token` the game's recorder token, in place of any it had."""
        access = self.access(game_id)
        if access is None:
            self.game(game_id)  # an unknown game raises
            self.save(GameAccess.grant(game_id, token))
        else:
            access.replace_token(token)
            self.save(access)

    def change_access(self, game_id: UUID, change: Callable[[GameAccess], None]) -> None:
        access = self.access(game_id)
        if access is None:
            self.game(game_id)  # an unknown game raises
            raise UnknownGame(game_id)
        change(access)
        self.save(access)

    def answered(self, game_id: UUID, idempotency: Idempotency) -> Receipt | None:
        """The receipt an append with this key was given, if there was one; a different request with the same key
        is refused."""
        try:
            answer: Any = self.repository.get(answer_id(game_id, idempotency.key))
        except AggregateNotFoundError:
            return None
        assert isinstance(answer, AnsweredAppend)
        if answer.request != idempotency.request:
            raise IdempotencyKeyReused(idempotency.key)
        return Receipt(game_id, answer.game_version, answer.head_hash)

    def undo(self, game_id: UUID, count: int, reason: str, expected_version: int | None = None) -> Receipt:
        return self._change(game_id, expected_version, lambda game: game.undo(count, reason))

    def correct(self, game_id: UUID, notation: str, reason: str, expected_version: int | None = None) -> Receipt:
        return self._change(game_id, expected_version, lambda game: game.correct(notation, reason))

    def annotate(self, game_id: UUID, about: int, text: str) -> Receipt:
        return self._change(game_id, None, lambda game: game.annotate(about, text))

    def game(self, game_id: UUID, version: int | None = None) -> Game:
        """The game as it stands, or as it stood after event `version`."""
        try:
            game: Any = self.repository.get(game_id, version=version, projector_func=fold_events)
        except AggregateNotFoundError:
            raise UnknownGame(game_id) from None
        assert isinstance(game, Game)
        return game

    def receipt(self, game_id: UUID) -> Receipt:
        game = self.game(game_id)
        return Receipt.of(game)

    def game_events(
        self, game_id: UUID, up_to: int | None = None, after: int | None = None, limit: int | None = None
    ) -> list[Any]:
        """The game's domain events in order: those after version `after` and up to version `up_to`, at most
        `limit` of them, if given."""
        return list(self.repository.event_store.get(game_id, gt=after, lte=up_to, limit=limit))

    def stored_events(self, game_id: UUID) -> list[StoredEvent]:
        return list(self.recorder.select_events(game_id))

    def game_ids(self) -> Iterator[UUID]:
        """Every game, in the order it was started."""
        start = 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=1000, topics=[Game.Started.TOPIC])
            for notification in page:
                yield UUID(str(notification.originator_id))
            if len(page) < 1000:
                return
            start = page[-1].id + 1

    def find_game(self, reference: str) -> UUID:
        """A game by its id, a unique beginning of its id, or `last`: the game started last."""
        wanted = reference.strip().lower()
        if wanted == "last":
            last = deque(self.game_ids(), maxlen=1)
            if not last:
                raise GameReferenceError("there are no games yet")
            return last[0]
        if not wanted or any(c not in "0123456789abcdef-" for c in wanted):
            raise GameReferenceError(f"{reference!r} is not a game id (hexadecimal digits), nor 'last'")
        found = [game_id for game_id in self.game_ids() if str(game_id).startswith(wanted)]
        if len(found) != 1:
            raise GameReferenceError(f"{len(found) or 'no'} games have an id starting {reference!r}")
        return found[0]

    def save_games(self, games: Sequence[Game], expected: int = 0, also: Sequence[Any] = ()) -> list[Receipt]:
        """The games' new events stored in one transaction, with those of the aggregates `also` given;
        `expected` is the version the games were changed from."""
        try:
            self.save(*games, *also)
        except IntegrityError:
            for game in games:
                self._forget(game.id)
            raise VersionConflict(games[0].id, expected, None) from None
        return [Receipt.of(game) for game in games]

    def insert_stored_events(self, events: Sequence[StoredEvent], snapshots: Sequence[StoredEvent] = ()) -> None:
        """Write events exactly as given, in one transaction, then their snapshots (the imports)."""
        try:
            self.recorder.insert_events(list(events))
        except IntegrityError as error:
            raise VersionConflict(events[0].originator_id, events[0].originator_version, None) from error  # type: ignore[arg-type]
        if self.snapshots is not None and snapshots:
            self.snapshots.recorder.insert_events(list(snapshots))

    def _change(
        self, game_id: UUID, expected: int | None, change: Any, idempotency: Idempotency | None = None
    ) -> Receipt:
        """Apply `change` to the game and append its events.

        A recorder that says which version it expects gets the cached game as it is when it stands there: the
        store's unique key on (game, version) refuses an append on a stale game, so no read is needed first.
        Otherwise the game is read as the store has it, so the rules judge the action on the real game."""
        if idempotency is not None and (given := self.answered(game_id, idempotency)) is not None:
            return given
        cached = self._cached(game_id) if expected is not None else None
        game = cached if cached is not None and cached.version == expected else self.game(game_id)
        seen = game.version
        if expected is not None and expected != seen:
            raise VersionConflict(game_id, expected, seen)
        try:
            change(game)
        except BaseException:
            self._forget(game_id)
            raise
        if idempotency is None:
            return self.save_games([game], seen)[0]
        answer = AnsweredAppend.answer(game_id, idempotency.key, idempotency.request, game.version, game.head_hash)
        try:
            return self.save_games([game], seen, also=[answer])[0]
        except VersionConflict:
            retried = self.answered(game_id, idempotency)  # the same request, answered meanwhile
            if retried is None:
                raise
            return retried

    def _cached(self, game_id: UUID) -> Game | None:
        if self.repository.cache is None:
            return None
        try:
            game = self.repository.cache.get(game_id)
        except KeyError:
            return None
        return game if isinstance(game, Game) else None

    def _forget(self, game_id: UUID) -> None:
        """Drop a cached game whose unsaved changes must not be seen again."""
        if self.repository.cache is not None:
            with suppress(KeyError):
                self.repository.cache.get(game_id, evict=True)
