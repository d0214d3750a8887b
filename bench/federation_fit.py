"""How the statistics that fit every result at once hold a federation: the batch ratings and the seat advantage over
a million results among 20,000 players, against the same over ten thousand, so that how their cost grows is seen.

    python -m bench.federation_fit [--results 1000000] [--small 10000] [--players 20000] [--report]

For each count of results (`--small`, then `--results`), drawn from one seed by `bench.federation_results` among
`--players` players in clubs (tables of three to five, hidden strengths and seat effects; nothing played), held as
the statistics read them from the read tables (`strengths.Game`):
- batch ratings: `strengths.batch_ratings`, what `GET /v1/statistics/batch-ratings` computes: the fit of every
  result at once and, beside it, the incremental ratings of the same games, game by game;
- the incremental ratings alone (`strengths.incremental`), their share of the batch ratings;
- seat advantage: `strengths.seat_advantage`, what `GET /v1/statistics/seat-advantage` computes: the players'
  strengths and each seat's effect fitted together.
Each is measured in a process of its own forked from the one holding the games: its seconds, and its peak
resident memory above what the process held when it started (the games); at the small count, the fastest of
SMALL_TRIES such runs. The growth of each, from the small count to the large, is beside the growth of the results;
the target is a cost per result at the large count at most TARGET times the small count's. Beside them, what a
dense information matrix over the large run's parameters would hold. Last, what the fits recovered of the truth:
how the batch strengths follow the hidden ones, and the seat effects against the hidden, with how many of their 95%
intervals hold them.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from bench.federation_results import FIRST_SEAT_EDGE, SIZES, Federation, federation, seat_effects
from bench.report import reporting
from projections import strengths

TARGET = 2.0
SMALL_TRIES = 3
"""The small count's measures are each the fastest of this many runs, the large count's of one: a run of seconds
on a shared machine is the likelier to be slowed by a neighbour."""
CLUBS = 400
STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_mb: float
    answer: Any


def resident_mb(field: str) -> float:
    """A line of the process's status (VmRSS, the resident memory now; VmHWM, its peak), in MB."""
    for line in STATUS.read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"this benchmark reads {field} from {STATUS}, which this system does not give")


def _measured_here(work: Callable[[], Any], sending: Connection) -> None:
    gc.collect()
    CLEAR_REFS.write_text("5")  # the peak resident memory starts again from the memory resident now
    before = resident_mb("VmRSS")
    started = time.perf_counter()
    answer = work()
    seconds = time.perf_counter() - started
    sending.send(Measured(seconds, resident_mb("VmHWM") - before, answer))
    sending.close()


def measured_once(work: Callable[[], Any]) -> Measured:
    """`work` run in a forked copy of this process: its seconds, its peak memory above the copy's at the start, and
    its answer."""
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_measured_here, args=(work, sending))
    process.start()
    sending.close()
    found: Measured = receiving.recv()
    process.join()
    return found


def measured(work: Callable[[], Any], tries: int) -> Measured:
    """The fastest of `tries` runs of `work`, each in a copy of its own."""
    return min((measured_once(work) for _ in range(tries)), key=lambda found: found.seconds)


@dataclass(frozen=True)
class Run:
    results: int
    players: int
    batch: Measured
    incremental: Measured
    seats: Measured


def run(results: int, players: int, tries: int) -> Run:
    drawn = federation(results, players, CLUBS)
    games = list(drawn.seated())
    print(f"{results:,} results drawn: the batch ratings, the incremental ratings, the seat advantage", file=sys.stderr)
    batch = measured(lambda: recovered_strengths(strengths.batch_ratings(games), drawn), tries)
    incremental = measured(lambda: len(strengths.incremental(games)), tries)
    seats = measured(lambda: strengths.seat_advantage(games), tries)
    return Run(results, len(np.unique(drawn.players[drawn.players >= 0])), batch, incremental, seats)


def recovered_strengths(rows: Sequence[dict[str, Any]], drawn: Federation) -> tuple[int, float]:
    """How many players the batch ratings rate, and the correlation of their strengths with the hidden ones."""
    fitted = np.array([row["strength"] for row in rows])
    hidden = drawn.strengths[[int(row["person_id"].rpartition("-")[2]) for row in rows]]
    return len(rows), float(np.corrcoef(fitted, hidden)[0, 1])


def seat_lines(answer: dict[str, Any]) -> list[str]:
    """Each table size's fitted seat effects against the hidden ones, and how many intervals hold the hidden."""
    lines = []
    for size in sorted({row["players"] for row in answer["rows"]}):
        rows = [row for row in answer["rows"] if row["players"] == size and row["at"] > 1]
        hidden = seat_effects(size)
        fitted = ", ".join(f"{row['effect']:+.3f} ({hidden[row['at'] - 1]:+.3f})" for row in rows)
        held = sum(row["low"] <= hidden[row["at"] - 1] <= row["high"] for row in rows)
        lines.append(
            f"    {size} players, seats 2 to {size}: {fitted}; {held} of {len(rows)} intervals hold the hidden"
        )
    return lines


def growth(name: str, small: Measured, large: Measured, times: float, judged: bool = True) -> str:
    """A line of the table: the small and the large run's seconds and peak memory, how each grew, and the cost per
    result at the large count over the small's."""
    per_result = (large.seconds / small.seconds) / times
    verdict = f", target at most {TARGET}x: " + ("met" if per_result <= TARGET else "not met") if judged else ""
    memory = f"{large.peak_mb / small.peak_mb:5.0f}x" if small.peak_mb >= 1 else "    -"
    return (
        f"  {name:<24} {small.seconds:7.2f} s {small.peak_mb:6,.0f} MB {large.seconds:9.1f} s {large.peak_mb:7,.0f} MB"
        f"  {large.seconds / small.seconds:5.0f}x {memory}   {per_result:.2f}x{verdict}"
    )


def measure(results: int, small: int, players: int) -> None:
    few, many = run(small, players, SMALL_TRIES), run(results, players, 1)
    times = many.results / few.results
    print(
        f"A federation of {players:,} players in {CLUBS} clubs, tables of 3 to 5, the last seat {FIRST_SEAT_EDGE}"
        f" below the first. Seconds and peak memory; growth in time and in memory for {times:,.0f}x the results;"
        " the cost per result at the large count over the small's."
    )
    print(
        f"  {'':<24} {few.results:>9,} results {many.results:>11,} results      growth   per result\n"
        f"  {'':<24} {few.players:>9,} players {many.players:>11,} players   time memory"
    )
    print(growth("batch ratings", few.batch, many.batch, times))
    print(growth("  the incremental in it", few.incremental, many.incremental, times, judged=False))
    print(growth("seat advantage", few.seats, many.seats, times))
    rated, correlation = many.batch.answer
    parameters = rated + sum(size - 1 for size in SIZES)
    dense_gb = parameters**2 * 8 / 1e9
    print(f"  a dense information matrix over the seat advantage's {parameters:,} parameters: {dense_gb:.1f} GB")
    print(f"  at {many.results:,} results: {rated:,} players rated, r = {correlation:.3f} with the hidden strengths;")
    print("  the seat effects fitted (hidden):")
    for line in seat_lines(many.seats.answer):
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=int, default=1_000_000, help="results of the large run")
    parser.add_argument("--small", type=int, default=10_000, help="results of the small run")
    parser.add_argument("--players", type=int, default=20_000, help="players of the federation")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    if not 0 < args.small < args.results:
        parser.error(f"--small ({args.small}) must be above 0 and below --results ({args.results})")
    if args.players < CLUBS * max(SIZES):
        parser.error(f"--players ({args.players}) must be at least {CLUBS * max(SIZES)}: {CLUBS} clubs of {max(SIZES)}")
    reporting(
        "federation",
        "Batch ratings and seat advantage over a federation",
        ".venv/bin/python -m bench.federation_fit",
        f"a cost per result at the large count at most {TARGET}x the small count's.",
        lambda: measure(args.results, args.small, args.players),
        args.report,
    )


if __name__ == "__main__":
    main()
