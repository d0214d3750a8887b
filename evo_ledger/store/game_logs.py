"""The logs of recently read games, kept decoded, so that the game at any of their events is folded from memory.

A game's stored events never change once written (a mistake is undone by a new event), so the events of a game
up to the last one read stay true for ever: only those after them are ever read again. Snapshots are kept too,
as their stored bytes, decoded for each use, so that no two games made from one share anything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

# What a held snapshot counts for against the bound, in events: its stored bytes run to ten events' worth.
SNAPSHOT_WEIGHT = 10


@dataclass
class _Log:
    # The events held after each base (0: the game's start, else a snapshot's version), in order from it.
    runs: dict[int, list[Any]] = field(default_factory=dict)
    snapshots: dict[int, StoredEvent] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(len(run) for run in self.runs.values()) + SNAPSHOT_WEIGHT * len(self.snapshots)


class GameLogs:
    """Decoded events of the games read most recently, at most `max_events` of them in all (a snapshot counts
    for SNAPSHOT_WEIGHT events).

    A game's events are held in runs, each from a base: its start, or one of its snapshots. The game after event
    N is folded from the latest snapshot at or before N and the run of events after it."""

    def __init__(self, max_events: int) -> None:
        self.max_events = max_events
        self._logs: OrderedDict[UUID, _Log] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        return self._held

    def events(self, game_id: UUID, base: int, up_to: int) -> list[Any]:
        """The game's events held after `base`, in order, as far as `up_to` or as far as they are held."""
        with self._lock:
            log = self._logs.get(game_id)
            if log is None:
                return []
            self._logs.move_to_end(game_id)
            return log.runs.get(base, [])[: max(0, up_to - base)]

    def add(self, game_id: UUID, base: int, events: Sequence[Any]) -> None:
        """Events read after `base`: each one that continues the run held after it is kept."""
        with self._lock:
            log = self._logs.setdefault(game_id, _Log())
            self._logs.move_to_end(game_id)
            run = log.runs.setdefault(base, [])
            for event in events:
                if event.originator_version == base + len(run) + 1:
                    run.append(event)
                    self._held += 1
            self._keep_within_bounds()

    def snapshot(self, game_id: UUID, version: int) -> StoredEvent | None:
        with self._lock:
            log = self._logs.get(game_id)
            return None if log is None else log.snapshots.get(version)

    def add_snapshot(self, game_id: UUID, snapshot: StoredEvent) -> None:
        with self._lock:
            log = self._logs.setdefault(game_id, _Log())
            if snapshot.originator_version not in log.snapshots:
                log.snapshots[snapshot.originator_version] = snapshot
                self._held += SNAPSHOT_WEIGHT
                self._keep_within_bounds()

    def _keep_within_bounds(self) -> None:
        while self._held > self.max_events and self._logs:
            _, oldest = self._logs.popitem(last=False)
            self._held -= oldest.size
