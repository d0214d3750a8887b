"""People: who sat behind the seats' stable ids. Every stable id in use that no record claims is a person of its
own; a keeper of the records (the admin) registers people, renames them, links stable ids to them, merges two into
one and splits a stable id back out. Anyone reads them.

The records are read from the ledger as they stand; the seats their stable ids took, from the read tables (a moment
behind the log). What a caller is told of those seats is the readers' to say (`seats_told`, `person_shown`): a
stable id that sat only at games whose rows do not count for the caller is not shown, nor its person, nor its
games, and a person so hidden is answered as unknown, to a change as to a read."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from api import schemas
from api.deps import CallerDep, LedgerDep, require_keeper
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.people import MAX_SEAT_ID, PersonState, is_id_text, unknown_person
from evo_ledger.app.readers import Caller, SeatsOf, games_told, person_shown, seats_told
from projections.people import games_of, seats_of
from projections.store import ReadStore, position_in

router = APIRouter(prefix=schemas.API_PREFIX, tags=["people"], responses=schemas.PROBLEMS)
PERSON_ID = "a person's id: a stable id no record claims, or the id a person was registered under"
PersonId = Annotated[str, Path(max_length=MAX_SEAT_ID, description=PERSON_ID)]
KEEPERS = [Depends(require_keeper)]
CHANGE_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"model": schemas.Problem, "description": "no such person, as far as the caller is told (`unknown_person`)"},
    409: {
        "model": schemas.Problem,
        "description": "a person merged away (`person_merged`), a merge that would make a cycle (`merge_cycle`), a "
        "stable id linked to another person (`seat_id_linked`), not linked to this one (`seat_id_not_linked`), or "
        "its own (`own_seat_id`)",
    },
    422: {"model": schemas.Problem, "description": "a name or a stable id refused, or a merge into itself"},
}


class Told:
    """What a caller is told of the seats that stable ids took (`seats`, from the read tables)."""

    def __init__(self, caller: Caller, seats: dict[str, SeatsOf]) -> None:
        self.caller, self.seats = caller, seats

    def of(self, seat_id: str) -> SeatsOf:
        return self.seats.get(seat_id, SeatsOf())

    def seat_name(self, seat_id: str) -> str | None:
        """The name the stable id last sat under, as the caller is told (None: it is told of no seat of it)."""
        told = seats_told(self.caller, self.of(seat_id))
        return told.name if told is not None else None

    def shown(self, state: PersonState) -> bool:
        return person_shown(self.caller, [self.of(seat_id) for seat_id in {*state.seat_ids, state.person_id}])

    def seat_ids(self, state: PersonState) -> list[str]:
        """The person's stable ids the caller is told of: those it is told of seats of, and those never seated."""
        return [seat_id for seat_id in state.seat_ids if not self.of(seat_id).in_use or self.seat_name(seat_id)]


def named(person_id: str, field: str = "person_id") -> str:
    """A person's id as a request names it: one no stable id could be (`is_id_text`) names no person."""
    if not is_id_text(person_id):
        raise unknown_person(person_id, field)
    return person_id


def told_of(request: Request, caller: Caller, player_ids: Collection[str] | None = None) -> Told:
    """What the caller is told of the seats of the stable ids (of every one, where None)."""
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        return Told(caller, seats_of(connection, player_ids))


def answers(request: Request, told: Told, states: Iterable[PersonState]) -> list[schemas.PersonOut]:
    """The people as the caller is told of them: the games counted once each, over all their stable ids."""
    store: ReadStore = request.app.state.read_store
    found = []
    with store.engine.connect() as connection:
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
                    name=state.name,
                    seat_ids=seat_ids,
                    games=games,
                    merged_into=state.merged_into,
                    recorded=state.recorded,
                )
            )
    return found


def answer(request: Request, caller: Caller, state: PersonState) -> schemas.PersonOut:
    """A person a change leaves, as the caller is told of them."""
    told = told_of(request, caller, [*state.seat_ids, state.person_id])
    [found] = answers(request, told, [state])
    return found


def shown_state(request: Request, ledger: Ledger, caller: Caller, person_id: str) -> PersonState:
    """The person as it stands, refused as unknown (`unknown_person`) where the caller is told of none."""
    record = ledger.people.person(person_id)
    told = told_of(request, caller, [*(record.seat_ids if record is not None else ()), person_id])
    state = ledger.people.state(person_id, told.seat_name)
    if not told.shown(state):
        raise unknown_person(person_id)
    return state


def check_shown(request: Request, ledger: Ledger, caller: Caller, person_id: str) -> None:
    """A person with a record the caller is not told of is refused as unknown (one without a record is known by
    the seats the caller is told of alone: the change refuses it)."""
    if ledger.people.person(person_id) is not None:
        shown_state(request, ledger, caller, person_id)


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
        PersonState(seat_id, name, (seat_id,), recorded=False)
        for seat_id in told.seats
        if seat_id not in claimed and (name := told.seat_name(seat_id)) is not None
    ]
    return [state for state in [*standing, *own] if told.shown(state)]


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
    told = told_of(request, caller)
    people = answers(request, told, everyone(ledger, told))
    if q:
        people = [person for person in people if matches(person, q.casefold())]
    people.sort(key=lambda person: (person.name.casefold(), person.person_id))
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        position = position_in(connection)
    log_position = ledger.store.recorder.max_notification_id() or 0
    return schemas.PeopleList(people=people, position=position, log_position=log_position)


@router.get("/people/{person_id}", response_model=schemas.PersonOut, operation_id="get_person")
def get_person(person_id: PersonId, request: Request, ledger: LedgerDep, caller: CallerDep) -> schemas.PersonOut:
    """A person: one merged away says whom it was merged into (`merged_into`) and holds no stable id."""
    return answer(request, caller, shown_state(request, ledger, caller, named(person_id)))


@router.post(
    "/people",
    status_code=201,
    response_model=schemas.PersonOut,
    dependencies=KEEPERS,
    operation_id="register_person",
    responses=CHANGE_ANSWERS,
)
def register_person(
    body: schemas.NewPerson, request: Request, ledger: LedgerDep, caller: CallerDep
) -> schemas.PersonOut:
    """A person registered afresh, under a new id (a UUID), with the stable ids given linked to them: a stable id
    linked to another person than its own is refused (`seat_id_linked`, naming that person), and nothing stored."""
    state = ledger.people.register(body.name, body.link)
    nudged(request)
    return answer(request, caller, state)


@router.patch(
    "/people/{person_id}",
    response_model=schemas.PersonOut,
    dependencies=KEEPERS,
    operation_id="change_person",
    responses=CHANGE_ANSWERS,
)
def change_person(
    person_id: PersonId, body: schemas.PersonChange, request: Request, ledger: LedgerDep, caller: CallerDep
) -> schemas.PersonOut:
    """A person renamed (`name`) and stable ids linked to them (`link`), all or nothing: a stable id's own person
    gets a record of its own here. A stable id linked to another person than its own is refused (`seat_id_linked`,
    naming that person)."""
    check_shown(request, ledger, caller, named(person_id))
    told = told_of(request, caller, [person_id])
    state = ledger.people.change(person_id, body.name, body.link, told.seat_name)
    nudged(request)
    return answer(request, caller, state)


@router.post(
    "/people/{person_id}/merge",
    response_model=schemas.PersonOut,
    dependencies=KEEPERS,
    operation_id="merge_person",
    responses=CHANGE_ANSWERS,
)
def merge_person(
    person_id: PersonId, body: schemas.PersonMerge, request: Request, ledger: LedgerDep, caller: CallerDep
) -> schemas.PersonOut:
    """The person merged into another (`into`), which takes their stable ids: the answer is the one merged into.
    Refused: into itself (422 `merge_into_itself`), a person not known (404 `unknown_person`), a person merged away
    already or a merge into one (409 `person_merged`, naming whom it was merged into), or into one whose chain of
    merges leads back here (409 `merge_cycle`)."""
    named(person_id)
    named(body.into, "into")
    if person_id != body.into:
        check_shown(request, ledger, caller, person_id)
        check_shown(request, ledger, caller, body.into)
    told = told_of(request, caller, [person_id, body.into])
    state = ledger.people.merge(person_id, body.into, told.seat_name)
    nudged(request)
    return answer(request, caller, state)


@router.post(
    "/people/{person_id}/split",
    response_model=schemas.PersonOut,
    dependencies=KEEPERS,
    operation_id="split_person",
    responses=CHANGE_ANSWERS,
)
def split_person(
    person_id: PersonId, body: schemas.PersonSplit, request: Request, ledger: LedgerDep, caller: CallerDep
) -> schemas.PersonOut:
    """A stable id split out of the person, back to its own person, which gets its record's name back where it had
    one (brought back, where it had been merged): the answer is the person split from. Refused: a stable id not
    theirs (409 `seat_id_not_linked`), or their own (409 `own_seat_id`)."""
    check_shown(request, ledger, caller, named(person_id))
    told = told_of(request, caller, [person_id])
    state = ledger.people.split(person_id, body.seat_id, told.seat_name)
    nudged(request)
    return answer(request, caller, state)
