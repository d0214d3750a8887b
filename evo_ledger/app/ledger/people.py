"""The ledger's people: their records read, and each change decided on the records as they stand
(evo_ledger.app.people) and stored through the writer path (`WriterPath.make`), made again on the records as they
then stand when another writer stored first.

A change names what the caller is told of the seats (`SeatName`: the name a stable id last sat under, None where it
is told of none): the application holds no read table, and a stable id's own person, which has no record, is known
by its seats alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from evo_ledger.app.ledger.application import LedgerApplication, fold_events
from evo_ledger.app.ledger.queries import Queries, folded_record
from evo_ledger.app.ledger.writer_path import Made, WriterPath
from evo_ledger.app.people import (
    PERSON_TOPICS,
    Person,
    PersonState,
    Records,
    SeatLink,
    SeatName,
    changed,
    merged,
    new_person_id,
    no_seats,
    person_record_id,
    registered,
    renamed,
    seat_link_id,
    split,
)


class People:
    """The people behind the seats: each person's record and each stable id's link read, and people registered,
    renamed, linked to stable ids, merged and split."""

    def __init__(self, store: LedgerApplication, queries: Queries, writer: WriterPath) -> None:
        self.store = store
        self.queries = queries
        self.writer = writer

    def person(self, person_id: str) -> Person | None:
        """The person's record as the store holds it now (None: it has none)."""
        found: Person | None = folded_record(self.store, person_record_id(person_id))
        return found

    def seat_link(self, seat_id: str) -> SeatLink | None:
        """The stable id's link as the store holds it now (None: it never changed hands)."""
        found: SeatLink | None = folded_record(self.store, seat_link_id(seat_id))
        return found

    def records(self) -> list[Person]:
        """Every person's record as it stands, in the order each was registered: the log's people's events, read
        in order and folded by record."""
        by_record: dict[UUID, list[Any]] = {}
        for notification in self.queries.notifications_after(0, PERSON_TOPICS):
            event = self.store.mapper.to_domain_event(notification)
            by_record.setdefault(event.originator_id, []).append(event)
        return [fold_events(None, events) for events in by_record.values()]

    def state(self, person_id: str, seat_name: SeatName = no_seats) -> PersonState:
        """The person as it stands (UnknownPerson where no record has the id and no seat the caller is told of)."""
        return self._records(seat_name).state(person_id)

    def register(self, name: str, seat_ids: Sequence[str] = (), seat_name: SeatName = no_seats) -> PersonState:
        """A new person, with a new id, named, with the stable ids given linked to it (those linked to another
        person than their own refused: SeatIdLinked)."""
        person_id = new_person_id()
        return self._made(person_id, seat_name, lambda records: registered(records, person_id, name, seat_ids))

    def rename(self, person_id: str, name: str, seat_name: SeatName = no_seats) -> PersonState:
        return self._made(person_id, seat_name, lambda records: renamed(records, person_id, name))

    def change(
        self, person_id: str, name: str | None, seat_ids: Sequence[str], seat_name: SeatName = no_seats
    ) -> PersonState:
        """The person renamed (where `name` is given) and the stable ids given linked to it, in one transaction."""
        return self._made(person_id, seat_name, lambda records: changed(records, person_id, name, seat_ids))

    def merge(self, person_id: str, into: str, seat_name: SeatName = no_seats) -> PersonState:
        """The person merged into another, which takes its stable ids: the one merged into, as it stands."""
        return self._made(person_id, seat_name, lambda records: merged(records, person_id, into))

    def split(self, person_id: str, seat_id: str, seat_name: SeatName = no_seats) -> PersonState:
        """A stable id split out of the person, back to its own: the person, as it stands."""
        return self._made(person_id, seat_name, lambda records: split(records, person_id, seat_id))

    def _records(self, seat_name: SeatName) -> Records:
        return Records(self.person, self.seat_link, seat_name)

    def _made(self, person_id: str, seat_name: SeatName, decide: Callable[[Records], PersonState]) -> PersonState:
        """What `decide` makes of the records as they stand, stored; decided again on the records as they then
        stand when another writer stored first."""

        def made() -> Made[PersonState]:
            records = self._records(seat_name)
            answer = decide(records)
            return Made(answer, records.changed())

        return self.writer.make(person_record_id(person_id), made)
