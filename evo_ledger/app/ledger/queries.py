"""The ledger's queries: every read, none of which changes anything.

Games are read through the library's repository (the cached game, fast-forwarded from the store), and at an event
from the logs held in memory where the settings keep them (`held_log`). What the seal key vouches for (who may
write to a game, the answers given to idempotent appends, the checkpoint log) is read as it is stored, so that
the bytes checked are the bytes folded.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import Notification, StoredEvent

from evo_ledger.app.access import (
    ACCESS_TOPICS,
    ANSWER_RECORD,
    STORED_BEFORE_THE_KEY,
    AccessNotVouched,
    AnsweredAppend,
    GameAccess,
    HeldAccesses,
    access_id,
    answer_id,
    check_access_seals,
    check_signed_head,
)
from evo_ledger.app.audit import AuditReport, audit
from evo_ledger.app.disputes import ExplanationReport, WhatIfReport, explain_event, what_if
from evo_ledger.app.ledger.application import LedgerApplication, fold_events
from evo_ledger.app.ledger.held_log import HeldLogReader
from evo_ledger.app.ledger.values import (
    AuditBasis,
    GameReferenceError,
    Idempotency,
    IdempotencyKeyReused,
    Receipt,
    UnknownGame,
)
from evo_ledger.game.aggregate import Game
from evo_ledger.game.checkpoints import (
    CHECKPOINT_LOG_ID,
    WITHOUT_A_KEY,
    CheckpointError,
    CheckpointIndex,
    Signed,
    Unvouched,
    read_events,
    signed_events_id,
    signed_for,
    unvouched_by,
)
from evo_ledger.game.codec import unpack_sealed
from evo_ledger.rules.base import RuleViolation
from evo_ledger.settings import SEAL_KEY_VARIABLE, Settings
from evo_ledger.store.game_logs import GameLogs

HELD_ACCESSES = 4096  # games' accesses a ledger holds (each a token's digest and a flag)
NOTIFICATION_PAGE = 1000
# The games an ambiguous beginning of an id is told to match, at the most.
AMBIGUOUS_SHOWN = 5


class VouchedQueries(LedgerApplication):
    """The reads the seal key vouches for (who may write to a game, the answers given to idempotent appends, the
    checkpoint log) and those a checkpoint is taken over: the log, and each record's events as stored."""

    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        super().__init__(settings, **env)
        self._checkpoints: CheckpointIndex | None = None
        self._checkpoints_lock = threading.RLock()
        self.held_accesses = HeldAccesses(HELD_ACCESSES)

    def access(self, game_id: UUID) -> GameAccess | None:
        """Who may write to the game, as held since it was last read (shared: read it, never change it); None for
        a game made without a recorder token."""
        return self.accesses([game_id])[game_id]

    def accesses(self, game_ids: Iterable[UUID]) -> dict[UUID, GameAccess | None]:
        """Who may write to each game: those held since they were last read, and the others read in one query
        where the store can (read only: never change one in place)."""
        wanted = {access_id(game_id): game_id for game_id in game_ids}
        if not wanted:
            return {}
        changes = getattr(self.recorder, "select_changed_since", None)
        read = partial(self._read_accesses, games=wanted)
        if changes is None:
            found = read(list(wanted))
        else:
            found = self.held_accesses.current(wanted, partial(changes, topics=ACCESS_TOPICS), read)
        return {game_id: found[key] for key, game_id in wanted.items()}

    def _access_to_change(self, game_id: UUID) -> GameAccess | None:
        """Who may write to the game, read afresh: a copy of its own, for a change to be made to it."""
        key = access_id(game_id)
        return self._read_accesses([key], {key: game_id})[key]

    def _read_accesses(self, access_ids: list[UUID], games: Mapping[UUID, UUID]) -> dict[UUID, GameAccess | None]:
        """The accesses (of `games`, by access id) folded afresh from their events (held accesses are shared, so
        never the cached ones), each refused (AccessNotVouched) where the seal key does not vouch for its events,
        or where it is behind the head a checkpoint signed of it."""
        found: dict[UUID, GameAccess | None] = dict.fromkeys(access_ids)
        for key in access_ids:
            head = self.checkpoint_index().head_of(str(key)) if self.sealer is not None else None
            stored = self.recorder.select_events(key)
            found[key] = fold_events(None, map(self.mapper.to_domain_event, stored))
            access = found[key]
            if access is not None and access_id(access.game_id) != key:
                raise AccessNotVouched(access.game_id, 1, "names another game than the one it is kept for")
            if head is not None:
                check_signed_head(games.get(key, key), head, stored)
            if access is not None and self.sealer is not None:
                check_access_seals(access.game_id, stored, self.sealer, self._game_stored_as)
        return found

    def _game_stored_as(self, game_id: UUID) -> str | None:
        """How the game's first event was stored, as the key says (evo_ledger.app.access.check_access_seals)."""
        assert self.sealer is not None
        first = self.recorder.select_events(game_id, lte=1)
        if not first:
            return None
        _, seal = unpack_sealed(first[0].state)
        if seal is not None:
            return self.sealer.kind_of(first[0], seal)
        index = self.checkpoint_index()
        named = index.refusals_of(str(game_id)).get(1) == WITHOUT_A_KEY or self._signed_unsealed(index, game_id)
        return STORED_BEFORE_THE_KEY if named else None

    def _signed_unsealed(self, index: CheckpointIndex, game_id: UUID) -> bool:
        """Whether a genuine checkpoint of the first format (which signed unsealed events, naming none) signed the
        game's first event unsealed."""
        for number in index.naming.get(str(game_id), ()):
            checkpoint = index.checkpoints[number - 1]
            if checkpoint.genuine and checkpoint.signed["version"] == 1:
                listed = read_events(list(self.recorder.select_events(signed_events_id(game_id, number)))) or []
                return any(event[0] == 1 and event[2] is False for event in listed)
        return False

    def answered(self, game_id: UUID, idempotency: Idempotency) -> Receipt | None:
        """The receipt an append with this key was given, if there was one; a different request with the same key
        is refused."""
        stored = self.recorder.select_events(answer_id(game_id, idempotency.key))
        if not stored:
            return None
        if self.sealer is not None:
            check_access_seals(game_id, stored, self.sealer, self._game_stored_as, ANSWER_RECORD)
        answer = fold_events(None, map(self.mapper.to_domain_event, stored))
        assert isinstance(answer, AnsweredAppend)
        return self._answer_to(idempotency, answer)

    @staticmethod
    def _answer_to(idempotency: Idempotency, answer: AnsweredAppend) -> Receipt:
        """The receipt `answer` gave, for the same request with the same key; a different request is refused."""
        if answer.request != idempotency.request:
            raise IdempotencyKeyReused(idempotency.key)
        return Receipt(answer.game_id, answer.game_version, answer.head_hash)

    def checkpoint_index(self) -> CheckpointIndex:
        """The checkpoint log read under the seal key, its new rows read (evo_ledger.game.checkpoints)."""
        key = self._checkpoint_key()
        with self._checkpoints_lock:
            if self._checkpoints is None:
                self._checkpoints = CheckpointIndex(key)
            self._checkpoints.read(self.recorder.select_events(CHECKPOINT_LOG_ID, gt=self._checkpoints.rows))
            return self._checkpoints

    def _checkpoint_key(self) -> str:
        key = self.settings.seal_key
        if key is None:
            raise CheckpointError(f"checkpoints are signed with the seal key: set {SEAL_KEY_VARIABLE}")
        return key

    def notifications_after(self, after: int, topics: Sequence[str] = ()) -> Iterator[Notification]:
        """The log after position `after` (only the `topics` named, if any), read a page at a time."""
        start = after + 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=NOTIFICATION_PAGE, topics=topics)
            yield from page
            if len(page) < NOTIFICATION_PAGE:
                return
            start = page[-1].id + 1

    def _access_records(self) -> set[UUID]:
        """Every record of who may write to a game the log holds."""
        return {UUID(str(stored.originator_id)) for stored in self.notifications_after(0, ACCESS_TOPICS)}

    def _last_stored(self, aggregate_id: UUID) -> StoredEvent | None:
        found = self.recorder.select_events(aggregate_id, desc=True, limit=1)
        return found[0] if found else None

    def _stored_between(self, game_id: UUID, after: int, up_to: int) -> Sequence[StoredEvent]:
        return self.recorder.select_events(game_id, gt=after, lte=up_to)

    def unvouched_by_last_checkpoint(self) -> list[Unvouched]:
        """The events the last checkpoint could not vouch for, and did not sign, in runs of the same reason."""
        last = self.checkpoint_index().last
        return unvouched_by(last) if last is not None else []

    def unvouched_since_acknowledged(self) -> tuple[int, list[Unvouched]]:
        """The last checkpoint acknowledged, and the events every checkpoint after it could not vouch for."""
        found = self.unvouched_unless_signing()
        assert found is not None
        return found

    def unvouched_unless_signing(self, wait: bool = True) -> tuple[int, list[Unvouched]] | None:
        """As `unvouched_since_acknowledged`, but None at once while a checkpoint is being taken (unless `wait`)."""
        if not self._checkpoints_lock.acquire(blocking=wait):
            return None
        try:
            index = self.checkpoint_index()
            return index.acknowledged, index.unvouched_since_acknowledged()
        finally:
            self._checkpoints_lock.release()


class Queries(VouchedQueries):
    """Every read of the games: a game as it stands or at any event, its receipt, its events (decoded or as
    stored), the log of all of them, audits, explanations and what-ifs."""

    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        super().__init__(settings, **env)
        kept = self.settings.log_cache_events
        self.held_log = HeldLogReader(GameLogs(kept), self.events, self.snapshots) if kept else None

    def game(self, game_id: UUID, version: int | None = None) -> Game:
        """The game as it stands, or as it stood after event `version`."""
        if version is not None and self.held_log is not None:
            held = self.held_log.game_at(game_id, version)
            if held is None:
                raise UnknownGame(game_id)
            return held
        try:
            game: Any = self.repository.get(game_id, version=version, projector_func=fold_events)
        except AggregateNotFoundError:
            raise UnknownGame(game_id) from None
        assert isinstance(game, Game)
        return game

    def receipt(self, game_id: UUID) -> Receipt:
        return Receipt.of(self.game(game_id))

    def stored_among(self, game_ids: Iterable[UUID]) -> set[UUID]:
        """Those of the games that the ledger holds."""
        return {game_id for game_id in game_ids if self.recorder.select_events(game_id, limit=1)}

    def game_events(
        self, game_id: UUID, up_to: int | None = None, after: int | None = None, limit: int | None = None
    ) -> list[Any]:
        """The game's domain events in order: those after version `after` and up to version `up_to`, at most
        `limit` of them, if given. Those up to a known `up_to` are read once and then held (`held_log`)."""
        if up_to is None or self.held_log is None:
            return list(self.repository.event_store.get(game_id, gt=after, lte=up_to, limit=limit))
        held = self.held_log.events_after(game_id, 0, up_to)[after or 0 :]
        return held[:limit] if limit is not None else held

    def stored_events(self, game_id: UUID) -> list[StoredEvent]:
        """The game's events as the store holds them, seals included."""
        return list(self.recorder.select_events(game_id))

    def last_stored_by(self, game: Game, moment: datetime) -> int:
        """The last of the game's events (up to its version) stored at or before `moment`; 0 if none was. The game
        knows when its first and its last were stored; between them the store is asked for single events, back
        from the last by growing steps, then by halves: a number of reads that grows with how many events were
        stored after the moment, never with the game's length (a game's events are stored in the order of their
        times)."""
        if game.modified_on <= moment:
            return game.version
        if game.created_on > moment:
            return 0
        stored_by, stored_after, step = 1, game.version, 1
        while stored_after - stored_by > 1:
            probe = max(stored_after - step, (stored_by + stored_after) // 2)
            if self._stored_on(game.id, probe) <= moment:
                stored_by = probe
            else:
                stored_after, step = probe, step * 2
        return stored_by

    def _stored_on(self, game_id: UUID, version: int) -> datetime:
        [event] = self.repository.event_store.get(game_id, gt=version - 1, lte=version)
        stored_on: datetime = cast(Any, event).timestamp
        return stored_on

    def game_ids(self) -> Iterator[UUID]:
        """Every game, in the order it was started."""
        return (game_id for _, game_id in self.started_games())

    def started_setups(self, after: int = 0) -> Iterator[tuple[int, Any]]:
        """The setups (first events) of the games started after position `after` of the log, in order, each with
        its position: a game's ruleset, players and start, read without folding the game."""
        return ((n.id, self.mapper.to_domain_event(n)) for n in self._started_notifications(after))

    def started_games(self, after: int = 0) -> Iterator[tuple[int, UUID]]:
        """The games started after position `after` of the log, in order: each with its start's position."""
        return ((n.id, UUID(str(n.originator_id))) for n in self._started_notifications(after))

    def _started_notifications(self, after: int) -> Iterator[Notification]:
        return self.notifications_after(after, topics=[Game.Started.TOPIC])

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
        if not found:
            raise GameReferenceError(f"no game has an id starting {reference!r} (`games` lists them)")
        if len(found) > 1:
            shown = ", ".join(map(str, found[:AMBIGUOUS_SHOWN])) + (", ..." if len(found) > AMBIGUOUS_SHOWN else "")
            raise GameReferenceError(f"{len(found)} games have an id starting {reference!r}: {shown}; give more of it")
        return found[0]

    def audit_basis(self, game_id: UUID) -> AuditBasis:
        """What an audit of the game rests on now (`AuditBasis`), read in a query or two; an unknown game raises."""
        head = self.recorder.select_events(game_id, desc=True, limit=1)
        if not head:
            raise UnknownGame(game_id)
        checkpoints = 0
        if self.settings.seal_key is not None:
            last = self.recorder.select_events(CHECKPOINT_LOG_ID, desc=True, limit=1)
            checkpoints = last[0].originator_version if last else 0
        return AuditBasis(head[0].originator_version, hashlib.sha256(head[0].state).hexdigest(), checkpoints)

    def audit(
        self,
        game_id: UUID,
        up_to: int | None = None,
        expect_head: str | None = None,
        kept: Sequence[Mapping[str, Any]] = (),
    ) -> AuditReport:
        """The game's stored log checked from its first event: hashes, chain, seals and signed checkpoints (with
        the key; `kept`: checkpoints published elsewhere), rules, the stored snapshots against the fold and, given
        a receipt's head hash, its end (evo_ledger.app.audit)."""
        stored = self.stored_events(game_id)
        if not stored:
            raise UnknownGame(game_id)
        snapshots = self.snapshots.recorder.select_events(game_id) if self.snapshots is not None else []
        signed = self._signed_for(game_id, kept) if self.settings.seal_key is not None else None
        return audit(game_id, stored, up_to, expect_head, self.sealer, snapshots, signed)

    def _signed_for(self, game_id: UUID, kept: Sequence[Mapping[str, Any]]) -> Signed:
        """What the checkpoints signed of the game: only its own signed events are read."""
        index = self.checkpoint_index()
        lists = {
            number: read_events(list(self.recorder.select_events(signed_events_id(game_id, number))))
            for number in index.naming.get(str(game_id), ())
        }
        return signed_for(game_id, index, lists, kept)

    def explain(self, game_id: UUID, event: int) -> ExplanationReport:
        """Why the rules decided as they did about the part of the game (a combat, a survival phase...) that
        `event` belongs to (evo_ledger.app.disputes)."""
        game = self.game(game_id)
        return explain_event(game, self.game_events(game_id, up_to=game.version), event)

    def what_if(
        self,
        game_id: UUID,
        event: int,
        replacement: str | None,
        told: Callable[[RuleViolation], str] = str,
        hidden: Mapping[int, str] | None = None,
    ) -> WhatIfReport:
        """The game in a branch where the action at `event` is replaced (dropped if None); the log is untouched.
        For a reader, a refusal in the branch is reported as `told` words it, and the branch stops before the
        first of the actions `hidden` from it (event: its player)."""
        game = self.game(game_id)
        return what_if(game, self.game_events(game_id, up_to=game.version), event, replacement, told, hidden)
