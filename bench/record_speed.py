"""How fast the recording page answers a tap, in Debian's Chromium on localhost, against the API's own round trip.

    python -m bench.record_speed [--actions 120] [--opens 15] [--report]

In one run, on one server:
- a tap to the stored receipt: the page's `record` tapped with an action entered, until its append is answered,
  beside the same append sent by the same browser's `fetch` from a page of its own (the API's own round trip, as
  the phone's browser makes it) and by a plain HTTP client, the three taking turns action by action on three games
  recorded alike (evo2's hand-recorded game); p50 and p99 of each, and p99's ratio to the browser's round trip
  (the target) and to the plain client's (where the browser's own cost shows: a fetch costs it a few
  milliseconds more than a plain client on localhost, which is small beside a phone's network);
- the first usable position: the recording page opened until it offers its choices, beside the replay viewer
  opened until its board is drawn, taking turns; the medians' ratio.
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

from bench.report import reporting
from evo_ledger.game.notation import parse_game
from tests.helpers.browser import CHROMIUM, FLAGS
from tests.helpers.phone import PHONE, new_game, settled, tap_words
from tests.helpers.servers import running_server
from tests.helpers.support import ROOT

GAME = parse_game((ROOT / "replays" / "hand-3p-first-game.evo").read_text())
TARGET = 1.5


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def tap_to_receipt(page: Any, action: str) -> float:
    """Milliseconds from the tap on `record` to the stored receipt, as the page measures it (`entry stored`)."""
    tap_words(page, action)
    page.locator("#record").tap()
    settled(page)
    elapsed: float = page.evaluate(
        "() => { const [stored] = performance.getEntriesByName('entry stored'); performance.clearMeasures(); "
        "performance.clearMarks(); return stored.duration; }"
    )
    return elapsed


# The same append as the recording page sends it, from a page of the same browser with no page's work around it.
FETCHED = """async ([game, token, action, version, key]) => {
    const started = performance.now();
    const answer = await fetch(`/v1/games/${game}/actions`, { method: "POST",
        body: JSON.stringify({ actions: [action], expected_version: version, entered_at: new Date().toISOString() }),
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, "Idempotency-Key": key } });
    const body = await answer.json();
    return [performance.now() - started, body.version];
}"""


def fetched(page: Any, game: str, token: str, action: str, version: int) -> tuple[float, int]:
    elapsed, stored = page.evaluate(FETCHED, [game, token, action, version, f"{game}-{version}"])
    return float(elapsed), int(stored)


def round_trip(client: httpx.Client, base: str, game: str, token: str, action: str, version: int) -> tuple[float, int]:
    started = time.perf_counter()
    answer = client.post(
        f"{base}/v1/games/{game}/actions",
        json={"actions": [action], "expected_version": version},
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"{game}-{version}"},
    )
    elapsed = (time.perf_counter() - started) * 1000
    answer.raise_for_status()
    return elapsed, int(answer.json()["version"])


def measure(actions: int, opens: int) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        running_server(str(Path(folder) / "record.sqlite")) as base,
        sync_playwright() as playwright,
        httpx.Client() as client,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context(**PHONE)
        (tapped_game, tapped_token), (sent_game, sent_token) = new_game(base, GAME), new_game(base, GAME)
        fetched_game, fetched_token = new_game(base, GAME)
        page, plain = context.new_page(), browser.new_context(**PHONE).new_page()  # each a window in view
        page.goto(f"{base}/games/{tapped_game}/record#token={tapped_token}")
        plain.goto(f"{base}/")
        settled(page)
        taps, fetches, trips, version = [], [], [], 1
        for line in GAME.actions[:actions]:
            taps.append(tap_to_receipt(page, line.text))
            fetch, fetched_version = fetched(plain, fetched_game, fetched_token, line.text, version)
            fetches.append(fetch)
            trip, version = round_trip(client, base, sent_game, sent_token, line.text, version)
            trips.append(trip)
            assert fetched_version == version, "the fetched game recorded the same actions"
        tapped_version = client.get(f"{base}/v1/games/{tapped_game}").json()["version"]
        assert tapped_version == version, "both games recorded the same actions"
        recording, viewing = first_positions(context, base, tapped_game, opens)
        browser.close()
    print(f"evo2's hand-recorded game, its first {len(taps)} actions, on SQLite")
    print(f"  tap to stored receipt      p50 {statistics.median(taps):6.1f} ms  p99 {percentile(taps, 0.99):6.1f} ms")
    browsers = f"p50 {statistics.median(fetches):6.1f} ms  p99 {percentile(fetches, 0.99):6.1f} ms"
    print(f"  the browser's round trip   {browsers}")
    print(f"    p99 against it           {percentile(taps, 0.99) / percentile(fetches, 0.99):8.2f}x   (target)")
    print(f"  a plain client's           p50 {statistics.median(trips):6.1f} ms  p99 {percentile(trips, 0.99):6.1f} ms")
    print(f"    p99 against it           {percentile(taps, 0.99) / percentile(trips, 0.99):8.2f}x")
    print(f"  first usable position      {statistics.median(recording):8.1f} ms (median of {opens})")
    print(f"  the viewer's first board   {statistics.median(viewing):8.1f} ms")
    print(f"    against it               {statistics.median(recording) / statistics.median(viewing):8.2f}x")


def first_positions(context: Any, base: str, game: str, opens: int) -> tuple[list[float], list[float]]:
    """Milliseconds until the recording page offers its choices, and until the viewer draws its board, in turn."""
    recording: list[float] = []
    viewing: list[float] = []
    page = context.new_page()
    for _ in range(opens):
        for path, times in ((f"/games/{game}/record", recording), (f"/games/{game}", viewing)):
            page.goto("about:blank")
            started = time.perf_counter()
            page.goto(base + path)
            page.wait_for_selector("body[data-ready=true]")
            times.append((time.perf_counter() - started) * 1000)
    page.close()
    return recording, viewing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=120, help="how many actions to record each way")
    parser.add_argument("--opens", type=int, default=15, help="how many times to open each page")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = (
        f"a tap to the stored receipt at most {TARGET}x the API's own round trip from the same browser at p99; the "
        f"first usable position "
        f"at most {TARGET}x the viewer's first board."
    )
    reporting(
        "record",
        "Recording page",
        ".venv/bin/python -m bench.record_speed",
        targets,
        lambda: measure(args.actions, args.opens),
        args.report,
    )


if __name__ == "__main__":
    main()
