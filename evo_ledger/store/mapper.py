"""The library's mapper as the ledger stores events with it: each event sealed when the server has a seal key."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from evo_ledger.game.seal import Sealer
from evo_ledger.store.recorders import stored_event


class SealingMapper(Mapper[UUID]):
    """The library's mapper, sealing each event it stores when it has a key (reading ignores seals)."""

    def __init__(self, *args: Any, sealer: Sealer | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sealer = sealer

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        """The library's, made without its frozen dataclass's per-field set (a compressor or a cipher, which the
        ledger never sets, are left to the library)."""
        if self.compressor is not None or self.cipher is not None:
            return self.sealed(super().to_stored_event(domain_event))
        state = dict(domain_event.__dict__)
        originator_id, originator_version = state.pop("originator_id"), state.pop("originator_version")
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        topic = get_topic(type(domain_event))
        return self.sealed(stored_event(originator_id, originator_version, topic, self.transcoder.encode(state)))

    def sealed(self, stored: StoredEvent) -> StoredEvent:
        """An unsealed stored event as this mapper stores it."""
        return stored if self.sealer is None else self.sealer.sealed(stored)


def sealed_by(mapper: Mapper[UUID], stored: StoredEvent) -> StoredEvent:
    """An unsealed stored event as `mapper` would store it."""
    return mapper.sealed(stored) if isinstance(mapper, SealingMapper) else stored
