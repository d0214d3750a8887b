"""People behind the seats: every stable id a seat carries (`Player.id` in a game's first event) belongs to one
person, and the read tables rate people, not ids.

A stable id no record claims is a person of its own, whose person id is that stable id and whose name is the one
it last sat under: with no record at all, every rating is as it was by stable id. A person's record (`Person`, its
id derived from its person id) holds its name (None until a keeper names them: they are then named as their stable
ids last sat, as each reader is told of those seats), the stable ids linked to it, which person each id a merge
brought came from, and whom it was merged into. A record for a stable id's own person is made, unnamed, when that
person is first changed. A person created afresh gets a new id (a UUID) no game's seat has.

Each stable id that ever changed hands has a record of its own (`SeatLink`, its id derived from the stable id)
naming its person, stored in the same transaction as the records of the people it leaves and joins; a record made
for a stable id's own person claims that id's link for it in the same transaction too. Two changes that give one
stable id to two people at once meet on that record: the store's unique key (or its version) refuses the second,
which is made again on the records as they then stand and finds the id taken. No game's event ever changes.

Each change is made by a keeper (`Keeper`): the admin keeps every person's records, the organiser of a competition
those of the people seated at its games that every reader sees. Each is decided by a function of the records as
they stand (`Records`, read once per attempt), of what the caller is told of the seats (`SeatsTold`) and of what
its keeper keeps (`Keeping`): what it stores, or the refusal that stores nothing.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.domain import Aggregate

PEOPLE_NAMESPACE = uuid.UUID("41a16af5-537b-4368-af7e-717d5a4ae262")
MAX_NAME = 80
MAX_SEAT_ID = 200  # as long as a seat's stable id may be
MAX_LINKED = 50  # the stable ids one change links
ADMIN_KEEPER = "admin"
ORGANISER_KEEPER = "organiser:"


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


class AlreadyErased(Exception):
    """An erasure of a person whose personal data was erased already."""

    def __init__(self, person_id: str) -> None:
        super().__init__(f"person {person_id[:80]!r}: their personal data was erased already")
        self.person_id = person_id


class PersonPrivate(Exception):
    """A merge into a person no game every reader sees shows: the merge would show their stable ids and name."""


class NotYourPeople(PermissionError):
    """A change by a competition's organiser touching a stable id not seated at that competition's games that
    every reader sees: the admin keeps that person's records."""


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
    """A person's record: its id, its name (None: no keeper named them), the stable ids linked to it (in the order
    they were), the person each stable id a merge brought came from (`came_from`), whom it was merged into (None:
    it stands), and the keeper of its last change (`changed_by`). Every event names the person, so that the read
    tables follow it by its id, and the keeper who made it (`by`: `admin`, or `organiser:<competition id>`)."""

    TOPIC = "evo-ledger:Person"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:Person.Created"

    class Registered(Created):
        TOPIC = "evo-ledger:Person.Registered"
        person_id: str
        name: str | None
        seat_ids: list[str]
        by: str

    class Renamed(Aggregate.Event):
        TOPIC = "evo-ledger:Person.Renamed"
        person_id: str
        name: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.name, aggregate.changed_by = self.name, self.by

    class SeatLinked(Aggregate.Event):
        TOPIC = "evo-ledger:Person.SeatLinked"
        person_id: str
        seat_id: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = (*aggregate.seat_ids, self.seat_id)
            aggregate.came_from = without(aggregate.came_from, self.seat_id)
            aggregate.changed_by = self.by

    class SeatSplit(Aggregate.Event):
        """A stable id taken out of the person: back where it came from, or to its own person."""

        TOPIC = "evo-ledger:Person.SeatSplit"
        person_id: str
        seat_id: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = tuple(held for held in aggregate.seat_ids if held != self.seat_id)
            aggregate.came_from = without(aggregate.came_from, self.seat_id)
            aggregate.changed_by = self.by

    class MergedInto(Aggregate.Event):
        """The person merged into another (`into`), which took its stable ids (`Absorbed`). Where each of them came
        from is kept, so that a split steps back through this person's own merges."""

        TOPIC = "evo-ledger:Person.MergedInto"
        person_id: str
        into: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.merged_into, aggregate.seat_ids, aggregate.changed_by = self.into, (), self.by

    class Absorbed(Aggregate.Event):
        """The stable ids of a person merged into this one (`merged`), each marked as come from it."""

        TOPIC = "evo-ledger:Person.Absorbed"
        person_id: str
        merged: str
        seat_ids: list[str]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_ids = (*aggregate.seat_ids, *self.seat_ids)
            aggregate.came_from = {**aggregate.came_from, **dict.fromkeys(self.seat_ids, self.merged)}
            aggregate.changed_by = self.by

    class BroughtBack(Aggregate.Event):
        """A person merged away, standing again with a stable id (`seat_id`) split out of the one it was merged
        into."""

        TOPIC = "evo-ledger:Person.BroughtBack"
        person_id: str
        seat_id: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.merged_into, aggregate.seat_ids, aggregate.changed_by = None, (self.seat_id,), self.by

    class Erased(Aggregate.Event):
        """The person's personal data erased: their names and handles made unreadable, in their records and in
        every game they sat at (evo_ledger.app.personal). The event names no one."""

        TOPIC = "evo-ledger:Person.Erased"
        person_id: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.erased, aggregate.changed_by = True, self.by

    def __init__(self, person_id: str, name: str | None, seat_ids: list[str], by: str) -> None:
        self.person_id = person_id
        self.name = name
        self.erased = False
        self.seat_ids: tuple[str, ...] = tuple(seat_ids)
        self.came_from: dict[str, str] = {}
        self.merged_into: str | None = None
        self.changed_by = by

    @classmethod
    def register(cls, person_id: str, name: str | None, by: str, seat_ids: Sequence[str] = ()) -> Person:
        return cls._create(
            cls.Registered,
            id=person_record_id(person_id),
            person_id=person_id,
            name=name,
            seat_ids=list(seat_ids),
            by=by,
        )

    def rename(self, name: str, by: str) -> None:
        self.trigger_event(self.Renamed, person_id=self.person_id, name=name, by=by)

    def link(self, seat_id: str, by: str) -> None:
        self.trigger_event(self.SeatLinked, person_id=self.person_id, seat_id=seat_id, by=by)

    def split(self, seat_id: str, by: str) -> None:
        self.trigger_event(self.SeatSplit, person_id=self.person_id, seat_id=seat_id, by=by)

    def merge_into(self, into: str, by: str) -> None:
        self.trigger_event(self.MergedInto, person_id=self.person_id, into=into, by=by)

    def absorb(self, merged: str, seat_ids: Sequence[str], by: str) -> None:
        self.trigger_event(self.Absorbed, person_id=self.person_id, merged=merged, seat_ids=list(seat_ids), by=by)

    def bring_back(self, seat_id: str, by: str) -> None:
        self.trigger_event(self.BroughtBack, person_id=self.person_id, seat_id=seat_id, by=by)

    def erase(self, by: str) -> None:
        self.trigger_event(self.Erased, person_id=self.person_id, by=by)


def without(came_from: dict[str, str], seat_id: str) -> dict[str, str]:
    return {held: person for held, person in came_from.items() if held != seat_id}


class SeatLink(Aggregate):
    """Whose a stable id is, once it has changed hands or its own person got a record: the person it belongs to now
    (its own id where it is its own person's)."""

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

    class Held(Aggregate.Event):
        """The stable id's own person, which it belongs to, got a record: the link is stored again as it stands, so
        that a change moving the id elsewhere at once meets this one on the link's version."""

        TOPIC = "evo-ledger:SeatLink.Held"

    def __init__(self, seat_id: str, person_id: str) -> None:
        self.seat_id = seat_id
        self.person_id = person_id

    @classmethod
    def claim(cls, seat_id: str, person_id: str) -> SeatLink:
        return cls._create(cls.Claimed, id=seat_link_id(seat_id), seat_id=seat_id, person_id=person_id)

    def move(self, person_id: str) -> None:
        self.trigger_event(self.Moved, person_id=person_id)

    def hold(self) -> None:
        self.trigger_event(self.Held)


# The topics of every person's events, by which the log lists the records.
PERSON_TOPICS = (
    Person.Registered.TOPIC,
    Person.Renamed.TOPIC,
    Person.SeatLinked.TOPIC,
    Person.SeatSplit.TOPIC,
    Person.MergedInto.TOPIC,
    Person.Absorbed.TOPIC,
    Person.BroughtBack.TOPIC,
    Person.Erased.TOPIC,
)

SeatName = Callable[[str], "str | None"]
"""The name a stable id last sat under, as the caller is told of it (None: no seat it is told of has that id)."""

SeatIdsShown = Callable[[Collection[str]], bool]
"""Whether a person holding these stable ids (its own id among them) is shown to a reader."""


def no_seats(seat_id: str) -> str | None:
    """A caller told of no seat: every person it names must have a record."""
    return None


def every_person(seat_ids: Collection[str]) -> bool:
    """Every person shown, as to a caller told of every seat there is."""
    return True


@dataclass(frozen=True)
class SeatsTold:
    """What the caller of a change is told of the seats the stable ids took (the application holds no read table,
    and a stable id's own person, which has no record, is known by its seats alone): the name each last sat under
    (`seat_name`), whether a person holding some of them is shown to the caller (`shown`), and whether to every
    reader (`shown_to_everyone`)."""

    seat_name: SeatName = no_seats
    shown: SeatIdsShown = every_person
    shown_to_everyone: SeatIdsShown = every_person

    def told(self, seat_id: str) -> bool:
        """Whether the caller is told of a seat the stable id took."""
        return self.seat_name(seat_id) is not None


NOTHING_TOLD = SeatsTold()


def as_told(told: SeatsTold | SeatName) -> SeatsTold:
    """What the caller is told, from its seats' names alone where that is all that is given (every person shown)."""
    return told if isinstance(told, SeatsTold) else SeatsTold(told)


@dataclass(frozen=True)
class Keeper:
    """Who makes a change to the people's records: the admin, or the organiser of a competition (its id)."""

    competition_id: UUID | None = None

    @property
    def name(self) -> str:
        """The keeper as a person's events record it: `admin`, or `organiser:<competition id>`."""
        return ADMIN_KEEPER if self.competition_id is None else f"{ORGANISER_KEEPER}{self.competition_id}"


@dataclass(frozen=True)
class Keeping:
    """What a change's keeper keeps: its name, as the person's events record it (`by`), and the stable ids whose
    people it keeps (None: every one, as the admin does)."""

    by: str = ADMIN_KEEPER
    seat_ids: frozenset[str] | None = None


EVERY_PERSON = Keeping()


@dataclass(frozen=True)
class PersonState:
    """A person as a change leaves it: its id, its name (None: no keeper named them, or they were erased), its stable
    ids, whom it was merged into (None: it stands, or the caller is not shown that person), whether it has a record
    of its own (without one, it is a stable id's own person), and whether their personal data was erased."""

    person_id: str
    name: str | None
    seat_ids: tuple[str, ...]
    merged_into: str | None = None
    recorded: bool = True
    erased: bool = False

    @classmethod
    def of(cls, record: Person) -> PersonState:
        name = None if record.erased else record.name
        return cls(record.person_id, name, record.seat_ids, record.merged_into, erased=record.erased)


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


class NameSealing(Protocol):
    """How a person's name is stored (`seal`: sealed under a key of the person's) and read back (`opened`)."""

    def seal(self, person_id: str, name: str) -> str: ...

    def opened(self, stored: str) -> str: ...


class NamesInClear:
    """Names stored as they are given."""

    def seal(self, person_id: str, name: str) -> str:
        return name

    def opened(self, stored: str) -> str:
        return stored


NAMES_IN_CLEAR = NamesInClear()


class Records:
    """The records one attempt at a change reads, each read once and changed in place (so that the change stores
    each record once, with every event it gained), what the caller is told of the seats (`told`), and what its
    keeper keeps (`keeping`)."""

    def __init__(
        self,
        read_person: Callable[[str], Person | None],
        read_link: Callable[[str], SeatLink | None],
        told: SeatsTold = NOTHING_TOLD,
        keeping: Keeping = EVERY_PERSON,
        names: NameSealing | None = None,
    ) -> None:
        self.read_person, self.read_link, self.told, self.keeping = read_person, read_link, told, keeping
        self.names = names or NAMES_IN_CLEAR
        self.people: dict[str, Person | None] = {}
        self.links: dict[str, SeatLink | None] = {}

    @property
    def by(self) -> str:
        return self.keeping.by

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

    def held(self, person_id: str) -> tuple[str, ...]:
        """The stable ids the person holds: its record's, else (a stable id's own person) its own id."""
        found = self.person(person_id)
        return found.seat_ids if found is not None else (person_id,)

    def shown(self, person_id: str) -> bool:
        """Whether the person is shown to the caller, by its stable ids and its own id; one merged away, only where
        the person its chain of merges ends with (who holds its stable ids) is shown too."""
        if not self.told.shown({*self.held(person_id), person_id}):
            return False
        end = self.chain_end(person_id)
        return end == person_id or self.told.shown({*self.held(end), end})

    def chain_end(self, person_id: str) -> str:
        """The person the person's chain of merges ends with: itself, where it stands."""
        seen: set[str] = set()
        while (found := self.person(person_id)) is not None and found.merged_into and person_id not in seen:
            seen.add(person_id)
            person_id = found.merged_into
        return person_id

    def is_known(self, person_id: str) -> bool:
        """Whether the person exists as far as the caller is told: it has a record shown to the caller, or it is a
        stable id the caller is told of that belongs to its own person."""
        if self.person(person_id) is not None:
            return self.shown(person_id)
        return self.owner(person_id) == person_id and self.told.told(person_id)

    def check_known(self, person_id: str, field: str = "person_id") -> None:
        """Refused (UnknownPerson, its message naming the `field` that named the person) unless the person is known
        (`is_known`): a stable id the caller is told of that belongs to another person shown to it is told so."""
        if self.is_known(person_id):
            return
        owner = self.owner(person_id)
        if self.person(person_id) is None and owner != person_id and self.told.told(person_id) and self.shown(owner):
            raise UnknownPerson(
                f"{field}: stable id {person_id[:80]!r} belongs to person {owner!r}, not to a person of its own: "
                "name that person instead"
            )
        raise unknown_person(person_id, field)

    def check_named_kept(self, named: Iterable[tuple[str, str]]) -> None:
        """Refused unless the keeper keeps the people of the stable ids a request names (each with the field that
        names it): one the caller is told of no seat of is unknown to it (UnknownPerson), whether or not it sat at
        a game the caller is not told of, before any other is refused as not its keeper's (NotYourPeople)."""
        kept = self.keeping.seat_ids
        if kept is None:
            return
        named = list(named)
        for seat_id, field in named:
            if seat_id not in kept and not self.told.told(seat_id):
                raise unknown_person(seat_id, field)
        for seat_id, field in named:
            if seat_id not in kept:
                raise NotYourPeople(f"{field}: stable id {seat_id[:80]!r} {NOT_KEPT}")

    def check_held_kept(self, person_id: str, seat_ids: Collection[str]) -> None:
        """Refused (NotYourPeople) unless the keeper keeps the people of every stable id the person holds, naming
        the first that it does not keep where the caller is told of it, else naming the person alone; a person
        holding none is the admin's alone."""
        kept = self.keeping.seat_ids
        if kept is None:
            return
        if not seat_ids:
            raise NotYourPeople(f"person {person_id[:80]!r} holds no stable id: such a person is the admin's to keep")
        for seat_id in seat_ids:
            if seat_id not in kept and self.told.told(seat_id):
                raise NotYourPeople(f"stable id {seat_id[:80]!r} of person {person_id[:80]!r} {NOT_KEPT}")
            if seat_id not in kept:
                raise NotYourPeople(f"person {person_id[:80]!r} holds a stable id that {NOT_KEPT}")

    def check_standing(self, record: Person, field: str = "person_id") -> None:
        """Refused (PersonMerged, its message naming the `field` that named the person) where the person was merged
        into another, whom it names where that one is shown to the caller."""
        into = record.merged_into
        if into is None:
            return
        whom = f"{into!r}" if self.shown(into) else "another person"
        raise PersonMerged(
            record.person_id,
            into,
            f"{field}: person {record.person_id!r} was merged into {whom}: name that one instead",
        )

    def record(self, person_id: str) -> Person:
        """The person's record: made, unnamed, for a stable id's own person that has none yet, holding the id's
        link for it in the same transaction; refused (UnknownPerson) for a person that is not known
        (`is_known`)."""
        self.check_known(person_id)
        found = self.person(person_id)
        if found is not None:
            return found
        made = Person.register(person_id, None, self.by, [person_id])
        self.people[person_id] = made
        link = self.link(person_id)
        if link is None:
            self.links[person_id] = SeatLink.claim(person_id, person_id)
        else:
            link.hold()
        return made

    def state(self, person_id: str) -> PersonState:
        """The person as it stands in these records (refused as UnknownPerson where it is not known)."""
        self.check_known(person_id)
        return self.answer(person_id)

    def answer(self, person_id: str) -> PersonState:
        """The person as it stands in these records, as the caller is told of them: whom it was merged into only
        where that one is shown to the caller."""
        found = self.person(person_id)
        if found is None:
            return PersonState(person_id, None, (person_id,), recorded=False)
        into = found.merged_into if found.merged_into is not None and self.shown(found.merged_into) else None
        name = None if found.erased else found.name
        return PersonState(person_id, name, found.seat_ids, into, erased=found.erased)

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


NOT_KEPT = "sat at no game of your competition that every reader sees: the admin keeps that person's records"


def registered(records: Records, person_id: str, name: str, seat_ids: Sequence[str] = ()) -> PersonState:
    """A new person, named, with the stable ids given linked to it (each one its own person's, or refused as
    SeatIdLinked): a club's member who has not played yet has none. A competition's organiser links only stable
    ids seated at its competition's games."""
    given, wanted = checked_name(name), checked_seat_ids(seat_ids)
    records.check_named_kept((seat_id, "link") for seat_id in wanted)
    check_linkable(records, person_id, wanted)
    records.people[person_id] = Person.register(person_id, records.names.seal(person_id, given), records.by)
    _link(records, person_id, wanted)
    return records.answer(person_id)


def renamed(records: Records, person_id: str, name: str) -> PersonState:
    """The person renamed (a stable id's own person gets a record); one merged away is refused (PersonMerged)."""
    return changed(records, person_id, name, ())


def linked(records: Records, person_id: str, seat_ids: Sequence[str]) -> PersonState:
    """The stable ids linked to the person, all or none (`changed`)."""
    return changed(records, person_id, None, seat_ids)


def changed(records: Records, person_id: str, name: str | None, seat_ids: Sequence[str]) -> PersonState:
    """A person renamed (where `name` is given) and the stable ids given linked to it, in one change: each one the
    person holds already is left as it is; each one linked to another person than its own is refused
    (SeatIdLinked, naming that person). One whose own person has a record leaves it (that record keeps its name and
    its other ids); a split gives it back. Refused too: a person not known (UnknownPerson), one merged away
    (PersonMerged), or one the keeper does not keep (`check_named_kept`, `check_held_kept`)."""
    given = checked_name(name) if name is not None else None
    wanted = checked_seat_ids(seat_ids)
    records.check_known(person_id)
    records.check_named_kept((seat_id, "link") for seat_id in wanted)
    records.check_held_kept(person_id, records.held(person_id))
    standing = records.person(person_id)
    if standing is not None:
        records.check_standing(standing)
        if standing.erased and given is not None:
            raise AlreadyErased(person_id)
    check_linkable(records, person_id, wanted)
    if given is not None:
        record = records.record(person_id)
        if record.name is None or records.names.opened(record.name) != given:
            record.rename(records.names.seal(person_id, given), records.by)
    _link(records, person_id, wanted)
    return records.answer(person_id)


def erased(records: Records, person_id: str) -> PersonState:
    """The person's personal data erased (the admin's to ask): refused for a person not known (UnknownPerson), one
    merged away (PersonMerged), or one erased already (AlreadyErased)."""
    records.check_known(person_id)
    standing = records.person(person_id)
    if standing is not None:
        records.check_standing(standing)
        if standing.erased:
            raise AlreadyErased(person_id)
    records.record(person_id).erase(records.by)
    return records.answer(person_id)


def check_linkable(records: Records, person_id: str, wanted: Sequence[str]) -> None:
    """Refused (SeatIdLinked, naming that person) where a stable id is linked to a person other than its own and
    this one."""
    for seat_id in wanted:
        owner = records.owner(seat_id)
        if owner not in (seat_id, person_id):
            raise SeatIdLinked(seat_id, owner)


def _link(records: Records, person_id: str, wanted: Sequence[str]) -> None:
    """The stable ids linked to the person (each checked first: `check_linkable`), those it holds already left as
    they are."""
    moving = [seat_id for seat_id in wanted if records.owner(seat_id) != person_id]
    if not moving:
        return
    record = records.record(person_id)
    for seat_id in moving:
        own = records.person(seat_id)
        if own is not None and seat_id in own.seat_ids:
            own.split(seat_id, records.by)
        record.link(seat_id, records.by)
        records.give(seat_id, person_id)


def merged(records: Records, person_id: str, into: str) -> PersonState:
    """The person merged into another: that one takes its stable ids, and it is marked merged into it. Refused: into
    itself (MergeIntoItself), a person not known (UnknownPerson), either of them not the keeper's
    (NotYourPeople), a person merged already or a merge into one merged away (PersonMerged, naming whom it was
    merged into), into one whose chain of merges leads back to the person (MergeCycle), or into one no game every
    reader sees shows (PersonPrivate), for the admin too."""
    if person_id == into:
        raise MergeIntoItself(f"into: person {person_id[:80]!r} cannot be merged into itself")
    records.check_known(person_id)
    records.check_known(into, "into")
    records.check_held_kept(person_id, records.held(person_id))
    records.check_held_kept(into, records.held(into))
    merging, taking = records.record(person_id), records.record(into)
    records.check_standing(merging)
    check_merge_target(records, person_id, taking)
    if not records.told.shown_to_everyone({*taking.seat_ids, into}):
        raise PersonPrivate(
            f"into: person {into[:80]!r} sat at no game every reader sees, and the merge would show their stable ids "
            f"and name: merge them into {person_id[:80]!r} instead, or both into a person newly registered"
        )
    moved = merging.seat_ids
    merging.merge_into(into, records.by)
    taking.absorb(person_id, moved, records.by)
    for seat_id in moved:
        records.give(seat_id, into)
    return records.answer(into)


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
    records.check_standing(target, "into")


def split(records: Records, person_id: str, seat_id: str) -> PersonState:
    """A stable id taken out of a person, back where it came from (`destination`): the person a merge brought it
    from, brought back with it where that one was merged into this person, or given it again where it stands;
    else its own person, which gets its record back where it has one (brought back where it was merged away, given
    the id again where it stands). Refused: the person not known (UnknownPerson), the id or a person the change
    touches not the keeper's (UnknownPerson, NotYourPeople), the id not the person's (SeatIdNotLinked), the
    person's own id (OwnSeatId)."""
    records.check_known(person_id)
    if seat_id == person_id:
        raise OwnSeatId(f"seat_id: {seat_id[:80]!r} is person {person_id!r}'s own stable id; it stays theirs")
    records.check_named_kept([(seat_id, "seat_id")])
    record = records.person(person_id)
    if record is None or seat_id not in record.seat_ids:
        raise SeatIdNotLinked(f"seat_id: stable id {seat_id[:80]!r} is not linked to person {person_id!r}")
    records.check_held_kept(person_id, record.seat_ids)
    going_to = destination(records, record, seat_id)
    if going_to is not None:
        records.check_held_kept(going_to.person_id, (*going_to.seat_ids, seat_id))
    record.split(seat_id, records.by)
    if going_to is not None and going_to.merged_into is not None:
        going_to.bring_back(seat_id, records.by)
    elif going_to is not None:
        going_to.link(seat_id, records.by)
    records.give(seat_id, going_to.person_id if going_to is not None else seat_id)
    return records.answer(person_id)


def destination(records: Records, record: Person, seat_id: str) -> Person | None:
    """Where a stable id split out of `record` goes: the person a merge brought it from, where that one was merged
    into this person or stands; else its own person's record (None: it has none)."""
    came_from = record.came_from.get(seat_id)
    origin = records.person(came_from) if came_from is not None else None
    if origin is not None and origin.merged_into in (None, record.person_id):
        return origin
    return records.person(seat_id)
