"""The ledger's people: their records read, and each change decided on the records as they stand
(evo_ledger.app.people) and stored through the writer path (`WriterPath.make`), made again on the records as they
then stand when another writer stored first.

A change names what the caller is told of the seats (`SeatsTold`, or the names alone: `SeatName`), since the
application holds no read table and a stable id's own person, which has no record, is known by its seats alone;
and its keeper (`Keeper`): the admin keeps every person's records, a competition's organiser those of the people
seated at its games that every reader sees (`kept_by_organiser`), read from the competition's record and each
game's first event."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from evo_ledger.app.ledger.application import LedgerApplication, fold_events
from evo_ledger.app.ledger.competitions import Competitions
from evo_ledger.app.ledger.queries import Queries, folded_record
from evo_ledger.app.ledger.writer_path import Made, WriterPath
from evo_ledger.app.people import (
    EVERY_PERSON,
    NOTHING_TOLD,
    PERSON_TOPICS,
    Keeper,
    Keeping,
    Person,
    PersonState,
    Records,
    SeatLink,
    SeatName,
    SeatsTold,
    as_told,
    changed,
    erased,
    merged,
    new_person_id,
    person_record_id,
    registered,
    seat_link_id,
    split,
)
from evo_ledger.app.personal import SealedNames, game_owner, person_owner
from evo_ledger.app.readers import kept_by_organiser

ADMIN = Keeper()


def merged_in(records: Records, person_id: str) -> set[str]:
    """The person and everyone merged into them, at any depth (a merge brought each one's stable ids)."""
    found, pending = {person_id}, [person_id]
    while pending:
        record = records.person(pending.pop())
        for came in record.came_from.values() if record is not None else ():
            if came not in found:
                found.add(came)
                pending.append(came)
    return found


Told = SeatsTold | SeatName


class People:
    """The people behind the seats: each person's record and each stable id's link read, and people registered,
    renamed, linked to stable ids, merged and split by their keepers."""

    def __init__(
        self, store: LedgerApplication, queries: Queries, writer: WriterPath, competitions: Competitions
    ) -> None:
        self.store = store
        self.queries = queries
        self.writer = writer
        self.competitions = competitions
        self.names = SealedNames(store.personal)

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

    def state(self, person_id: str, told: Told = NOTHING_TOLD) -> PersonState:
        """The person as it stands (UnknownPerson where the caller is told of none: no record shown to it, no seat
        it is told of)."""
        return Records(self.person, self.seat_link, as_told(told)).state(person_id)

    def register(
        self, name: str, seat_ids: Sequence[str] = (), told: Told = NOTHING_TOLD, keeper: Keeper = ADMIN
    ) -> PersonState:
        """A new person, with a new id, named, with the stable ids given linked to them (those linked to another
        person than their own refused: SeatIdLinked)."""
        person_id = new_person_id()
        return self._made(person_id, told, keeper, lambda records: registered(records, person_id, name, seat_ids))

    def rename(self, person_id: str, name: str, told: Told = NOTHING_TOLD, keeper: Keeper = ADMIN) -> PersonState:
        return self.change(person_id, name, (), told, keeper)

    def change(
        self,
        person_id: str,
        name: str | None,
        seat_ids: Sequence[str],
        told: Told = NOTHING_TOLD,
        keeper: Keeper = ADMIN,
    ) -> PersonState:
        """The person renamed (where `name` is given) and the stable ids given linked to them, in one transaction."""
        return self._made(person_id, told, keeper, lambda records: changed(records, person_id, name, seat_ids))

    def merge(self, person_id: str, into: str, told: Told = NOTHING_TOLD, keeper: Keeper = ADMIN) -> PersonState:
        """The person merged into another, which takes their stable ids: the one merged into, as it stands."""
        return self._made(person_id, told, keeper, lambda records: merged(records, person_id, into))

    def split(self, person_id: str, seat_id: str, told: Told = NOTHING_TOLD, keeper: Keeper = ADMIN) -> PersonState:
        """A stable id split out of the person, back where it came from: the person, as it stands."""
        return self._made(person_id, told, keeper, lambda records: split(records, person_id, seat_id))

    def erase(self, person_id: str, told: Told = NOTHING_TOLD) -> PersonState:
        """The person's personal data erased (the admin's to ask): the handles of their stable ids, their name (and
        those of the people merged into them), and the typed text of every game they sat at are made unreadable,
        then the erasure is stored, an event that names no one. Refused, erasing nothing: a person not known
        (UnknownPerson), one merged away (PersonMerged), or one erased already (AlreadyErased)."""
        records = Records(self.person, self.seat_link, as_told(told), EVERY_PERSON, self.names)
        erased(records, person_id)  # refused here, before anything is erased; stored below
        record = records.record(person_id)
        seat_ids, people = record.seat_ids, merged_in(records, person_id)
        games = set(self.queries.seats.games_seating(seat_ids))
        self.store.personal.erase(seat_ids, [*map(person_owner, sorted(people)), *map(game_owner, games)])
        # A game started under their labels while their games were looked for: its key goes too. None is started
        # since: their stable ids are marked erased, and their labels are gone.
        started_meanwhile = set(self.queries.seats.games_seating(seat_ids)) - games
        if started_meanwhile:
            self.store.personal.erase(seat_ids, [*map(game_owner, started_meanwhile)])
        return self._made(person_id, told, ADMIN, lambda records: erased(records, person_id))

    def keeping(self, keeper: Keeper) -> Keeping:
        """What the keeper keeps: every person, for the admin; for a competition's organiser, the people of the
        stable ids seated at the competition's games that every reader sees (`kept_by_organiser`), as each game's
        first event seats them."""
        if keeper.competition_id is None:
            return EVERY_PERSON
        competition = self.competitions.competition(keeper.competition_id)
        seat_ids: set[str] = set()
        for game in map(UUID, competition.games):
            if kept_by_organiser(self.queries.vouched.access(game)):
                [first] = self.store.recorder.select_events(game, limit=1)
                started: Any = self.store.mapper.to_domain_event(first)
                seat_ids.update(player["id"] for player in started.players)
        return Keeping(keeper.name, frozenset(seat_ids))

    def _made(
        self, person_id: str, told: Told, keeper: Keeper, decide: Callable[[Records], PersonState]
    ) -> PersonState:
        """What `decide` makes of the records as they stand, stored; decided again on the records as they then
        stand when another writer stored first."""
        keeping, seats = self.keeping(keeper), as_told(told)

        def made() -> Made[PersonState]:
            records = Records(self.person, self.seat_link, seats, keeping, self.names)
            answer = decide(records)
            return Made(answer, records.changed())

        return self.writer.make(person_record_id(person_id), made)
