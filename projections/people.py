"""People in the read tables: each person's record (`read_people`) and the stable ids linked to a person other than
their own (`read_person_seats`), written from the records' events; the seats the people's stable ids took, as the
people's list reads them; and the results by person, as the ratings and the player-level statistics count them.

`read_person_seats` names, for each stable id linked away from its own person, the person it ends with: a merge
points every stable id of the person merged at the one it was merged into, so no chain of merges is left to
follow. A stable id without a row is its own person. Every change of who a stable id's person is, or of a person's
name, makes the ratings again from the results."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from sqlalchemy import (
    CTE,
    ColumnElement,
    Connection,
    Select,
    Subquery,
    and_,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)

from evo_ledger.app.people import Person
from evo_ledger.app.readers import Seated, SeatsOf
from projections.schema import GAME_PLAYERS, GAMES, PEOPLE, PERSON_SEATS, RESULTS, shown_to_public


def registered(connection: Connection, event: Any) -> bool:
    connection.execute(delete(PEOPLE).where(PEOPLE.c.person_id == event.person_id))
    connection.execute(insert(PEOPLE), [{"person_id": event.person_id, "name": event.name, "merged_into": None}])
    for seat_id in event.seat_ids:
        _seat_to(connection, seat_id, event.person_id)
    return True


def renamed(connection: Connection, event: Any) -> bool:
    connection.execute(update(PEOPLE).where(PEOPLE.c.person_id == event.person_id).values(name=event.name))
    return True


def seat_linked(connection: Connection, event: Any) -> bool:
    _seat_to(connection, event.seat_id, event.person_id)
    return True


def seat_split(connection: Connection, event: Any) -> bool:
    """The stable id's row goes where it still names the person split from: the id's next person, stored in the same
    transaction, writes its own (whichever of the two events comes first)."""
    held = and_(PERSON_SEATS.c.player_id == event.seat_id, PERSON_SEATS.c.person_id == event.person_id)
    connection.execute(delete(PERSON_SEATS).where(held))
    return True


def merged_into(connection: Connection, event: Any) -> bool:
    connection.execute(update(PEOPLE).where(PEOPLE.c.person_id == event.person_id).values(merged_into=event.into))
    return True


def absorbed(connection: Connection, event: Any) -> bool:
    for seat_id in event.seat_ids:
        _seat_to(connection, seat_id, event.person_id)
    return True


def brought_back(connection: Connection, event: Any) -> bool:
    connection.execute(update(PEOPLE).where(PEOPLE.c.person_id == event.person_id).values(merged_into=None))
    _seat_to(connection, event.seat_id, event.person_id)
    return True


def erased(connection: Connection, event: Any) -> bool:
    """The person's name leaves the row: they are shown by the labels of their seats."""
    connection.execute(update(PEOPLE).where(PEOPLE.c.person_id == event.person_id).values(name=None))
    return True


def _seat_to(connection: Connection, seat_id: str, person_id: str) -> None:
    """The stable id's row made to name `person_id`: none where that is the id's own person."""
    connection.execute(delete(PERSON_SEATS).where(PERSON_SEATS.c.player_id == seat_id))
    if seat_id != person_id:
        connection.execute(insert(PERSON_SEATS), [{"player_id": seat_id, "person_id": person_id}])


READERS: dict[str, Callable[[Connection, Any], bool]] = {
    Person.Registered.TOPIC: registered,
    Person.Renamed.TOPIC: renamed,
    Person.SeatLinked.TOPIC: seat_linked,
    Person.SeatSplit.TOPIC: seat_split,
    Person.MergedInto.TOPIC: merged_into,
    Person.Absorbed.TOPIC: absorbed,
    Person.BroughtBack.TOPIC: brought_back,
    Person.Erased.TOPIC: erased,
}
"""The function that writes the rows of each of a person's events (each makes the ratings again)."""


def person_of(player_id: ColumnElement[Any]) -> ColumnElement[str]:
    """The person a stable id belongs to, in a query joined to `read_person_seats` on it (`seat_of_person`): the
    person its row names, else the id itself."""
    return func.coalesce(PERSON_SEATS.c.person_id, player_id)


def seat_of_person(player_id: ColumnElement[Any]) -> ColumnElement[bool]:
    """The outer join of `read_person_seats` to the stable id."""
    return PERSON_SEATS.c.player_id == player_id


def named_person(player_id: ColumnElement[Any]) -> ColumnElement[bool]:
    """The outer join of `read_people` to the person a stable id belongs to (`person_of`)."""
    return PEOPLE.c.person_id == person_of(player_id)


def results_by_person() -> Subquery:
    """`read_results` with each row's person (`person_id`) and that person's name (`person_name`: its record's,
    else the name the row sat under), one row per person and ending: a person seated twice at one table (two of its
    stable ids) counts once, at its better place (of two ids sharing a place, the first in the database's order)."""
    person = person_of(RESULTS.c.player_id)
    nth = func.row_number().over(
        partition_by=(RESULTS.c.game_id, RESULTS.c.event, person), order_by=(RESULTS.c.rank, RESULTS.c.player_id)
    )
    numbered = (
        select(
            *RESULTS.c,
            person.label("person_id"),
            func.coalesce(PEOPLE.c.name, RESULTS.c.name).label("person_name"),
            nth.label("nth"),
        )
        .outerjoin(PERSON_SEATS, seat_of_person(RESULTS.c.player_id))
        .outerjoin(PEOPLE, named_person(RESULTS.c.player_id))
        .subquery()
    )
    return select(numbered).where(numbered.c.nth == 1).subquery("results_by_person")


def seats_of(connection: Connection, player_ids: Collection[str] | None = None) -> dict[str, SeatsOf]:
    """The seats each stable id took (of `player_ids`, when given) at the games not withdrawn, at those shown to
    every reader and at the others: how many, and the name it sat under at the latest (the later started; of two
    started at once, the game of the greater id)."""
    shown = shown_to_public()
    kind = (GAME_PLAYERS.c.player_id, shown)
    latest = (GAMES.c.started_at.desc(), GAMES.c.game_id.desc())
    numbered = select(
        GAME_PLAYERS.c.player_id,
        shown.label("shown"),
        GAME_PLAYERS.c.name,
        GAMES.c.started_at,
        func.count().over(partition_by=kind).label("games"),
        func.row_number().over(partition_by=kind, order_by=latest).label("nth"),
    ).join(GAMES, and_(GAMES.c.game_id == GAME_PLAYERS.c.game_id, GAMES.c.withdrawn.is_(False)))
    if player_ids is not None:
        numbered = numbered.where(GAME_PLAYERS.c.player_id.in_(sorted(player_ids)))
    rows = numbered.subquery()
    query = select(rows.c.player_id, rows.c.shown, rows.c.games, rows.c.name, rows.c.started_at).where(rows.c.nth == 1)
    found: dict[str, dict[bool, Seated]] = {}
    for player_id, is_shown, games, name, started_at in connection.execute(query):
        found.setdefault(player_id, {})[bool(is_shown)] = Seated(games, name, started_at)
    return {player_id: SeatsOf(kinds.get(True), kinds.get(False)) for player_id, kinds in found.items()}


def games_of(connection: Connection, player_ids: Iterable[str]) -> list[tuple[str, bool]]:
    """The games not withdrawn any of the stable ids sat at, each once: its id, and whether it is shown to every
    reader."""
    sat = select(GAME_PLAYERS.c.game_id).where(GAME_PLAYERS.c.player_id.in_(sorted(player_ids)))
    query = (
        select(GAMES.c.game_id, shown_to_public())
        .where(GAMES.c.game_id.in_(sat), GAMES.c.withdrawn.is_(False))
        .order_by(GAMES.c.game_id)
    )
    return [(game_id, bool(is_shown)) for game_id, is_shown in connection.execute(query)]


def people_shown(games_shown: Select[Any]) -> ColumnElement[bool]:
    """The rows of `read_people` of the people shown where `games_shown` are: those who sat at one of them (by their
    own id or one linked to them), or at no game at all; one merged away, only where the person its chain of merges
    ends with (who holds its stable ids) is shown too. A person whose stable ids sat only at games not shown is not
    shown."""
    ends, merged = chain_ends(), PEOPLE.alias("merged")
    return and_(
        sat_where_shown(PEOPLE.c.person_id, PEOPLE, games_shown),
        PEOPLE.c.person_id.in_(
            select(ends.c.person_id).where(
                ends.c.end_id.not_in(select(merged.c.person_id).where(merged.c.merged_into.is_not(None))),
                sat_where_shown(ends.c.end_id, ends, games_shown),
            )
        ),
    )


def sat_where_shown(person_id: ColumnElement[Any], outer: Any, games_shown: Select[Any]) -> ColumnElement[bool]:
    """Whether the person (`person_id`, a column of `outer`, which the subqueries are correlated to) sat at one of
    `games_shown` by their own id or one linked to them, or at no game at all."""
    linked = select(PERSON_SEATS.c.player_id).where(PERSON_SEATS.c.person_id == person_id).correlate(outer)
    sat = (
        select(GAME_PLAYERS.c.game_id)
        .where(or_(GAME_PLAYERS.c.player_id == person_id, GAME_PLAYERS.c.player_id.in_(linked)))
        .correlate(outer)
    )
    return or_(~exists(sat), exists(sat.where(GAME_PLAYERS.c.game_id.in_(games_shown))))


def chain_ends() -> CTE:
    """Each person of `read_people` (`person_id`) with every person its chain of merges leads to (`end_id`), itself
    among them: the one that stands is where the chain ends."""
    first, step = PEOPLE.alias("chained"), PEOPLE.alias("step")
    chain = select(first.c.person_id, first.c.person_id.label("end_id")).cte("merge_chain", recursive=True)
    further = select(chain.c.person_id, step.c.merged_into).where(
        step.c.person_id == chain.c.end_id, step.c.merged_into.is_not(None)
    )
    return chain.union(further)
