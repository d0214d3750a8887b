"""Every shipped game's event hashes, and those of the stored fixtures' notation exports, are what they have always
been: the canonical bytes a hash is taken over never change. Each game is recorded at a fixed moment under the id of
its content, with a fixed salt for its hidden actions; its number of events and its head hash (each event's hash is
taken over the one before it) are compared with those kept in `tests/fixtures/hashes/`."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from eventsourcing.domain import CanCreateTimestamp

from evo_ledger.app.transfer import game_from_notation
from tests.helpers.stored import FIXTURES
from tests.helpers.support import ROOT

KEPT = ROOT / "tests" / "fixtures" / "hashes" / "head_hashes.json"
RECORDED_AT = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
SALT = "5a17" * 8  # a hidden action's salt, drawn at random when it is recorded
GAMES = sorted((ROOT / "replays").glob("*.evo")) + sorted(FIXTURES.glob("*.evo"))


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(CanCreateTimestamp, "create_timestamp", staticmethod(lambda: RECORDED_AT))
    monkeypatch.setattr(secrets, "token_hex", lambda _: SALT)
    yield


def events_and_head(path: Path) -> list[object]:
    game = game_from_notation(path.read_text(), base=path.parent)
    return [len(game.pending_events), game.head_hash]


def name_of(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_every_kept_game_is_still_shipped() -> None:
    assert sorted(json.loads(KEPT.read_text())) == sorted(map(name_of, GAMES))


@pytest.mark.parametrize("path", GAMES, ids=name_of)
@pytest.mark.usefixtures("fixed_clock")
def test_the_events_of_a_shipped_game_hash_as_they_always_have(path: Path) -> None:
    kept = json.loads(KEPT.read_text())[name_of(path)]
    assert events_and_head(path) == kept
