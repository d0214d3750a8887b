"""The one way the ledger reads a game beside the library's repository: the game at an event, folded from its events
and snapshots held in memory once read (`GameLogs`), where the repository reads the nearest snapshot and the events
after it from the store each time.

It pays for bench.ledger_speed's line "game at a random event", from the held log against from the store, and so
for the replay viewer's steps; `Settings.log_cache_events` set to 0 reads every game through the repository.
"""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import EventStore, StoredEvent

from evo_ledger.app.ledger.application import fold_events
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL, Game
from evo_ledger.store.game_logs import GameLogs


class HeldLogReader:
    """Games at any event from the logs held in `logs`, reading from `events` and `snapshots` (the application's
    stores) only what is not held yet."""

    def __init__(self, logs: GameLogs, events: EventStore[UUID], snapshots: EventStore[UUID] | None) -> None:
        self.logs = logs
        self.events = events
        self.snapshots = snapshots

    def game_at(self, game_id: UUID, version: int) -> Game | None:
        """The game after event `version` (or at its head, if it has fewer): its latest snapshot at or before that
        event and the events after it, folded; None if no game has the id."""
        game: Any = None
        snapshot = self._snapshot_within(game_id, version)
        if snapshot is not None and self.snapshots is not None:
            game = cast(Any, self.snapshots.mapper.to_domain_event(snapshot)).mutate(None)
        events = self.events_after(game_id, game.version if game else 0, version)
        if game is None and not events:
            return None
        game = fold_events(game, events)
        assert isinstance(game, Game)
        return game

    def events_after(self, game_id: UUID, base: int, version: int) -> list[Any]:
        """The game's events after `base` up to `version`: those held, and any after them read and held."""
        held = self.logs.events(game_id, base, version)
        if base + len(held) < version:
            read = list(self.events.get(game_id, gt=base + len(held), lte=version))
            self.logs.add(game_id, base, read)
            held += read
        return held

    def _snapshot_within(self, game_id: UUID, version: int) -> StoredEvent | None:
        """The game's latest stored snapshot at or before `version`, held once read (one is due every
        SNAPSHOT_INTERVAL events; the store is asked when the due one is not held)."""
        if self.snapshots is None or version < SNAPSHOT_INTERVAL:
            return None
        held = self.logs.snapshot(game_id, version - version % SNAPSHOT_INTERVAL)
        if held is None:
            found = self.snapshots.recorder.select_events(game_id, lte=version, desc=True, limit=1)
            held = found[0] if found else None
            if held is not None:
                self.logs.add_snapshot(game_id, held)
        return held
