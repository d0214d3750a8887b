"""The Ledger, in two halves: its queries (every read) and its commands (every change, each an append through one
writer path), over the library's application that opens the store.

May import the store, the game, the rules, the settings, the rest of the application and eventsourcing."""

from evo_ledger.app.ledger.commands import Commands
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


class Ledger(Commands):
    """The application over the event-sourced games: one method per use case, reads in `queries`, changes in
    `commands`."""


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
    "Outcome",
    "Receipt",
    "Recorder",
    "ReplacedGame",
    "UnknownGame",
    "VersionConflict",
]
