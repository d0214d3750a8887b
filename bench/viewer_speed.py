"""How fast the replay viewer draws, in Debian's Chromium on localhost, for an evo2 game of about 1,000 events (its
hex island) and a self-played game of the trait-card game (its table of locations, cards and species).

    python -m bench.viewer_speed [--steps 300] [--report]

In one run:
- one step with the views already fetched: the viewer's `show(N)` from event to event, timed in the page, its
  p50 and p99 against a frame's budget of 16 ms;
- the first board: opening `/games/ID` until the board is drawn, beside what it cannot do without, measured just
  before in the same browser: a bare page load of the same size, plus the `view` request alone; the target is at
  most 3x that.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import sync_playwright

from bench.ledger_speed import long_game
from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import import_notation
from evo_ledger.settings import Settings
from tests.helpers.browser import CHROMIUM, FLAGS
from tests.helpers.servers import running_server

FRAME_MS = 16.0
FIRST_BOARD_RATIO = 3.0


def stored_games(database: str) -> dict[str, str]:
    """The ledger benchmark's evo2 game of about 1,000 events and a 4-player self-played traits game, stored in
    `database`: their ids, by ruleset."""
    with Ledger(Settings(database)) as ledger:
        game = long_game()
        ledger.commands.save_games([game])
        traits = import_notation(ledger, play_game(4, 1, "sensible", "traits").text())
        return {"evo2": str(game.id), "traits": str(traits.game_id)}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def step_times(page: Any, steps: int) -> list[float]:
    """The time of `show(N)` for each of `steps` events, every view fetched first."""
    page.evaluate(f"async () => {{ for (let n = 1; n <= Math.min(latest, {steps + 1}); n++) await viewAt(n); }}")
    timed: list[float] = page.evaluate(
        f"""async () => {{
            const times = [];
            for (let n = 2; n <= Math.min(latest, {steps + 1}); n++) {{
                const started = performance.now();
                await show(n);
                times.push(performance.now() - started);
            }}
            return times;
        }}"""
    )
    return timed


def first_board(page: Any, base: str, game: str) -> tuple[float, float, float]:
    """Milliseconds: the viewer until its board is drawn; a bare page load; the `view` request alone."""
    started = time.perf_counter()
    page.goto(f"{base}/static/viewer.html")
    bare = (time.perf_counter() - started) * 1000
    with httpx.Client() as client:
        client.get(f"{base}/v1/games/{game}/view")
        started = time.perf_counter()
        client.get(f"{base}/v1/games/{game}/view")
        view = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    page.goto(f"{base}/games/{game}")
    page.wait_for_selector("body[data-ready=true]")
    viewer = (time.perf_counter() - started) * 1000
    return viewer, bare, view


def measure(steps: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "viewer.sqlite")
        games = stored_games(database)
        with running_server(database) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            for ruleset, game in games.items():
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                events = httpx.get(f"{base}/v1/games/{game}").json()["version"]
                viewer, bare, view = first_board(page, base, game)
                times = step_times(page, steps)
                page.close()
                report(f"a {ruleset} game of {events} events", times, viewer, bare + view, bare, view)
            browser.close()


def report(game: str, times: list[float], viewer: float, budget: float, bare: float, view: float) -> None:
    p50, p99 = statistics.median(times), percentile(times, 0.99)
    print(f"{game}; {len(times)} steps timed in Chromium")
    print(f"  one step, views fetched    p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  against a frame of {FRAME_MS:.0f} ms")
    print(f"  first board                {viewer:8.1f} ms  = {viewer / budget:.2f}x a bare page load ({bare:.1f} ms)")
    print(f"                                         plus the view request alone ({view:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300, help="how many steps to time")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = (
        f"one step within a frame ({FRAME_MS:.0f} ms) at p99; the first board at most {FIRST_BOARD_RATIO:.0f}x a bare "
        "page load plus the view request."
    )
    reporting(
        "viewer",
        "Replay viewer",
        ".venv/bin/python -m bench.viewer_speed",
        targets,
        lambda: measure(args.steps),
        args.report,
    )


if __name__ == "__main__":
    main()
