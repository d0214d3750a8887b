"""Hidden actions stored before they carried a commitment (the chain covers the action itself): the game keeps them
as its events are folded, and its snapshots keep them, so that whether a reader is given a game's head hash is told
without reading its log, as the log tells it; a snapshot taken before games kept them leaves that to the log, and
one that leaves them out is named by the audit."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import PUBLIC, RECORDER, Seen, visibility, withheld_from
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL
from evo_ledger.game.codec import pack, unpack
from evo_ledger.settings import Settings
from tests.helpers.reads import events_read
from tests.helpers.stored import FIXTURES, game_id_of
from tests.helpers.tampering import Tamperer

PEEKER = "ann"  # the fixture's `peek` game: ann's sixth-sense peek, stored before commitments and still hidden


@pytest.fixture
def peek(tmp_path: Path) -> Iterator[tuple[str, UUID]]:
    """The `peek` game in a copy of the fixture's file, with as many notes after it as make its log hold a
    snapshot (taken by this version, from the game folded from its first event)."""
    copy = tmp_path / "games.sqlite"
    shutil.copyfile(FIXTURES / "games.sqlite", copy)
    game_id = game_id_of("peek")
    with Ledger(Settings(str(copy))) as ledger:
        game = ledger.queries.game(game_id)
        for number in range(SNAPSHOT_INTERVAL):
            game.annotate(1, f"note {number}")
        ledger.commands.save_games([game])
    yield str(copy), game_id


def snapshot_changed(database: str, game_id: UUID, change: dict[str, object], dropped: str = "") -> None:
    """The game's snapshot at SNAPSHOT_INTERVAL rewritten in the database, with `change` and without `dropped`."""
    with Ledger(Settings(database)) as ledger:
        snapshots = Tamperer(ledger, game_id)
        snapshots.table = ledger.store.snapshots.recorder.events_table_name  # type: ignore[union-attr]
        topic, state = snapshots.stored(SNAPSHOT_INTERVAL)
        fields = unpack(state)
        fields["state"] = {key: value for key, value in {**fields["state"], **change}.items() if key != dropped}
        snapshots.write(SNAPSHOT_INTERVAL, topic, pack(fields))


def withheld_as_the_log_tells(ledger: Ledger, game_id: UUID) -> dict[str, int | None]:
    """For every reader, the first event whose hash it is not given, as the game tells it; checked against the
    log's answer."""
    game = ledger.queries.game(game_id)
    readers = {"public": PUBLIC, "recorder": RECORDER} | {seat: Seen(seat=seat) for seat in game.player_names}
    told = {who: withheld_from(reader, ledger, game) for who, reader in readers.items()}
    assert told == {who: visibility(reader, ledger, game).withheld_from for who, reader in readers.items()}
    return told


def test_the_game_keeps_them_and_tells_what_the_log_tells_without_reading_it(peek: tuple[str, UUID]) -> None:
    database, game_id = peek
    with Ledger(Settings(database)) as ledger:
        game = ledger.queries.game(game_id)  # from its snapshot
        [(peeked, owner)] = game.uncommitted_hidden or []
        assert owner == PEEKER and game.version > SNAPSHOT_INTERVAL
        with events_read(ledger) as reads:
            assert withheld_from(PUBLIC, ledger, game) == peeked
        assert reads.count == 0
        told = withheld_as_the_log_tells(ledger, game_id)
        assert told == {"public": peeked, "recorder": None, "ann": None, "ben": peeked, "cat": peeked}
        assert ledger.queries.audit(game_id).check("snapshots")["verdict"] == "pass"


def test_a_snapshot_taken_before_games_kept_them_leaves_the_answer_to_the_log(peek: tuple[str, UUID]) -> None:
    database, game_id = peek
    snapshot_changed(database, game_id, {}, dropped="uncommitted_hidden")
    with Ledger(Settings(database)) as ledger:
        assert ledger.queries.game(game_id).uncommitted_hidden is None
        assert withheld_as_the_log_tells(ledger, game_id)["public"] is not None
        assert ledger.queries.audit(game_id).check("snapshots")["verdict"] == "pass"


def test_a_snapshot_that_leaves_them_out_is_named_by_the_audit(peek: tuple[str, UUID]) -> None:
    database, game_id = peek
    snapshot_changed(database, game_id, {"uncommitted_hidden": []})
    with Ledger(Settings(database)) as ledger:
        report = ledger.queries.audit(game_id)
        assert report.verdict == "damaged" and report.check("snapshots")["event"] == SNAPSHOT_INTERVAL
