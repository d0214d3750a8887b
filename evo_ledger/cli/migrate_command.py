"""`evo-ledger migrate`: a store's events moved into the stored form its settings name (the packed form, unless
EVO_LEDGER_STORED_FORM names a one-row-an-event form), and its snapshots rewritten compact, in place or in a copy of
a SQLite file, with a progress bar, then the space they left reclaimed; run again after a stop, it goes on
where it stopped (`evo_ledger.store.migration`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from eventsourcing.persistence import PersistenceError

from evo_ledger.app.ledger import Ledger
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK, open_ledger, said
from evo_ledger.cli.terminal import ProgressBar
from evo_ledger.rules.words import counted
from evo_ledger.settings import Settings, SettingsError
from evo_ledger.store.migration import (
    Migration,
    Progress,
    copy_sqlite,
    missing_sqlite_file,
    runs_table,
    sqlite_file_size,
    stored_tables,
)
from evo_ledger.store.recorders import StoreUnusable, reason_in

EXIT_STOPPED = 130  # interrupted (Ctrl-C), as a shell reports it
DATABASE_HELP = "a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)"


def add_migrate_command(commands: Any) -> None:
    summary = (
        "move the events stored one a row into the packed form (a row for each run of a game's events), pack "
        "again the runs of a game that follow on from each other (a game recorded a save a run, alone on the "
        "server), and rewrite the snapshots and any events stored keyed into the compact form, a batch of rows a "
        "transaction (every hash, seal and checkpoint verifies as before, every event keeps its position in the "
        "log), then reclaim the space with VACUUM; stopped, it goes on where it stopped when run again"
    )
    migrate = commands.add_parser("migrate", help=summary, description=summary)
    migrate.add_argument("--database", help=DATABASE_HELP)
    migrate.add_argument(
        "--into",
        type=Path,
        metavar="FILE",
        help="a SQLite store: migrate a copy of it, written into this new file, and leave it as it is",
    )
    migrate.add_argument(
        "--full",
        action="store_true",
        help="on PostgreSQL, reclaim with VACUUM FULL, which gives the space back to the system but locks the "
        "tables while it runs (appends wait, then are refused); SQLite's VACUUM always rewrites the file",
    )


def migrate(args: argparse.Namespace, out: TextIO) -> int:
    """`evo-ledger migrate`: the store (or its copy, with --into) rewritten, and what was done, in a few lines."""
    try:
        settings = Settings.for_database(args.database)
    except SettingsError as error:
        return refused(str(error))
    try:
        size_before = original_size(settings)
        if args.into is not None:
            original, settings = settings, copy_sqlite(settings, args.into)
            print(f"migrating a copy, {args.into}: {original.database} is only read", file=out)
        with open_ledger(settings.database) as ledger:
            return rewritten(ledger, args.full, size_before, out)
    except PersistenceError as error:  # opened, then refused a read or a write
        return refused(f"{settings.described}: cannot be used: {reason_in(error)}")
    except (SettingsError, OSError) as error:
        return refused(said(error))


def refused(reason: str) -> int:
    print(f"evo-ledger migrate: {reason}", file=sys.stderr)
    return EXIT_BAD_INPUT


def original_size(settings: Settings) -> int | None:
    """The SQLite file's size, once it is known to be there (a file not there is refused: migrating it would make
    it); None for PostgreSQL, whose tables' size is read once open."""
    if settings.is_postgres:
        return None
    missing = missing_sqlite_file(settings)
    if missing is not None:
        raise StoreUnusable(f"{settings.described}: cannot be opened: {missing}")
    return sqlite_file_size(Path(settings.database))


def rewritten(ledger: Ledger, full: bool, size_before: int | None, out: TextIO) -> int:
    postgres = ledger.settings.is_postgres
    with Migration(ledger.settings, stored_tables(ledger.store), runs=runs_table(ledger.store)) as migration:
        size_before = migration.size_on_disk() if size_before is None else size_before
        bytes_before, to_do = migration.state_bytes(), migration.not_compact()
        try:
            with ProgressBar(to_do, "rows", sys.stderr) as bar:
                progress = migration.run(lambda done: bar.update(done.looked_at), to_do)
            runs = migration.runs_stored()
            with ProgressBar(runs, "runs", sys.stderr) as bar:
                again = migration.repack(lambda done: bar.update(done.looked_at), runs)
        except KeyboardInterrupt:
            return stopped(migration.progress)
        migration.reclaim(full)
        print_rows(progress, again, out)
        say("state", before_after(bytes_before, migration.state_bytes()), out)
        vacuum = "VACUUM FULL" if full and postgres else "VACUUM"
        size = f"{before_after(size_before, migration.size_on_disk())} {vacuum}"
        say("tables on disk" if postgres else "file", size, out)
    return EXIT_OK


def stopped(progress: Progress) -> int:
    if progress.repacking:
        done = f"{counted(progress.repacked, 'run')} packed again and {progress.to_do - progress.looked_at} runs"
    else:
        moved = f"{counted(progress.packed, 'row')} moved into runs, " if progress.packed else ""
        done = (
            f"{moved}{counted(progress.rewritten, 'row')} rewritten compact and {progress.to_do - progress.looked_at}"
        )
    print(
        f"evo-ledger migrate: stopped with {done} still to look at (every form is read): run it again to go on",
        file=sys.stderr,
    )
    return EXIT_STOPPED


def print_rows(progress: Progress, again: Progress, out: TextIO) -> None:
    """What moving and rewriting rows did (`progress`), and packing runs again (`again`)."""
    if not (progress.packed or again.repacked or progress.rewritten or progress.left_keyed):
        print("every row is stored in its form already: nothing rewritten", file=out)
        return
    if progress.packed:
        say("moved into runs", f"{counted(progress.packed, 'row')}, in {counted(progress.runs, 'run')}", out)
    if again.repacked:
        say("packed again", f"{counted(again.repacked, 'run')}, into {counted(again.repacked_into, 'run')}", out)
    say("rewritten compact", counted(progress.rewritten, "row"), out)
    unknown = ": a shape the compact form does not know, read as before" if progress.left_keyed else ""
    say("left keyed", f"{counted(progress.left_keyed, 'row')}{unknown}", out)


def say(label: str, text: str, out: TextIO) -> None:
    print(f"{label:<22}{text}", file=out)


def before_after(before: int, after: int) -> str:
    return f"{before:,} bytes before, {after:,} after"
