"""The library's mapper as the ledger stores events with it: each event sealed when the server has a seal key, and
kept in the compact stored form (`evo_ledger.game.codec.compact`) unless the settings ask for the keyed one."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.domain import Snapshot
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from evo_ledger.game.aggregate import is_game_event_topic
from evo_ledger.game.codec import SEAL_MARK, compact, compact_fields
from evo_ledger.game.seal import IMPORTED, RECORDED, Sealer, SealKind


class SealingMapper(Mapper[UUID]):
    """The library's mapper, sealing each event it stores when it has a key (reading ignores seals), in the compact
    stored form where `compacts` (the seal taken over the canonical form, which the compact one gives back); a long
    event deflated on its own unless not `deflates_events` (a store that deflates a run of events together), a
    snapshot always."""

    def __init__(
        self,
        *args: Any,
        sealer: Sealer | None = None,
        compacts: bool = True,
        deflates_events: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.sealer, self.compacts, self.deflates_events = sealer, compacts, deflates_events

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        """The library's stored event, sealed, and compact where `compacts`: made from the event's fields as the
        library encodes them, which are not decoded again (`compact_fields`)."""
        if not self.compacts:
            return self.sealed(super().to_stored_event(domain_event))
        topic = get_topic(type(domain_event))
        fields = dict(vars(domain_event))
        originator_id, version = fields.pop("originator_id"), fields.pop("originator_version")
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            fields["class_version"] = class_version
        deflating = self.deflates_events or isinstance(domain_event, Snapshot)
        if self.sealer is None:  # the keyed bytes are wanted only where the compact form cannot be had
            state = compact_fields(fields, None, deflating)
            if state is None:
                state = self.transcoder.encode(fields)
            return StoredEvent(originator_id, version, topic, state)
        keyed = StoredEvent(originator_id, version, topic, self.transcoder.encode(fields))
        sealed = self.sealer.sealed(keyed)
        state = compact_fields(fields, sealed.state[len(keyed.state) + len(SEAL_MARK) :], deflating)
        return sealed if state is None else StoredEvent(originator_id, version, topic, state)

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        """The library's decoding, once the rulesets' event topics are registered (they load when first needed)."""
        is_game_event_topic(stored_event.topic)
        return super().to_domain_event(stored_event)

    def sealed(self, stored: StoredEvent, kind: SealKind = RECORDED) -> StoredEvent:
        """An unsealed stored event as this mapper stores it (`kind`: recorded here, or imported)."""
        sealed = stored if self.sealer is None else self.sealer.sealed(stored, kind)
        if not self.compacts:
            return sealed
        return StoredEvent(sealed.originator_id, sealed.originator_version, sealed.topic, compact(sealed.state))


def sealed_by(mapper: Mapper[UUID], stored: StoredEvent, kind: SealKind = RECORDED) -> StoredEvent:
    """An unsealed stored event as `mapper` would store it, with a seal of `kind` where it seals."""
    return mapper.sealed(stored, kind) if isinstance(mapper, SealingMapper) else stored


def imported_by(mapper: Mapper[UUID], domain_event: Any) -> StoredEvent:
    """A domain event of a game handed to the server whole, as `mapper` stores it: sealed as imported."""
    return sealed_by(mapper, Mapper.to_stored_event(mapper, domain_event), IMPORTED)
