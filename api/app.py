"""`create_app(settings)`: the ledger over HTTP under `/v1`, with roles, limits and live streams."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import anyio.to_thread
from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Mount

from api import conflicts, errors, read_only, schemas
from api.deps import utc_now
from api.open_streams import OpenStreams
from api.personal_data import PersonalDataShown
from api.routes import (
    audits,
    competitions,
    events,
    games,
    health,
    kits,
    pages,
    people,
    recording,
    rules,
    statistics,
)
from api.statistics_kept import KeptStatistics
from api.supervision import CheckpointSigner, LeasedJobs, Supervisor
from api.whole_log_reads import AddressLimit, AuditCache, ReadsAtOnce
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.processes import server_context
from evo_ledger.app.writer import GroupWriter, LedgerProcess, NoWriter, ProcessWriter, Writer
from evo_ledger.settings import Settings, SettingsError
from projections.runner import BackgroundProjection
from projections.store import ReadStore

ADMIN_TOKEN_VARIABLE = "EVO_LEDGER_ADMIN_TOKEN"
CHECKPOINT_SECONDS_VARIABLE = "EVO_LEDGER_CHECKPOINT_SECONDS"
DEFAULT_CHECKPOINT_SECONDS = 300.0


def checkpoint_seconds(text: str) -> float:
    """EVO_LEDGER_CHECKPOINT_SECONDS: a number of seconds, at least one."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 1 <= seconds <= 366 * 24 * 3600:  # also refuses nan
        raise SettingsError(f"{CHECKPOINT_SECONDS_VARIABLE}={text!r}: a number of seconds from 1 to a year")
    return seconds


MAX_BODY_BYTES = 1_000_000
WHOLE_LOG_READS_PER_MINUTE = 30
WHOLE_LOG_READS_AT_ONCE = 4
KITS_PER_CALLER = 20
HEAD_SECONDS = 10.0
BODY_SECONDS = 60.0

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
log = logging.getLogger(__name__)
REQUESTS = logging.getLogger("evo_ledger.requests")


@dataclass(frozen=True)
class ApiSettings:
    """The store (opened read only: the server writes nothing, and answers each write 503 `read_only`), the admin
    token (none: no admin), the largest request body taken, how often streams look for events appended by other
    processes (all of them, on a read-only server), whether the server keeps the read tables up to date itself
    (never on a read-only server: the server that writes the store keeps them), and whether
    appends are recorded by a process of their own, beside the event loop (or by a thread of the server's)."""

    store: Settings = field(default_factory=Settings.from_environment)
    admin_token: str | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    stream_poll_seconds: float = 1.0
    streams_per_client: int = 16
    """The live streams a client (the token it reads with, or else its address) may hold open at once."""
    whole_log_reads_per_minute: int | None = WHOLE_LOG_READS_PER_MINUTE
    """The audits and exports (answers that read a game's whole log) a reader without a token may ask for a minute
    from one address, an audit the server gives again from those it keeps not counted (None: no limit)."""
    whole_log_reads_at_once: int | None = WHOLE_LOG_READS_AT_ONCE
    """The audits and exports the server makes at once, for any reader but the admin (None: no cap): one more is
    refused at once, so that these reads, seconds each on a long game, leave the other endpoints their threads."""
    kits_per_caller: int | None = KITS_PER_CALLER
    """The kits stored on the server a caller (by its address) may hold at once, those the admin removed not
    counted (None: no limit); the admin is held to none."""
    follow_projections: bool = True
    writer_process: bool = True
    worker_threads: int | None = None
    """The threads serving the plain endpoints (None: the server's default, 40)."""
    stream_threads: int = 8
    """The threads the live streams read in, apart from the plain endpoints' threads: however many streams wake at
    once, the plain endpoints keep theirs. Kept below the store's pool of connections, which both share."""
    checkpoint_seconds: float | None = DEFAULT_CHECKPOINT_SECONDS
    """How often the server signs a checkpoint, with a seal key (None: only on demand); EVO_LEDGER_CHECKPOINT_SECONDS
    sets it."""
    tls_authority: bytes | None = None
    """The certificate (PEM) of the authority that signed the server's, served at /ca.crt for the phones to trust;
    None where the server speaks plain http."""
    head_seconds: float = HEAD_SECONDS
    """How long a request's head (its request line and headers) may take to arrive, from its first byte (a
    connection's first request: from the connection's opening); the server that serves the app closes the
    connection beyond (`evo-ledger serve`)."""
    body_seconds: float = BODY_SECONDS
    """How long a request's body may take to arrive whole, from its head: 408 `body_timeout` beyond."""

    @classmethod
    def from_environment(cls) -> ApiSettings:
        every = os.environ.get(CHECKPOINT_SECONDS_VARIABLE)
        return cls(
            store=Settings.from_environment(),
            admin_token=os.environ.get(ADMIN_TOKEN_VARIABLE) or None,
            checkpoint_seconds=checkpoint_seconds(every) if every else DEFAULT_CHECKPOINT_SECONDS,
        )


class Appends:
    """Wakes the streams of a game, and the read tables' runner, when this server appends to it (other servers'
    appends are found by polling)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiting: dict[UUID, set[asyncio.Event]] = {}
        self.projection: BackgroundProjection | None = None

    def appended(self, game_id: UUID) -> None:
        """Called from the thread that appended."""
        if self.projection is not None:
            self.projection.nudge()
        if self.loop is not None and self.waiting.get(game_id):
            self.loop.call_soon_threadsafe(self._wake, game_id)

    def _wake(self, game_id: UUID) -> None:
        for waiter in self.waiting.get(game_id, ()):
            waiter.set()

    async def wait(self, game_id: UUID, seconds: float) -> None:
        waiter = asyncio.Event()
        self.waiting.setdefault(game_id, set()).add(waiter)
        try:
            await asyncio.wait_for(waiter.wait(), timeout=seconds)
        except TimeoutError:
            pass
        finally:
            self.waiting[game_id].discard(waiter)


def create_app(settings: ApiSettings | None = None) -> FastAPI:
    settings = settings or ApiSettings.from_environment()
    appends = Appends()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        appends.loop = asyncio.get_running_loop()
        if settings.worker_threads is not None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = settings.worker_threads
        app.state.stream_threads = anyio.CapacityLimiter(settings.stream_threads)
        app.state.ledger = ledger = Ledger(settings.store)
        # The fork server that starts both processes imports what they run once, before the first starts.
        server_context(LedgerProcess.__module__, BackgroundProjection.__module__)
        app.state.writer = writer = start_writer(settings, ledger, lambda receipt: appends.appended(receipt.game_id))
        app.state.read_store = read_store = ReadStore(settings.store)
        app.state.statistics = KeptStatistics()
        writes = not settings.store.read_only
        projection = BackgroundProjection(settings.store) if settings.follow_projections and writes else None
        appends.projection = projection
        app.state.supervisor = supervisor = Supervisor(writer, projection, replicated=not writes)
        watching = asyncio.create_task(supervisor.run())
        signer = (
            CheckpointSigner(ledger, settings.checkpoint_seconds)
            if settings.store.seal_key is not None and settings.checkpoint_seconds is not None and writes
            else None
        )
        app.state.checkpoints = signer
        app.state.jobs = jobs = LeasedJobs(settings.store, supervisor, signer)
        await jobs.start()
        try:
            yield
        finally:
            log.info("stopping: the writing process and the read tables' process are closed")
            watching.cancel()
            await jobs.aclose()
            await writer.aclose()
            read_store.close()
            ledger.close()

    app = FastAPI(
        title="evo-ledger",
        version="1",
        description="Record, replay, stream and audit games of Evo.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        routes=served_routes(),
    )
    app.state.settings = settings
    app.state.appends = appends
    app.state.open_streams = OpenStreams(settings.streams_per_client)
    app.state.audits = AuditCache()
    app.state.whole_log_reads = AddressLimit(settings.whole_log_reads_per_minute)
    app.state.whole_log_reads_at_once = ReadsAtOnce(settings.whole_log_reads_at_once)
    app.state.clock = utc_now  # what a broadcast's delay is counted back from
    app.state.stopping = threading.Event()  # set by the server as it stops: the live streams end
    errors.install(app)
    conflicts.install(app)
    app.openapi = schemas.with_models(app.openapi, games.BODIES_READ)  # type: ignore[method-assign]
    app.add_middleware(PersonalDataShown)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, seconds=settings.body_seconds)
    app.add_middleware(NotKeptForATokensReader)
    if settings.store.read_only:
        read_only.install(app)
    if REQUESTS.isEnabledFor(logging.INFO):
        app.add_middleware(RequestLog)
    return app


def served_routes() -> list[BaseRoute]:
    """The routes in the order a request is matched against them: the API's, which take nearly every request,
    then health, the pages and their files; FastAPI's schema comes after. Each is the route its router made, served
    as it is: an included router's routes would be made again for every app, at its first requests. So the app's
    own defaults (`dependencies`, `dependency_overrides`, a router's startup handlers) do not reach them."""
    routers = (games, events, audits, statistics, rules, recording, kits, competitions, people, health, pages)
    files = Mount("/static", app=pages.static_files(), name="static")
    return [*(route for module in routers for route in module.router.routes), files]


class NotKeptForATokensReader:
    """An answer to a request that carries a token is made for that token's reader: `Cache-Control: no-store` tells
    the browser, and any cache between, to keep none of it for the next reader of the same address."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or ()) if scope["type"] == "http" else {}
        if b"authorization" not in headers:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(name, value) for name, value in message.get("headers", []) if name.lower() != b"cache-control"]
                message["headers"] = [*kept, (b"cache-control", b"no-store")]
            await send(message)

        await self.app(scope, receive, sending)


class RequestLog:
    """Logs each request once answered: its method, path, status and time."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            took = (time.perf_counter() - started) * 1000
            REQUESTS.info("%s %s %d %.1f ms", scope["method"], scope["path"], status[0], took)


def start_writer(settings: ApiSettings, ledger: Ledger, committed: Callable[[Receipt], None]) -> Writer:
    if settings.store.read_only:
        return NoWriter()
    if settings.writer_process:
        return ProcessWriter(LedgerProcess(settings.store), committed)
    return GroupWriter(ledger, committed)


class BodyLimit:
    """Refuses a request body larger than `max_bytes` with 413, whether or not it says its length, and one that has
    not arrived whole `seconds` after its head with 408 (the connection closed after the answer)."""

    def __init__(self, app: ASGIApp, max_bytes: int, seconds: float = BODY_SECONDS) -> None:
        self.app, self.max_bytes, self.seconds = app, max_bytes, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and not declared.isdigit():  # bytes: ASCII digits only
            message = f"header.Content-Length: {declared[:40]!r} is not a number of bytes"
            await self._refuse(send, 400, "invalid_request", message)
            return
        if declared is not None and too_large(declared, self.max_bytes):
            await self._refuse(send)
            return
        received, whole = 0, False
        deadline = asyncio.get_running_loop().time() + self.seconds

        async def counted() -> Message:
            nonlocal received, whole
            if whole:  # what follows the body (a client gone) is waited for as long as the answer lasts
                return await receive()
            message = await body_in_time(receive, deadline, self.seconds)
            whole = message["type"] != "http.request" or not message.get("more_body", False)
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send, status: int = 413, code: str = "body_too_large", message: str = "") -> None:
        body = errors.problem(status, code, message or f"the request body is over {self.max_bytes} bytes").body
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def body_in_time(receive: Receive, deadline: float, seconds: float) -> Message:
    """The next part of a request's body, refused with 408 if it has not come by `deadline`: raised as an HTTP
    error, which the app answers also where it reads the body for a parameter."""
    try:
        async with asyncio.timeout_at(deadline):
            return await receive()
    except TimeoutError:
        message = f"the request's body did not arrive whole within {seconds:g} seconds of its head"
        raise HTTPException(408, message, headers={"Connection": "close"}) from None


def too_large(digits: bytes, limit: int) -> bool:
    """Whether a length in decimal digits is over `limit`, however many digits it has (`int` takes at most 4,300)."""
    significant = digits.lstrip(b"0")
    return len(significant) > len(str(limit)) or int(significant or b"0") > limit


class BodyTooLarge(Exception):
    pass
