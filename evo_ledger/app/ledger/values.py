"""What the ledger is handed and what it answers: append requests, receipts, and the refusals it names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from evo_ledger.app.audit import WithdrawalRecord
from evo_ledger.game.aggregate import Game


@dataclass(frozen=True)
class Receipt:
    """What a recorder keeps after an append: the game, its new version and its head hash."""

    game_id: UUID
    version: int
    head_hash: str
    already_stored: bool = False
    """For an import: the game was in the ledger already, and nothing was stored."""

    @classmethod
    def of(cls, game: Game) -> Receipt:
        return cls(game.id, game.version, game.head_hash)


Outcome = Receipt | Exception


@dataclass(frozen=True)
class AuditBasis:
    """What an audit of a game rests on, as the store holds it: the game's last stored event (its version, and the
    digest of its bytes as stored, seal included), with the seal key how many checkpoints the log holds, and what
    the game's access record says of its withdrawal. An audit made again on the same basis gives the same report,
    unless an earlier event or a snapshot was changed in the database since, behind the ledger's back."""

    version: int
    head_digest: str
    checkpoints: int
    withdrawal: WithdrawalRecord


@dataclass(frozen=True)
class Idempotency:
    """An append's idempotency key, and the digest of the request it came with; once keyed under the game's key,
    the digest as it came (`unkeyed`), which an answer stored before digests were keyed holds."""

    key: str
    request: str
    unkeyed: str | None = None


ActionInput = str | Mapping[str, Any]


@dataclass(frozen=True)
class AppendRequest:
    """One append among many committed together (`Commands.record_many`): actions in notation or as data, all or
    none; with `token_required`, only the holder of the game's recorder token may make it; `entered_at`, when
    they were entered at the table (ISO 8601, UTC), if the recording device said."""

    game_id: UUID
    actions: Sequence[ActionInput]
    expected_version: int | None = None
    idempotency: Idempotency | None = None
    recorder_token: str | None = None
    token_required: bool = False
    entered_at: str | None = None


@dataclass(frozen=True)
class Recorder:
    """Who makes a change: with `token_required`, only the holder of the game's recorder token may."""

    token: str | None = None
    token_required: bool = False

    def change_fields(self) -> dict[str, Any]:
        return {"token": self.token, "token_required": self.token_required}


ANYONE = Recorder()


class UnknownGame(LookupError):
    def __init__(self, game_id: UUID) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class GameReferenceError(LookupError):
    """A reference that names no game, or more than one."""


class IdempotencyKeyReused(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was used for a different request")
        self.key = key


# How often an append that names no expected version is made again when another writer appended first.
RETRIES_ON_CONFLICT = 5


class Contention(Exception):
    """Other writers appended first every time an append was made again: nothing was appended."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(
            f"game {game_id}: other writers appended first {RETRIES_ON_CONFLICT} times; nothing was appended"
        )
        self.game_id = game_id


class ReplacedGame(ValueError):
    """An import of a game a checkpoint has named: it was stored on this server, and someone deleted it since."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(
            f"game {game_id} was stored on this server and a checkpoint names it, but it is no longer stored: it was "
            "deleted behind the server's back, and no import takes its place (audit it with the checkpoints kept)"
        )
        self.game_id = game_id


class VersionConflict(Exception):
    """The game moved on since the recorder last saw it: nothing was appended."""

    def __init__(self, game_id: UUID, expected: int | None, actual: int | None) -> None:
        now = f"it is at version {actual}" if actual is not None else "another recorder appended first"
        wanted = f"expected version {expected}, but " if expected is not None else ""
        super().__init__(f"game {game_id}: {wanted}{now}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
