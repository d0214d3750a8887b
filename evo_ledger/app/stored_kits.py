"""Kits stored on the server: each kit a record of its own beside the games, event-sourced as they are.

A kit is checked by the ruleset it names (`parse_kit`) and pinned by its content hash, as every kit is. Its record's
id comes from that hash (`stored_kit_id`), so that two servers, or two requests, storing the same kit meet on one
record: the store's unique key refuses the second, which is then made again and finds the kit stored. A game
started on a stored kit carries the kit's whole document in its first event, as it does a built-in kit's, and
marks the record used (`FirstUsed`, in the game's transaction): a kit a game was started on stays. Removing a kit
is an event of its record, and a kit removed may be stored again.

Who stored a kit is kept as a digest (`caller_key`). Each caller's kits are counted on a record of the caller's
own, its shelf, changed in the same transaction as the kit's record, so that the count holds however many requests
store kits at once, on however many servers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from evo_ledger.game.codec import CodecError, check_depth
from evo_ledger.rules.kits import KitError, builtin_kit_of_hash, canonical_hash, parse_kit

KITS_NAMESPACE = uuid.UUID("7a613f9d-79c3-412e-ac32-1d8dfd5f33d2")
# A stored kit's document as canonical JSON: the largest built-in kit is about 10 KiB.
MAX_STORED_KIT_BYTES = 64 * 1024
KIT_HASH = re.compile(r"sha256:[0-9a-f]{64}")
# A number the store's msgpack holds as an integer.
LARGEST_NUMBER = 2**63 - 1


def is_kit_hash(reference: str) -> bool:
    """Whether a kit is named by its content hash (`sha256:` and 64 hex digits) rather than a built-in's name."""
    return KIT_HASH.fullmatch(reference) is not None


def stored_kit_id(kit_hash: str) -> UUID:
    return uuid.uuid5(KITS_NAMESPACE, f"kit:{kit_hash}")


def shelf_id(caller: str) -> UUID:
    return uuid.uuid5(KITS_NAMESPACE, f"shelf:{caller}")


def caller_key(client: str, secret: str | None) -> str:
    """The key a caller's stored kits are counted by: a digest of `client` (its address), never the address itself.
    The log is kept for good and goes wherever the database goes (backups, copies made for an audit), and counting
    needs no more than telling one caller from another. Keyed with the server's `secret` (its seal key) where it
    has one, so that a copy of the log without the key cannot be matched against addresses tried one by one;
    a new key starts every caller's count afresh."""
    key = (secret or "").encode("utf-8")
    return hmac.new(key, f"evo-ledger kit caller:{client}".encode(), hashlib.sha256).hexdigest()


class InvalidKit(ValueError):
    """A kit document its ruleset refuses, or one no kit is (its message names the field)."""


class KitTooLarge(ValueError):
    """A kit document over MAX_STORED_KIT_BYTES as canonical JSON."""


class TooManyKits(Exception):
    """A caller that holds as many stored kits as it may."""


class UnknownKit(LookupError):
    """A kit hash no built-in kit has and no stored kit holds (or a stored kit removed)."""


class KitInUse(Exception):
    """A stored kit a game was started on: it stays."""


class KitBuiltIn(Exception):
    """A built-in kit, which ships with its ruleset and is never removed."""


@dataclass(frozen=True)
class KitCaller:
    """Who stores a kit: the digest it is counted by (`caller_key`; None for the admin and the command line, whose
    kits no shelf counts) and how many stored kits it may hold (None: no limit)."""

    key: str | None = None
    limit: int | None = None


# The admin's and the command line's: counted on no shelf, held to no limit.
UNCOUNTED = KitCaller()


@dataclass(frozen=True)
class KeptKit:
    """A kit as storing it answers: its hash and document, the built-in kit's name where it is one (nothing is
    stored for it), and whether it was stored or built in already."""

    kit_hash: str
    document: dict[str, Any]
    built_in: str | None
    already: bool


class StoredKit(Aggregate):
    """A kit stored on the server: its hash, its document, the digest of the caller that stored it, whether it is
    removed, and whether a game was started on it."""

    TOPIC = "evo-ledger:StoredKit"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:StoredKit.Created"

    class Stored(Created):
        TOPIC = "evo-ledger:StoredKit.Stored"
        kit_hash: str
        document: dict[str, Any]
        stored_by: str | None

    class Removed(Aggregate.Event):
        TOPIC = "evo-ledger:StoredKit.Removed"

        def apply(self, aggregate: Any) -> None:
            aggregate.removed = True

    class StoredAgain(Aggregate.Event):
        """A kit removed, stored again by a caller (the document is the record's: it has the same hash)."""

        TOPIC = "evo-ledger:StoredKit.StoredAgain"
        stored_by: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.removed, aggregate.stored_by = False, self.stored_by

    class FirstUsed(Aggregate.Event):
        """The first game started on the kit, stored in the same transaction."""

        TOPIC = "evo-ledger:StoredKit.FirstUsed"

        def apply(self, aggregate: Any) -> None:
            aggregate.used = True

    def __init__(self, kit_hash: str, document: dict[str, Any], stored_by: str | None) -> None:
        self.kit_hash = kit_hash
        self.document = document
        self.stored_by = stored_by
        self.removed = False
        self.used = False

    @classmethod
    def store(cls, kit_hash: str, document: dict[str, Any], stored_by: str | None) -> StoredKit:
        return cls._create(
            cls.Stored, id=stored_kit_id(kit_hash), kit_hash=kit_hash, document=document, stored_by=stored_by
        )

    def store_again(self, stored_by: str | None) -> None:
        self.trigger_event(self.StoredAgain, stored_by=stored_by)

    def remove(self) -> None:
        self.trigger_event(self.Removed)

    def mark_used(self) -> bool:
        """Mark the kit used by a game started on it: whether this is its first (an event to store)."""
        if self.removed:
            raise UnknownKit(f"kit {self.kit_hash}: it was removed; store it again to start a game on it")
        if self.used:
            return False
        self.trigger_event(self.FirstUsed)
        return True


class KitShelf(Aggregate):
    """The stored kits a caller (by its key's digest) holds: one kit stored adds its hash, one removed takes it."""

    TOPIC = "evo-ledger:KitShelf"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:KitShelf.Created"

    class Opened(Created):
        TOPIC = "evo-ledger:KitShelf.Opened"
        caller: str

    class KitCounted(Aggregate.Event):
        TOPIC = "evo-ledger:KitShelf.KitCounted"
        kit_hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.kits = (*aggregate.kits, self.kit_hash)

    class KitUncounted(Aggregate.Event):
        TOPIC = "evo-ledger:KitShelf.KitUncounted"
        kit_hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.kits = tuple(held for held in aggregate.kits if held != self.kit_hash)

    def __init__(self, caller: str) -> None:
        self.caller = caller
        self.kits: tuple[str, ...] = ()

    @classmethod
    def open(cls, caller: str) -> KitShelf:
        return cls._create(cls.Opened, id=shelf_id(caller), caller=caller)

    def count(self, kit_hash: str) -> None:
        self.trigger_event(self.KitCounted, kit_hash=kit_hash)

    def uncount(self, kit_hash: str) -> None:
        self.trigger_event(self.KitUncounted, kit_hash=kit_hash)


# The topics of the events that store and remove kits, by which the log lists the stored kits.
STORED_KIT_TOPICS = (StoredKit.Stored.TOPIC, StoredKit.Removed.TOPIC, StoredKit.StoredAgain.TOPIC)


def checked_kit(document: Any) -> tuple[str, dict[str, Any]]:
    """A kit document fit to store, with its content hash: an object its ruleset reads (InvalidKit naming the field
    otherwise), nesting at most as deep as a stored value may, its numbers finite and within 64 bits, and at most
    MAX_STORED_KIT_BYTES as canonical JSON (KitTooLarge)."""
    try:
        check_depth(document)
    except CodecError as error:
        raise InvalidKit(f"kit: document: {error}") from None
    number = next(_numbers_out_of_range(document), None)
    if number is not None:
        raise InvalidKit(f"kit: document: {str(number)[:40]} is not a number a kit holds (finite, within 64 bits)")
    try:
        size = len(json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidKit("kit: document: a string holds a lone surrogate (\\ud800 to \\udfff): no text") from None
    if size > MAX_STORED_KIT_BYTES:
        over = f"{size:,} bytes as canonical JSON, over the {MAX_STORED_KIT_BYTES:,} a stored kit may be"
        raise KitTooLarge(f"kit: its document is {over}")
    try:
        kit = parse_kit(document, label=_label(document))
    except KitError as error:
        raise InvalidKit(str(error)) from None
    return str(kit.content_hash), document


def _label(document: Any) -> str:
    """What a refusal calls the kit: its name, where it has one."""
    name = document.get("name") if isinstance(document, dict) else None
    return name[:80] if isinstance(name, str) and name else "kit"


def _numbers_out_of_range(value: Any) -> Iterator[Any]:
    """The numbers in `value` that no kit holds: not finite, or beyond 64 bits (a value nested at most MAX_DEPTH)."""
    if isinstance(value, bool):
        return
    too_large = isinstance(value, int) and abs(value) > LARGEST_NUMBER
    if too_large or (isinstance(value, float) and not math.isfinite(value)):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers_out_of_range(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers_out_of_range(item)


def built_in(kit_hash: str, document: dict[str, Any]) -> KeptKit | None:
    """The answer to storing a built-in kit's document: nothing is stored, it is there already."""
    name = builtin_kit_of_hash(kit_hash)
    return KeptKit(kit_hash, document, name, already=True) if name is not None else None


def stored(
    kit_hash: str, document: dict[str, Any], caller: KitCaller, record: StoredKit | None, shelf: KitShelf | None
) -> tuple[KeptKit, list[Aggregate]]:
    """What storing the kit makes of its record and the caller's shelf as they stand (None: none yet): its answer,
    and the records changed (none for a kit stored already). A caller holding its limit is refused (TooManyKits)."""
    if record is not None and not record.removed:
        return KeptKit(kit_hash, record.document, None, already=True), []
    held = len(shelf.kits) if shelf is not None else 0
    if caller.limit is not None and held >= caller.limit:
        raise TooManyKits(
            f"a caller may hold {caller.limit} stored kits, and this one holds {held}: the admin removes those no "
            "game uses"
        )
    if record is None:
        record = StoredKit.store(kit_hash, document, caller.key)
    else:
        record.store_again(caller.key)
    changed: list[Aggregate] = [record]
    if caller.key is not None:
        shelf = shelf if shelf is not None else KitShelf.open(caller.key)
        shelf.count(kit_hash)
        changed.append(shelf)
    return KeptKit(kit_hash, record.document, None, already=False), changed


def removed(
    kit_hash: str, record: StoredKit | None, shelf: KitShelf | None, game_on_it: bool = False
) -> list[Aggregate]:
    """The records removing the kit changes: its own, and the shelf of the caller that stored it. A built-in kit
    (KitBuiltIn), a kit not stored (UnknownKit) and one a game was started on (KitInUse: marked so when a game
    was started on it here, or `game_on_it`, a game the log holds on it, imported whole) are refused."""
    if builtin_kit_of_hash(kit_hash) is not None:
        raise KitBuiltIn(f"kit {kit_hash} is built in: it ships with its ruleset and is not removed")
    if record is None or record.removed:
        raise UnknownKit(f"no kit stored has the hash {kit_hash[:80]!r}")
    if record.used or game_on_it:
        raise KitInUse(f"kit {kit_hash}: a game was started on it, so it stays")
    record.remove()
    if shelf is None:
        return [record]
    shelf.uncount(kit_hash)
    return [record, shelf]


def document_of(record: StoredKit | None, kit_hash: str) -> dict[str, Any]:
    """A stored kit's document, refused (UnknownKit) where none is stored, or where its record does not hold the
    kit its hash names (changed in the database since)."""
    if record is None or record.removed:
        raise UnknownKit(f"no kit has the hash {kit_hash[:80]!r}: no built-in kit's, and no stored kit's")
    if canonical_hash(record.document) != kit_hash:
        raise UnknownKit(f"kit {kit_hash}: its record holds another document: it was changed in the database")
    return record.document
