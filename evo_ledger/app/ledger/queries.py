"""The ledger's queries: every read of the games, none of which changes anything.

Games are read through the library's repository (the cached game, fast-forwarded from the store), and at an event
from the logs held in memory where the settings keep them (`held_log`). A game handed out never changes after: the
cached game is fast-forwarded on a copy (`fold_on_copy`), which takes its place in the cache, so that an answer
made from a game reads it as it stood when it was read, whatever is stored or read meanwhile.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from copy import copy
from datetime import datetime
from itertools import chain
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import Notification, StoredEvent

from evo_ledger.app.access import AccessNotVouched
from evo_ledger.app.audit import AuditReport, WithdrawalRecord, audit
from evo_ledger.app.disputes import ExplanationReport, WhatIfReport, explain_event, what_if
from evo_ledger.app.ledger.application import LedgerApplication, fold_events
from evo_ledger.app.ledger.held_log import HeldLogReader
from evo_ledger.app.ledger.seats import Seats
from evo_ledger.app.ledger.values import AuditBasis, GameReferenceError, Receipt, UnknownGame
from evo_ledger.app.ledger.vouched import VouchedReads
from evo_ledger.app.stored_kits import (
    STORED_KIT_TOPICS,
    KitShelf,
    StoredKit,
    document_of,
    is_kit_hash,
    shelf_id,
    stored_kit_id,
)
from evo_ledger.game.aggregate import Game, kit_of
from evo_ledger.game.checkpoints import CHECKPOINT_LOG_ID, Signed, read_events, signed_events_id, signed_for
from evo_ledger.game.codec import stored_digest
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.kits import builtin_kit_of_hash, load_kit_document, ruleset_for_kit
from evo_ledger.store.game_logs import GameLogs

# The games an ambiguous beginning of an id is told to match, at the most.
AMBIGUOUS_SHOWN = 5


def fold_on_copy(game: Any, events: Iterable[Any]) -> Any:
    """The events folded on a copy of `game` (`Game.__copy__`: its lists copied), which stays as it was; `game`
    itself where there are none. The library fast-forwards a cached game with it, which would otherwise change the
    very game an answer in another thread is being made from."""
    pending = iter(events)
    first = next(pending, None)
    if first is None:
        return game
    return fold_events(copy(game) if game is not None else None, chain([first], pending))


def withdrawal_of(vouched: VouchedReads, game_id: UUID) -> WithdrawalRecord:
    """What the game's access record says of its withdrawal, as far as the seal key vouches for the record: an
    audit still runs where it does not, and says so."""
    try:
        access = vouched.access(game_id)
    except AccessNotVouched as refused:
        return WithdrawalRecord(unvouched=str(refused))
    return WithdrawalRecord(access.withdrawals if access is not None else ())


def folded_record(store: LedgerApplication, record_id: UUID) -> Any:
    """A record beside the games (a stored kit, a caller's shelf) folded afresh from its stored events, never
    from a cache: a copy of its own, for a change to be made to it; None where it has none."""
    return fold_events(None, map(store.mapper.to_domain_event, store.recorder.select_events(record_id)))


class Queries:
    """Every read of the games: a game as it stands or at any event, its receipt, its events (decoded or as
    stored), the log of all of them, audits, explanations and what-ifs; and the kits games start on."""

    def __init__(self, store: LedgerApplication, vouched: VouchedReads) -> None:
        self.store = store
        self.vouched = vouched
        kept = store.settings.log_cache_events
        self.held_log = HeldLogReader(GameLogs(kept), store.events, store.snapshots) if kept else None
        self.seats = Seats(store, self.notifications_after)

    def notifications_after(self, after: int, topics: Sequence[str] = ()) -> Iterator[Notification]:
        """The log after position `after` (only the `topics` named, if any), read a page at a time."""
        return self.store.notifications_after(after, topics)

    def game(self, game_id: UUID, version: int | None = None) -> Game:
        """The game as it stands, or as it stood after event `version`: a game no later read or change alters. The
        cached game brought up to date is a copy (`fold_on_copy`), cached in its place unless a later one is."""
        if version is not None and self.held_log is not None:
            held = self.held_log.game_at(game_id, version)
            if held is None:
                raise UnknownGame(game_id)
            return held
        try:
            game: Any = self.store.repository.get(game_id, version=version, projector_func=fold_on_copy)
        except AggregateNotFoundError:
            raise UnknownGame(game_id) from None
        if not isinstance(game, Game):  # another record's id (a competition's, a person's, a kit's)
            raise UnknownGame(game_id)
        if version is None:
            cached = self.store.cached_game(game_id)
            if cached is not None and cached.version < game.version:
                self.store.cache_game(game)
        return game

    def receipt(self, game_id: UUID) -> Receipt:
        return Receipt.of(self.game(game_id))

    def stored_among(self, game_ids: Iterable[UUID]) -> set[UUID]:
        """Those of the games that the ledger holds."""
        return {game_id for game_id in game_ids if self.store.recorder.select_events(game_id, limit=1)}

    def game_events(
        self, game_id: UUID, up_to: int | None = None, after: int | None = None, limit: int | None = None
    ) -> list[Any]:
        """The game's domain events in order: those after version `after` and up to version `up_to`, at most
        `limit` of them, if given. Those up to a known `up_to` are read once and then held (`held_log`)."""
        if up_to is None or self.held_log is None:
            return list(self.store.repository.event_store.get(game_id, gt=after, lte=up_to, limit=limit))
        held = self.held_log.events_after(game_id, 0, up_to)[after or 0 :]
        return held[:limit] if limit is not None else held

    def stored_events(self, game_id: UUID, up_to: int | None = None) -> list[StoredEvent]:
        """The game's events as the store holds them, seals included: those up to version `up_to`, if given."""
        return list(self.store.recorder.select_events(game_id, lte=up_to))

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
        [event] = self.store.repository.event_store.get(game_id, gt=version - 1, lte=version)
        stored_on: datetime = cast(Any, event).timestamp
        return stored_on

    def game_ids(self) -> Iterator[UUID]:
        """Every game, in the order it was started."""
        return (game_id for _, game_id in self.started_games())

    def started_setups(self, after: int = 0) -> Iterator[tuple[int, Any]]:
        """The setups (first events) of the games started after position `after` of the log, in order, each with
        its position: a game's ruleset, players and start, read without folding the game."""
        return ((n.id, self.store.mapper.to_domain_event(n)) for n in self._started_notifications(after))

    def game_on_kit(self, kit_hash: str) -> bool:
        """Whether a game the log holds was started on the kit (one imported whole included), read from the games'
        first events."""
        return any(started.kit_hash == kit_hash for _, started in self.started_setups())

    def started_games(self, after: int = 0) -> Iterator[tuple[int, UUID]]:
        """The games started after position `after` of the log, in order: each with its start's position."""
        return ((n.id, UUID(str(n.originator_id))) for n in self._started_notifications(after))

    def _started_notifications(self, after: int) -> Iterator[Notification]:
        return self.store.notifications_after(after, topics=[Game.Started.TOPIC])

    def kit_document(self, reference: str) -> tuple[dict[str, Any], Any]:
        """The kit a game may start on, as its document and the kit it describes: a built-in kit by its name or
        its hash, a kit stored here by its hash (`UnknownKit` where none is), or a kit file by its path."""
        if not is_kit_hash(reference):
            return load_kit_document(reference)
        name = builtin_kit_of_hash(reference)
        if name is not None:
            return load_kit_document(name)
        document = document_of(self.stored_kit(reference), reference)
        return document, kit_of(ruleset_for_kit(document, reference), document, reference)

    def stored_kit(self, kit_hash: str) -> StoredKit | None:
        """A stored kit's record as the store holds it now, removed or not (None: never stored)."""
        found: StoredKit | None = folded_record(self.store, stored_kit_id(kit_hash))
        return found

    def kit_shelf(self, caller: str) -> KitShelf | None:
        """The stored kits a caller (by its key) holds (None: it never stored one)."""
        found: KitShelf | None = folded_record(self.store, shelf_id(caller))
        return found

    def stored_kits(self) -> dict[str, dict[str, Any]]:
        """The kits stored now, their documents by hash, in the order each was first stored: the log's events that
        store and remove kits, read in order."""
        kits: dict[UUID, tuple[str, dict[str, Any]]] = {}
        removed: set[UUID] = set()
        for notification in self.store.notifications_after(0, STORED_KIT_TOPICS):
            event = self.store.mapper.to_domain_event(notification)
            if isinstance(event, StoredKit.Stored):
                kits[event.originator_id] = (event.kit_hash, event.document)
            elif isinstance(event, StoredKit.Removed):
                removed.add(event.originator_id)
            else:
                removed.discard(event.originator_id)
        return dict(kit for key, kit in kits.items() if key not in removed)

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
        head = self.store.recorder.select_events(game_id, desc=True, limit=1)
        if not head:
            raise UnknownGame(game_id)
        checkpoints = 0
        if self.store.settings.seal_key is not None:
            last = self.store.recorder.select_events(CHECKPOINT_LOG_ID, desc=True, limit=1)
            checkpoints = last[0].originator_version if last else 0
        digest = stored_digest(head[0].state)
        return AuditBasis(head[0].originator_version, digest, checkpoints, withdrawal_of(self.vouched, game_id))

    def audit(
        self,
        game_id: UUID,
        up_to: int | None = None,
        expect_head: str | None = None,
        kept: Sequence[Mapping[str, Any]] = (),
        as_of: int | None = None,
    ) -> AuditReport:
        """The game's stored log checked from its first event: hashes, chain, seals and signed checkpoints (with
        the key; `kept`: checkpoints published elsewhere), rules, the stored snapshots against the fold and, given
        a receipt's head hash, its end (evo_ledger.app.audit); and whether the game is withdrawn, from its access
        record. With `as_of`, the log as it stood at that event (the game a reader's sight was taken of): nothing
        stored after it is read."""
        stored = self.stored_events(game_id, up_to=as_of)
        if not stored:
            raise UnknownGame(game_id)
        if as_of is not None:
            up_to = as_of if up_to is None else min(up_to, as_of)
        snapshots = self.store.snapshots.recorder.select_events(game_id) if self.store.snapshots is not None else []
        signed = self._signed_for(game_id, kept) if self.store.settings.seal_key is not None else None
        withdrawal = withdrawal_of(self.vouched, game_id)
        return audit(game_id, stored, up_to, expect_head, self.store.sealer, snapshots, signed, withdrawal)

    def _signed_for(self, game_id: UUID, kept: Sequence[Mapping[str, Any]]) -> Signed:
        """What the checkpoints signed of the game: only its own signed events are read."""
        index = self.vouched.checkpoint_index()
        lists = {
            number: read_events(list(self.store.recorder.select_events(signed_events_id(game_id, number))))
            for number in index.naming.get(str(game_id), ())
        }
        return signed_for(game_id, index, lists, kept)

    def explain(self, game: Game, event: int) -> ExplanationReport:
        """Why the rules decided as they did about the part of `game` (as it was read: nothing stored after its
        version is read) that `event` belongs to (a combat, a survival phase...: evo_ledger.app.disputes)."""
        return explain_event(game, self.game_events(game.id, up_to=game.version), event)

    def what_if(
        self,
        game: Game,
        event: int,
        replacement: str | None,
        told: Callable[[RuleViolation], str] = str,
        hidden: Mapping[int, str] | None = None,
    ) -> WhatIfReport:
        """`game` (as it was read: nothing stored after its version is read) in a branch where the action at
        `event` is replaced (dropped if None); the log is untouched. For a reader, a refusal in the branch is
        reported as `told` words it, and the branch stops before the first of the actions `hidden` from it (event:
        its player)."""
        return what_if(game, self.game_events(game.id, up_to=game.version), event, replacement, told, hidden)
