"""An append that names no expected version is made again on the game as it now stands when another writer
(another server on the same database) appended first: up to five times, then refused as contention."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

import pytest

from evo_ledger.app.ledger import Contention, Ledger, VersionConflict
from evo_ledger.game.aggregate import Game
from evo_ledger.settings import Settings
from tests.helpers.support import ROUND_ONE_AUCTION


@pytest.fixture
def two_ledgers(database: str) -> Iterator[tuple[Ledger, Ledger]]:
    first, second = Ledger(Settings(database)), Ledger(Settings(database))
    yield first, second
    first.close()
    second.close()


def interleaved(ledger: Ledger, other: Ledger, game_id: UUID, times: int) -> None:
    """Each of the next `times` reads of the game by `ledger` is followed at once by a note `other` appends: the
    game `ledger` read is stale by the time it stores its own append."""
    read = ledger.queries.game
    left = [times]

    def stale_read(game: UUID, version: int | None = None) -> Game:
        found = read(game, version)
        if game == game_id and version is None and left[0]:
            left[0] -= 1
            other.commands.annotate(game_id, 1, "meanwhile, at another server")
        return found

    ledger.queries.game = stale_read  # type: ignore[method-assign, assignment]


def test_an_append_without_an_expected_version_is_made_again_on_the_game_as_it_now_stands(
    two_ledgers: tuple[Ledger, Ledger],
) -> None:
    first, second = two_ledgers
    game_id = first.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    first.commands.record(game_id, list(ROUND_ONE_AUCTION[:4]))
    interleaved(first, second, game_id, 2)
    receipt = first.commands.record(game_id, "ann bid 2 eggs")
    events = second.queries.game_events(game_id)
    assert [type(e).__name__ for e in events[-3:]] == ["AnnotationAdded", "AnnotationAdded", "BidPlaced"]
    assert receipt.version == len(events)


def test_an_append_that_loses_every_race_is_refused_as_contention(two_ledgers: tuple[Ledger, Ledger]) -> None:
    first, second = two_ledgers
    game_id = first.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    first.commands.record(game_id, list(ROUND_ONE_AUCTION[:2]))
    interleaved(first, second, game_id, 6)
    with pytest.raises(Contention, match="5 times"):
        first.commands.record(game_id, "draw legs")
    assert [type(e).__name__ for e in second.queries.game_events(game_id)].count("GeneDrawn") == 0


def test_an_append_with_an_expected_version_is_never_made_again(two_ledgers: tuple[Ledger, Ledger]) -> None:
    first, second = two_ledgers
    game_id = first.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    version = first.commands.record(game_id, "order ann ben cat").version
    second.commands.record(game_id, "climate cw")
    with pytest.raises(VersionConflict):
        first.commands.record(game_id, "climate cw", expected_version=version)
