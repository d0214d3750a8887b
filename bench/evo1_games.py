"""A thousand seeded evo1 games, event cards and all, each action checked as the property test checks it.

    python -m bench.evo1_games [--games 1000] [--report]

The same checks as tests/property/test_evo1_invariants.py, over more games than the suite has time for: 3 to 5
players, the random and the sensible bots in turn, `experienced`, `rebirth_without_adults` and
`recover_returns_to_owner` on some seeds. At every action, bent versions of it are refused without changing the
state; `apply` never changes the state it is given; `replay` and a snapshot read back reach the same state; no
card is in two places; MP never fall below 0; the meteor strikes between turns 7 and 14. A failure stops the
run, naming its seed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from rich.console import Console
from rich.progress import Progress

from bench.report import reporting
from tests.property.test_evo1_invariants import Checked, play_checked


def run(games: int) -> None:
    checked: list[Checked] = []
    started = time.perf_counter()
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("evo1 games", total=games)
        for seed in range(games):
            checked.append(play_checked(seed))
            progress.advance(task)
    elapsed = time.perf_counter() - started
    cards = sum((game.cards for game in checked), Counter[str]())
    steps, refused = sum(game.steps for game in checked), sum(game.refused for game in checked)
    turns = [game.turns for game in checked]
    print(f"games                 {games:,} (seeds 0 to {games - 1}), every invariant held")
    print(f"actions checked       {steps:,}, bent actions refused {refused:,}")
    print(f"turns to the impact   {min(turns)} to {max(turns)}, mean {statistics.mean(turns):.1f}")
    print(f"cards played          {cards.total():,}, {len(cards)} of 26 cards, {cards.total() / games:.1f} a game")
    print(f"least played          {', '.join(f'{card} {count}' for card, count in cards.most_common()[-3:])}")
    print(f"time                  {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--report", action="store_true", help="write its section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "evo1-games",
        "A thousand evo1 games, checked",
        "python -m bench.evo1_games",
        "every game ends and every check holds, every card is played.",
        lambda: run(args.games),
        args.report,
    )


if __name__ == "__main__":
    main()
