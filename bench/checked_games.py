"""A thousand seeded games of a ruleset, every action checked as its property test checks it.

    python -m bench.checked_games --ruleset evo1|traits [--games 1000] [--report]

The same checks as tests/property/test_evo1_invariants.py or test_traits_invariants.py, over more games than the
suite has time for: every table size, the random and the sensible bots in turn, the rulesets' options on some
seeds. At every action, bent versions of it are refused without changing the state; `apply` never changes the
state it is given; `replay` and a snapshot read back reach the same state; the ruleset's invariants hold. A
failure stops the run, naming its seed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import Progress

from bench.report import reporting
from tests.helpers import checked_evo1, checked_traits


def evo1_summary(games: list[Any]) -> list[str]:
    cards = sum((game.cards for game in games), Counter[str]())
    turns = [game.turns for game in games]
    return [
        f"turns to the impact   {min(turns)} to {max(turns)}, mean {statistics.mean(turns):.1f}",
        f"cards played          {cards.total():,}, {len(cards)} of 26 cards, {cards.total() / len(games):.1f} a game",
        f"least played          {', '.join(f'{card} {count}' for card, count in cards.most_common()[-3:])}",
    ]


def traits_summary(games: list[Any]) -> list[str]:
    kinds = sum((game.kinds for game in games), Counter[str]())
    actions = ", ".join(f"{kind} {kinds[kind]:,}" for kind in ("Hunt", "Forage", "Migrate", "TopUp", "Cull", "Drop"))
    return [f"actions by kind       {actions}"]


RULESETS: dict[str, tuple[Callable[[int], Any], Callable[[list[Any]], list[str]], str]] = {
    "evo1": (checked_evo1.play_checked, evo1_summary, "every card is played"),
    "traits": (checked_traits.play_checked, traits_summary, "every game is played to its end"),
}


def run(ruleset: str, count: int) -> None:
    play_checked, summary, _ = RULESETS[ruleset]
    checked = []
    started = time.perf_counter()
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"{ruleset} games", total=count)
        for seed in range(count):
            checked.append(play_checked(seed))
            progress.advance(task)
    elapsed = time.perf_counter() - started
    steps, refused = sum(game.steps for game in checked), sum(game.refused for game in checked)
    print(f"games                 {count:,} (seeds 0 to {count - 1}), every invariant held")
    print(f"actions checked       {steps:,}, bent actions refused {refused:,}")
    for line in summary(checked):
        print(line)
    print(f"time                  {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", choices=sorted(RULESETS), required=True)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--report", action="store_true", help="write its section of docs/benchmarks.md")
    args = parser.parse_args()
    target = RULESETS[args.ruleset][2]
    reporting(
        f"{args.ruleset}-games",
        f"A thousand {args.ruleset} games, checked",
        f"python -m bench.checked_games --ruleset {args.ruleset}",
        f"every game ends and every check holds, {target}.",
        lambda: run(args.ruleset, args.games),
        args.report,
    )


if __name__ == "__main__":
    main()
