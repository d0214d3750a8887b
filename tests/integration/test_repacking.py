"""`evo-ledger migrate` packs again the runs of a game that follow on from each other, on SQLite and PostgreSQL: games
recorded a save a run, one after the other, become a few runs, every event keeping its notification id, topic and
canonical bytes, and every game audits clean and replays to its head; games whose saves took turns keep their runs
(their notification ids do not follow on); a repacking stopped part way leaves a log that reads the same, and a
second run completes it; run again, it does nothing."""

from __future__ import annotations

from typing import Any

import pytest

from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.cli.ledger_commands import EXIT_OK
from evo_ledger.cli.main import main
from evo_ledger.game.codec import canonical
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from evo_ledger.store.migration import Migration, Progress, runs_table, stored_tables
from tests.helpers.tampering import GAME_TEXT

ACTIONS = [line.text for line in parse_game(GAME_TEXT).actions][:60]
PLAYERS = ["ann", "ben", "cat"]


def recorded(ledger: Ledger, games: int, taking_turns: bool) -> list[Receipt]:
    """`games` games recorded an action a save: one after the other, or each save in turn."""
    receipts = [ledger.commands.create_game("evo2", "standin-e2-3p", PLAYERS) for _ in range(games)]
    if taking_turns:
        for action in ACTIONS:
            receipts = [ledger.commands.record(receipt.game_id, [action]) for receipt in receipts]
        return receipts
    for place, receipt in enumerate(receipts):
        for action in ACTIONS:
            receipts[place] = ledger.commands.record(receipt.game_id, [action])
    return receipts


def log_of(ledger: Ledger) -> list[tuple[Any, ...]]:
    return [
        (event.id, str(event.originator_id), event.originator_version, event.topic, canonical(event.state))
        for event in ledger.store.recorder.select_notifications(1, 100_000)
    ]


def runs_count(ledger: Ledger) -> int:
    with Migration(ledger.settings, stored_tables(ledger.store), runs=runs_table(ledger.store)) as migration:
        return migration.runs_stored()


def assert_whole(database: str, before: list[tuple[Any, ...]], receipts: list[Receipt]) -> None:
    with Ledger(Settings(database)) as ledger:
        assert log_of(ledger) == before
        for receipt in receipts:
            assert Receipt.of(ledger.queries.game(receipt.game_id)).head_hash == receipt.head_hash
            assert ledger.queries.audit(receipt.game_id).verdict == "clean"


def test_games_recorded_one_after_the_other_are_packed_again_into_few_runs(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Ledger(Settings(database)) as ledger:
        receipts = recorded(ledger, 2, taking_turns=False)
        before, runs_before = log_of(ledger), runs_count(ledger)
    assert runs_before > 100
    assert main(["migrate", "--database", database]) == EXIT_OK
    said = capsys.readouterr().out
    assert f"packed again          {runs_before - 2} runs, into 2 runs\n" in said  # the games' accesses are one a run
    with Ledger(Settings(database)) as ledger:
        assert runs_count(ledger) == 4
    assert_whole(database, before, receipts)
    assert main(["migrate", "--database", database]) == EXIT_OK
    assert capsys.readouterr().out.startswith("every row is stored in its form already: nothing rewritten\n")


def test_games_whose_saves_took_turns_keep_their_runs(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(Settings(database)) as ledger:
        receipts = recorded(ledger, 2, taking_turns=True)
        before, runs_before = log_of(ledger), runs_count(ledger)
    assert main(["migrate", "--database", database]) == EXIT_OK
    with Ledger(Settings(database)) as ledger:
        assert runs_count(ledger) == runs_before
    assert_whole(database, before, receipts)


class Stopped(Exception):
    """The migration's process stopping between two batches."""


def test_a_repacking_stopped_part_way_reads_the_same_and_a_second_run_completes_it(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        receipts = recorded(ledger, 3, taking_turns=False)
        before = log_of(ledger)
        tables, runs = stored_tables(ledger.store), runs_table(ledger.store)

    def stop_after_two(progress: Progress) -> None:
        if progress.looked_at >= 40:
            raise Stopped

    with Migration(Settings(database), tables, 20, runs) as migration, pytest.raises(Stopped):
        migration.repack(stop_after_two)
    assert_whole(database, before, receipts)
    with Migration(Settings(database), tables, 20, runs) as migration:
        again = migration.repack()
        assert again.repacked > 0 and migration.runs_stored() == 6  # each game's run, and its access record's
    assert_whole(database, before, receipts)
