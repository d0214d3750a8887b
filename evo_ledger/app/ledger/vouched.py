"""The reads the seal key vouches for: who may write to a game, the answers given to idempotent appends, and the
checkpoint log; and those a checkpoint is taken over (the log, and each record's events as stored). Each is read as
it is stored, so that the bytes checked are the bytes folded."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from uuid import UUID

from eventsourcing.persistence import StoredEvent

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
from evo_ledger.app.ledger.application import LedgerApplication, fold_events
from evo_ledger.app.ledger.values import Idempotency, IdempotencyKeyReused, Receipt
from evo_ledger.game.checkpoints import (
    CHECKPOINT_LOG_ID,
    WITHOUT_A_KEY,
    CheckpointError,
    CheckpointIndex,
    Unvouched,
    read_events,
    signed_events_id,
    unvouched_by,
)
from evo_ledger.game.codec import unpack_sealed
from evo_ledger.settings import SEAL_KEY_VARIABLE

HELD_ACCESSES = 4096  # games' accesses a ledger holds (each a token's digest and a flag)


def answer_to(idempotency: Idempotency, answer: AnsweredAppend) -> Receipt:
    """The receipt `answer` gave, for the same request with the same key; a different request is refused."""
    if answer.request not in (idempotency.request, idempotency.unkeyed):
        raise IdempotencyKeyReused(idempotency.key)
    return Receipt(answer.game_id, answer.game_version, answer.head_hash)


class VouchedReads:
    """The reads the seal key vouches for (who may write to a game, the answers given to idempotent appends, the
    checkpoint log) and those a checkpoint is taken over: the log, and each record's events as stored."""

    def __init__(self, store: LedgerApplication) -> None:
        self.store = store
        self._checkpoints: CheckpointIndex | None = None
        # Held while a checkpoint is read or taken: one at a time.
        self.checkpoints_lock = threading.RLock()
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
        changes = getattr(self.store.recorder, "select_changed_since", None)
        read = partial(self._read_accesses, games=wanted)
        if changes is None:
            found = read(list(wanted))
        else:
            found = self.held_accesses.current(wanted, partial(changes, topics=ACCESS_TOPICS), read)
        return {game_id: found[key] for key, game_id in wanted.items()}

    def access_to_change(self, game_id: UUID) -> GameAccess | None:
        """Who may write to the game, read afresh: a copy of its own, for a change to be made to it."""
        key = access_id(game_id)
        return self._read_accesses([key], {key: game_id})[key]

    def _read_accesses(self, access_ids: list[UUID], games: Mapping[UUID, UUID]) -> dict[UUID, GameAccess | None]:
        """The accesses (of `games`, by access id) folded afresh from their events (held accesses are shared, so
        never the cached ones), each refused (AccessNotVouched) where the seal key does not vouch for its events,
        or where it is behind the head a checkpoint signed of it."""
        found: dict[UUID, GameAccess | None] = dict.fromkeys(access_ids)
        for key in access_ids:
            head = self.checkpoint_index().head_of(str(key)) if self.store.sealer is not None else None
            stored = self.store.recorder.select_events(key)
            found[key] = fold_events(None, map(self.store.mapper.to_domain_event, stored))
            access = found[key]
            if access is not None and access_id(access.game_id) != key:
                raise AccessNotVouched(access.game_id, 1, "names another game than the one it is kept for")
            if head is not None:
                check_signed_head(games.get(key, key), head, stored)
            if access is not None and self.store.sealer is not None:
                check_access_seals(access.game_id, stored, self.store.sealer, self._game_stored_as)
        return found

    def _game_stored_as(self, game_id: UUID) -> str | None:
        """How the game's first event was stored, as the key says (evo_ledger.app.access.check_access_seals)."""
        assert self.store.sealer is not None
        first = self.store.recorder.select_events(game_id, lte=1)
        if not first:
            return None
        _, seal = unpack_sealed(first[0].state)
        if seal is not None:
            return self.store.sealer.kind_of(first[0], seal)
        index = self.checkpoint_index()
        named = index.refusals_of(str(game_id)).get(1) == WITHOUT_A_KEY or self._signed_unsealed(index, game_id)
        return STORED_BEFORE_THE_KEY if named else None

    def _signed_unsealed(self, index: CheckpointIndex, game_id: UUID) -> bool:
        """Whether a genuine checkpoint of the first format (which signed unsealed events, naming none) signed the
        game's first event unsealed."""
        for number in index.naming.get(str(game_id), ()):
            checkpoint = index.checkpoints[number - 1]
            if checkpoint.genuine and checkpoint.signed["version"] == 1:
                listed = read_events(list(self.store.recorder.select_events(signed_events_id(game_id, number)))) or []
                return any(event[0] == 1 and event[2] is False for event in listed)
        return False

    def answered(self, game_id: UUID, idempotency: Idempotency) -> Receipt | None:
        """The receipt an append with this key was given, if there was one; a different request with the same key
        is refused."""
        stored = self.store.recorder.select_events(answer_id(game_id, idempotency.key))
        if not stored:
            return None
        if self.store.sealer is not None:
            check_access_seals(game_id, stored, self.store.sealer, self._game_stored_as, ANSWER_RECORD)
        answer = fold_events(None, map(self.store.mapper.to_domain_event, stored))
        assert isinstance(answer, AnsweredAppend)
        return answer_to(idempotency, answer)

    def checkpoint_index(self) -> CheckpointIndex:
        """The checkpoint log read under the seal key, its new rows read (evo_ledger.game.checkpoints)."""
        key = self.checkpoint_key()
        with self.checkpoints_lock:
            if self._checkpoints is None:
                self._checkpoints = CheckpointIndex(key)
            self._checkpoints.read(self.store.recorder.select_events(CHECKPOINT_LOG_ID, gt=self._checkpoints.rows))
            return self._checkpoints

    def checkpoint_key(self) -> str:
        key = self.store.settings.seal_key
        if key is None:
            raise CheckpointError(f"checkpoints are signed with the seal key: set {SEAL_KEY_VARIABLE}")
        return key

    def access_records(self) -> set[UUID]:
        """Every record of who may write to a game the log holds."""
        return {UUID(str(stored.originator_id)) for stored in self.store.notifications_after(0, ACCESS_TOPICS)}

    def last_stored(self, aggregate_id: UUID) -> StoredEvent | None:
        found = self.store.recorder.select_events(aggregate_id, desc=True, limit=1)
        return found[0] if found else None

    def stored_between(self, game_id: UUID, after: int, up_to: int) -> Sequence[StoredEvent]:
        return self.store.recorder.select_events(game_id, gt=after, lte=up_to)

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
        if not self.checkpoints_lock.acquire(blocking=wait):
            return None
        try:
            index = self.checkpoint_index()
            return index.acknowledged, index.unvouched_since_acknowledged()
        finally:
            self.checkpoints_lock.release()
