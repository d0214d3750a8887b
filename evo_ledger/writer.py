"""Group commit: appends from many callers, committed together by one thread.

Each caller hands its append over and gets a future; the writer takes every append waiting when its last commit
ended and stores them in one transaction (one sync to disk), so that concurrent recorders share the cost of
durability. A future is answered only once its events are committed, so an acknowledged append is never lost.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import suppress

from evo_ledger.ledger import AppendRequest, Ledger, Outcome, Receipt

MAX_GROUP = 64

Answer = Future[Receipt] | asyncio.Future[Receipt]
Waiting = tuple[AppendRequest, Answer]


class GroupWriter:
    """Owns the thread that commits appends to `ledger`; `committed` is called with each receipt it gave."""

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
        if self._closed:
            raise RuntimeError("the writer is closed")
        answer: asyncio.Future[Receipt] = asyncio.get_running_loop().create_future()
        self._waiting.put((request, answer))
        return await answer

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
        try:
            outcomes: list[Outcome] = self.ledger.record_many([request for request, _ in group])
        except Exception as error:  # the ledger answers each append itself; this is a failure of the whole
            outcomes = [error] * len(group)
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
