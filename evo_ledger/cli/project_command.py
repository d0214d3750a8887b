"""`evo-ledger project`: the read tables brought up to date, rebuilt, or followed. A module of its own, imported
when the command runs, as the read tables' packages (SQLAlchemy among them) are needed by no other command."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from contextlib import closing
from typing import TextIO

from eventsourcing.persistence import InterfaceError, OperationalError
from sqlalchemy.exc import DBAPIError

from evo_ledger.app.ledger import Ledger
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK
from evo_ledger.cli.terminal import ProgressBar
from evo_ledger.settings import Settings, SettingsError
from projections.runner import Projector
from projections.store import ReadStore


def project(args: argparse.Namespace, out: TextIO) -> int:
    """`evo-ledger project`: the read tables brought up to date (or rebuilt), then followed if asked."""
    if args.page < 1:
        print(f"evo-ledger project: --page holds at least one event, not {args.page}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        settings = Settings.for_database(args.database)
        with closing(Ledger(settings)) as ledger, closing(ReadStore(settings)) as store:
            return run_projections(ledger, store, args, out)
    except (SettingsError, OSError, DBAPIError, InterfaceError, OperationalError) as error:
        print(f"evo-ledger project: {str(error).strip().splitlines()[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run_projections(ledger: Ledger, store: ReadStore, args: argparse.Namespace, out: TextIO) -> int:
    started = time.perf_counter()
    if args.rebuild:
        store.reset()
    projector = Projector(ledger, store, args.page)
    with ProgressBar(ledger.store.recorder.max_notification_id() or 0, "events", sys.stderr) as progress:
        read = projector.catch_up(lambda done, _: progress.update(done))
    seconds = time.perf_counter() - started
    rate = f", {read / seconds:,.0f} events/s" if read and seconds > 0 else ""
    print(f"read tables at event {projector.position} of the log: {read} events applied{rate}", file=out)
    if set_aside := store.set_aside():
        print(f"events set aside (they cannot be applied): {len(set_aside)}", *set_aside, sep="\n  ", file=out)
    if args.follow:
        print("following the log (Ctrl-C stops)", file=out, flush=True)
        follow_until_interrupted(projector)
    return EXIT_OK


def follow_until_interrupted(projector: Projector) -> None:
    stop = threading.Event()
    try:
        projector.follow(stop)
    except KeyboardInterrupt:
        stop.set()
