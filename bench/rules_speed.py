"""How fast the rules engine replays recorded games, beside python-chess replaying random chess games.

    python bench/rules_speed.py [--games 60] [--repeats 5]

Self-play games of 2 to 5 players are recorded first (not timed). Then, best of `repeats`:
- evo2 check+apply: every recorded action checked and applied through the ruleset (actions/s);
- evo2 parse+check+apply: every recorded line read from notation, then checked and applied (lines/s);
- chess check+apply: `Board.is_legal` then `Board.push` over random games (moves/s);
- chess parse+check+apply: `Board.push_san` over the same games' SAN (moves/s).
The four take turns within each repeat, so the ratios hold on a noisy shared machine.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import chess

from evo_ledger.checker import start
from evo_ledger.notation import GameFile, parse_game
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset
from evo_ledger.selfplay import play_game

RULES = Evo2Ruleset()


def best_rates(runs: dict[str, tuple[int, Callable[[], None]]], repeats: int) -> dict[str, float]:
    """Each run's best rate; the runs take turns within every repeat, so they share the machine's moods."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, (_, run) in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: runs[name][0] / seconds for name, seconds in best.items()}


def recorded_games(count: int) -> list[GameFile]:
    return [parse_game(play_game(2 + seed % 4, seed).text()) for seed in range(count)]


def replay_actions(games: list[tuple[Any, list[Any]]]) -> None:
    for start_state, actions in games:
        state = start_state
        for action in actions:
            state = RULES.apply(state, action).state


def replay_lines(games: list[tuple[Any, list[str]]]) -> None:
    for start_state, lines in games:
        state = start_state
        for line in lines:
            state = RULES.apply(state, RULES.parse_action(line)).state


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="self-play games to record and replay")
    parser.add_argument("--chess-games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print(f"recording {args.games} self-play games...", flush=True)
    games = recorded_games(args.games)
    actions = [(start(g), [line.action for line in g.actions]) for g in games]
    lines = [(start(g), [line.text for line in g.actions]) for g in games]
    count = sum(len(a) for _, a in actions)
    moves = random_chess_games(args.chess_games, random.Random(1))
    sans = chess_sans(moves)
    move_count = sum(len(m) for m in moves)

    rates = best_rates(
        {
            "evo apply": (count, lambda: replay_actions(actions)),
            "chess apply": (move_count, lambda: chess_check_apply(moves)),
            "evo parse": (count, lambda: replay_lines(lines)),
            "chess parse": (move_count, lambda: chess_parse_check_apply(sans)),
        },
        args.repeats,
    )
    evo_apply, chess_apply, evo_parse, chess_parse = rates.values()

    print(f"evo2 games replayed: {len(games)} ({count} actions); chess games: {len(moves)} ({move_count} moves)")
    print(f"evo2 check+apply        {evo_apply:10,.0f} actions/s = {evo_apply / chess_apply:.2f}x chess check+apply")
    print(f"evo2 parse+check+apply  {evo_parse:10,.0f} lines/s   = {evo_parse / chess_parse:.2f}x chess, same")
    print(f"chess check+apply       {chess_apply:10,.0f} moves/s")
    print(f"chess parse+check+apply {chess_parse:10,.0f} moves/s")


if __name__ == "__main__":
    main()
