"""The held logs of recently read games: bounded, and only ever continued in order."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from eventsourcing.persistence import StoredEvent

from evo_ledger.settings import LOG_CACHE_VARIABLE, Settings, SettingsError
from evo_ledger.store.game_logs import SNAPSHOT_WEIGHT, GameLogs


def events(first: int, last: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(originator_version=version) for version in range(first, last + 1)]


def stored(game: uuid.UUID, version: int) -> StoredEvent:
    return StoredEvent(game, version, "evo-ledger:Game.Snapshot", b"")


def versions(held: list[SimpleNamespace]) -> list[int]:
    return [event.originator_version for event in held]


def test_only_events_that_continue_a_held_run_are_kept() -> None:
    logs, game = GameLogs(100), uuid.uuid4()
    logs.add(game, 0, events(1, 3))
    logs.add(game, 0, events(5, 6))  # a gap: 4 is missing
    logs.add(game, 0, events(2, 5))  # read again by another reader: only 4 and 5 are new
    assert versions(logs.events(game, 0, 10)) == [1, 2, 3, 4, 5]
    assert versions(logs.events(game, 0, 2)) == [1, 2]
    logs.add(game, 100, events(101, 103))  # a run from a snapshot
    assert versions(logs.events(game, 100, 102)) == [101, 102]
    assert logs.events(game, 200, 210) == []
    assert logs.held == 8


def test_the_games_read_longest_ago_are_let_go_beyond_the_bound() -> None:
    logs = GameLogs(10)
    first, second, third = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    logs.add(first, 0, events(1, 2))
    logs.add(first, 100, events(101, 102))
    logs.add(second, 0, events(1, 4))
    logs.events(first, 0, 1)  # read again: now the most recent
    logs.add(third, 0, events(1, 4))
    assert logs.held == 8
    assert logs.events(second, 0, 10) == []
    assert versions(logs.events(first, 100, 110)) == [101, 102]
    assert versions(logs.events(third, 0, 10)) == [1, 2, 3, 4]


def test_held_snapshots_count_against_the_bound() -> None:
    logs, first, second = GameLogs(2 * SNAPSHOT_WEIGHT), uuid.uuid4(), uuid.uuid4()
    logs.add_snapshot(first, stored(first, 100))
    logs.add_snapshot(first, stored(first, 100))  # read again: held once
    logs.add_snapshot(second, stored(second, 100))
    assert logs.held == 2 * SNAPSHOT_WEIGHT and logs.snapshot(first, 100) is not None
    logs.add_snapshot(second, stored(second, 200))
    assert logs.held == 2 * SNAPSHOT_WEIGHT and logs.snapshot(first, 100) is None
    assert logs.snapshot(second, 200) is not None


def test_no_events_are_given_before_the_first() -> None:
    logs, game = GameLogs(100), uuid.uuid4()
    logs.add(game, 0, events(1, 5))
    assert logs.events(game, 0, 0) == [] and logs.events(game, 0, -3) == []


def test_a_game_longer_than_the_bound_is_not_held() -> None:
    logs, game = GameLogs(3), uuid.uuid4()
    logs.add(game, 0, events(1, 4))
    assert (logs.held, logs.events(game, 0, 4)) == (0, [])


def test_the_bound_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LOG_CACHE_VARIABLE, "1200")
    assert Settings.from_environment().log_cache_events == 1200
    monkeypatch.setenv(LOG_CACHE_VARIABLE, "0")
    assert Settings.from_environment().log_cache_events == 0
    monkeypatch.setenv(LOG_CACHE_VARIABLE, "many")
    with pytest.raises(SettingsError, match=f"{LOG_CACHE_VARIABLE}: a number of events, 0 or more, not 'many'"):
        Settings.from_environment()
