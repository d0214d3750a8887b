"""People: who sat behind the seats' stable ids. Every stable id in use that no record claims is a person of its
own; a keeper of the records registers people, renames them, links stable ids to them, merges two into one and
splits a stable id back out: the admin keeps everyone's, a competition's organiser those of the people seated at its
games (the people's book decides whose, and refuses the rest). Anyone reads them.

The records are read from the ledger as they stand; the seats their stable ids took, from the read tables (a moment
behind the log). What a caller is told of those seats is the readers' to say (`seats_told`, `person_shown`): a
stable id that sat only at games whose rows do not count for the caller is not shown, nor its person, nor its
games, and a person so hidden is answered as unknown, to a change as to a read."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from api import schemas
from api.deps import CallerDep, KeeperDep, LedgerDep, require_admin
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.people import MAX_SEAT_ID, PersonState, SeatsTold, is_id_text, unknown_person
from evo_ledger.app.readers import (
    Caller,
    SeatsOf,
    games_told,
    latest_name,
    person_shown,
    seats_told,
    shown_to_everyone,
)
from projections.people import games_of, seats_of
from projections.store import ReadStore, position_in

router = APIRouter(prefix=schemas.API_PREFIX, tags=["people"], responses=schemas.PROBLEMS)
PERSON_ID = "a person's id: a stable id no record claims, or the id a person was registered under"
PersonId = Annotated[str, Path(max_length=MAX_SEAT_ID, description=PERSON_ID)]
CHANGE_ANSWERS: dict[int | str, dict[str, Any]] = {
    403: {
        "model": schemas.Problem,
        "description": "a token that is no keeper's (`token_refused`), or an organiser's change touching a stable id "
        "not seated at its competition's games that every reader sees (`not_your_people`)",
    },
    404: {"model": schemas.Problem, "description": "no such person, as far as the caller is told (`unknown_person`)"},
    409: {
        "model": schemas.Problem,
        "description": "a person merged away (`person_merged`), a merge that would make a cycle (`merge_cycle`) or "
        "into a person no game every reader sees shows (`person_private`), a stable id linked to another person "
        "(`seat_id_linked`), not linked to this one (`seat_id_not_linked`), or its own (`own_seat_id`)",
    },
    422: {"model": schemas.Problem, "description": "a name or a stable id refused, or a merge into itself"},
}


class Told:
    """What a caller is told of the seats that stable ids took, from the read tables: every stable id's at once
    (`every`), or each stable id's as it is first asked for."""

    def __init__(self, caller: Caller, store: ReadStore, shown: Callable[[str], str], every: bool = False) -> None:
        self.caller, self.store, self.every, self.shown_text = caller, store, every, shown
        self.seats: dict[str, SeatsOf] = {}
        if every:
            with store.engine.connect() as connection:
                self.seats = seats_of(connection)

    def read(self, seat_ids: Collection[str]) -> None:
        """The seats of those of the stable ids not read yet, read in one query."""
        wanted = sorted({seat_id for seat_id in seat_ids if seat_id not in self.seats})
        if self.every or not wanted:
            return
        with self.store.engine.connect() as connection:
            found = seats_of(connection, wanted)
        self.seats.update({seat_id: found.get(seat_id, SeatsOf()) for seat_id in wanted})

    def of(self, seat_id: str) -> SeatsOf:
        self.read([seat_id])
        return self.seats.get(seat_id, SeatsOf())

    def seat_name(self, seat_id: str) -> str | None:
        """The name the stable id last sat under, as the caller is told (None: it is told of no seat of it)."""
        told = seats_told(self.caller, self.of(seat_id))
        return told.name if told is not None else None

    def shown(self, seat_ids: Collection[str]) -> bool:
        """Whether a person holding the stable ids is shown to the caller."""
        self.read(seat_ids)
        return person_shown(self.caller, [self.of(seat_id) for seat_id in seat_ids])

    def shown_to_everyone(self, seat_ids: Collection[str]) -> bool:
        """Whether a person holding the stable ids is shown to every reader."""
        self.read(seat_ids)
        return shown_to_everyone([self.of(seat_id) for seat_id in seat_ids])

    def sight(self) -> SeatsTold:
        """What the caller is told, as the people's book reads it."""
        return SeatsTold(self.seat_name, self.shown, self.shown_to_everyone)

    def seat_ids(self, state: PersonState) -> list[str]:
        """The person's stable ids the caller is told of: those it is told of seats of, and those never seated."""
        self.read(state.seat_ids)
        return [seat_id for seat_id in state.seat_ids if not self.of(seat_id).in_use or self.seat_name(seat_id)]

    def name(self, state: PersonState) -> str:
        """The person's name: the one a keeper gave them, else the one their own stable id last sat under at a game
        the caller is told of, else the one the latest such seat of their other stable ids was taken under, else
        their id; as it now reads (a seat's label as its handle, a sealed name opened)."""
        if state.name is not None:
            return self.shown_text(state.name)
        self.read([state.person_id, *state.seat_ids])
        own = latest_name(self.caller, [self.of(state.person_id)])
        seated = own or latest_name(self.caller, [self.of(seat_id) for seat_id in state.seat_ids])
        return self.shown_text(seated) if seated else state.person_id


def named(person_id: str, field: str = "person_id") -> str:
    """A person's id as a request names it: one no stable id could be (`is_id_text`) names no person."""
    if not is_id_text(person_id):
        raise unknown_person(person_id, field)
    return person_id


def told_of(request: Request, caller: Caller, every: bool = False) -> Told:
    """What the caller is told of the seats of the stable ids (every one read at once, where `every`)."""
    store: ReadStore = request.app.state.read_store
    ledger: Ledger = request.app.state.ledger
    return Told(caller, store, ledger.store.personal.render, every)


def answers(told: Told, states: Iterable[PersonState]) -> list[schemas.PersonOut]:
    """The people as the caller is told of them: the games counted once each, over all their stable ids."""
    states = list(states)
    told.read({seat_id for state in states for seat_id in (*state.seat_ids, state.person_id)})
    found = []
    with told.store.engine.connect() as connection:
        for state in states:
            seat_ids = told.seat_ids(state)
            seated = [told_games for seat_id in seat_ids if (told_games := seats_told(told.caller, told.of(seat_id)))]
            if len(seated) > 1:
                games = games_told(told.caller, games_of(connection, seat_ids))
            else:
                games = seated[0].games if seated else 0
            found.append(
                schemas.PersonOut(
                    person_id=state.person_id,
                    name=told.name(state),
                    seat_ids=seat_ids,
                    games=games,
                    merged_into=state.merged_into,
                    recorded=state.recorded,
                    erased=state.erased,
                )
            )
    return found


def answer(request: Request, caller: Caller, state: PersonState) -> schemas.PersonOut:
    """A person a change leaves, as the caller is told of them (from the read tables as they now stand)."""
    [found] = answers(told_of(request, caller), [state])
    return found


def nudged(request: Request) -> None:
    """The read tables woken to follow the change now."""
    projection = request.app.state.appends.projection
    if projection is not None:
        projection.nudge()


def everyone(ledger: Ledger, told: Told) -> list[PersonState]:
    """Every person: the records not merged away, and every stable id the caller is told of that no record claims."""
    records = ledger.people.records()
    claimed = {seat_id for record in records for seat_id in record.seat_ids}
    standing = [PersonState.of(record) for record in records if record.merged_into is None]
    own = [
        PersonState(seat_id, None, (seat_id,), recorded=False)
        for seat_id in told.seats
        if seat_id not in claimed and told.seat_name(seat_id) is not None
    ]
    return [state for state in [*standing, *own] if told.shown({*state.seat_ids, state.person_id})]


def matches(person: schemas.PersonOut, wanted: str) -> bool:
    """Whether the person's name, id or one of its stable ids holds the text (letter case aside)."""
    return any(wanted in text.casefold() for text in (person.name, person.person_id, *person.seat_ids))


@router.get("/people", response_model=schemas.PeopleList, operation_id="list_people")
def list_people(
    request: Request,
    ledger: LedgerDep,
    caller: CallerDep,
    q: Annotated[str | None, Query(max_length=80, description="names, ids or stable ids holding this text")] = None,
) -> schemas.PeopleList:
    """Every person, by name: those with a record, but those merged into another, and every stable id in use that no
    record claims, each with its stable ids and the games they sat at, as far as the read tables have followed the
    log (`position` of `log_position` events)."""
    told = told_of(request, caller, every=True)
    people = answers(told, everyone(ledger, told))
    if q:
        people = [person for person in people if matches(person, q.casefold())]
    people.sort(key=lambda person: (person.name.casefold(), person.person_id))
    with told.store.engine.connect() as connection:
        position = position_in(connection)
    log_position = ledger.store.recorder.max_notification_id() or 0
    return schemas.PeopleList(people=people, position=position, log_position=log_position)


@router.get("/people/{person_id}", response_model=schemas.PersonOut, operation_id="get_person")
def get_person(person_id: PersonId, request: Request, ledger: LedgerDep, caller: CallerDep) -> schemas.PersonOut:
    """A person: one merged away says whom it was merged into (`merged_into`, where that person is shown to the
    caller) and holds no stable id. A stable id linked to another person is no person of its own: 404, which says
    whose it is where the caller is shown that person."""
    told = told_of(request, caller)
    return answers(told, [ledger.people.state(named(person_id), told.sight())])[0]


@router.post(
    "/people",
    status_code=201,
    response_model=schemas.PersonOut,
    operation_id="register_person",
    responses=CHANGE_ANSWERS,
)
def register_person(
    body: schemas.NewPerson, request: Request, ledger: LedgerDep, caller: CallerDep, keeper: KeeperDep
) -> schemas.PersonOut:
    """A person registered afresh, under a new id (a UUID), with the stable ids given linked to them: a stable id
    linked to another person than its own is refused (`seat_id_linked`, naming that person), and nothing stored. An
    organiser links only stable ids seated at its competition's games; a member who has not played yet has none."""
    state = ledger.people.register(body.name, body.link, told_of(request, caller).sight(), keeper)
    nudged(request)
    return answer(request, caller, state)


@router.patch(
    "/people/{person_id}",
    response_model=schemas.PersonOut,
    operation_id="change_person",
    responses=CHANGE_ANSWERS,
)
def change_person(
    person_id: PersonId,
    body: schemas.PersonChange,
    request: Request,
    ledger: LedgerDep,
    caller: CallerDep,
    keeper: KeeperDep,
) -> schemas.PersonOut:
    """A person renamed (`name`) and stable ids linked to them (`link`), all or nothing: a stable id's own person
    gets a record of its own here. A stable id linked to another person than its own is refused (`seat_id_linked`,
    naming that person)."""
    sight = told_of(request, caller).sight()
    state = ledger.people.change(named(person_id), body.name, body.link, sight, keeper)
    nudged(request)
    return answer(request, caller, state)


@router.post(
    "/people/{person_id}/merge",
    response_model=schemas.PersonOut,
    operation_id="merge_person",
    responses=CHANGE_ANSWERS,
)
def merge_person(
    person_id: PersonId,
    body: schemas.PersonMerge,
    request: Request,
    ledger: LedgerDep,
    caller: CallerDep,
    keeper: KeeperDep,
) -> schemas.PersonOut:
    """The person merged into another (`into`), which takes their stable ids: the answer is the one merged into.
    Refused: into itself (422 `merge_into_itself`), a person not known (404 `unknown_person`), a person merged away
    already or a merge into one (409 `person_merged`, naming whom it was merged into), into one whose chain of
    merges leads back here (409 `merge_cycle`), or, for the admin too, into a person no game every reader sees
    shows (409 `person_private`: merge the other way, or both into a person newly registered)."""
    sight = told_of(request, caller).sight()
    state = ledger.people.merge(named(person_id), named(body.into, "into"), sight, keeper)
    nudged(request)
    return answer(request, caller, state)


@router.post(
    "/people/{person_id}/split",
    response_model=schemas.PersonOut,
    operation_id="split_person",
    responses=CHANGE_ANSWERS,
)
def split_person(
    person_id: PersonId,
    body: schemas.PersonSplit,
    request: Request,
    ledger: LedgerDep,
    caller: CallerDep,
    keeper: KeeperDep,
) -> schemas.PersonOut:
    """A stable id split out of the person, back where it came from: to the person a merge brought it from (brought
    back, where that one was merged into this one), else to its own person, which gets its record back where it had
    one: the answer is the person split from. Refused: a stable id not theirs (409 `seat_id_not_linked`), or their
    own (409 `own_seat_id`)."""
    sight = told_of(request, caller).sight()
    state = ledger.people.split(named(person_id), body.seat_id, sight, keeper)
    nudged(request)
    return answer(request, caller, state)


@router.delete(
    "/people/{person_id}/personal-data",
    response_model=schemas.PersonOut,
    operation_id="erase_person",
    dependencies=[Depends(require_admin)],
    responses={
        403: {"model": schemas.Problem, "description": "a token that is not the admin's (`token_refused`)"},
        404: {"model": schemas.Problem, "description": "no such person (`unknown_person`)"},
        409: {
            "model": schemas.Problem,
            "description": "a person erased already (`already_erased`), or merged away (`person_merged`)",
        },
    },
)
def erase_person(person_id: PersonId, request: Request, ledger: LedgerDep, caller: CallerDep) -> schemas.PersonOut:
    """The person's personal data erased, by the admin: the handles their stable ids sat under, their name, and the
    text typed into every game they sat at (notes, reasons) become unreadable in every answer, export, statistic and
    page, and leave every row outside the event log. Their games replay and audit as stored, each of their seats
    shown by its label (`anon…`), and keep their place in statistics. The erasure is an event that names no one.
    Refused, erasing nothing: an unknown person (404 `unknown_person`), one erased already (409 `already_erased`)."""
    state = ledger.people.erase(named(person_id), told_of(request, caller).sight())
    nudged(request)
    return answer(request, caller, state)
