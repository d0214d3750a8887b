"""Signed checkpoints: the server's key signs the heads of every game, as certificate transparency logs sign their
tree heads, so that a log rewritten by someone holding the database shows.

Seals and hashes catch an edit made without the key; but whoever can write the database can strip the seals,
rewrite an event and make every hash after it again, or cut a game's last events. A checkpoint, taken at an
interval by the server and on demand (`evo-ledger checkpoint`), only ever with the seal key, first examines each
game event stored since the one before it (`Examiner`): it vouches for an event only if the event carries its
seal, the seal holds under the key, its hash is that of its content and it carries the hash of the event before
it. It names each game with events it vouched for, with the head it vouched for and the digest of those events'
list (version, hash, and its seal's kind: `true` for an event recorded on the server, `imported` for one of a
game imported whole); the lists are stored beside it, one record a game (`SignedEvents`), so that an
audit reads only its own game's. Each event it could not vouch for it names, with the reason (`refused`), and
does not sign. The checkpoint signs (HMAC-SHA256 under the seal key) its number, the log position it covers, the
previous checkpoint's signature and the digests of its games and of its refusals: what is printed to be kept
elsewhere (`published`) names no game, and with the key a copy shows a checkpoint log that was cut or replaced.
The events a checkpoint could not vouch for stay named (`/health` says degraded) until an admin who looked into
them signs a checkpoint that acknowledges it (`evo-ledger checkpoint --acknowledge N`): each checkpoint signs the
number of the last one acknowledged. Every row of the checkpoint log and of a game's signed events is read as
untrusted data: a row that is not what
the server writes is a fault, never an error.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeGuard
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import Notification, StoredEvent
from eventsourcing.utils import get_topic

from evo_ledger.game.aggregate import GENESIS, is_game_event_topic, stored_hash
from evo_ledger.game.codec import canonical_bytes, digest, stored_digest, unpack_sealed
from evo_ledger.game.seal import IMPORTED, RECORDED, Sealer, SealKind
from evo_ledger.rules.words import counted

CHECKPOINT_FORMAT = "evo-ledger checkpoint"
CHECKPOINT_VERSION = 4
CHECKPOINT_LOG_ID = uuid.UUID("5d0c7a52-2f8e-4c3b-9a61-0e7b3f2d9c14")
SIGNED_AS = b"evo-ledger checkpoint\0"
HEX_64 = re.compile(r"[0-9a-f]{64}")
FIRST_SIGNED_FIELDS = frozenset({"format", "version", "number", "position", "taken", "previous", "games"})
# What each version of the checkpoint signs: the second adds the digest of the events it could not vouch for, the
# third the number of the last checkpoint whose unvouched events an admin acknowledged (0: none), the fourth the
# digest of the heads of the records of who may write to each game and read it (`accesses`).
SIGNED_FIELDS = {
    1: FIRST_SIGNED_FIELDS,
    2: FIRST_SIGNED_FIELDS | {"refused"},
    3: FIRST_SIGNED_FIELDS | {"refused", "acknowledged"},
    4: FIRST_SIGNED_FIELDS | {"refused", "acknowledged", "accesses"},
}
# The topics of the records of who may write to a game and read it (evo_ledger.app.access), whose heads a
# checkpoint signs: a record cut back or deleted then shows.
ACCESS_TOPIC_PREFIX = "evo-ledger:GameAccess."
EventList = list[list[Any]]  # [version, hash, sealed] per event: sealed True (recorded here), False, or "imported"
RefusedList = list[list[Any]]  # [version, reason] per event a checkpoint could not vouch for
WITHOUT_A_KEY = "stored without a key"
RUNS_NAMED = 20  # runs of events a checkpoint could not vouch for that its words name
# Why a checkpoint could not vouch for an event, by the reason it records. Only an unsealed event of a game stored
# without a key before the log's first checkpoint may be what the server stored; every other reason shows that the
# event was changed, or stored by a process without the key, after the server held it.
REFUSALS = {
    "unreadable": "it cannot be read as an event",
    "unsealed": "it carries no seal, though it was stored after a checkpoint signed with the key, in a game stored "
    "with a key or after a sealed event: its seal was taken off, or a process without the key stored it",
    WITHOUT_A_KEY: "it carries no seal, in a game stored without a key before the log's first checkpoint: "
    "nothing shows whether it was changed",
    "seal": "its seal does not match it: it was changed without the key",
    "hash": "its content does not match its hash: it was changed",
    "chain": "it does not carry the hash of the event before it: the chain was changed",
    "imported": "its seal is an import's, though the event before it was not imported: a game is imported whole, "
    "so an imported game's events were put in place of the recorded ones",
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be taken."""


class CheckpointRace(CheckpointError):
    """A checkpoint not taken because another was stored first, by another server: to be taken again at once."""


class CheckpointLog(Aggregate):
    """The server's checkpoints, each signed over the one before it."""

    TOPIC = "evo-ledger:CheckpointLog"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:CheckpointLog.Created"

    class Signed(Aggregate.Event):
        """A checkpoint: `signed` (its number, the log position it covers, the previous checkpoint's signature,
        the digests of `games` and `refused`), `games` (each game with events stored since the previous
        checkpoint that it vouched for: the last one's version and hash, and the digest of their list), `refused`
        (each game's events it could not vouch for, each with the reason), and `signature`."""

        TOPIC = "evo-ledger:CheckpointLog.Signed"
        signed: dict[str, Any]
        games: dict[str, list[Any]]
        refused: dict[str, RefusedList]
        accesses: dict[str, list[Any]]
        signature: str


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

    @classmethod
    def signed(cls, game_id: UUID, number: int, events: EventList) -> SignedEvents:
        """The record of the game's `events` that checkpoint `number` signs."""
        return cls._create(
            cls.Created, id=signed_events_id(game_id, number), game_id=game_id, number=number, events=events
        )


def signed_events_id(game_id: UUID | str, number: int) -> UUID:
    return uuid.uuid5(CHECKPOINT_LOG_ID, f"{game_id}:{number}")


def signature_of(key: str, signed: Mapping[str, Any]) -> str:
    return hmac.new(key.encode("utf-8"), SIGNED_AS + canonical_bytes(signed), hashlib.sha256).hexdigest()


def signs(key: str, signed: Mapping[str, Any], signature: Any) -> bool:
    """Whether `signature` is the key's over `signed` (anything malformed is not)."""
    if not isinstance(signature, str) or not HEX_64.fullmatch(signature):
        return False
    try:
        return hmac.compare_digest(signature_of(key, signed), signature)
    except (TypeError, ValueError):
        return False


def published(checkpoint: Checkpoint) -> dict[str, Any]:
    """A checkpoint as it is printed to be kept elsewhere: what was signed (no game is named), and the signature."""
    return {**checkpoint.signed, "signature": checkpoint.signature}


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint as the log holds it; `genuine` once its signature holds under the key and its games and
    refusals are those it signed."""

    number: int
    signed: dict[str, Any]
    games: dict[str, list[Any]]
    signature: str
    genuine: bool
    refused: dict[str, RefusedList] = field(default_factory=dict)
    accesses: dict[str, list[Any]] = field(default_factory=dict)


def read_checkpoint(stored: StoredEvent, number: int, key: str) -> Checkpoint | str:
    """The log's `number`th checkpoint from its stored row, or what is wrong with the row."""
    if stored.topic != CheckpointLog.Signed.TOPIC:
        return f"row {stored.originator_version} of the checkpoint log is not a checkpoint"
    try:
        fields = unpack_sealed(stored.state)[0]
    except Exception:
        return f"checkpoint {number} cannot be read"
    if not isinstance(fields, dict):
        return f"checkpoint {number} is not a checkpoint as the server writes one"
    signed, games, signature = fields.get("signed"), fields.get("games"), fields.get("signature")
    if not (_signed_as_written(signed) and isinstance(games, dict)):
        return f"checkpoint {number} is not a checkpoint as the server writes one"
    refused = fields.get("refused") if "refused" in signed else {}
    accesses = fields.get("accesses") if "accesses" in signed else {}
    if not all(isinstance(game, str) and well_formed_entry(entry) for game, entry in games.items()):
        return f"checkpoint {number} names its games otherwise than the server writes them"
    if not well_formed_refusals(refused):
        return f"checkpoint {number} names the events it could not vouch for otherwise than the server writes them"
    if not (isinstance(accesses, dict) and all(well_formed_head(key, head) for key, head in accesses.items())):
        return f"checkpoint {number} names the records of who may write to games otherwise than the server does"
    genuine = (
        signs(key, signed, signature)
        and _digest_or_none(games) == signed["games"]
        and ("refused" not in signed or _digest_or_none(refused) == signed["refused"])
        and ("accesses" not in signed or _digest_or_none(accesses) == signed["accesses"])
    )
    return Checkpoint(number, signed, games, str(signature), genuine, refused, accesses)


def _signed_as_written(signed: Any) -> TypeGuard[dict[str, Any]]:
    """What a checkpoint signed has the fields its version signs."""
    if not isinstance(signed, dict):
        return False
    version: Any = signed.get("version")
    acknowledged: Any = signed.get("acknowledged", 0)
    well_formed = isinstance(acknowledged, int) and not isinstance(acknowledged, bool) and acknowledged >= 0
    return _is_version(version) and frozenset(signed) == SIGNED_FIELDS.get(version, frozenset()) and well_formed


def well_formed_entry(entry: Any) -> bool:
    """A game's entry in a checkpoint: its head's version and hash, and its events' digest."""
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and _is_version(entry[0])
        and all(isinstance(text, str) and HEX_64.fullmatch(text) for text in entry[1:])
    )


def well_formed_head(key: Any, head: Any) -> bool:
    """A record's head in a checkpoint: its id, and its last event's version and the digest of its bytes."""
    return (
        isinstance(key, str)
        and isinstance(head, list)
        and len(head) == 2
        and _is_version(head[0])
        and isinstance(head[1], str)
        and HEX_64.fullmatch(head[1]) is not None
    )


def well_formed_refusals(refused: Any) -> TypeGuard[dict[str, RefusedList]]:
    """Each game's events a checkpoint could not vouch for: its version and the reason, each."""
    return isinstance(refused, dict) and all(
        isinstance(game, str)
        and isinstance(events, list)
        and all(
            isinstance(event, list) and len(event) == 2 and _is_version(event[0]) and isinstance(event[1], str)
            for event in events
        )
        for game, events in refused.items()
    )


def read_events(stored: Sequence[StoredEvent]) -> EventList | None:
    """A game's signed events from their record's rows (None: not a record as the server writes one)."""
    if len(stored) != 1 or stored[0].topic != SignedEvents.Created.TOPIC:
        return None
    try:
        events = unpack_sealed(stored[0].state)[0].get("events")
    except Exception:
        return None
    if not isinstance(events, list) or not all(_well_formed_event(event) for event in events):
        return None
    return events


def _well_formed_event(event: Any) -> bool:
    return (
        isinstance(event, list)
        and len(event) == 3
        and _is_version(event[0])
        and isinstance(event[1], str)
        and (isinstance(event[2], bool) or event[2] == IMPORTED)
    )


def _is_version(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _digest_or_none(value: Any) -> str | None:
    try:
        return digest(value)
    except (TypeError, ValueError):
        return None


@dataclass
class CheckpointIndex:
    """The checkpoint log as read so far, under one key: its checkpoints in order, what is wrong with it, and for
    each game the checkpoints that sign some of its events (`naming`) and those that could not vouch for some
    (`refusing`). The log only grows, so it is read once and then from where it ended."""

    key: str
    rows: int = 0
    checkpoints: list[Checkpoint] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    naming: dict[str, list[int]] = field(default_factory=dict)
    refusing: dict[str, list[int]] = field(default_factory=dict)
    covered: dict[str, int] = field(default_factory=dict)
    access_heads: dict[str, AccessHead] = field(default_factory=dict)
    _unvouched: tuple[int, list[Unvouched]] | None = None

    def read(self, stored: Iterable[StoredEvent]) -> None:
        """The log's rows after those read already."""
        for row in stored:
            self.rows = max(self.rows, row.originator_version)
            if row.originator_version == 1 and row.topic == CheckpointLog.Created.TOPIC:
                continue
            checkpoint = read_checkpoint(row, len(self.checkpoints) + 1, self.key)
            if isinstance(checkpoint, str):
                self.faults.append(checkpoint)
                continue
            self.faults.extend(self._chain_faults(checkpoint))
            self.checkpoints.append(checkpoint)
            for game in checkpoint.games:
                self.naming.setdefault(game, []).append(checkpoint.number)
            for game in checkpoint.refused:
                self.refusing.setdefault(game, []).append(checkpoint.number)
            if checkpoint.genuine:
                self._cover(checkpoint)

    def _cover(self, checkpoint: Checkpoint) -> None:
        for record, (version, bytes_digest) in checkpoint.accesses.items():
            if version >= self.access_heads.get(record, NO_HEAD).version:  # a head never goes back
                self.access_heads[record] = AccessHead(version, bytes_digest, checkpoint.number)
        for game, entry in checkpoint.games.items():
            self.covered[game] = max(self.covered.get(game, 0), entry[0])
        for game, refused in checkpoint.refused.items():
            self.covered[game] = max(self.covered.get(game, 0), *(version for version, _ in refused))

    @property
    def signs_access_heads(self) -> bool:
        """Whether a genuine checkpoint of the log signed the heads of the records of who may write to games."""
        return any(checkpoint.genuine and "accesses" in checkpoint.signed for checkpoint in self.checkpoints)

    def head_of(self, record: str) -> AccessHead:
        """The head a genuine checkpoint last signed of the record (version 0: none)."""
        return self.access_heads.get(record, NO_HEAD)

    def covered_of(self, game: str) -> int:
        """The last version of the game a genuine checkpoint signed or named (0: none)."""
        return self.covered.get(game, 0)

    def _chain_faults(self, checkpoint: Checkpoint) -> Iterator[str]:
        number, previous = checkpoint.number, self.checkpoints[-1].signature if self.checkpoints else None
        if not checkpoint.genuine:
            yield f"checkpoint {number} is not signed by the key: it was made or changed without it"
        elif checkpoint.signed["number"] != number or checkpoint.signed["previous"] != previous:
            yield f"checkpoint {number} does not follow checkpoint {number - 1}: the log was cut or reordered"

    @property
    def last(self) -> Checkpoint | None:
        return self.checkpoints[-1] if self.checkpoints else None

    def refusals_of(self, game: str) -> dict[int, str]:
        """Each of the game's events a genuine checkpoint could not vouch for, with the first reason given."""
        return {version: reason for version, (reason, _) in _refused_for(game, self).items()}

    @property
    def acknowledged(self) -> int:
        """The last checkpoint whose unvouched events an admin acknowledged, as the last checkpoint signed it."""
        last = self.last
        return int(last.signed.get("acknowledged", 0)) if last is not None and last.genuine else 0

    def unvouched_since_acknowledged(self) -> list[Unvouched]:
        """The events the genuine checkpoints after the last acknowledged one could not vouch for, in runs (made
        again only once the log has grown)."""
        if self._unvouched is None or self._unvouched[0] != self.rows:
            runs = [
                run
                for checkpoint in self.checkpoints[self.acknowledged :]
                if checkpoint.genuine
                for run in unvouched_by(checkpoint)
            ]
            self._unvouched = (self.rows, runs)
        return self._unvouched[1]


@dataclass
class Examined:
    """The game events stored since the last checkpoint, as the next one examined them: each game's it vouches
    for (version, hash, sealed), each game's it could not vouch for (version, reason), and the last position
    read."""

    events: dict[str, EventList] = field(default_factory=dict)
    refused: dict[str, RefusedList] = field(default_factory=dict)
    accesses: dict[str, list[Any]] = field(default_factory=dict)
    position: int = 0


# A game's stored events with versions after the first number, up to the second.
StoredReader = Callable[[UUID, int, int], Sequence[StoredEvent]]


class Last(NamedTuple):
    """A game's event an examination came to last: the hash it carries, its seal's kind and its version."""

    hash: str | None
    kind: SealKind | None
    version: int


NOTHING_EXAMINED = Last(None, None, 0)


class Examiner:
    """Vouches for each game event stored since the last checkpoint, in the log's order, or says why it cannot:
    the event is read, carries its seal, the seal holds under the key, its hash is that of its content, it
    carries the hash of the event before it, and a seal of an imported event follows only imported ones (a game
    is imported whole). A game's events no checkpoint covered (`covered`: the last version one signed or named)
    that the log holds before the last checkpoint's position (written behind the server's back, or committed
    late) are examined before the game's new ones. `stored` reads them, and the event before a game's first
    examined. Each record of who may write to a game that changed has its last stored event (`last_stored`)
    signed as its head, never one behind the head signed before (`index`). `first`: no checkpoint was signed
    before, so an unsealed event of a game stored without a key may have been stored before the key was set."""

    def __init__(
        self,
        sealer: Sealer,
        first: bool,
        stored: StoredReader,
        index: CheckpointIndex,
        last_stored: Callable[[UUID], StoredEvent | None],
    ) -> None:
        self.sealer, self.first, self.stored, self.last_stored = sealer, first, stored, last_stored
        self.covered, self.head_of = index.covered_of, index.head_of
        self._records: set[UUID] = set()  # the records of who may write to a game that changed
        self._last: dict[str, Last] = {}  # each game's event examined last
        self._keyed: set[str] = set()  # the games whose events the log says were stored with a key
        self._key_seen = False  # a sealed event came earlier in the log: every event after it was stored with a key

    def examine(self, notifications: Iterable[Notification]) -> Examined:
        examined = Examined()
        for notification in notifications:
            examined.position = notification.id
            if notification.originator_version < 1:  # no row the server writes: reading the game names it
                continue
            if notification.topic.startswith(ACCESS_TOPIC_PREFIX):
                self._records.add(UUID(str(notification.originator_id)))
            if not is_game_event_topic(notification.topic):
                continue
            game, version = str(notification.originator_id), notification.originator_version
            if version > 1 and self._last.get(game, NOTHING_EXAMINED).version != version - 1:
                self._examine_uncovered(game, version, examined)
            self._examine(game, notification, examined)
        for record in sorted(self._records):
            self._examine_access_head(record, examined)
        return examined

    def _examine_access_head(self, record: UUID, examined: Examined) -> None:
        """A record of who may write to a game that changed: its last stored event signed as its head where its
        seal holds, or it has none (a record stored before the key), and it is not behind the head signed before
        (reading the record checks the rest)."""
        last = self.last_stored(record)
        if last is None or last.originator_version < self.head_of(str(record)).version:
            return
        try:
            seal = unpack_sealed(last.state)[1]
        except Exception:
            return
        if seal is None or self.sealer.kind_of(last, seal) is not None:
            examined.accesses[str(record)] = [last.originator_version, stored_digest(last.state)]

    def also_records(self, records: Iterable[UUID]) -> None:
        """Records of who may write to a game whose heads are signed too, changed or not (the first checkpoint
        that signs heads signs every record's)."""
        self._records.update(records)

    def _examine_uncovered(self, game: str, version: int, examined: Examined) -> None:
        """The game's events before `version` that neither a checkpoint covered nor this one examined yet; and
        the event before `version`, read for its hash and its seal's kind where it was covered."""
        after = max(self.covered(game), self._last.get(game, NOTHING_EXAMINED).version)
        for event in self.stored(UUID(game), after, version - 1) if after < version - 1 else ():
            self._examine(game, event, examined)
        if self._last.get(game, NOTHING_EXAMINED).version != version - 1:
            before = self.stored(UUID(game), version - 2, version - 1)
            found = Last(carried_hash(before[0]), self._kind_of(before[0]), version - 1) if before else None
            self._last[game] = found or Last(None, None, version - 1)

    def _examine(self, game: str, event: StoredEvent, examined: Examined) -> None:
        version = event.originator_version
        fields, reason = self._examined(game, event)
        if isinstance(reason, str):
            examined.refused.setdefault(game, []).append([version, reason])
        else:
            examined.events.setdefault(game, []).append([version, fields["hash"], reason.signed_as])

    def _examined(self, game: str, event: StoredEvent) -> tuple[dict[str, Any], str | Vouched]:
        """The event's fields, and why it cannot be vouched for, or the kind of seal it is vouched for with."""
        try:
            fields, seal = unpack_sealed(event.state)
        except Exception:
            fields, seal = None, None
        version = event.originator_version
        first = version == 1
        previous = Last(GENESIS, None, 0) if first else self._last.get(game, NOTHING_EXAMINED)
        if not isinstance(fields, dict):
            self._last[game] = Last(None, None, version)
            return {}, "unreadable"
        kind = self.sealer.kind_of(event, seal) if seal is not None else None
        self._last[game] = Last(fields.get("hash"), kind, version)
        says_sealed = first and fields.get("sealed") is True
        keyed = not self.first or self._key_seen or game in self._keyed or says_sealed
        if keyed or seal is not None:
            self._keyed.add(game)
        self._key_seen = self._key_seen or seal is not None
        if seal is None:
            return fields, "unsealed" if keyed else WITHOUT_A_KEY
        if kind is None:
            return fields, "seal"
        if _content_hash(event, fields) != fields.get("hash"):
            return fields, "hash"
        if fields.get("prev_hash") != previous.hash:
            return fields, "chain"
        if kind == IMPORTED and not first and previous.kind != IMPORTED:
            return fields, "imported"
        return fields, Vouched(kind)

    def _kind_of(self, event: StoredEvent) -> SealKind | None:
        try:
            seal = unpack_sealed(event.state)[1]
        except Exception:
            return None
        return self.sealer.kind_of(event, seal) if seal is not None else None


@dataclass(frozen=True)
class Vouched:
    """An event a checkpoint vouches for, with the kind of its seal."""

    kind: SealKind

    @property
    def signed_as(self) -> bool | str:
        """How its list records its seal: True for a seal of an event recorded here, `imported` for one imported."""
        return True if self.kind == RECORDED else IMPORTED


def _content_hash(event: StoredEvent, fields: dict[str, Any]) -> str | None:
    try:
        return stored_hash(event.topic, event.originator_id, event.originator_version, fields)
    except Exception:
        return None


def carried_hash(stored: StoredEvent) -> str | None:
    """The hash a stored event carries (None: it cannot be read, or carries none)."""
    try:
        fields = unpack_sealed(stored.state)[0]
    except Exception:
        return None
    found = fields.get("hash") if isinstance(fields, dict) else None
    return found if isinstance(found, str) else None


def next_checkpoint(
    index: CheckpointIndex,
    events: Mapping[str, EventList],
    position: int,
    now: datetime | None = None,
    refused: Mapping[str, RefusedList] | None = None,
    acknowledge: int | None = None,
    accesses: Mapping[str, list[Any]] | None = None,
) -> list[Any]:
    """The domain events that append a checkpoint of `events` (stored up to `position`) to the log `index` read,
    signed with its key, and each game's signed events; the events `refused` it names unsigned. `acknowledge`:
    the last checkpoint whose unvouched events an admin has looked into (else the last checkpoint's is kept)."""
    last = index.last
    if index.faults or (last is not None and not last.genuine):
        fault = index.faults[0] if index.faults else f"checkpoint {last.number if last else 0} is not genuine"
        raise CheckpointError(f"the checkpoint log was changed without the key ({fault}): audit it before signing more")
    number = last.number + 1 if last is not None else 1
    acknowledged = index.acknowledged if acknowledge is None else acknowledge
    if not index.acknowledged <= acknowledged < number:
        raise CheckpointError(
            f"--acknowledge {acknowledged}: a checkpoint from {index.acknowledged} (acknowledged already) to "
            f"{number - 1} (the last)"
        )
    games = {game: [*stored[-1][:2], digest(stored)] for game, stored in sorted(events.items())}
    refusals = {game: list(listed) for game, listed in sorted((refused or {}).items())}
    heads = {record: list(head) for record, head in sorted((accesses or {}).items())}
    signed = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "number": number,
        "position": position,
        "taken": (now or datetime.now(UTC)).isoformat(),
        "previous": last.signature if last is not None else None,
        "games": digest(games),
        "refused": digest(refusals),
        "acknowledged": acknowledged,
        "accesses": digest(heads),
    }
    timestamp = CheckpointLog.Signed.create_timestamp()
    created: Any = CheckpointLog.Created  # the library makes its events dataclasses: their fields are keywords
    signing: Any = CheckpointLog.Signed
    appended: list[Any] = []
    if index.rows == 0:
        log_topic = get_topic(CheckpointLog)
        appended.append(
            created(
                originator_id=CHECKPOINT_LOG_ID, originator_version=1, timestamp=timestamp, originator_topic=log_topic
            )
        )
    appended.append(
        signing(
            originator_id=CHECKPOINT_LOG_ID,
            originator_version=max(index.rows, 1) + 1,
            timestamp=timestamp,
            signed=signed,
            games=games,
            refused=refusals,
            accesses=heads,
            signature=signature_of(index.key, signed),
        )
    )
    for game, stored in events.items():
        appended.extend(SignedEvents.signed(UUID(game), number, stored).collect_events())
    return appended


class AccessHead(NamedTuple):
    """A record of who may write to a game as the last checkpoint that signed it saw it: its last event's version,
    the digest of that event's bytes, and the checkpoint."""

    version: int
    bytes_digest: str
    checkpoint: int


NO_HEAD = AccessHead(0, "", 0)


@dataclass(frozen=True)
class Signed:
    """What the checkpoints signed with a key say of one game: each event's hash, whether it was sealed, and the
    checkpoint that signed it; each event a checkpoint could not vouch for, the reason and the checkpoint; what
    does not hold under the key, in words."""

    events: dict[int, tuple[str, bool | str, int]]
    faults: list[str]
    refused: dict[int, tuple[str, int]] = field(default_factory=dict)


def signed_for(
    game_id: UUID, index: CheckpointIndex, lists: Mapping[int, EventList | None], kept: Sequence[Mapping[str, Any]] = ()
) -> Signed:
    """What the genuine checkpoints of the log `index` read, the game's signed events (`lists`, by checkpoint
    number) and checkpoints `kept` elsewhere say of the game. A checkpoint that holds under the key counts
    whatever else is wrong with the log."""
    game = str(game_id)
    events: dict[int, tuple[str, bool | str, int]] = {}
    faults = list(index.faults)
    for number in index.naming.get(game, ()):
        checkpoint = index.checkpoints[number - 1]
        if not checkpoint.genuine:
            continue
        listed = lists.get(number)
        if listed is None or _digest_or_none(listed) != checkpoint.games[game][2]:
            faults.append(f"the game's events checkpoint {number} signed are not stored as it signed them")
            continue
        for version, hash_, sealed in listed:
            events.setdefault(version, (hash_, sealed, number))
    faults.extend(_kept_faults(index, kept))
    return Signed(events, faults, _refused_for(game, index))


def _refused_for(game: str, index: CheckpointIndex) -> dict[int, tuple[str, int]]:
    """Each of the game's events a genuine checkpoint could not vouch for: the reason, and the checkpoint."""
    refused: dict[int, tuple[str, int]] = {}
    for number in index.refusing.get(game, ()):
        checkpoint = index.checkpoints[number - 1]
        if checkpoint.genuine:
            for version, reason in checkpoint.refused[game]:
                refused.setdefault(version, (reason, number))
    return refused


@dataclass(frozen=True)
class Unvouched:
    """Consecutive events of a game a checkpoint could not vouch for, for the same reason."""

    game_id: str
    first: int
    last: int
    reason: str
    checkpoint: int = 0

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @property
    def why(self) -> str:
        return REFUSALS.get(self.reason, self.reason)

    def __str__(self) -> str:
        events = f"event {self.first}" if self.first == self.last else f"events {self.first} to {self.last}"
        return f"game {self.game_id} {events} ({self.reason}: {self.why})"


def unvouched_words(number: int, unvouched: Sequence[Unvouched]) -> str:
    """The events checkpoint `number` could not vouch for, by their game, the first runs of them."""
    events = counted(sum(run.count for run in unvouched), "event")
    named = "; ".join(str(run) for run in unvouched[:RUNS_NAMED])
    more = f"; and {counted(len(unvouched) - RUNS_NAMED, 'more run')}" if len(unvouched) > RUNS_NAMED else ""
    return f"checkpoint {number} could not vouch for {events}, and signed none of them: {named}{more}"


def unvouched_by(checkpoint: Checkpoint) -> list[Unvouched]:
    """The events the checkpoint could not vouch for, game by game, in runs of the same reason."""
    runs: list[Unvouched] = []
    for game, events in checkpoint.refused.items():
        for version, reason in events:
            last = runs[-1] if runs else None
            if last is not None and (last.game_id, last.last + 1, last.reason) == (game, version, reason):
                runs[-1] = Unvouched(game, last.first, version, reason, checkpoint.number)
            else:
                runs.append(Unvouched(game, version, version, reason, checkpoint.number))
    return runs


def _kept_faults(index: CheckpointIndex, kept: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """Each checkpoint kept elsewhere holds under the key and is in the log as it was published."""
    for copy in kept:
        signed = {name: value for name, value in copy.items() if name != "signature"}
        number = signed.get("number")
        if not signs(index.key, signed, copy.get("signature")) or not isinstance(number, int) or number < 1:
            yield f"the checkpoint kept elsewhere numbered {number!r} is not signed by the key"
            continue
        stored = index.checkpoints[number - 1] if number <= len(index.checkpoints) else None
        if stored is None or stored.signature != copy["signature"]:
            yield f"checkpoint {number}, kept elsewhere, is not in the checkpoint log: the log was cut or replaced"
