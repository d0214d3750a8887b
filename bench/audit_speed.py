"""Audit speed: events re-checked a second on a self-play game of about 1,000 events, on SQLite and PostgreSQL,
beside the floor of the same run: reading the same stored events and decoding their msgpack, nothing more.

    python -m bench.audit_speed [--postgres postgresql://postgres@127.0.0.1:5432/test] [--report]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from bench.ledger_speed import long_game, on_each_database
from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import Settings

ROUNDS = 5


def measure(label: str, database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        game = long_game()
        ledger.commands.save_games([game])
        game_id = game.id
        events = ledger.queries.receipt(game_id).version
        floor = best(
            lambda: [ledger.store.mapper.transcoder.decode(s.state) for s in ledger.queries.stored_events(game_id)]
        )
        audit = best(lambda: ledger.queries.audit(game_id))
        verdict = ledger.queries.audit(game_id).verdict
    print(f"{label}: a game of {events} events, audit verdict {verdict}")
    print(f"  read and decode (floor)   {events / floor:10,.0f} events/s")
    print(f"  audit                     {events / audit:10,.0f} events/s  = {floor / audit:.2f}x the floor")


def best(work: Callable[[], Any]) -> float:
    timings = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "audit",
        "Audit",
        ".venv/bin/python -m bench.audit_speed",
        "20k events/s.",
        lambda: on_each_database(measure, args.postgres, "audit.sqlite"),
        args.report,
    )


if __name__ == "__main__":
    main()
