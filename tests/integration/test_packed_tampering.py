"""A game stored in the packed form, its runs changed in the database itself, on each database: an event edited
inside a run fails its hash check, a run whose bytes cannot be unpacked has its events named as unreadable, and a
run deleted from the middle of a game leaves its first event named as missing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import pytest

from evo_ledger.app.audit import CLEAN, DAMAGED
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.transfer import import_notation
from evo_ledger.game.codec import CodecError, unpack_sealed
from evo_ledger.settings import PACKED, Settings
from evo_ledger.store.runs import pack_run, unpack_run
from tests.helpers.tampering import GAME_TEXT, Tamperer, recorded_with_a_note


@pytest.fixture
def packed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, stored_form=PACKED)) as ledger:
        yield ledger


@pytest.fixture
def recorded(packed: Ledger) -> Receipt:
    return import_notation(packed, GAME_TEXT)


class RunEditor(Tamperer):
    """The game's rows of the runs table, read and changed as they are stored."""

    def __init__(self, ledger: Ledger, recorded: Receipt) -> None:
        super().__init__(ledger, recorded.game_id)
        assert self.runs_table is not None
        self.table = self.runs_table
        self.run_key: Any = self.game_id if self.postgres else self.game_id.bytes

    def runs(self) -> list[tuple[int, int, int, bytes]]:
        """Each run of the game: its last notification id, its first and last versions, its body."""
        found = self.execute(
            "SELECT last_notification_id, last_version, events, body FROM {table} WHERE originator_id=? "
            "ORDER BY last_version",
            self.run_key,
        )
        return [(last_id, last - events + 1, last, bytes(body)) for last_id, last, events, body in found]

    def holding(self, version: int) -> tuple[int, int, int, bytes]:
        [run] = [run for run in self.runs() if run[1] <= version <= run[2]]
        return run

    def write_body(self, last_id: int, body: bytes) -> None:
        self.execute("UPDATE {table} SET body=? WHERE last_notification_id=?", body, last_id)


def test_an_event_edited_inside_a_run_is_named(packed: Ledger, recorded: Receipt) -> None:
    version = next(
        e.originator_version for e in packed.queries.game_events(recorded.game_id) if type(e).__name__ == "DieRolled"
    )
    editor = RunEditor(packed, recorded)
    last_id, first, _, body = editor.holding(version)
    events = unpack_run(body)
    topic, state = events[version - first]
    fields = packed.store.mapper.transcoder.decode(state)
    fields["notation"] = "roll x" if fields["notation"] != "roll x" else "roll horn"
    events[version - first] = (topic, packed.store.mapper.transcoder.encode(fields))
    editor.write_body(last_id, pack_run(events))
    report = packed.queries.audit(recorded.game_id)
    assert report.verdict == DAMAGED
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("hashes", version)
    assert report.check("chain")["verdict"] == "pass"


def test_a_run_that_cannot_be_unpacked_has_each_of_its_events_named_unreadable(
    packed: Ledger, recorded: Receipt
) -> None:
    editor = RunEditor(packed, recorded)
    runs = editor.runs()
    assert len(runs) >= 3
    last_id, first, last, body = runs[1]
    flipped = body[:1] + bytes(byte ^ 0xFF for byte in body[1:])
    with pytest.raises(CodecError):
        unpack_run(flipped)
    editor.write_body(last_id, flipped)
    report = packed.queries.audit(recorded.game_id)
    assert report.verdict == DAMAGED
    divergence = report.data["first_divergence"]
    assert (divergence["check"], divergence["event"]) == ("sequence", first)
    assert f"event {first} cannot be read" in divergence["detail"]
    assert "its stored run cannot be read" in divergence["detail"]
    stored = packed.store.recorder.select_events(recorded.game_id, gt=first - 1, lte=last)
    assert [event.originator_version for event in stored] == list(range(first, last + 1))
    for event in stored:
        with pytest.raises(CodecError, match="its stored run cannot be read"):
            unpack_sealed(event.state)


def test_a_run_deleted_from_the_middle_of_a_game_is_named_at_its_first_event(packed: Ledger, recorded: Receipt) -> None:
    editor = RunEditor(packed, recorded)
    runs = editor.runs()
    assert len(runs) >= 3
    last_id, first, last, _ = runs[1]
    editor.execute("DELETE FROM {table} WHERE last_notification_id=?", last_id)
    report = packed.queries.audit(recorded.game_id)
    assert report.verdict == DAMAGED
    divergence = report.data["first_divergence"]
    assert (divergence["check"], divergence["event"]) == ("sequence", first)
    assert f"event {first} is missing: the next stored is {last + 1}" in divergence["detail"]


def test_runs_moved_into_rows_of_their_own_read_as_before_and_later_appends_follow_them(
    packed: Ledger, recorded: Receipt
) -> None:
    tamperer = Tamperer(packed, recorded.game_id)
    before = packed.store.recorder.select_notifications(start=1, limit=1000)
    assert len(tamperer.execute("SELECT originator_version FROM {table} WHERE originator_id=?", tamperer.key)) == (
        recorded.version
    )
    assert RunEditor(packed, recorded).runs() == []
    assert packed.queries.audit(recorded.game_id, expect_head=recorded.head_hash).verdict == CLEAN
    again, _ = recorded_with_a_note(packed)
    crafted = Tamperer(packed, uuid4())
    crafted.execute(
        "INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (?, 0, 'x', ?)",
        crafted.key,
        b"x",
    )
    log = packed.store.recorder.select_notifications(start=1, limit=1000)
    assert [(n.id, n.originator_id, n.originator_version) for n in log[: len(before)]] == [
        (n.id, n.originator_id, n.originator_version) for n in before
    ]
    assert [n.id for n in log] == list(range(1, len(before) + again.version + 2))
    assert (log[-1].originator_id, log[-1].originator_version) == (crafted.game_id, 0)
