"""How fast the recording page answers with no connection, the rules running on the phone (Pyodide), in Debian's
Chromium on localhost.

    python -m bench.offline_speed [--actions 120] [--opens 5] [--pause 150] [--report]

In one run, on one server, for a hand-made game of each ruleset:
- a tap to the redrawn position and choices, offline: each word tapped and each entry recorded, a quick finger's
  time after the page answered the tap before (`--pause`, 150 ms), from the tap until the page shows what it leads
  to, by the rules on the page's own worker (the page measures it: `tap shown here`); p50 and p99, against a frame
  (16 ms). The page asks the rules ahead for what each word offered leads to, so a tap that comes after they
  answered is drawn in its own task;
- the first load with an empty cache: a new browser context opens the recording page, until its position and
  choices are shown, and until the rules are kept on the device for a time with no connection (12 MB of Python
  in the browser);
- again from the cache, offline: the page opened until its position and choices are shown (the answers its service
  worker kept, before Python is ready), beside the replay viewer opened online until its board is drawn, taking
  turns (the medians' ratio: target 1.5x at most); and until the rules on the device have started and drawn the
  position themselves.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from bench.record_speed import percentile
from bench.report import reporting
from evo_ledger.game.notation import parse_game
from tests.helpers.browser import CHROMIUM, FLAGS
from tests.helpers.line import Line, line_to
from tests.helpers.offline import HAND_MADE, SHOWN_HERE, WAITING, cut_off, opened_offline_ready
from tests.helpers.phone import settled, settled_for, tap_action
from tests.helpers.servers import running_server
from tests.helpers.support import ROOT

FRAME_MS = 16.0
PAUSE_MS = 150.0  # a quick finger's time from one tap to the next, once the page has answered
FIRST_BOARD_TARGET = 1.5
TAPS = """() => { const taps = performance.getEntriesByName("tap shown here").map((tap) => tap.duration);
    performance.clearMeasures(); return taps; }"""


def elapsed_ms(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def taps_offline(page: Any, actions: list[str], pause_ms: float) -> list[float]:
    """Each action entered by taps with no connection, each tap `pause_ms` after the page settled: the
    milliseconds from each tap to what it led to shown."""
    page.evaluate(TAPS)
    found = settled_for(page, actions[0])
    for waiting, (action, following) in enumerate(zip(actions, [*actions[1:], ""], strict=True), start=1):
        tapped = tap_action(page, action, found, pause_ms)
        page.wait_for_function(WAITING, arg=waiting, polling=5)  # the entry kept on the device
        found = settled_for(page, following, tapped)
    taps: list[float] = page.evaluate(TAPS)
    return taps


def first_loads(browser: Any, base: str, game: str, token: str) -> tuple[float, float]:
    """An empty cache: milliseconds until the page shows its position and choices, and until the rules are kept."""
    context = browser.new_context()
    page = context.new_page()
    started = time.perf_counter()
    page.goto(f"{base}/games/{game}/record#token={token}")
    settled(page)
    shown = (time.perf_counter() - started) * 1000
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.reload()  # the page under its service worker keeps the rules
    page.wait_for_function("() => document.body.dataset.rulesKept === 'true'", timeout=120_000)
    kept = (time.perf_counter() - started) * 1000
    context.close()
    return shown, kept


def cached_opens(
    context: Any, page: Any, line: Line, base: str, game: str, opens: int
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds until the page opened offline (through its `line`, cut) shows the position and choices it kept,
    until the rules on the device draw them, and until the viewer (online at `base`, in a context of its own) draws
    its board, in turn."""
    shown, here, viewing = [], [], []
    viewer = context.browser.new_context().new_page()
    for _ in range(opens):
        page.goto("about:blank")
        started = time.perf_counter()
        page.goto(f"{line.base}/games/{game}/record")
        settled(page)
        shown.append((time.perf_counter() - started) * 1000)
        page.wait_for_function(SHOWN_HERE, timeout=60_000)
        here.append((time.perf_counter() - started) * 1000)
        viewer.goto("about:blank")
        viewing.append(
            elapsed_ms(lambda: (viewer.goto(f"{base}/games/{game}"), viewer.wait_for_selector("body[data-ready=true]")))
        )
    viewer.context.close()
    return shown, here, viewing


def measure(actions: int, opens: int, pause_ms: float) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        running_server(str(Path(folder) / "offline.sqlite")) as base,
        line_to(base) as line,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        for ruleset, (name, *_) in sorted(HAND_MADE.items()):
            file = ROOT / "replays" / name
            texts = [action.text for action in parse_game(file.read_text()).actions][:actions]
            context, page, game, token = opened_offline_ready(browser, line.base, file)
            empty_shown, empty_kept = first_loads(browser, base, game, token)
            cut_off(context, page, line)
            shown, here, viewing = cached_opens(context, page, line, base, game, opens)
            taps = taps_offline(page, texts, pause_ms)
            context.close()
            line.mend()
            print(f"{ruleset}: {name}, its first {len(texts)} actions entered by taps offline, {pause_ms:.0f} ms apart")
            print(
                f"  a tap to what it leads to shown   p50 {statistics.median(taps):6.1f} ms  p99 "
                f"{percentile(taps, 0.99):6.1f} ms  ({len(taps)} taps)"
            )
            print(f"    p99 against a frame              {percentile(taps, 0.99) / FRAME_MS:6.2f}x   (target 1.0x)")
            within = sum(tap <= FRAME_MS for tap in taps) / len(taps)
            print(f"    taps shown within a frame        {within:6.0%}")
            print(f"  an empty cache: position shown    {empty_shown:8.1f} ms; the rules kept {empty_kept:8.1f} ms")
            print(
                f"  from the cache, offline: shown    {statistics.median(shown):8.1f} ms (median of {opens}); "
                f"drawn by the rules here {statistics.median(here):8.1f} ms"
            )
            print(f"  the viewer's first board, online  {statistics.median(viewing):8.1f} ms")
            ratio = statistics.median(shown) / statistics.median(viewing)
            print(f"    shown offline against it         {ratio:6.2f}x   (target {FIRST_BOARD_TARGET}x at most)")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=120, help="how many actions of each game to tap offline")
    parser.add_argument("--opens", type=int, default=5, help="how many times to open the page from the cache")
    parser.add_argument(
        "--pause", type=float, default=PAUSE_MS, help="milliseconds between the page settling and the next tap"
    )
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = (
        f"a tap to what it leads to shown, offline, within a frame ({FRAME_MS:.0f} ms) at p99; the page opened "
        f"offline shows its position at most {FIRST_BOARD_TARGET}x the viewer's first board."
    )
    reporting(
        "offline",
        "Recording page with no connection",
        ".venv/bin/python -m bench.offline_speed",
        targets,
        lambda: measure(args.actions, args.opens, args.pause),
        args.report,
    )


if __name__ == "__main__":
    main()
