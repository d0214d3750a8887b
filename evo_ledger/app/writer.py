"""Group commit: appends from many callers, committed together by one thread.

Each caller hands its append over and gets a future; the writer takes every append waiting when its last commit
ended and stores them in one transaction (one sync to disk), so that concurrent recorders share the cost of
durability. A future is answered only once its events are committed, so an acknowledged append is never lost.

The writer records its groups through a ledger in this process, or through a `LedgerProcess`: a ledger in a
process of its own, so that the rules, hashes, encoding and SQL of appends run beside a server's event loop
instead of taking turns with it for the interpreter lock.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import queue
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import closing, suppress
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, NamedTuple, Protocol, Union, cast
from uuid import UUID

from evo_ledger.app.competitions import GameEntry
from evo_ledger.app.ledger import AppendRequest, Idempotency, Ledger, Outcome, Receipt
from evo_ledger.app.processes import end_process, run_beside_server, server_context, settle_collector
from evo_ledger.rules.base import OptionValue
from evo_ledger.settings import Settings

MAX_GROUP = 64
log = logging.getLogger(__name__)
# Groups sent to a writing process before the first is answered: it records the next as soon as one is committed.
IN_FLIGHT = 2

Answer = Future[Receipt] | asyncio.Future[Receipt]
Written = Union["AppendRequest", "NewGame"]
Waiting = tuple["Written", Answer]
SentGroup = Sequence[tuple["Written", "asyncio.Future[Receipt]"]]


@dataclass(frozen=True)
class NewGame:
    """A game to create (`Commands.create_game`), sent to a writer like an append."""

    ruleset: str | None
    kit: str
    players: Sequence[tuple[str, str | None]]
    options: Mapping[str, OptionValue]
    recorder_token: str
    seat_tokens: Mapping[str, str] | None = None
    reveal_at_end: bool = True
    competition: GameEntry | None = None
    """The competition the game is entered in, in the game's own transaction (`Competitions.entering`)."""

    def maker(self, ledger: Ledger) -> Callable[[], list[Any]]:
        """What makes the game and its access for `ledger` to store (`Commands.new_game`), and the competition's
        record it is entered in, if any."""
        make = partial(
            ledger.commands.new_game,
            self.ruleset,
            self.kit,
            self.players,
            self.options,
            self.recorder_token,
            self.seat_tokens,
            reveal_at_end=self.reveal_at_end,
        )
        if self.competition is None:
            return make
        return partial(ledger.competitions.entering, self.competition, make)


class Writer(Protocol):
    """What a server writes through: a receipt for each append or new game, and a close that answers what is
    waiting."""

    async def append(self, request: AppendRequest) -> Receipt: ...

    async def create(self, game: NewGame) -> Receipt: ...

    async def aclose(self) -> None: ...

    def health(self) -> dict[str, Any]:
        """Its state (`running`, `restarting`, `down`, or `read-only` where it writes nothing) and its process's
        id, if it has one."""

    def supervise(self) -> None:
        """Called on the event loop now and then: a writing process found ended is started again."""


class ReadOnlyServer(RuntimeError):
    """A write sent to a server that serves its store read only (`evo-ledger serve --read-only`)."""


class NoWriter:
    """The writer of a server that serves its store read only: it writes nothing, and refuses each write."""

    async def append(self, request: AppendRequest) -> Receipt:
        raise ReadOnlyServer(READ_ONLY_REFUSAL)

    async def create(self, game: NewGame) -> Receipt:
        raise ReadOnlyServer(READ_ONLY_REFUSAL)

    async def aclose(self) -> None:
        """Nothing to close."""

    def health(self) -> dict[str, Any]:
        return {"state": "read-only", "pid": None}

    def supervise(self) -> None:
        """Nothing to start again."""


READ_ONLY_REFUSAL = "this server serves a read-only copy of the ledger: send writes to a server that writes"


class GroupWriter:
    """Owns the thread that commits appends and new games to `ledger`; `committed` is called with each receipt it
    gave."""

    def __init__(
        self, ledger: Ledger, committed: Callable[[Receipt], None] = lambda _: None, max_group: int = MAX_GROUP
    ) -> None:
        self.ledger, self.committed, self.max_group = ledger, committed, max_group
        self._waiting: queue.SimpleQueue[Waiting | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="evo-ledger-writer", daemon=True)
        self._closed = False
        self._thread.start()

    def submit(self, request: AppendRequest) -> Future[Receipt]:
        if self._closed:
            raise RuntimeError("the writer is closed")
        future: Future[Receipt] = Future()
        self._waiting.put((request, future))
        return future

    async def append(self, request: AppendRequest) -> Receipt:
        """The receipt, from an event loop: the loop is woken once for all the answers of a group."""
        return await self._written(request)

    async def create(self, game: NewGame) -> Receipt:
        return await self._written(game)

    async def _written(self, item: Written) -> Receipt:
        if self._closed:
            raise RuntimeError("the writer is closed")
        answer: asyncio.Future[Receipt] = asyncio.get_running_loop().create_future()
        self._waiting.put((item, answer))
        return await answer

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    def health(self) -> dict[str, Any]:
        return {"state": "running" if self._thread.is_alive() else "down", "pid": None}

    def supervise(self) -> None:
        """A thread of the server's own writes: nothing to start again."""

    def close(self) -> None:
        """Commit what is waiting, then stop the thread."""
        if not self._closed:
            self._closed = True
            self._waiting.put(None)
            self._thread.join()

    def _run(self) -> None:
        while True:
            group, stop = self._next_group()
            if group:
                self._commit(group)
            if stop:
                return

    def _next_group(self) -> tuple[list[Waiting], bool]:
        first = self._waiting.get()
        if first is None:
            return [], True
        group = [first]
        while len(group) < self.max_group:
            try:
                waiting = self._waiting.get_nowait()
            except queue.Empty:
                break
            if waiting is None:
                return group, True
            group.append(waiting)
        return group, False

    def _commit(self, group: Sequence[Waiting]) -> None:
        outcomes = carried_out(self.ledger, [item for item, _ in group])
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Receipt], Outcome]]] = {}
        for (_, answer), outcome in zip(group, outcomes, strict=True):
            if isinstance(answer, asyncio.Future):
                by_loop.setdefault(answer.get_loop(), []).append((answer, outcome))
            else:
                settle(answer, outcome)
            if not isinstance(outcome, Exception):
                self.committed(outcome)
        for loop, answers in by_loop.items():
            with suppress(RuntimeError):  # a loop closed meanwhile has no one left to answer
                loop.call_soon_threadsafe(settle_all, answers)


def settle(answer: Answer, outcome: Outcome) -> None:
    if answer.done():  # an awaiting caller gone away
        return
    if isinstance(outcome, Exception):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)


def settle_all(answers: Sequence[tuple[asyncio.Future[Receipt], Outcome]]) -> None:
    for answer, outcome in answers:
        settle(answer, outcome)


class WriterProcessLost(RuntimeError):
    """The process recording appends ended before it answered: the group's appends may or may not be stored."""


class LedgerProcess:
    """A ledger in a process of its own that records groups of appends and new games for this one: `send` a
    group, then `receive` its outcomes once `fileno()` is readable (or `record_many` for both, waiting). A
    process that ended is replaced by `restart`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._process, self._connection = self._start()
        self._unanswered: deque[Sequence[Written]] = deque()

    def record_many(self, requests: Sequence[Written]) -> list[Outcome]:
        self.send(requests)
        return self.receive()

    def send(self, requests: Sequence[Written]) -> None:
        try:
            self._connection.send_bytes(pickle.dumps([sent(item) for item in requests], pickle.HIGHEST_PROTOCOL))
        except OSError as lost:
            raise WriterProcessLost("the writing process ended: the appends were not sent") from lost
        self._unanswered.append(requests)

    def receive(self) -> list[Outcome]:
        """The outcomes of the oldest group sent and not yet answered."""
        try:
            replies: list[Any] = pickle.loads(self._connection.recv_bytes())
        except (EOFError, OSError) as lost:
            raise WriterProcessLost("the writing process ended: the appends may or may not be stored") from lost
        requests = self._unanswered.popleft()
        return [replied(item, reply) for item, reply in zip(requests, replies, strict=True)]

    def fileno(self) -> int:
        return self._connection.fileno()

    @property
    def pid(self) -> int:
        pid = self._process.pid
        assert pid is not None
        return pid

    @property
    def alive(self) -> bool:
        return self._process.is_alive()

    def restart(self) -> None:
        """A new process in place of this one, which is given up for lost (killed if it still runs)."""
        if self._process.is_alive():
            self._process.kill()
        with suppress(OSError):
            self._stop()
        self._process, self._connection = self._start()
        self._unanswered.clear()

    def close(self) -> None:
        with suppress(OSError):
            self._connection.send_bytes(CLOSE)
        self._stop()

    def _start(self) -> tuple[multiprocessing.process.BaseProcess, Connection]:
        context = server_context(__name__)
        ours, theirs = context.Pipe()
        process = context.Process(target=record_appends, args=(self.settings, theirs), name="evo-ledger-writer")
        process.start()
        theirs.close()
        try:
            started = ours.recv()
        except EOFError:
            process.join()
            raise WriterProcessLost(f"the writing process ended as it started (exit code {process.exitcode})") from None
        if started is not None:
            process.join()
            raise restored(started)
        return process, ours

    def _stop(self) -> None:
        end_process(self._process, timeout=30)
        self._connection.close()


class ProcessWriter:
    """Group commit from an event loop through a `LedgerProcess`, without a thread: while the process records
    the groups sent to it (IN_FLIGHT at most), the appends that arrive wait; each answer settles its group and
    sends the next."""

    def __init__(
        self, process: LedgerProcess, committed: Callable[[Receipt], None] = lambda _: None, max_group: int = MAX_GROUP
    ) -> None:
        self.process, self.committed, self.max_group = process, committed, max_group
        self._waiting: list[tuple[Written, asyncio.Future[Receipt]]] = []
        self._sent: deque[list[tuple[Written, asyncio.Future[Receipt]]]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._down = False  # the process ended and could not be started again
        self._idle = asyncio.Event()
        self._idle.set()

    async def append(self, request: AppendRequest) -> Receipt:
        return await self._written(request)

    async def create(self, game: NewGame) -> Receipt:
        return await self._written(game)

    async def _written(self, item: Written) -> Receipt:
        loop = self._on_loop()
        if self._down:
            self._restart()
            if self._down:
                raise WriterProcessLost("the writing process could not be started again")
        answer: asyncio.Future[Receipt] = loop.create_future()
        self._waiting.append((item, answer))
        if len(self._sent) < IN_FLIGHT:
            self._send_next()
        return await answer

    async def aclose(self) -> None:
        """Answer the appends sent and waiting, then close the process."""
        await self._idle.wait()
        if self._loop is not None and not self._down:
            self._loop.remove_reader(self.process.fileno())
        if not self._down:
            self.process.close()

    def supervise(self) -> None:
        self._on_loop()
        if not self._down and not self.process.alive:
            self._lost(WriterProcessLost("the writing process ended"), list(self._sent))

    def _on_loop(self) -> asyncio.AbstractEventLoop:
        """The running loop, on which the process's answers are watched from the first call made on it."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._watch()
        return self._loop

    def health(self) -> dict[str, Any]:
        if self._down:
            return {"state": "down", "pid": None}
        alive = self.process.alive
        return {"state": "running" if alive else "restarting", "pid": self.process.pid}

    def _send_next(self) -> None:
        group, self._waiting = self._waiting[: self.max_group], self._waiting[self.max_group :]
        try:
            self.process.send([item for item, _ in group])
        except WriterProcessLost as lost:
            self._lost(lost, [*self._sent, group])
            return
        self._sent.append(group)
        self._idle.clear()

    def _answered(self) -> None:
        group = self._sent.popleft() if self._sent else []
        try:
            outcomes: list[Outcome] = self.process.receive()
        except WriterProcessLost as lost:
            self._lost(lost, [group, *self._sent])
        else:
            self._settle(group, outcomes)
        while self._waiting and len(self._sent) < IN_FLIGHT:
            self._send_next()
        if not self._sent:
            self._idle.set()

    def _lost(self, lost: WriterProcessLost, groups: Sequence[SentGroup]) -> None:
        """Every group sent to a process that ended, and not answered, is answered `lost` (none is left to wait
        for an answer that a new process would never give); a new process takes its place."""
        self._sent.clear()
        for group in groups:
            self._settle(group, [lost] * len(group))
        self._idle.set()
        self._restart()

    def _settle(self, group: SentGroup, outcomes: list[Outcome]) -> None:
        for (_, answer), outcome in zip(group, outcomes, strict=True):
            settle(answer, outcome)
            if not isinstance(outcome, Exception):
                self.committed(outcome)

    def _restart(self) -> None:
        """A new process in place of one that ended; if it cannot start, the next append tries again."""
        assert self._loop is not None
        if not self._down:
            self._loop.remove_reader(self.process.fileno())
        log.warning("the writing process ended: starting it again")
        try:
            self.process.restart()
        except Exception:
            log.exception("the writing process could not be started again")
            self._down = True
            return
        self._down = False
        self._watch()

    def _watch(self) -> None:
        """The process's answers read as they come. Some loops (uvloop) make the pipe non-blocking when they watch
        it, and a message larger than the pipe's buffer would then be sent or read in part: it is made blocking
        again, so that every message crosses whole (the process reads each request at once, whatever its size)."""
        assert self._loop is not None
        self._loop.add_reader(self.process.fileno(), self._answered)
        os.set_blocking(self.process.fileno(), True)


def record_appends(settings: Settings, connection: Connection) -> None:
    """The writing process: says it has started (None, or the error that stopped it), then records each group of
    appends it is sent and answers with their outcomes, until it is sent None or its parent is gone."""
    run_beside_server()
    try:
        ledger = Ledger(settings)
    except Exception as error:
        connection.send(portable(error))
        return
    settle_collector()
    connection.send(None)
    with closing(ledger):
        while True:
            try:
                sent_items = pickle.loads(connection.recv_bytes())
            except EOFError:
                return
            if sent_items is None:
                return
            requests = [received(item) for item in sent_items]
            replies = [
                reply(item, outcome) for item, outcome in zip(requests, carried_out(ledger, requests), strict=True)
            ]
            connection.send_bytes(pickle.dumps(replies, pickle.HIGHEST_PROTOCOL))


def carried_out(ledger: Ledger, items: Sequence[Written]) -> list[Outcome]:
    """Each item's outcome, in order: the appends and the new games committed together, in one transaction."""
    try:
        return ledger.commands.record_many(
            [item if isinstance(item, AppendRequest) else item.maker(ledger) for item in items]
        )
    except Exception as error:  # the ledger answers each item itself; this is a failure of the whole
        return [error] * len(items)


# Appends and their receipts cross the pipe as tuples of plain values, which pickle handles in C, where dataclasses
# and a game's UUID would go through copyreg on both sides of the pipe (pays for: bench.api_speed HTTP, 32 clients).
# A receipt for an append carries only what its request does not say.
CLOSE = pickle.dumps(None)
SentAppend = tuple[bytes, Sequence[Any], int | None, tuple[str, str] | None, str | None, bool, str | None]


def sent(item: Written) -> SentAppend | NewGame:
    if isinstance(item, NewGame):
        return item
    idempotency = (item.idempotency.key, item.idempotency.request) if item.idempotency is not None else None
    return (
        item.game_id.bytes,
        item.actions,
        item.expected_version,
        idempotency,
        item.recorder_token,
        item.token_required,
        item.entered_at,
    )


def received(item: SentAppend | NewGame) -> Written:
    if isinstance(item, NewGame):
        return item
    game_id, actions, expected_version, idempotency, token, token_required, entered_at = item
    key = Idempotency(*idempotency) if idempotency is not None else None
    return AppendRequest(UUID(bytes=game_id), actions, expected_version, key, token, token_required, entered_at)


def reply(item: Written, outcome: Outcome) -> Any:
    """The outcome as it is sent back: an append's receipt as its version and head hash."""
    if isinstance(outcome, Receipt) and isinstance(item, AppendRequest) and outcome.game_id == item.game_id:
        return outcome.version, outcome.head_hash
    return portable(outcome)


def replied(item: Written, sent_back: Any) -> Outcome:
    if type(sent_back) is tuple and isinstance(item, AppendRequest):  # a PortableError is a tuple of another type
        return Receipt(item.game_id, *sent_back)
    return cast(Outcome, restored(sent_back))


class PortableError(NamedTuple):
    """An exception as it crosses between processes: its class, arguments and attributes, whatever its
    `__init__` takes."""

    kind: type[BaseException]
    args: tuple[Any, ...]
    attributes: dict[str, Any]


def portable(outcome: Any) -> Any:
    if not isinstance(outcome, BaseException):
        return outcome
    error = PortableError(type(outcome), outcome.args, dict(vars(outcome)))
    try:
        pickle.dumps(error)
    except Exception:
        return PortableError(RuntimeError, (f"{type(outcome).__name__}: {outcome}",), {})
    return error


def restored(answer: Any) -> Any:
    if not isinstance(answer, PortableError):
        return answer
    error = answer.kind.__new__(answer.kind)
    error.args = answer.args
    error.__dict__.update(answer.attributes)
    return error
