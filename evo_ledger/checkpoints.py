"""Signed checkpoints: the server's key signs the heads of every game, as certificate transparency logs sign their
tree heads, so that a log rewritten by someone holding the database shows.

Seals and hashes catch an edit made without the key; but whoever can write the database can strip the seals,
rewrite an event and make every hash after it again, or cut a game's last events. A checkpoint, taken at an
interval by the server and on demand (`evo-ledger checkpoint`), lists the hash of every game event stored since
the one before it, whether the event was sealed, and every game's head; it is signed (HMAC-SHA256 under the seal
key) over those and the previous checkpoint's signature, and appended to the checkpoint log beside the games. An
audit given the key checks each game's events against every checkpoint that signed them and names the first that
differs. What is printed for publishing (`published`) carries the heads and the signature: with the key, a
checkpoint kept elsewhere shows a checkpoint log that was cut or replaced.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import Notification

from evo_ledger.codec import canonical_bytes, digest, unpack_sealed
from evo_ledger.game import is_game_event_topic

CHECKPOINT_FORMAT = "evo-ledger checkpoint"
CHECKPOINT_VERSION = 1
CHECKPOINT_LOG_ID = uuid.UUID("5d0c7a52-2f8e-4c3b-9a61-0e7b3f2d9c14")
PAGE = 1000
SIGNED_AS = b"evo-ledger checkpoint\0"


class CheckpointError(ValueError):
    """A checkpoint that cannot be taken or read."""


class CheckpointLog(Aggregate):
    """The server's checkpoints, each signed over the one before it."""

    TOPIC = "evo-ledger:CheckpointLog"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:CheckpointLog.Created"

    class Signed(Aggregate.Event):
        """A checkpoint: `signed` (its number, the log position it covers, the previous checkpoint's signature,
        every game's head, and the digest of `events`), `events` (each game's events stored since the previous
        checkpoint: version, hash, sealed), and `signature`."""

        TOPIC = "evo-ledger:CheckpointLog.Signed"
        signed: dict[str, Any]
        events: dict[str, list[list[Any]]]
        signature: str

        def apply(self, aggregate: Any) -> None:
            aggregate.last = self.signed
            aggregate.signature = self.signature

    def __init__(self) -> None:
        self.last: dict[str, Any] | None = None
        self.signature: str | None = None


def create_log() -> CheckpointLog:
    return CheckpointLog._create(CheckpointLog.Created, id=CHECKPOINT_LOG_ID)


def signature_of(key: str, signed: Mapping[str, Any]) -> str:
    return hmac.new(key.encode("utf-8"), SIGNED_AS + canonical_bytes(signed), hashlib.sha256).hexdigest()


def signs(key: str, signed: Mapping[str, Any], signature: str) -> bool:
    return hmac.compare_digest(signature_of(key, signed), signature)


def game_events_after(notifications: Iterable[Notification]) -> tuple[dict[str, list[list[Any]]], int]:
    """Each game's events among the notifications (version, hash, sealed), and the last position read."""
    events: dict[str, list[list[Any]]] = {}
    position = 0
    for notification in notifications:
        position = notification.id
        if not is_game_event_topic(notification.topic):
            continue
        fields, seal = unpack_sealed(notification.state)
        events.setdefault(str(notification.originator_id), []).append(
            [notification.originator_version, fields.get("hash"), seal is not None]
        )
    return events, position


def next_checkpoint(
    log: CheckpointLog, events: Mapping[str, list[list[Any]]], position: int, key: str, now: datetime | None = None
) -> None:
    """The log with a checkpoint of `events` (stored up to `position`) signed under `key`."""
    last = log.last
    heads = dict(last["heads"]) if last is not None else {}
    for game, stored in events.items():
        version, hash_, _ = stored[-1]
        heads[game] = [version, hash_]
    signed = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "number": (last["number"] if last is not None else 0) + 1,
        "position": position,
        "taken": (now or datetime.now(UTC)).isoformat(),
        "previous": log.signature,
        "heads": heads,
        "events": digest(events),
    }
    log.trigger_event(CheckpointLog.Signed, signed=signed, events=dict(events), signature=signature_of(key, signed))


def published(signed: Mapping[str, Any], signature: str) -> dict[str, Any]:
    """A checkpoint as it is printed to be kept elsewhere: what was signed, and the signature."""
    return {**signed, "signature": signature}


@dataclass(frozen=True)
class Signed:
    """What the checkpoints a key signed say of one game: each event's hash and whether it was sealed, and the
    checkpoint that signed it; the checkpoints that do not hold under the key."""

    events: dict[int, tuple[str, bool, int]]
    forged: list[str]

    @property
    def head(self) -> int:
        return max(self.events, default=0)


def signed_for(game_id: UUID, checkpoints: Sequence[Any], key: str, kept: Sequence[Mapping[str, Any]] = ()) -> Signed:
    """What the stored checkpoints (`CheckpointLog.Signed` events, in order), and the checkpoints `kept`
    elsewhere, say of the game under `key`."""
    game = str(game_id)
    events: dict[int, tuple[str, bool, int]] = {}
    forged: list[str] = []
    previous: str | None = None
    for number, checkpoint in enumerate(checkpoints, start=1):
        forged.extend(_faults(checkpoint, number, previous, key))
        previous = checkpoint.signature
        for version, hash_, sealed in checkpoint.events.get(game, ()):
            events.setdefault(version, (hash_, sealed, number))
    forged.extend(_kept_faults(checkpoints, kept, game, events, key))
    return Signed(events, forged)


def _faults(checkpoint: Any, number: int, previous: str | None, key: str) -> Iterator[str]:
    signed = checkpoint.signed
    if not signs(key, signed, checkpoint.signature):
        yield f"checkpoint {number} is not signed by the key: it was made or changed without it"
    elif signed.get("number") != number or signed.get("previous") != previous:
        yield f"checkpoint {number} does not follow checkpoint {number - 1}: the checkpoint log was cut or reordered"
    elif signed.get("events") != digest(checkpoint.events):
        yield f"checkpoint {number}'s event hashes are not those it signed: they were changed"


def _kept_faults(
    checkpoints: Sequence[Any],
    kept: Sequence[Mapping[str, Any]],
    game: str,
    events: Mapping[int, tuple[str, bool, int]],
    key: str,
) -> Iterator[str]:
    """A checkpoint kept elsewhere holds under the key and is in the log as it was published; its head of the
    game is an event the log signed."""
    for copy in kept:
        signed = {name: value for name, value in copy.items() if name != "signature"}
        number = signed.get("number")
        if not signs(key, signed, str(copy.get("signature", ""))):
            yield f"the checkpoint kept elsewhere numbered {number} is not signed by the key"
            continue
        stored = checkpoints[number - 1] if isinstance(number, int) and 0 < number <= len(checkpoints) else None
        if stored is None or stored.signature != copy["signature"]:
            yield f"checkpoint {number}, kept elsewhere, is not in the checkpoint log: the log was cut or replaced"
            continue
        head = signed["heads"].get(game)
        if head is not None and events.get(head[0], (None,))[0] != head[1]:
            yield f"checkpoint {number}, kept elsewhere, signed event {head[0]} of the game with another hash"
