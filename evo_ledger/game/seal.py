"""Seals: a server key's HMAC over each stored event, so that an edit made without the key shows.

An event's own hash shows any change to its bytes, but whoever can write the database can also make the hashes
again. With a seal key set (EVO_LEDGER_SEAL_KEY), every event the server stores ends with its seal: HMAC-SHA256,
under the key, of the event's game, version, topic and bytes. The key is never stored; an audit given the key
finds the first event whose seal is missing or wrong. Seals are the server's own: a bundle is exported without
them, and the server that imports a game seals the events it accepted with a seal of their own kind (`IMPORTED`),
so that an audit tells a game recorded on the server from one it was handed whole: whoever can write the
database could delete a game and import a forgery in its place, and its seals then say so.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final, Literal

from eventsourcing.persistence import StoredEvent

from evo_ledger.game.codec import COMPACT_MARK, SEAL_MARK, SEAL_SIZE, canonical, pack, unpack_sealed
from evo_ledger.settings import SEAL_KEY_VARIABLE

SealKind = Literal["recorded", "imported"]
RECORDED: Final = "recorded"
IMPORTED: Final = "imported"
# What a seal's HMAC covers before the event's place, by kind: a recorded event's seal covers its place alone.
KIND_PREFIX: dict[SealKind, bytes] = {RECORDED: b"", IMPORTED: b"imported\0"}


class Sealer:
    """Seals stored events with one key: each as recorded on this server, or as imported into it."""

    def __init__(self, key: str) -> None:
        if not key:
            raise ValueError(f"{SEAL_KEY_VARIABLE}: a seal key cannot be empty")
        self._key = key.encode("utf-8")

    def seal_of(self, event: StoredEvent, body: bytes, kind: SealKind = RECORDED) -> bytes:
        place = f"{event.originator_id}\0{event.originator_version}\0{event.topic}\0".encode()
        return hmac.new(self._key, KIND_PREFIX[kind] + place + body, hashlib.sha256).digest()

    def sealed(self, event: StoredEvent, kind: SealKind = RECORDED) -> StoredEvent:
        """The unsealed event, in its canonical bytes, with its seal of `kind` after them."""
        body = canonical(event.state)
        state = body + SEAL_MARK + self.seal_of(event, body, kind)
        return StoredEvent(event.originator_id, event.originator_version, event.topic, state)

    def kind_of(self, event: StoredEvent, seal: bytes) -> SealKind | None:
        """The kind of seal the sealed event carries (None: its seal does not hold under the key), taken over its
        canonical bytes, whichever form it is stored in."""
        body = unsealed_bytes(event.state)
        for kind in KIND_PREFIX:
            if hmac.compare_digest(seal, self.seal_of(event, body, kind)):
                return kind
        return None

    def holds(self, event: StoredEvent, seal: bytes) -> bool:
        """Whether the sealed event's seal, of either kind, holds under the key."""
        return self.kind_of(event, seal) is not None


def unsealed_bytes(state: bytes) -> bytes:
    """A stored event's canonical bytes without its seal."""
    if state[:1] == COMPACT_MARK:
        return pack(unpack_sealed(state)[0])
    _, seal = unpack_sealed(state)
    return state if seal is None else state[: len(state) - SEAL_SIZE]
