"""People behind the seats, on each database: stable ids merged into one person rate as one, and split back rate as
if never merged; the read tables rebuilt from zero are what following the log made of links, merges, renames and
splits; a person seated twice at one table counts once, at its better place; and two changes linking one stable id
to two people at once, or giving it to its own person's new record while another links it elsewhere (in either
order), meet on that id's record, so that one person holds it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any
from uuid import UUID

import pytest
from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import Table, select

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.ledger.writer_path import Made
from evo_ledger.app.people import Person, SeatIdLinked, SeatLink, UnknownPerson
from evo_ledger.settings import Settings
from projections import queries, ratings
from projections.runner import Projector, rebuild
from projections.schema import PEOPLE, PERSON_SEATS, RATINGS, RATINGS_NOW
from projections.store import ReadStore
from tests.helpers.shown import shown
from tests.helpers.toy_game import WHOLE_GAME

TABLES = (PEOPLE, PERSON_SEATS, RATINGS, RATINGS_NOW)
NAMES = {"ann-a": "ann", "ann-b": "anne", "ben-1": "ben", "cat-1": "cat"}
# Who sat at each game, the first seat winning: ann's two stable ids meet ben and cat, and each other.
TABLES_SAT = [("ann-a", "ben-1"), ("ben-1", "ann-b"), ("ann-b", "cat-1"), ("cat-1", "ann-a"), ("ann-b", "ben-1")]


@pytest.fixture
def store(ledger: Ledger) -> Iterator[ReadStore]:
    read_store = ReadStore(ledger.settings)
    yield read_store
    read_store.close()


def seat_name(seat_id: str) -> str | None:
    return NAMES.get(seat_id)


def played(ledger: Ledger, first: str, second: str) -> UUID:
    """A whole toy game that the first seat wins (the toy's whole game, played under these names)."""
    winner, loser = NAMES[first], NAMES[second]
    game_id = ledger.commands.create_game(None, "toy-2p", [(winner, first), (loser, second)]).game_id
    ledger.commands.record(game_id, [played_by(action, winner, loser) for action in WHOLE_GAME])
    return game_id


def played_by(action: str, first: str, second: str) -> str:
    player, rest = action.split(" ", 1)
    return f"{first if player == 'ann' else second} {rest}"


def rows(store: ReadStore, table: Table) -> list[tuple[Any, ...]]:
    with store.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(select(table).order_by(*table.primary_key.columns))]


def tables_now(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    return {table.name: rows(store, table) for table in TABLES}


def standings(store: ReadStore) -> list[dict[str, Any]]:
    with store.engine.connect() as connection:
        return ratings.standings(connection, "toy")


def expected_ratings(tables_sat: Sequence[tuple[str, str]], person: Callable[[str], str]) -> dict[str, float]:
    """Each person's mu after rating every game in turn, straight from the model: the first seat won each."""
    model, current = PlackettLuce(), dict[str, PlackettLuceRating]()
    for seats in tables_sat:
        people = [person(seat_id) for seat_id in seats]
        teams = [[current.get(someone) or model.rating()] for someone in people]
        for someone, [rating] in zip(people, model.rate(teams, ranks=[1, 2]), strict=True):
            current[someone] = rating
    return {someone: rating.mu for someone, rating in current.items()}


def test_two_stable_ids_merged_rate_as_one_person_and_split_back_rate_as_never_merged(
    ledger: Ledger, store: ReadStore
) -> None:
    projector = Projector(ledger, store)
    for seats in TABLES_SAT[:4]:
        played(ledger, *seats)
    projector.catch_up()
    never_merged, standing_apart = tables_now(store), standings(store)
    assert {row["person_id"] for row in standing_apart} == {"ann-a", "ann-b", "ben-1", "cat-1"}

    joined = ledger.people.merge("ann-b", "ann-a", seat_name)
    assert (joined.person_id, joined.seat_ids) == ("ann-a", ("ann-a", "ann-b"))
    projector.catch_up()
    merged = {row["person_id"]: row for row in standings(store)}
    assert set(merged) == {"ann-a", "ben-1", "cat-1"} and merged["ann-a"]["games"] == 4
    expected = expected_ratings(TABLES_SAT[:4], lambda seat_id: "ann-a" if seat_id == "ann-b" else seat_id)
    assert {person: row["mu"] for person, row in merged.items()} == pytest.approx(expected)
    ann_rows = [row for row in rows(store, RATINGS) if row[2] == "ann-a"]
    assert sorted(row[3] for row in ann_rows) == ["ann-a", "ann-a", "ann-b", "ann-b"]  # the stable id sat under

    ledger.people.split("ann-a", "ann-b", seat_name)
    projector.catch_up()
    assert tables_now(store)[RATINGS.name] == never_merged[RATINGS.name]
    assert tables_now(store)[RATINGS_NOW.name] == never_merged[RATINGS_NOW.name]
    assert standings(store) == standing_apart
    assert rows(store, PERSON_SEATS) == []
    assert set(rows(store, PEOPLE)) == {("ann-a", None, None), ("ann-b", None, None)}


def test_the_read_tables_rebuilt_from_zero_are_what_following_the_links_merges_and_splits_made(
    ledger: Ledger, store: ReadStore
) -> None:
    projector = Projector(ledger, store)
    played(ledger, *TABLES_SAT[0])
    created = ledger.people.register("Ann Example", ["ann-a"], seat_name)
    projector.catch_up()
    played(ledger, *TABLES_SAT[1])
    ledger.people.change("ben-1", "Ben Example", [], seat_name)
    ledger.people.merge("ann-b", created.person_id, seat_name)
    projector.catch_up()
    played(ledger, *TABLES_SAT[2])
    ledger.people.merge("cat-1", "ben-1", seat_name)
    ledger.people.split("ben-1", "cat-1", seat_name)
    ledger.people.change(created.person_id, "Ann Smith", ["cat-1"], seat_name)
    played(ledger, *TABLES_SAT[3])
    ledger.people.split(created.person_id, "ann-b", seat_name)
    projector.catch_up()
    followed = tables_now(store)
    assert {(person, name and shown(ledger, name), merged) for person, name, merged in followed[PEOPLE.name]} == {
        ("ann-b", None, None),
        ("ben-1", "Ben Example", None),
        ("cat-1", None, None),
        (created.person_id, "Ann Smith", None),
    }
    assert set(followed[PERSON_SEATS.name]) == {("ann-a", created.person_id), ("cat-1", created.person_id)}
    with store.engine.connect() as connection:
        people = {row["person_id"]: row for row in ratings.standings(connection, "toy")}
    assert set(people) == {created.person_id, "ann-b", "ben-1"}
    assert shown(ledger, people[created.person_id]["name"]) == "Ann Smith" and people[created.person_id]["games"] == 3
    rebuild(ledger, store)
    assert tables_now(store) == followed


def test_a_person_seated_twice_at_one_table_counts_once_at_the_better_place(ledger: Ledger, store: ReadStore) -> None:
    projector = Projector(ledger, store)
    played(ledger, "ann-b", "ann-a")
    played(ledger, "ann-a", "ben-1")
    ledger.people.merge("ann-b", "ann-a", seat_name)
    projector.catch_up()
    rated = rows(store, RATINGS)
    # the first game: ann's person alone, at the first place, under the stable id that won it
    first = [row for row in rated if row[4] == 1]
    assert [(row[2], row[3], row[6]) for row in first] == [("ann-a", "ann-b", 1)]
    with store.engine.connect() as connection:
        records = {row["person_id"]: row for row in queries.player_records(connection)}
    assert (records["ann-a"]["games"], records["ann-a"]["wins"]) == (2, 2)


def read_first_as_before(ledger: Ledger, meanwhile: Callable[[], object]) -> None:
    """The ledger's first read of a stable id's link gives it as it stood before `meanwhile` ran (another server's
    change, stored between that read and this ledger's write); every read after, as stored."""
    read = ledger.people.seat_link
    calls = [0]

    def stale_once(seat_id: str) -> SeatLink | None:
        calls[0] += 1
        before = read(seat_id)
        if calls[0] == 1:
            meanwhile()
        return before

    ledger.people.seat_link = stale_once  # type: ignore[method-assign]


def test_two_ledgers_linking_one_stable_id_to_two_people_at_once_store_exactly_one(database: str) -> None:
    with Ledger(Settings(database)) as first, Ledger(Settings(database)) as second:
        ann = first.people.register("Ann")
        other_ann = first.people.register("Ann too")
        read_first_as_before(first, lambda: second.people.change(other_ann.person_id, None, ["ann-a"]))
        with pytest.raises(SeatIdLinked) as refused:
            first.people.change(ann.person_id, None, ["ann-a"])
        assert refused.value.person_id == other_ann.person_id
        link = first.people.seat_link("ann-a")
        assert link is not None and link.person_id == other_ann.person_id
        records = {record.person_id: record.seat_ids for record in first.people.records()}
        assert records == {ann.person_id: (), other_ann.person_id: ("ann-a",)}
        linked = [n.topic for n in first.queries.notifications_after(0) if n.topic == Person.SeatLinked.TOPIC]
        assert linked == [Person.SeatLinked.TOPIC]


def stored_after(ledger: Ledger, meanwhile: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger's next change to the people is decided on the records as they stand, then `meanwhile` runs (another
    server's change, stored first), then it is stored: made again where the two meet."""
    make = ledger.people.writer.make
    pending = [meanwhile]

    def late(record_id: UUID, makes: Callable[[], Made[Any]], conflict: Exception | None = None) -> Any:
        def decided_then_overtaken() -> Made[Any]:
            made = makes()
            if pending:
                pending.pop()()
            return made

        return make(record_id, decided_then_overtaken, conflict)

    monkeypatch.setattr(ledger.people.writer, "make", late)


def holders(ledger: Ledger) -> dict[str, list[str]]:
    """Each stable id a record holds, with the people whose records hold it."""
    found: dict[str, list[str]] = {}
    for record in ledger.people.records():
        for seat_id in record.seat_ids:
            found.setdefault(seat_id, []).append(record.person_id)
    return found


@pytest.mark.parametrize("link_first", [False, True], ids=["own-record-first", "link-first"])
@pytest.mark.parametrize("linked_before", [False, True], ids=["never-linked", "linked-and-split-back"])
def test_a_stable_ids_own_record_and_a_link_elsewhere_made_at_once_leave_it_with_one_person(
    database: str, link_first: bool, linked_before: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Ledger(Settings(database)) as first, Ledger(Settings(database)) as second:
        if linked_before:  # the id's link names its own person, which has no record
            earlier = first.people.register("Earlier")
            first.people.change(earlier.person_id, None, ["ann-a"])
            first.people.split(earlier.person_id, "ann-a")
        other = first.people.register("Someone else")
        rename = (second if link_first else first).people.rename
        link = (first if link_first else second).people.change
        if link_first:
            stored_after(first, lambda: rename("ann-a", "Ann Smith", seat_name), monkeypatch)
            link(other.person_id, None, ["ann-a"], seat_name)
        else:
            stored_after(first, lambda: link(other.person_id, None, ["ann-a"], seat_name), monkeypatch)
            with pytest.raises(UnknownPerson, match=f"'ann-a' belongs to person {other.person_id!r}"):
                rename("ann-a", "Ann Smith", seat_name)
        assert holders(first)["ann-a"] == [other.person_id]
        stored_link = first.people.seat_link("ann-a")
        assert stored_link is not None and stored_link.person_id == other.person_id
