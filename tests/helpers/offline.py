"""The recording page taken offline: opened once through its service worker, its connection cut, and the
hand-made games entered with no connection."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
from playwright.sync_api import expect
from starlette.types import Receive, Scope, Send

from evo_ledger.game.notation import parse_game
from tests.helpers.line import Line
from tests.helpers.phone import PHONE, new_game, settled

WAITING = "(count) => document.body.dataset.waiting === String(count) && document.body.dataset.ready === 'true'"


def opened_offline_ready(
    browser: Any, base: str, file: Path, played: int = 0, device: dict[str, Any] = PHONE
) -> tuple[Any, Any, str, str]:
    """The recording page of a new game set up as `file` says, its first `played` actions recorded, on a phone
    (`device`), read once through its service worker (which keeps the answers and the rules), its rules ready: the
    context, the page, the game and its recorder token."""
    parsed = parse_game(file.read_text())
    game, token = new_game(base, parsed)
    if played:
        actions = [line.text for line in parsed.actions[:played]]
        recorded = httpx.post(
            f"{base}/v1/games/{game}/actions", json={"actions": actions}, headers={"Authorization": f"Bearer {token}"}
        )
        assert recorded.status_code == 200, recorded.text
    context = browser.new_context(**device)
    page = context.new_page()
    page.goto(f"{base}/games/{game}/record#token={token}")
    settled(page)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.reload()
    settled(page)
    page.wait_for_function("() => document.body.dataset.rulesKept === 'true'")
    expect(page.locator(RULES_READY)).to_be_visible(timeout=RULES_START_MS)  # nothing left to fetch when it is cut
    return context, page, game, token


def cut_off(context: Any, page: Any, line: Line) -> None:
    """The connection cut, as a phone loses its signal: the browser's own first (the page and its service worker
    are told there is none), then, once the page finds it so, the line (nothing reaches the server)."""
    context.set_offline(True)
    page.wait_for_function("() => !navigator.onLine")
    line.cut()


def back_on(context: Any, line: Line) -> None:
    """The connection returns: the line mended, then the browser's own."""
    line.mend()
    context.set_offline(False)


HAND_MADE = {
    "evo2": ("hand-3p-first-game.evo", 65, "ben bid 0 card", "E2-07"),
    "evo1": ("evo1-hand-3p.evo", 76, "ann move B3 B4", "E1-09"),
    "autosaurs": ("evo1-autosaur-hand-3p.evo", 68, "ben birth G3", "E1-04"),
    "traits": ("traits-hand-2p.evo", 77, "ben hunt grazer-2 size speed with lean-size-1 waive size", "TR-07"),
}


SHOWN_HERE = "() => document.body.dataset.shown === 'here' && document.body.dataset.ready === 'true'"
RULES_READY = "#rules-status[data-rules=ready]"
RULES_START_MS = 120_000  # Python in the browser starts in seconds, many on a busy machine


class HeldBack:
    """The app, whose answers to requests for `path` are held until the test lets them through (`release`): the
    rules' bundle, say, to hold the rules on a device from being ready for as long as a test needs."""

    def __init__(self, app: Any, path: str) -> None:
        self.app = app
        self.state = app.state  # what the server that serves it reads its deadlines from
        self.path = path
        self.released = threading.Event()

    def release(self) -> None:
        self.released.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            await anyio.to_thread.run_sync(self.released.wait)
        await self.app(scope, receive, send)
