"""Seals: a server key's HMAC over each stored event, so that an edit made without the key shows.

An event's own hash shows any change to its bytes, but whoever can write the database can also make the hashes
again. With a seal key set (EVO_LEDGER_SEAL_KEY), every event the server stores ends with its seal: HMAC-SHA256,
under the key, of the event's game, version, topic and bytes. The key is never stored; an audit given the key
finds the first event whose seal is missing or wrong. Seals are the server's own: a bundle is exported without
them, and the server that imports it seals the events it accepted.
"""

from __future__ import annotations

import hashlib
import hmac

from eventsourcing.persistence import StoredEvent

from evo_ledger.game.codec import SEAL_MARK, SEAL_SIZE, unpack_sealed
from evo_ledger.settings import SEAL_KEY_VARIABLE


class Sealer:
    """Seals stored events with one key."""

    def __init__(self, key: str) -> None:
        if not key:
            raise ValueError(f"{SEAL_KEY_VARIABLE}: a seal key cannot be empty")
        self._key = key.encode("utf-8")

    def seal_of(self, event: StoredEvent, body: bytes) -> bytes:
        place = f"{event.originator_id}\0{event.originator_version}\0{event.topic}\0".encode()
        return hmac.new(self._key, place + body, hashlib.sha256).digest()

    def sealed(self, event: StoredEvent) -> StoredEvent:
        """The unsealed event with its seal after its bytes."""
        state = event.state + SEAL_MARK + self.seal_of(event, event.state)
        return StoredEvent(event.originator_id, event.originator_version, event.topic, state)

    def holds(self, event: StoredEvent, seal: bytes) -> bool:
        body = event.state[: len(event.state) - SEAL_SIZE]
        return hmac.compare_digest(seal, self.seal_of(event, body))


def unsealed_bytes(state: bytes) -> bytes:
    """A stored event's bytes without its seal."""
    _, seal = unpack_sealed(state)
    return state if seal is None else state[: len(state) - SEAL_SIZE]
