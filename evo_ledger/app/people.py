"""People behind the seats: every stable id a seat carries (`Player.id` in a game's first event) belongs to one
person, and the read tables rate people, not ids.

A stable id no record claims is a person of its own, whose person id is that stable id and whose name is the one
it last sat under: with no record at all, every rating is as it was by stable id. A person's record (`Person`, its
id derived from its person id) holds its name, the stable ids linked to it and whom it was merged into; a record
for a stable id's own person is made when that person is first changed, named as its id last sat under. A person
created afresh gets a new id (a UUID) no game's seat has.

Each stable id that ever changed hands has a record of its own (`SeatLink`, its id derived from the stable id)
naming its person, stored in the same transaction as the records of the people it leaves and joins. Two changes
that give one stable id to two people at once meet on that record: the store's unique key refuses the second,
which is made again on the records as they then stand and finds the id taken. No game's event ever changes.

Each change is decided by a function of the records as they stand (`Records`, read once per attempt): what it
stores, or the refusal that stores nothing.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

PEOPLE_NAMESPACE = uuid.UUID("41a16af5-537b-4368-af7e-717d5a4ae262")
MAX_NAME = 80
MAX_SEAT_ID = 200  # as long as a seat's stable id may be
MAX_LINKED = 50  # the stable ids one change links


def person_record_id(person_id: str) -> UUID:
    return uuid.uuid5(PEOPLE_NAMESPACE, f"person:{person_id}")


def seat_link_id(seat_id: str) -> UUID:
    return uuid.uuid5(PEOPLE_NAMESPACE, f"seat:{seat_id}")


def new_person_id() -> str:
    return str(uuid.uuid4())


class InvalidPersonName(ValueError):
    """A person's name that is blank, too long, or holds a character that is not printable."""


class InvalidSeatId(ValueError):
    """A stable id no seat could carry: blank or too long."""


class UnknownPerson(LookupError):
    """A person id no record has and no seat's stable id is (as far as the caller is told)."""


def unknown_person(person_id: str, field: str = "person_id") -> UnknownPerson:
    """The refusal of a person not known, its message naming the `field` that named it."""
    shown = person_id[:80]
    return UnknownPerson(f"{field}: no person {shown!r}: no record has that id, and no seat that stable id")


class MergeIntoItself(ValueError):
    """A person merged into itself."""


class PersonMerged(Exception):
    """A change to a person merged into another, or a merge into one: `merged_into` is whom it was merged into."""

    def __init__(self, person_id: str, merged_into: str, message: str) -> None:
        super().__init__(message)
        self.person_id, self.merged_into = person_id, merged_into


class MergeCycle(Exception):
    """A merge into a person whose chain of merges leads back to the person merged."""


class SeatIdLinked(Exception):
    """A stable id linked to a person other than its own: `person_id` is that person."""

    def __init__(self, seat_id: str, person_id: str) -> None:
        shown = seat_id[:80]
        super().__init__(f"link: stable id {shown!r} is linked to person {person_id!r}: split it out of them first")
        self.seat_id, self.person_id = seat_id, person_id


class SeatIdNotLinked(Exception):
    """A stable id split out of a person it is not linked to."""


class OwnSeatId(Exception):
    """A stable id split out of the person whose own id it is: it has nowhere else to go."""


class Person(Aggregate):
    """A person's record: its id, its name, the stable ids linked to it (in the order they were), and whom it was
    merged into (None: it stands). Every event names the person, so that the read tables follow it by its id."""

    TOPIC = "evo-ledger:Person"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:Person.Created"

    class Registered(Created):
        TOPIC = "evo-ledger:Person.Registered"
        person_id: str
        name: str
        seat_ids: list[str]

    class Renamed(Aggregate.Event):
        TOPIC = "evo-ledger:Person.Renamed"
        person_id: str
        name: str

        def apply(self, aggregate: Any) -> None:
            aggregate.name = self.name

    class SeatLinked(Aggregate.Event):
        TOPIC = "evo-ledger:Person.SeatLinked"
        person_id: str
        seat_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = (*aggregate.seat_ids, self.seat_id)

    class SeatSplit(Aggregate.Event):
        """A stable id taken out of the person: back to its own person, or to another it was linked to."""

        TOPIC = "evo-ledger:Person.SeatSplit"
        person_id: str
        seat_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = tuple(held for held in aggregate.seat_ids if held != self.seat_id)

    class MergedInto(Aggregate.Event):
        """The person merged into another (`into`), which took its stable ids (`Absorbed`)."""

        TOPIC = "evo-ledger:Person.MergedInto"
        person_id: str
        into: str

        def apply(self, aggregate: Any) -> None:
            aggregate.merged_into, aggregate.seat_ids = self.into, ()

    class Absorbed(Aggregate.Event):
        """The stable ids of a person merged into this one (`merged`)."""

        TOPIC = "evo-ledger:Person.Absorbed"
        person_id: str
        merged: str
        seat_ids: list[str]

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = (*aggregate.seat_ids, *self.seat_ids)

    class BroughtBack(Aggregate.Event):
        """A person merged away, standing again with its own stable id, split out of the one it was merged into."""

        TOPIC = "evo-ledger:Person.BroughtBack"
        person_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.merged_into, aggregate.seat_ids = None, (self.person_id,)

    def __init__(self, person_id: str, name: str, seat_ids: list[str]) -> None:
        self.person_id = person_id
        self.name = name
        self.seat_ids: tuple[str, ...] = tuple(seat_ids)
        self.merged_into: str | None = None

    @classmethod
    def register(cls, person_id: str, name: str, seat_ids: Sequence[str] = ()) -> Person:
        return cls._create(
            cls.Registered, id=person_record_id(person_id), person_id=person_id, name=name, seat_ids=list(seat_ids)
        )

    def rename(self, name: str) -> None:
        self.trigger_event(self.Renamed, person_id=self.person_id, name=name)

    def link(self, seat_id: str) -> None:
        self.trigger_event(self.SeatLinked, person_id=self.person_id, seat_id=seat_id)

    def split(self, seat_id: str) -> None:
        self.trigger_event(self.SeatSplit, person_id=self.person_id, seat_id=seat_id)

    def merge_into(self, into: str) -> None:
        self.trigger_event(self.MergedInto, person_id=self.person_id, into=into)

    def absorb(self, merged: str, seat_ids: Sequence[str]) -> None:
        self.trigger_event(self.Absorbed, person_id=self.person_id, merged=merged, seat_ids=list(seat_ids))

    def bring_back(self) -> None:
        self.trigger_event(self.BroughtBack, person_id=self.person_id)


class SeatLink(Aggregate):
    """Whose a stable id is, once it has changed hands: the person it belongs to now (its own id where it went
    back to its own person)."""

    TOPIC = "evo-ledger:SeatLink"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:SeatLink.Created"

    class Claimed(Created):
        TOPIC = "evo-ledger:SeatLink.Claimed"
        seat_id: str
        person_id: str

    class Moved(Aggregate.Event):
        TOPIC = "evo-ledger:SeatLink.Moved"
        person_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.person_id = self.person_id

    def __init__(self, seat_id: str, person_id: str) -> None:
        self.seat_id = seat_id
        self.person_id = person_id

    @classmethod
    def claim(cls, seat_id: str, person_id: str) -> SeatLink:
        return cls._create(cls.Claimed, id=seat_link_id(seat_id), seat_id=seat_id, person_id=person_id)

    def move(self, person_id: str) -> None:
        self.trigger_event(self.Moved, person_id=person_id)


# The topics of every person's events, by which the log lists the records.
PERSON_TOPICS = (
    Person.Registered.TOPIC,
    Person.Renamed.TOPIC,
    Person.SeatLinked.TOPIC,
    Person.SeatSplit.TOPIC,
    Person.MergedInto.TOPIC,
    Person.Absorbed.TOPIC,
    Person.BroughtBack.TOPIC,
)

SeatName = Callable[[str], "str | None"]
"""The name a stable id last sat under, as the caller is told of it (None: no seat it is told of has that id)."""


def no_seats(seat_id: str) -> str | None:
    """A caller told of no seat: every person it names must have a record."""
    return None


@dataclass(frozen=True)
class PersonState:
    """A person as a change leaves it: its id, its name, its stable ids, whom it was merged into (None: it stands),
    and whether it has a record of its own (without one, it is a stable id's own person, named as the id sat)."""

    person_id: str
    name: str
    seat_ids: tuple[str, ...]
    merged_into: str | None = None
    recorded: bool = True

    @classmethod
    def of(cls, record: Person) -> PersonState:
        return cls(record.person_id, record.name, record.seat_ids, record.merged_into)


def checked_name(name: str) -> str:
    """A person's name trimmed: 1 to MAX_NAME printable characters."""
    trimmed = name.strip()
    if not 1 <= len(trimmed) <= MAX_NAME:
        raise InvalidPersonName(f"name: from 1 to {MAX_NAME} characters once trimmed, not {len(trimmed)}")
    if not trimmed.isprintable():
        raise InvalidPersonName("name: it holds a character that is not printable (a control or a line break)")
    return trimmed


def is_id_text(text: str) -> bool:
    """Whether the text could be a stable id or a person's id: 1 to MAX_SEAT_ID characters, not blank, none of them
    a control, format, surrogate or unassigned character."""
    if not text.strip() or len(text) > MAX_SEAT_ID:
        return False
    return not any(unicodedata.category(character).startswith("C") for character in text)


def checked_seat_ids(seat_ids: Iterable[str]) -> list[str]:
    """Stable ids to link, each once, in the order given: each id text (`is_id_text`)."""
    found: list[str] = []
    for seat_id in seat_ids:
        if not is_id_text(seat_id):
            shown = seat_id[:40]
            raise InvalidSeatId(
                f"link: {shown!r} is no stable id (1 to {MAX_SEAT_ID} characters, not blank, no control character)"
            )
        if seat_id not in found:
            found.append(seat_id)
    if len(found) > MAX_LINKED:
        raise InvalidSeatId(f"link: at most {MAX_LINKED} stable ids at once, not {len(found)}")
    return found


class Records:
    """The records one attempt at a change reads, each read once and changed in place (so that the change stores
    each record once, with every event it gained), and what the caller is told of the seats (`seat_name`)."""

    def __init__(
        self,
        read_person: Callable[[str], Person | None],
        read_link: Callable[[str], SeatLink | None],
        seat_name: SeatName = no_seats,
    ) -> None:
        self.read_person, self.read_link, self.seat_name = read_person, read_link, seat_name
        self.people: dict[str, Person | None] = {}
        self.links: dict[str, SeatLink | None] = {}

    def person(self, person_id: str) -> Person | None:
        if person_id not in self.people:
            self.people[person_id] = self.read_person(person_id)
        return self.people[person_id]

    def link(self, seat_id: str) -> SeatLink | None:
        if seat_id not in self.links:
            self.links[seat_id] = self.read_link(seat_id)
        return self.links[seat_id]

    def owner(self, seat_id: str) -> str:
        """The person a stable id belongs to: the one its link names, else its own."""
        link = self.link(seat_id)
        return link.person_id if link is not None else seat_id

    def is_known(self, person_id: str) -> bool:
        """Whether the person exists: it has a record, or it is a stable id the caller is told of that belongs to
        its own person."""
        if self.person(person_id) is not None:
            return True
        return self.owner(person_id) == person_id and self.seat_name(person_id) is not None

    def check_known(self, person_id: str, field: str = "person_id") -> None:
        """Refused (UnknownPerson, its message naming the `field` that named the person) unless the person is known
        (`is_known`)."""
        if not self.is_known(person_id):
            raise unknown_person(person_id, field)

    def record(self, person_id: str) -> Person:
        """The person's record: made (named as its id last sat) for a stable id's own person that has none yet;
        refused (UnknownPerson) for a person that is not known (`is_known`)."""
        self.check_known(person_id)
        found = self.person(person_id)
        if found is not None:
            return found
        made = Person.register(person_id, self.seat_name(person_id) or person_id, [person_id])
        self.people[person_id] = made
        return made

    def state(self, person_id: str) -> PersonState:
        """The person as it stands in these records (refused as UnknownPerson where it is not known)."""
        self.check_known(person_id)
        found = self.person(person_id)
        if found is not None:
            return PersonState.of(found)
        return PersonState(person_id, self.seat_name(person_id) or person_id, (person_id,), recorded=False)

    def give(self, seat_id: str, person_id: str) -> None:
        """The stable id's link made to name `person_id`."""
        link = self.link(seat_id)
        if link is None:
            self.links[seat_id] = SeatLink.claim(seat_id, person_id)
        elif link.person_id != person_id:
            link.move(person_id)

    def changed(self) -> list[Aggregate]:
        """The records that gained events, people first."""
        held = [*self.people.values(), *self.links.values()]
        return [record for record in held if record is not None and record.pending_events]


def check_standing(record: Person, field: str = "person_id") -> None:
    """Refused (PersonMerged, its message naming the `field` that named the person) where the person was merged
    into another."""
    if record.merged_into is not None:
        raise PersonMerged(
            record.person_id,
            record.merged_into,
            f"{field}: person {record.person_id!r} was merged into {record.merged_into!r}: name that person instead",
        )


def registered(records: Records, person_id: str, name: str, seat_ids: Sequence[str] = ()) -> PersonState:
    """A new person, named, with the stable ids given linked to it (`linked`)."""
    records.people[person_id] = Person.register(person_id, checked_name(name))
    return linked(records, person_id, seat_ids)


def renamed(records: Records, person_id: str, name: str) -> PersonState:
    """The person renamed (a stable id's own person gets a record); one merged away is refused (PersonMerged)."""
    given = checked_name(name)
    record = records.record(person_id)
    check_standing(record)
    if record.name != given:
        record.rename(given)
    return PersonState.of(record)


def linked(records: Records, person_id: str, seat_ids: Sequence[str]) -> PersonState:
    """The stable ids linked to the person, all or none: each one the person holds already is left as it is; each
    one linked to another person than its own is refused (SeatIdLinked, naming that person). One whose own person
    has a record leaves it (that record keeps its name and its other ids); a split gives it back."""
    wanted = checked_seat_ids(seat_ids)
    records.check_known(person_id)
    standing = records.person(person_id)
    if standing is not None:
        check_standing(standing)
    for seat_id in wanted:
        owner = records.owner(seat_id)
        if owner not in (seat_id, person_id):
            raise SeatIdLinked(seat_id, owner)
    moving = [seat_id for seat_id in wanted if records.owner(seat_id) != person_id]
    if not moving:
        return records.state(person_id)
    record = records.record(person_id)
    for seat_id in moving:
        own = records.person(seat_id)
        if own is not None and seat_id in own.seat_ids:
            own.split(seat_id)
        record.link(seat_id)
        records.give(seat_id, person_id)
    return PersonState.of(record)


def changed(records: Records, person_id: str, name: str | None, seat_ids: Sequence[str]) -> PersonState:
    """A person renamed (where `name` is given) and the stable ids given linked to it, in one change."""
    if name is not None:
        renamed(records, person_id, name)
    return linked(records, person_id, seat_ids) if seat_ids else records.state(person_id)


def merged(records: Records, person_id: str, into: str) -> PersonState:
    """The person merged into another: that one takes its stable ids, and it is marked merged into it. Refused: into
    itself (MergeIntoItself), a person not known (UnknownPerson), a person merged already or a merge into one merged
    away (PersonMerged, naming whom it was merged into), or into one whose chain of merges leads back to the person
    (MergeCycle)."""
    if person_id == into:
        raise MergeIntoItself(f"into: person {person_id[:80]!r} cannot be merged into itself")
    records.check_known(person_id)
    records.check_known(into, "into")
    merging, taking = records.record(person_id), records.record(into)
    check_standing(merging)
    check_merge_target(records, person_id, taking)
    moved = merging.seat_ids
    merging.merge_into(into)
    taking.absorb(person_id, moved)
    for seat_id in moved:
        records.give(seat_id, into)
    return PersonState.of(taking)


def check_merge_target(records: Records, person_id: str, target: Person) -> None:
    """A person may be merged into `target` unless it was merged away: refused as PersonMerged (naming whom it was
    merged into), or as MergeCycle where that chain of merges leads back to `person_id`."""
    if target.merged_into is None:
        return
    seen: set[str] = {target.person_id}
    step: str | None = target.merged_into
    while step is not None and step not in seen:
        if step == person_id:
            raise MergeCycle(
                f"into: person {target.person_id!r} was merged into {person_id!r} (directly or by way of others): "
                f"merging {person_id!r} into it would make a cycle"
            )
        seen.add(step)
        further = records.person(step)
        step = further.merged_into if further is not None else None
    check_standing(target, "into")


def split(records: Records, person_id: str, seat_id: str) -> PersonState:
    """A stable id taken out of a person, back to its own person, which gets its record back where it has one: a
    person merged away is brought back with that id, one that stands gets the id linked again. Refused: the person
    not known (UnknownPerson), the id not the person's (SeatIdNotLinked), the person's own id (OwnSeatId)."""
    records.check_known(person_id)
    record = records.person(person_id)
    if seat_id == person_id:
        raise OwnSeatId(f"seat_id: {seat_id[:80]!r} is person {person_id!r}'s own stable id; it stays theirs")
    if record is None or seat_id not in record.seat_ids:
        raise SeatIdNotLinked(f"seat_id: stable id {seat_id[:80]!r} is not linked to person {person_id!r}")
    record.split(seat_id)
    own = records.person(seat_id)
    if own is not None and own.merged_into is not None:
        own.bring_back()
    elif own is not None:
        own.link(seat_id)
    records.give(seat_id, seat_id)
    return PersonState.of(record)
