"""Deadlines on what a client sends, for the server that serves the API: a request's head arrives within
`ApiSettings.head_seconds` and its body within `ApiSettings.body_seconds`, or the connection is closed. A client that
sends a byte now and then holds no connection for longer.

uvicorn bounds the size of a head and the idle time between requests, but not the time a head or a body takes to
arrive. The protocol here wraps uvicorn's HTTP protocol and follows each request's bounds with an HTTP parser of its
own (httptools, which uvicorn reads requests with): uvicorn's protocol says nothing of them in its public API."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import httptools
import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from api import ApiSettings

# The app answers a body late with 408 itself (`api.app.BodyLimit`): the connection is closed only if no answer
# closed it first, as when the app does not read the body.
ANSWER_SECONDS = 1.0
# How long a server told to stop waits for the requests still open before it ends them: a backstop past an append
# that waits out the store's lock (its lock timeout, tried five times).
STOP_SECONDS = 30
SERVED: Callable[..., asyncio.Protocol] = AutoHTTPProtocol  # what uvicorn serves with by default (`http="auto"`)


class RequestDeadlines(asyncio.Protocol):
    """uvicorn's HTTP protocol, which reads and answers the requests, with a deadline on each request's head and
    body: the connection is closed when one passes."""

    head_seconds: ClassVar[float]
    body_seconds: ClassVar[float]

    def __init__(self, **options: Any) -> None:
        self.inner = SERVED(**options)
        self.parser: httptools.HttpRequestParser | None = httptools.HttpRequestParser(self)
        self.transport: asyncio.BaseTransport | None = None
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.inner.connection_made(transport)
        self._close_in(self.head_seconds)  # the first request's head, from the connection's opening

    def data_received(self, data: bytes) -> None:
        self._follow(data)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    # What the parser calls as it reads a request.
    def on_message_begin(self) -> None:
        if self.deadline is None:
            self._close_in(self.head_seconds)

    def on_headers_complete(self) -> None:
        self._close_in(self.body_seconds + ANSWER_SECONDS)

    def on_message_complete(self) -> None:
        self._stop()

    def _follow(self, data: bytes) -> None:
        if self.parser is None:
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            # uvicorn's protocol answers a request it cannot read, and closes the connection.
            self.parser = None
            self._stop()
        except httptools.HttpParserUpgrade:
            # The app serves no upgraded connection: once this request is answered, nothing more is read on it, so
            # it is closed a head's time later whatever it is sent meanwhile.
            self.parser = None
            self._close_in(self.head_seconds)

    def _close_in(self, seconds: float) -> None:
        self._stop()
        self.deadline = asyncio.get_running_loop().call_later(seconds, self._close)

    def _stop(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _close(self) -> None:
        self.deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


def request_deadlines(settings: ApiSettings) -> type[asyncio.Protocol]:
    """The HTTP protocol to serve an app made with `settings` with (uvicorn's `http`)."""

    class Deadlines(RequestDeadlines):
        head_seconds = settings.head_seconds
        body_seconds = settings.body_seconds

    return Deadlines


def served_as_the_server_serves(settings: ApiSettings) -> dict[str, Any]:
    """The options uvicorn serves an app made with `settings` with, in `evo-ledger serve` and in the tests alike:
    each request's head and body read within the settings' deadlines, a client's address its connection's (no
    header it sends, such as X-Forwarded-For, changes whose it is), and a server told to stop ending the requests
    still open STOP_SECONDS later (`StoppingServer` has the live streams end themselves first)."""
    return {"http": request_deadlines(settings), "proxy_headers": False, "timeout_graceful_shutdown": STOP_SECONDS}


class StoppingServer(uvicorn.Server):
    """uvicorn's server, which tells the app it is stopping (`app.state.stopping`) before it waits for the requests
    still open: the live streams, which never end by themselves, end within a second, and their viewers reconnect,
    to another server where there is one, resuming with `Last-Event-ID`."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event) -> None:
        super().__init__(config)
        self.stopping = stopping

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.stopping.set()
        await super().shutdown(sockets)
