"""Signed checkpoints: the server's key signs the heads of every game, as certificate transparency logs sign their
tree heads, so that a log rewritten by someone holding the database shows.

Seals and hashes catch an edit made without the key; but whoever can write the database can strip the seals,
rewrite an event and make every hash after it again, or cut a game's last events. A checkpoint, taken at an
interval by the server and on demand (`evo-ledger checkpoint`), names each game with events stored since the one
before it, with the game's head and the digest of those events' list (version, hash, sealed); the lists are
stored beside it, one record a game (`SignedEvents`), so that an audit reads only its own game's. The checkpoint
is signed (HMAC-SHA256 under the seal key) over all that and the previous checkpoint's signature, and appended to
the checkpoint log. An audit given the key checks the game's events against every checkpoint that signed them and
names the first that differs. What is printed for publishing (`published`) is the checkpoint and its signature:
with the key, a copy kept elsewhere shows a checkpoint log that was cut or replaced.
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
SIGNED_AS = b"evo-ledger checkpoint\0"
EventList = list[list[Any]]  # [version, hash, sealed] per event


class CheckpointError(ValueError):
    """A checkpoint that cannot be taken."""


class CheckpointLog(Aggregate):
    """The server's checkpoints, each signed over the one before it."""

    TOPIC = "evo-ledger:CheckpointLog"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:CheckpointLog.Created"

    class Signed(Aggregate.Event):
        """A checkpoint: `signed` (its number, the log position it covers, the previous checkpoint's signature,
        and each game with events stored since then: its head's version and hash, and the digest of the events'
        list), and `signature`."""

        TOPIC = "evo-ledger:CheckpointLog.Signed"
        signed: dict[str, Any]
        signature: str

        def apply(self, aggregate: Any) -> None:
            aggregate.last = self.signed
            aggregate.signature = self.signature

    def __init__(self) -> None:
        self.last: dict[str, Any] | None = None
        self.signature: str | None = None


class SignedEvents(Aggregate):
    """One game's events a checkpoint signed: version, hash and whether it was sealed, each."""

    TOPIC = "evo-ledger:SignedEvents"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:SignedEvents.Created"
        game_id: UUID
        number: int
        events: EventList

    def __init__(self, game_id: UUID, number: int, events: EventList) -> None:
        self.game_id, self.number, self.events = game_id, number, events


def signed_events_id(game_id: UUID | str, number: int) -> UUID:
    return uuid.uuid5(CHECKPOINT_LOG_ID, f"{game_id}:{number}")


def create_log() -> CheckpointLog:
    return CheckpointLog._create(CheckpointLog.Created, id=CHECKPOINT_LOG_ID)


def signature_of(key: str, signed: Mapping[str, Any]) -> str:
    return hmac.new(key.encode("utf-8"), SIGNED_AS + canonical_bytes(signed), hashlib.sha256).hexdigest()


def signs(key: str, signed: Mapping[str, Any], signature: str) -> bool:
    return hmac.compare_digest(signature_of(key, signed), signature)


def game_events_among(notifications: Iterable[Notification]) -> tuple[dict[str, EventList], int]:
    """Each game's events among the notifications (version, hash, sealed), and the last position read."""
    events: dict[str, EventList] = {}
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
    log: CheckpointLog, events: Mapping[str, EventList], position: int, key: str, now: datetime | None = None
) -> list[SignedEvents]:
    """Signs a checkpoint of `events` (stored up to `position`) under `key` on the log; returns each game's
    signed events, to be stored with it."""
    number = (log.last["number"] if log.last is not None else 0) + 1
    signed = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "number": number,
        "position": position,
        "taken": (now or datetime.now(UTC)).isoformat(),
        "previous": log.signature,
        "games": {game: [*stored[-1][:2], digest(stored)] for game, stored in sorted(events.items())},
    }
    log.trigger_event(CheckpointLog.Signed, signed=signed, signature=signature_of(key, signed))
    return [
        SignedEvents._create(
            SignedEvents.Created, id=signed_events_id(game, number), game_id=UUID(game), number=number, events=stored
        )
        for game, stored in events.items()
    ]


def published(signed: Mapping[str, Any], signature: str | None) -> dict[str, Any]:
    """A checkpoint as it is printed to be kept elsewhere: what was signed, and the signature."""
    return {**signed, "signature": signature}


@dataclass(frozen=True)
class Signed:
    """What the checkpoints signed with a key say of one game: each event's hash, whether it was sealed, and the
    checkpoint that signed it; what does not hold under the key, in words."""

    events: dict[int, tuple[str, bool, int]]
    faults: list[str]


def signed_for(
    game_id: UUID,
    checkpoints: Sequence[Any],
    lists: Mapping[int, EventList | None],
    key: str,
    kept: Sequence[Mapping[str, Any]] = (),
) -> Signed:
    """What the checkpoint log (`CheckpointLog.Signed` events, in order), the game's signed events (`lists`, by
    checkpoint number) and checkpoints `kept` elsewhere say of the game under `key`."""
    game = str(game_id)
    events: dict[int, tuple[str, bool, int]] = {}
    faults: list[str] = []
    previous: str | None = None
    for number, checkpoint in enumerate(checkpoints, start=1):
        faults.extend(_faults(checkpoint, number, previous, key))
        previous = checkpoint.signature
        entry = checkpoint.signed.get("games", {}).get(game)
        if entry is None:
            continue
        listed = lists.get(number)
        if listed is None or digest(listed) != entry[2]:
            faults.append(f"the game's events checkpoint {number} signed are not stored as it signed them")
            continue
        for version, hash_, sealed in listed:
            events.setdefault(version, (hash_, sealed, number))
    faults.extend(_kept_faults(checkpoints, kept, game, events, key))
    return Signed(events, faults)


def _faults(checkpoint: Any, number: int, previous: str | None, key: str) -> Iterator[str]:
    signed = checkpoint.signed
    if not signs(key, signed, checkpoint.signature):
        yield f"checkpoint {number} is not signed by the key: it was made or changed without it"
    elif signed.get("number") != number or signed.get("previous") != previous:
        yield f"checkpoint {number} does not follow checkpoint {number - 1}: the checkpoint log was cut or reordered"


def _kept_faults(
    checkpoints: Sequence[Any],
    kept: Sequence[Mapping[str, Any]],
    game: str,
    events: Mapping[int, tuple[str, bool, int]],
    key: str,
) -> Iterator[str]:
    """A checkpoint kept elsewhere holds under the key and is in the log as it was published; the head of the
    game it signed is an event the log's checkpoints signed."""
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
        head = signed.get("games", {}).get(game)
        if head is not None and events.get(head[0], (None,))[0] != head[1]:
            yield f"checkpoint {number}, kept elsewhere, signed event {head[0]} of the game with another hash"
