"""`evo-ledger dataset`: the whole ledger written into a folder as Parquet files for analysis, as every reader of
the service may see it (`projections.dataset`), with a progress bar for each stage. The dataset's packages
(SQLAlchemy, pyarrow) are imported when the command runs, so that the other commands start without them."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from eventsourcing.persistence import InterfaceError, OperationalError, PersistenceError

from evo_ledger.app.ledger import Ledger
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK, said
from evo_ledger.cli.terminal import ProgressBar
from evo_ledger.rules.words import counted
from evo_ledger.settings import Settings, SettingsError
from evo_ledger.store.recorders import reason_in

if TYPE_CHECKING:
    from projections.dataset import Mode, Summary

UNITS = {"log": "events", "games": "games", "tables": "tables"}


def add_dataset_command(commands: Any) -> None:
    summary = (
        "write the whole ledger into a folder as Parquet files for analysis (DuckDB, Polars, pandas, Spark): every "
        "game's events as every reader may see them, the read tables, the people and the competitions, "
        "partitioned by ruleset and month, with a README of every file and column"
    )
    dataset = commands.add_parser("dataset", help=summary, description=summary)
    dataset.add_argument("folder", type=Path, metavar="DIR", help="the folder to write into (made if missing)")
    how = dataset.add_mutually_exclusive_group()
    how.add_argument(
        "--since",
        action="store_true",
        help="add what the log holds since the last run into DIR (the read tables, the people and the "
        "competitions are written again whole)",
    )
    how.add_argument("--replace", action="store_true", help="write the dataset DIR holds again, whole")
    dataset.add_argument("--database", help="a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)")


def dataset(args: argparse.Namespace, out: TextIO) -> int:
    """`evo-ledger dataset DIR`: the dataset written, and what was written, in a line."""
    from sqlalchemy.exc import DBAPIError  # noqa: PLC0415 (the dataset's packages load when it runs)

    from projections.dataset import DatasetRefused, checked_folder, write_checked  # noqa: PLC0415
    from projections.store import ReadStore  # noqa: PLC0415

    mode: Mode = "since" if args.since else "replace" if args.replace else "new"
    try:
        checked_folder(args.folder, mode)  # before the database is opened (or made): a folder refused opens nothing
        settings = Settings.for_database(args.database)
        with closing(Ledger(settings)) as ledger, closing(ReadStore(settings)) as store, Bars() as bars:
            written = write_checked(ledger, store, args.folder, mode, bars.progress)
    except PersistenceError as error:
        return refused(f"{Settings.for_database(args.database).described}: cannot be used: {reason_in(error)}")
    except (DatasetRefused, SettingsError, OSError, DBAPIError, InterfaceError, OperationalError) as error:
        return refused(said(error) if isinstance(error, OSError) else str(error).strip().splitlines()[0])
    print(written_line(written), file=out)
    return EXIT_OK


def refused(reason: str) -> int:
    print(f"evo-ledger dataset: {reason}", file=sys.stderr)
    return EXIT_BAD_INPUT


def written_line(written: Summary) -> str:
    how = "written whole" if written.whole else f"brought up to date (run {written.run})"
    events = f"{counted(written.events_written, 'event')} of {counted(written.games_written, 'game')}"
    again = f", {counted(written.partitions_rewritten, 'partition')} of events written again" * (
        written.partitions_rewritten > 0
    )
    return (
        f"dataset {written.folder} {how}: {counted(written.games, 'game')}; {events} written{again}; "
        f"{counted(written.files_written, 'file')} written; the log up to position {written.log_position}, the read "
        f"tables at {written.read_position}"
    )


class Bars:
    """A progress bar on standard error for each stage of the run, as it comes."""

    def __init__(self) -> None:
        self.stage: str | None = None
        self.bar: ProgressBar | None = None

    def __enter__(self) -> Bars:
        return self

    def __exit__(self, *raised: object) -> None:
        self._close()

    def progress(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self._close()
            self.stage, self.bar = stage, ProgressBar(total, UNITS.get(stage, stage), sys.stderr).__enter__()
        if self.bar is not None:
            self.bar.update(done)

    def _close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__()
        self.bar = None
