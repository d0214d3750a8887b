"""The Ledger, in two halves: its queries (every read) and its commands (every change, each an append through one
writer path), beside the reads the seal key vouches for, over the library's application that opens the store.

May import the store, the game, the rules, the settings, the rest of the application and eventsourcing."""

from __future__ import annotations

from types import TracebackType

from evo_ledger.app.ledger.application import LedgerApplication
from evo_ledger.app.ledger.commands import Commands
from evo_ledger.app.ledger.competitions import Competitions
from evo_ledger.app.ledger.people import People
from evo_ledger.app.ledger.queries import Queries
from evo_ledger.app.ledger.values import (
    ANYONE,
    ActionInput,
    AppendRequest,
    AuditBasis,
    Contention,
    GameReferenceError,
    Idempotency,
    IdempotencyKeyReused,
    Outcome,
    Receipt,
    Recorder,
    ReplacedGame,
    UnknownGame,
    VersionConflict,
)
from evo_ledger.app.ledger.vouched import VouchedReads
from evo_ledger.settings import Settings


class Ledger:
    """The application over the event-sourced games, one object per half: `queries` reads the games, `commands`
    changes them, `vouched` reads what the seal key vouches for, and `store` is the library's application under
    them all; beside them, the records kept beside the games, each an object of its own (`competitions`,
    `people`)."""

    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        self.store = LedgerApplication(settings, **env)
        self.vouched = VouchedReads(self.store)
        self.queries = Queries(self.store, self.vouched)
        self.commands = Commands(self.store, self.queries, self.vouched)
        self.competitions = Competitions(self.store, self.queries, self.commands.writer)
        self.people = People(self.store, self.queries, self.commands.writer, self.competitions)

    @property
    def settings(self) -> Settings:
        return self.store.settings

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


__all__ = [
    "ANYONE",
    "ActionInput",
    "AppendRequest",
    "AuditBasis",
    "Contention",
    "GameReferenceError",
    "Idempotency",
    "IdempotencyKeyReused",
    "Ledger",
    "LedgerApplication",
    "Outcome",
    "Receipt",
    "Recorder",
    "ReplacedGame",
    "UnknownGame",
    "VersionConflict",
]
