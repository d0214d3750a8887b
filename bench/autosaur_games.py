"""Five hundred seeded games with Autosaur seats, every Autosaur decision computed again by a second implementation.

    python -m bench.autosaur_games [--games 500] [--report]

The check of tests/property/test_autosaur_algorithm.py over more games than the suite has time for: 3 to 5 seats,
1 to 3 of them Autosaurs, the random and the sensible bots in turn, `experienced` and `costly_rebid` on some seeds.
Every setup dinosaur, birth, survival, bid and pass of an Autosaur is computed again by the implementation in
tests/helpers/autosaur_reference.py, written from AS-03 and AS-06 to AS-16 and sharing no code with the ledger's; a
difference stops the run, naming its seed.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from rich.console import Console
from rich.progress import Progress

from bench.report import reporting
from tests.helpers.referee import play_and_referee


def run(count: int) -> None:
    decisions = Counter[str]()
    started = time.perf_counter()
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games with Autosaurs", total=count)
        for seed in range(count):
            referee = play_and_referee(seed)
            if referee.differences:
                raise SystemExit(f"seed {seed}: the implementations differ: {referee.differences[:3]}")
            decisions += referee.decisions
            progress.advance(task)
    elapsed = time.perf_counter() - started
    kinds = ", ".join(f"{kind} {decisions[kind]:,}" for kind in ("setup", "birth", "survival", "bid", "pass"))
    print(f"games                 {count:,} (seeds 0 to {count - 1}), the two implementations agreed")
    print(f"decisions compared    {decisions.total():,}: {kinds}")
    print(f"time                  {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--report", action="store_true", help="write its section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "autosaur-games",
        "Five hundred games with Autosaurs, every decision computed twice",
        "python -m bench.autosaur_games",
        "every Autosaur decision equals the second implementation's.",
        lambda: run(args.games),
        args.report,
    )


if __name__ == "__main__":
    main()
