"""What each change to the people makes of the records as they stand (evo_ledger.app.people), held in memory: a
stable id taken from its own person's record and given back, merges along a chain, and the names a person takes."""

from __future__ import annotations

import pytest

from evo_ledger.app.people import (
    InvalidPersonName,
    MergeCycle,
    Person,
    PersonMerged,
    Records,
    SeatLink,
    SeatsTold,
    changed,
    merged,
    registered,
    renamed,
    split,
)

SEATED = {"ann-a": "ann", "ann-b": "anne", "ben-1": "ben", "cat-1": "cat"}


class Held:
    """Records kept in memory as each change leaves them."""

    def __init__(self) -> None:
        self.people: dict[str, Person] = {}
        self.links: dict[str, SeatLink] = {}

    def records(self) -> Records:
        return Records(self.people.get, self.links.get, SeatsTold(SEATED.get))

    def keep(self, records: Records) -> None:
        """The records the change made kept, their events taken as a store takes them."""
        for record in records.changed():
            record.collect_events()
            if isinstance(record, Person):
                self.people[record.person_id] = record
            elif isinstance(record, SeatLink):
                self.links[record.seat_id] = record


def seat_ids(held: Held) -> dict[str, list[str]]:
    return {person_id: list(record.seat_ids) for person_id, record in held.people.items()}


def test_a_stable_id_linked_away_from_its_own_record_leaves_it_its_name_and_comes_back_on_a_split() -> None:
    held = Held()
    records = held.records()
    renamed(records, "ann-a", "Ann A")
    changed(records, "ann-a", None, ["cat-1"])
    held.keep(records)
    records = held.records()
    registered(records, "ann", "Ann", ["ann-a"])
    held.keep(records)
    assert seat_ids(held) == {"ann-a": ["cat-1"], "ann": ["ann-a"]} and held.people["ann-a"].name == "Ann A"
    assert held.links["ann-a"].person_id == "ann"

    records = held.records()
    split(records, "ann", "ann-a")
    assert [type(record) for record in records.changed()] == [Person, Person, SeatLink]
    held.keep(records)
    assert seat_ids(held) == {"ann-a": ["cat-1", "ann-a"], "ann": []}
    assert held.links["ann-a"].person_id == "ann-a"


def test_a_merge_into_the_end_of_a_chain_that_started_here_is_a_cycle_and_into_its_middle_is_refused() -> None:
    held = Held()
    for person, into in (("ann-a", "ann-b"), ("ann-b", "ben-1")):
        records = held.records()
        merged(records, person, into)
        held.keep(records)
    assert held.people["ben-1"].seat_ids == ("ben-1", "ann-b", "ann-a")
    links = {seat_id: link.person_id for seat_id, link in held.links.items()}
    assert links == {"ann-a": "ben-1", "ann-b": "ben-1", "ben-1": "ben-1"}
    with pytest.raises(MergeCycle, match="'ann-b' was merged into 'ben-1'"):
        merged(held.records(), "ben-1", "ann-b")
    with pytest.raises(PersonMerged, match="into: person 'ann-b' was merged into 'ben-1'") as refused:
        merged(held.records(), "cat-1", "ann-b")
    assert refused.value.merged_into == "ben-1"


def test_a_name_is_trimmed_and_held_to_printable_text() -> None:
    records = Held().records()
    assert renamed(records, "ann-a", "  Ann  Smith ").name == "Ann  Smith"
    for name in ("", "   ", "x" * 81, "line\nbreak", "bell\a"):
        with pytest.raises(InvalidPersonName, match=r"^name: "):
            renamed(records, "ann-a", name)
    assert renamed(records, "ann-a", "é" * 80).name == "é" * 80


def test_a_split_steps_back_through_a_chain_of_merges_one_merge_at_a_time() -> None:
    held = Held()
    records = held.records()
    registered(records, "ann", "Ann", ["ann-a"])
    held.keep(records)
    for person, into in (("ann", "ben-1"), ("ben-1", "cat-1")):
        records = held.records()
        merged(records, person, into)
        held.keep(records)
    assert held.people["cat-1"].seat_ids == ("cat-1", "ben-1", "ann-a")
    assert held.people["cat-1"].came_from == {"ben-1": "ben-1", "ann-a": "ben-1"}

    steps = [("cat-1", "ann-a", "ben-1"), ("ben-1", "ann-a", "ann"), ("cat-1", "ben-1", "ben-1")]
    for person, seat_id, back_to in steps:
        records = held.records()
        split(records, person, seat_id)
        held.keep(records)
        assert seat_id in held.people[back_to].seat_ids and held.people[back_to].merged_into is None
        assert held.links[seat_id].person_id == back_to
    assert seat_ids(held) == {"ann": ["ann-a"], "ben-1": ["ben-1"], "cat-1": ["cat-1"]}
    assert [held.people[person].name for person in ("ann", "ben-1", "cat-1")] == ["Ann", None, None]


def test_a_record_made_for_a_stable_ids_own_person_is_unnamed_and_holds_that_ids_link() -> None:
    held = Held()
    records = held.records()
    merged(records, "ann-a", "ben-1")
    links = {record.seat_id: record.person_id for record in records.changed() if isinstance(record, SeatLink)}
    assert links == {"ann-a": "ben-1", "ben-1": "ben-1"}
    assert [record.name for record in records.changed() if isinstance(record, Person)] == [None, None]

    held = Held()
    records = held.records()
    registered(records, "ann", "Ann", ["ann-a"])
    held.keep(records)
    records = held.records()
    split(records, "ann", "ann-a")
    held.keep(records)
    assert "ann-a" not in held.people and held.links["ann-a"].person_id == "ann-a"
    records = held.records()
    renamed(records, "ann-a", "Ann A")
    [link] = [record for record in records.changed() if isinstance(record, SeatLink)]
    assert (link.person_id, [type(event) for event in link.pending_events]) == ("ann-a", [SeatLink.Held])
