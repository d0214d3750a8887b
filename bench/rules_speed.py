"""How fast each ruleset's engine replays recorded games, beside python-chess replaying random chess games.

    python -m bench.rules_speed [--games 60] [--repeats 5] [--report]

Games are recorded first (not timed) by each ruleset's seeded bots, evo1's playing event cards. Then, `repeats`
times, each ruleset's games are replayed twice:
- check+apply: every recorded action checked and applied through the ruleset (actions/s);
- parse+check+apply: every recorded line read from notation, then checked and applied (lines/s);
beside python-chess's `Board.is_legal` then `Board.push` (check+apply) and `Board.push_san` (parse+check+apply)
over random games. All the runs take turns within each repeat, and a ratio is the median of the repeats' ratios,
each against the chess run of the same repeat, so that it holds on a shared machine whose speed moves.
With `--report`, each ruleset's section of docs/benchmarks.md is written anew.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chess

from bench.report import machine, verdict, write_section
from evo_ledger.app.selfplay import play_game
from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import AnyRuleset, get_ruleset
from evo_ledger.rules.base import resolve_options
from evo_ledger.rules.contract import self_play
from evo_ledger.rules.kits import load_kit

TARGET = 1.0
EVO1_KITS = {3: "standin-e1-3p", 4: "standin-e1-4p", 5: "standin-e1-5p"}


@dataclass
class Recorded:
    """A ruleset's recorded games: each game's starting state with its actions, and with its lines."""

    rules: AnyRuleset
    actions: list[tuple[Any, list[Any]]]
    lines: list[tuple[Any, list[str]]]

    @property
    def count(self) -> int:
        return sum(len(actions) for _, actions in self.actions)

    def apply(self) -> None:
        apply = self.rules.apply
        for first, actions in self.actions:
            state = first
            for action in actions:
                state = apply(state, action).state

    def parse_apply(self) -> None:
        apply, parse = self.rules.apply, self.rules.parse_action
        for first, lines in self.lines:
            state = first
            for line in lines:
                state = apply(state, parse(line)).state


def measured_rates(runs: dict[str, tuple[int, Callable[[], None]]], repeats: int) -> dict[str, list[float]]:
    """Each run's rate in every repeat; the runs take turns within a repeat, so they share the machine's moods."""
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (count, run) in runs.items():
            started = time.perf_counter()
            run()
            rates[name].append(count / (time.perf_counter() - started))
    return rates


def ratio(rates: dict[str, list[float]], run: str, peer: str) -> float:
    """The median, over the repeats, of the run's rate against its peer's in the same repeat."""
    return statistics.median(mine / theirs for mine, theirs in zip(rates[run], rates[peer], strict=True))


def evo2_games(count: int) -> Recorded:
    games = [parse_game(play_game(2 + seed % 4, seed, "sensible", "evo2").text()) for seed in range(count)]
    return Recorded(
        get_ruleset("evo2"),
        [(start(g), [line.action for line in g.actions]) for g in games],
        [(start(g), [line.text for line in g.actions]) for g in games],
    )


def evo1_games(count: int) -> Recorded:
    """Games of 3 to 5 players by the seeded bots, event cards and all, half of them by the random bot and half
    under `experienced`."""
    rules = get_ruleset("evo1")
    bots = self_play(rules)
    assert bots is not None
    actions, lines = [], []
    for seed in range(count):
        players = 3 + seed % 3
        names, options = [f"p{n}" for n in range(players)], {"experienced": seed % 2 == 1}
        kit = load_kit(EVO1_KITS[players])
        played = [
            action for action, _ in bots.play(kit, names, seed, "random" if seed % 4 < 2 else "sensible", options)
        ]
        first = rules.setup(kit, names, resolve_options(rules.options, options))
        actions.append((first, played))
        lines.append((first, [rules.format_action(action) for action in played]))
    return Recorded(rules, actions, lines)


def traits_games(count: int) -> Recorded:
    """Games of 2 to 4 players by the trait-card game's seeded bots, half of them by the random bot."""
    rules = get_ruleset("traits")
    bots = self_play(rules)
    assert bots is not None
    kit = load_kit("standin-traits")
    actions, lines = [], []
    for seed in range(count):
        names = [f"p{n}" for n in range(2 + seed % 3)]
        played = [action for action, _ in bots.play(kit, names, seed, "random" if seed % 4 < 2 else "sensible")]
        first = rules.setup(kit, names, {})
        actions.append((first, played))
        lines.append((first, [rules.format_action(action) for action in played]))
    return Recorded(rules, actions, lines)


def random_chess_games(count: int, rng: random.Random) -> list[list[chess.Move]]:
    games = []
    for _ in range(count):
        board, moves = chess.Board(), list[chess.Move]()
        while not board.is_game_over() and len(moves) < 200:
            move = rng.choice(list(board.legal_moves))
            moves.append(move)
            board.push(move)
        games.append(moves)
    return games


def chess_check_apply(games: list[list[chess.Move]]) -> None:
    for moves in games:
        board = chess.Board()
        for move in moves:
            if not board.is_legal(move):
                raise AssertionError(move)
            board.push(move)


def chess_sans(games: list[list[chess.Move]]) -> list[list[str]]:
    sans = []
    for moves in games:
        board, game = chess.Board(), []
        for move in moves:
            game.append(board.san(move))
            board.push(move)
        sans.append(game)
    return sans


def chess_parse_check_apply(games: list[list[str]]) -> None:
    for sans in games:
        board = chess.Board()
        for san in sans:
            board.push_san(san)


def report(name: str, recorded: Recorded, games: int, rates: dict[str, list[float]], chess_games: int) -> str:
    apply, parse = max(rates[f"{name} apply"]), max(rates[f"{name} parse"])
    chess_apply, chess_parse = max(rates["chess apply"]), max(rates["chess parse"])
    apply_ratio, parse_ratio = (
        ratio(rates, f"{name} apply", "chess apply"),
        ratio(rates, f"{name} parse", "chess parse"),
    )
    against = f"{verdict(apply_ratio, TARGET)} (chess: {chess_apply:,.0f} moves/s)"
    how = {"evo1": "its seeded bots, event cards and all"}.get(name, "its seeded bots")
    return f"""## Rules engine: {name}

Measured by `.venv/bin/python -m bench.rules_speed --report` ({machine()}).
{games} games of {name} ({recorded.count:,} actions), recorded by {how}, replayed beside python-chess
replaying {chess_games} random games in the same run, {len(rates["chess apply"])} times in turn. A rate is the
best of the runs; a ratio is the median of the runs' ratios, each against the chess run beside it.

| measure | rate | against python-chess |
| --- | --- | --- |
| {name} check+apply | {apply:,.0f} actions/s | {against} |
| {name} parse+check+apply | {parse:,.0f} lines/s | {parse_ratio:.2f}x (chess: {chess_parse:,.0f} moves/s) |
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="games of each ruleset to record and replay")
    parser.add_argument("--chess-games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--report", action="store_true", help="write each ruleset's section of docs/benchmarks.md")
    args = parser.parse_args()

    print(f"recording {args.games} games of each ruleset...", flush=True)
    recorded = {"evo2": evo2_games(args.games), "evo1": evo1_games(args.games), "traits": traits_games(args.games)}
    moves = random_chess_games(args.chess_games, random.Random(1))
    sans = chess_sans(moves)
    move_count = sum(len(m) for m in moves)
    runs: dict[str, tuple[int, Callable[[], None]]] = {
        "chess apply": (move_count, lambda: chess_check_apply(moves)),
        "chess parse": (move_count, lambda: chess_parse_check_apply(sans)),
    }
    for name, games in recorded.items():
        runs[f"{name} apply"] = (games.count, games.apply)
        runs[f"{name} parse"] = (games.count, games.parse_apply)
    rates = measured_rates(runs, args.repeats)

    print(
        f"chess check+apply       {max(rates['chess apply']):10,.0f} moves/s ({len(moves)} games, {move_count} moves)"
    )
    print(f"chess parse+check+apply {max(rates['chess parse']):10,.0f} moves/s")
    for name, games in recorded.items():
        apply, parse = max(rates[f"{name} apply"]), max(rates[f"{name} parse"])
        apply_ratio, parse_ratio = (
            ratio(rates, f"{name} apply", "chess apply"),
            ratio(rates, f"{name} parse", "chess parse"),
        )
        print(f"{name} check+apply        {apply:10,.0f} actions/s = {apply_ratio:.2f}x chess ({games.count} actions)")
        print(f"{name} parse+check+apply  {parse:10,.0f} lines/s   = {parse_ratio:.2f}x chess")
        if args.report:
            write_section(f"rules-{name}", report(name, games, args.games, rates, len(moves)))
    if args.report:
        print("wrote the rules engine's sections of docs/benchmarks.md")


if __name__ == "__main__":
    main()
