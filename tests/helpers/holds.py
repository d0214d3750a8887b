"""Requests held at a server's door until the test lets them through: a race between devices made to happen in the
order the test chooses, whatever the timing. An ASGI middleware, added to a test's server only."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

# Longer than any wait of a test: a request a failed test left held is let through after it, not never.
HELD_AT_MOST = 120.0
WAIT = 20.0
Picks = Callable[[Scope], bool]


def never(_: Scope) -> bool:
    return False


class Hold:
    """The requests it `picks` are held before the app reads them, until the test lets them go; `arrived` is set
    once one is held."""

    def __init__(self) -> None:
        self.picks: Picks = never
        self.arrived = threading.Event()
        self.go_on = threading.Event()

    def install(self, app: Any) -> None:
        app.add_middleware(HoldingMiddleware, hold=self)

    @contextmanager
    def holding(self, picks: Picks) -> Iterator[None]:
        """Within, the requests `picks` chooses are held; at its end, however it ends, they go on."""
        self.arrived.clear()
        self.go_on.clear()
        self.picks = picks
        try:
            yield
        finally:
            self.picks = never
            self.go_on.set()

    def wait_held(self) -> None:
        assert self.arrived.wait(WAIT), "no request was held"


class HoldingMiddleware:
    def __init__(self, app: ASGIApp, hold: Hold) -> None:
        self.app, self.hold = app, hold

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.hold.picks(scope):
            self.hold.arrived.set()
            await anyio.to_thread.run_sync(self.hold.go_on.wait, HELD_AT_MOST)
        await self.app(scope, receive, send)


def sent_with(scope: Scope, token: str) -> bool:
    return dict(scope["headers"]).get(b"authorization") == f"Bearer {token}".encode()


def appends_by(token: str) -> Picks:
    """The appends sent with `token`."""
    return lambda scope: scope["method"] == "POST" and scope["path"].endswith("/actions") and sent_with(scope, token)


def choices_after_no_words_by(token: str) -> Picks:
    """The questions sent with `token` of the words that may begin an action."""

    def picks(scope: Scope) -> bool:
        asked = parse_qs(scope["query_string"].decode(), keep_blank_values=True)
        return scope["path"].endswith("/choices") and asked.get("words") == [""] and sent_with(scope, token)

    return picks
