"""The runner: follows the global log and keeps the read tables up to date with it.

`Projector.catch_up` reads the log in pages from the read tables' position and applies each page in one
transaction with the position it reaches. An event the tables cannot apply (a game stored before its seats had to
be different players, an event the read model fails on) is set aside: the page's events are applied again one a
transaction up to it, it is recorded in `read_set_aside` with the position that passes it, and the events after it
are applied. `follow` goes on as events arrive: on PostgreSQL through the library's projection runner (its
subscription is woken by the database's notifications), the events delivered within LIVE_DELAY of each other in
one transaction, set aside alike; on SQLite by polling, and LIVE_DELAY after its server nudges it after an
append (the appends of that moment read in one page). A runner killed at any moment leaves the tables at a
committed position, from which the next one goes on; `rebuild` drops them, with what was set aside, and folds the
whole log again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, NamedTuple, Protocol, TypeVar
from uuid import UUID

import eventsourcing.persistence
import psycopg
import sqlalchemy.exc
from eventsourcing.persistence import Notification, Tracking, TrackingRecorder
from eventsourcing.projection import BaseProjectionRunner, Projection
from eventsourcing.utils import get_topic
from sqlalchemy import insert

from evo_ledger.app.ledger import Ledger, LedgerApplication
from evo_ledger.app.processes import end_process, run_beside_server, server_context
from evo_ledger.game.aggregate import kit_of
from evo_ledger.rules import get_ruleset
from evo_ledger.settings import Settings
from evo_ledger.store.recorders import LedgerPostgresApplicationRecorder
from projections import PAGE
from projections.readmodel import Batch, ReadModel
from projections.schema import SET_ASIDE
from projections.store import APPLICATION, PositionMoved, ReadStore

POLL_SECONDS = 0.5
LIVE_DELAY = 0.05  # seconds an event delivered live may wait to be written with those after it
LIVE_BATCH = 1000
RETRY_SECONDS = 1.0
# Beside a server, the read tables give way to the appends: under a load that keeps every core busy they fall
# behind, and catch up as it eases (pays for: bench.api_speed HTTP, 32 clients).
READ_TABLES_NICENESS = 10
# Errors of a database rather than of an event (a server gone for a moment, a lock waited for too long): the runner
# stops on them, and on any that dropped its connection, and starts again from its position; no event is set aside
# for them (`database_unavailable`).
DATABASE_UNAVAILABLE = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    eventsourcing.persistence.OperationalError,
    eventsourcing.persistence.InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    OSError,
    MemoryError,
)
Progress = Callable[[int, int], None]
log = logging.getLogger(__name__)


def database_unavailable(error: BaseException) -> bool:
    """Whether `error` is the database's rather than an event's: one of DATABASE_UNAVAILABLE, or one on which the
    connection was dropped (a transaction the database ended for being left idle, a server shutting down)."""
    dropped = isinstance(error, sqlalchemy.exc.DBAPIError) and error.connection_invalidated
    return dropped or isinstance(error, DATABASE_UNAVAILABLE)


class Logged(Protocol):
    """An event of the log as the runner applies it: its position in the log, its game (originator) and its
    version there."""

    @property
    def id(self) -> int: ...

    @property
    def originator_id(self) -> Any: ...

    @property
    def originator_version(self) -> int: ...


class Delivered(NamedTuple):
    """An event a subscription delivered, with its notification id."""

    event: Any
    id: int

    @property
    def originator_id(self) -> Any:
        return self.event.originator_id

    @property
    def originator_version(self) -> int:
        return int(self.event.originator_version)


L = TypeVar("L", bound=Logged)
Written = Callable[[Batch], None]


class StopSignal(Protocol):
    """A thread's or a process's event: set when following should stop."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class Projector:
    """Applies the ledger's log to the read tables (one projector per process: it keeps games in memory)."""

    def __init__(self, ledger: Ledger, store: ReadStore, page: int = PAGE) -> None:
        self.ledger, self.store, self.page = ledger, store, page
        self.model = ReadModel(self._kit_of_game, self._options_of_game)
        self.position = store.position()
        self.events_set_aside = 0
        """How many events this runner set aside."""

    def catch_up(self, progress: Progress | None = None) -> int:
        """Every event stored so far applied; returns how many were read. `progress(position, last)` is told after
        each page."""
        last = self.ledger.store.recorder.max_notification_id() or 0
        read = 0
        while True:
            page = self._notifications_after(self.position)
            if not page:
                return read
            self._apply(page)
            read += len(page)
            if progress is not None:
                progress(self.position, max(last, self.position))

    def _notifications_after(self, position: int) -> Sequence[Notification]:
        """The next page of the log, its originator ids as text where the store gives them so (a fast path)."""
        recorder = self.ledger.store.recorder
        as_text = getattr(recorder, "select_notifications_after", None)
        if as_text is not None:
            page: Sequence[Notification] = as_text(position, self.page)
            return page
        return recorder.select_notifications(start=position, limit=self.page, inclusive_of_start=False)

    def apply_events(self, delivered: Sequence[tuple[Any, int]]) -> None:
        """Events delivered by a subscription, with their notification ids, in one transaction (one the tables
        cannot apply set aside); those already applied change nothing. Where the delivered events do not follow
        the tables' position (another runner moved the tables on, or ids were left unused), what lies between is
        read from the log itself."""
        fresh = [
            Delivered(event, notification_id) for event, notification_id in delivered if notification_id > self.position
        ]
        if not fresh:
            return
        if fresh[0].id != self.position + 1 or not self._apply_setting_aside(fresh, self._delivered_written):
            self.catch_up()

    def _apply(self, page: Sequence[Notification]) -> None:
        self._apply_setting_aside(page, self._notifications_written)

    def _notifications_written(self, page: Sequence[Notification]) -> Written:
        def handle_all(batch: Batch) -> None:
            to_domain_event, wants, handle = (
                self.ledger.store.mapper.to_domain_event,
                self.model.wants,
                self.model.handle,
            )
            model = self.model
            for notification in page:
                topic = notification.topic
                event = to_domain_event(notification) if wants(topic) else None
                model.position = notification.id
                handle(batch, topic, str(notification.originator_id), notification.originator_version, event)

        return handle_all

    def _delivered_written(self, delivered: Sequence[Delivered]) -> Written:
        def handle_all(batch: Batch) -> None:
            for event, notification_id in delivered:
                topic = get_topic(type(event))
                self.model.position = notification_id
                self.model.handle(batch, topic, str(event.originator_id), event.originator_version, event)

        return handle_all

    def _apply_setting_aside(self, page: Sequence[L], written: Callable[[Sequence[L]], Written]) -> bool:
        """`page` applied in one transaction; if that fails, its events up to the first that fails one a
        transaction, that one set aside, and the rest of the page likewise. False if another runner moved the
        tables on meanwhile (this one goes on from where they are)."""
        rest: Sequence[L] | None = page
        while rest:
            try:
                return self._advance(rest[-1].id, written(rest))
            except Exception as error:
                if database_unavailable(error):
                    raise
                rest = self._apply_until_set_aside(rest, written)
        return rest is not None

    def _apply_until_set_aside(
        self, page: Sequence[L], written: Callable[[Sequence[L]], Written]
    ) -> Sequence[L] | None:
        """The page's events one a transaction up to the first that fails, which is set aside: the events after it
        (None if another runner moved the tables on)."""
        for index, logged in enumerate(page):
            try:
                if not self._advance(logged.id, written(page[index : index + 1])):
                    return None
            except Exception as error:
                if database_unavailable(error):
                    raise
                return page[index + 1 :] if self._set_aside(logged, error) else None
        return []

    def _set_aside(self, logged: Logged, error: Exception) -> bool:
        """The event recorded as set aside, in the transaction that moves the position past it. Only the error's
        type is kept: its message may quote what a game keeps hidden."""
        record = {
            "position": logged.id,
            "game_id": str(logged.originator_id),
            "event": logged.originator_version,
            "error": type(error).__name__,
        }

        def write(batch: Batch) -> None:
            batch.connection.execute(insert(SET_ASIDE).values(record))

        if not self._advance(logged.id, write):
            return False
        self.events_set_aside += 1
        log.error(
            "the read tables cannot apply event %d of game %s, at position %d of the log: it is set aside",
            logged.originator_version,
            record["game_id"],
            logged.id,
            exc_info=error,
        )
        return True

    def _advance(self, position: int, write: Written) -> bool:
        """`write` applied in one transaction with the position it reaches. If another runner moved the tables
        on meanwhile, nothing is written and this one goes on from where they are (False)."""
        try:
            with self.store.advancing(self.position) as advance:
                batch = Batch(advance.connection)
                write(batch)
                self.model.finish(batch)
                advance.position = position
        except PositionMoved:
            self.model.forget()
            self.position = self.store.position()
            return False
        except BaseException:
            self.model.forget()
            raise
        self.position = position
        return True

    def _kit_of_game(self, game_id: str) -> Any:
        [started] = self.ledger.queries.game_events(UUID(game_id), up_to=1)
        return kit_of(get_ruleset(started.ruleset), started.kit_document, started.kit_hash)

    def _options_of_game(self, game_id: str) -> dict[str, Any]:
        [started] = self.ledger.queries.game_events(UUID(game_id), up_to=1)
        return dict(started.options)

    def follow(self, stop: StopSignal, poll_seconds: float = POLL_SECONDS) -> None:
        """Catch up, then keep up with new events until `stop` is set."""
        self.catch_up()
        if self.store.settings.is_postgres:
            self._follow_notifications(stop)
        else:
            while not stop.wait(poll_seconds):
                time.sleep(LIVE_DELAY)  # the appends that follow a nudge come in the same page
                self.catch_up()

    def _follow_notifications(self, stop: StopSignal) -> None:
        view = ReadPosition(self)
        projection = LiveProjection(view)
        with BaseProjectionRunner(
            projection=projection,
            application_class=followed_ledger(self.store.settings),
            tracking_recorder=view,
            topics=(),
        ) as runner:
            looked, seen = time.monotonic(), self.position
            while not stop.is_set():
                runner.run_forever(timeout=LIVE_DELAY)
                projection.flush()
                if runner.is_interrupted.is_set():
                    return
                if time.monotonic() - looked >= POLL_SECONDS:
                    self._wake_if_stalled(runner.app.recorder, seen)
                    looked, seen = time.monotonic(), self.position

    def _wake_if_stalled(self, recorder: object, seen: int) -> None:
        """The runner told to read the log again when the tables have not moved since they were at `seen` and the
        log holds events past them: an append whose notification it missed would otherwise wait for the next
        append. Tables that are moving are left to catch up."""
        assert isinstance(recorder, LedgerPostgresApplicationRecorder)
        if self.position == seen and (recorder.max_notification_id() or 0) > self.position:
            recorder.wake_followers()


class ReadPosition(TrackingRecorder):
    """The read tables' position, as the library's runner asks for it."""

    def __init__(self, projector: Projector) -> None:
        self.projector = projector

    def insert_tracking(self, tracking: Tracking) -> None:
        raise NotImplementedError("the read tables' position is written with their rows")

    def max_tracking_id(self, application_name: str) -> int | None:
        return self.projector.position or None


class LiveProjection(Projection[ReadPosition]):
    """The events the library's runner delivers, written in batches: those that arrive within LIVE_DELAY of the
    first go in one transaction with their position (one transaction an event had the database sync to disk for
    each of them). An event not yet written when the runner stops is delivered again from the position the
    tables hold."""

    name = "read_tables"

    def __init__(self, view: ReadPosition) -> None:
        super().__init__(view)
        self._pending: list[tuple[Any, int]] = []
        self._since = 0.0
        self._lock = threading.Lock()

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self._lock:
            if not self._pending:
                self._since = time.monotonic()
            self._pending.append((domain_event, tracking.notification_id))
            if len(self._pending) >= LIVE_BATCH or time.monotonic() - self._since >= LIVE_DELAY:
                self._write_pending()

    def flush(self) -> None:
        """Write what waits (the follower calls this every LIVE_DELAY, for the last events of a burst)."""
        with self._lock:
            self._write_pending()

    def _write_pending(self) -> None:
        pending, self._pending = self._pending, []
        if pending:
            self.view.projector.apply_events(pending)


def followed_ledger(settings: Settings) -> type[LedgerApplication]:
    """The ledger as the library's runner makes it (from an environment it does not need here)."""

    class FollowedLedger(LedgerApplication):
        name = APPLICATION

        def __init__(self, env: Any = None) -> None:
            super().__init__(settings)

    return FollowedLedger


def rebuild(ledger: Ledger, store: ReadStore, progress: Progress | None = None, page: int = PAGE) -> int:
    """The read tables dropped and made again from the whole log; returns how many events were read."""
    store.reset()
    return Projector(ledger, store, page).catch_up(progress)


class BackgroundProjection:
    """The runner in a process of its own, beside a server: follows the log until stopped, starting again after an
    error (the database gone for a moment). A process, not a thread, so that it does not take turns with the
    server's event loop for the interpreter lock; it stops too when the server is gone, killed or not."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process: BaseProcess | None = None
        self.server_end: Connection | None = None
        self.sending = threading.Lock()

    def start(self) -> None:
        """The process started (again, in place of one that ended)."""
        if self.server_end is not None:
            self.server_end.close()
        context = server_context(__name__)
        process_end, self.server_end = context.Pipe(duplex=False)
        os.set_blocking(self.server_end.fileno(), False)  # a nudge never holds up the server
        self.process = context.Process(
            target=follow_until_stopped, args=(self.settings, process_end), name="evo-ledger-projections"
        )
        self.process.start()
        process_end.close()

    def nudge(self) -> None:
        """Wakes the runner to read the log now rather than at its next poll (on SQLite: PostgreSQL notifies it)."""
        if self.server_end is None or self.settings.is_postgres:
            return
        # A full pipe holds a nudge already; a closed one, a process gone.
        with self.sending, contextlib.suppress(OSError):
            self.server_end.send_bytes(b"")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def exitcode(self) -> int | None:
        return self.process.exitcode if self.process is not None else None

    def stop(self) -> None:
        if self.server_end is not None:
            self.server_end.close()
        if self.process is not None:
            end_process(self.process, timeout=10)


class ServerGone:
    """Set once the server's end of the pipe is closed: by `BackgroundProjection.stop`, or as the server ends. The
    server writes only nudges, each of which ends a wait early without setting it."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.gone = False

    def is_set(self) -> bool:
        return self.wait(0)

    def wait(self, timeout: float | None = None) -> bool:
        if not self.gone and self.connection.poll(timeout):
            self.gone = not self._nudges_read()
        return self.gone

    def _nudges_read(self) -> bool:
        """Reads the nudges waiting: False once the server's end is closed."""
        try:
            while self.connection.poll(0):
                self.connection.recv_bytes()
        except (EOFError, OSError):
            return False
        return True


def follow_until_stopped(settings: Settings, server: Connection) -> None:
    run_beside_server(niceness=READ_TABLES_NICENESS)
    stop_requested = ServerGone(server)
    while not stop_requested.is_set():
        try:
            ledger, store = Ledger(settings), ReadStore(settings)
            try:
                Projector(ledger, store).follow(stop_requested)
            finally:
                store.close()
                ledger.close()
        except Exception:
            log.exception("the projections stopped on an error; starting again")
            stop_requested.wait(RETRY_SECONDS)


def wait_until(store: ReadStore, position: int, timeout: float) -> bool:
    """Whether the read tables reached `position` within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = 0.01
    while store.position() < position:
        if time.monotonic() >= deadline:
            return False
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 0.2)
    return True
