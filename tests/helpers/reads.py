"""Counting what a ledger reads: the events its store hands it and those it hands out, while a request is answered."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sized
from contextlib import contextmanager
from typing import Any

from evo_ledger.app.ledger import Ledger


class EventReads:
    """The events read while counting: each row the store returns for an aggregate's events (a game's, its
    snapshots', its access's) or for the log, and each event `Queries.game_events` hands out, read or held."""

    def __init__(self) -> None:
        self.count = 0

    def counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def counting(*args: Any, **kwargs: Any) -> Any:
            found = method(*args, **kwargs)
            if isinstance(found, Sized):
                self.count += len(found)
            return found

        return counting


# The methods through which a ledger reads events: its own, and its stores'.
COUNTED = ("game_events", "select_events", "select_notifications")


@contextmanager
def events_read(ledger: Ledger) -> Iterator[EventReads]:
    """Counts the events `ledger` reads in the block (`EventReads`)."""
    reads = EventReads()
    snapshots = [ledger.store.snapshots.recorder] if ledger.store.snapshots else []
    owners: list[Any] = [ledger.queries, ledger.store.recorder, *snapshots]
    replaced = [(owner, name) for owner in owners for name in COUNTED if hasattr(owner, name)]
    for owner, name in replaced:
        setattr(owner, name, reads.counted(getattr(owner, name)))
    try:
        yield reads
    finally:
        for owner, name in replaced:
            delattr(owner, name)


def read_answering(ledger: Ledger, ask: Callable[[], Any]) -> int:
    """How many events the ledger reads while `ask` is answered."""
    with events_read(ledger) as reads:
        ask()
    return reads.count
