"""A database stored in the keyed form (tests/fixtures/stored/README.md) is read as it was made: every game loads
and replays to the head it was stored with, its hidden actions still hidden; every game audits clean under the seal
key, against the checkpoints kept elsewhere; the checkpoint log verifies under the key; and the records beside the
games (who may write to each, an answered append, the people, the competition) read as they were made."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.access import token_digest
from evo_ledger.app.competitions import Placement
from evo_ledger.app.ledger import Idempotency, Ledger, Receipt
from evo_ledger.game.checkpoints import published
from evo_ledger.settings import Settings
from tests.helpers.stored import FIXTURES

MADE: dict[str, Any] = json.loads((FIXTURES / "keyed-form.json").read_text())
GAMES: dict[str, dict[str, Any]] = {game["name"]: game for game in MADE["games"]}


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[Ledger]:
    """The fixture's SQLite file, copied so that the test never changes it, opened with its seal key."""
    copy = tmp_path / "keyed-form.sqlite"
    shutil.copyfile(FIXTURES / "keyed-form.sqlite", copy)
    with Ledger(Settings(str(copy), seal_key=MADE["seal_key"])) as ledger:
        yield ledger


def game_id(name: str) -> UUID:
    return UUID(GAMES[name]["id"])


def still_hidden(ledger: Ledger, name: str) -> list[int]:
    """The versions of the game's actions hidden from everyone but their player."""
    game = ledger.queries.game(game_id(name))
    shown = game.revealed_versions()
    return [
        event.originator_version
        for event in ledger.queries.game_events(game.id, up_to=game.version)
        if getattr(event, "visible_only_to", None) is not None and event.originator_version not in shown
    ]


@pytest.mark.parametrize("name", GAMES)
def test_every_game_replays_to_the_head_it_was_stored_with(keyed: Ledger, name: str) -> None:
    made = GAMES[name]
    game = keyed.queries.game(game_id(name))
    assert (game.rules.name, Receipt.of(game).head_hash) == (made["ruleset"], made["head_hash"])
    for version in sorted({1, made["version"] // 2, 99, 100, made["version"]}):
        if version <= made["version"]:
            assert keyed.queries.game(game_id(name), version).version == version
    snapshots = keyed.store.snapshots.recorder.select_events(game_id(name)) if keyed.store.snapshots else []
    assert len(snapshots) == made["snapshots"]
    assert still_hidden(keyed, name) == made["hidden"]


@pytest.mark.parametrize("name", GAMES)
def test_every_game_audits_clean_under_the_seal_key(keyed: Ledger, name: str) -> None:
    made = GAMES[name]
    report = keyed.queries.audit(game_id(name), expect_head=made["head_hash"], kept=MADE["checkpoints"])
    verdicts = {check["check"]: check["verdict"] for check in report.data["checks"]}
    assert report.verdict == "clean", report.data
    assert set(verdicts.values()) <= {"pass", "not run"}, verdicts
    ran = ["hashes", "chain", "seals", "checkpoints", "rules", "head"] + (["snapshots"] if made["snapshots"] else [])
    assert all(verdicts[check] == "pass" for check in ran), verdicts
    signed = f"events 1 to {made['version']} are as checkpoints signed them"
    assert report.check("checkpoints")["detail"] == signed


def test_the_checkpoint_log_verifies_under_the_seal_key(keyed: Ledger) -> None:
    index = keyed.vouched.checkpoint_index()
    assert index.faults == []
    assert all(checkpoint.genuine for checkpoint in index.checkpoints)
    assert [published(checkpoint) for checkpoint in index.checkpoints] == MADE["checkpoints"]
    assert {name: index.covered_of(str(game_id(name))) for name in GAMES} == {
        name: made["version"] for name, made in GAMES.items()
    }
    assert keyed.vouched.unvouched_by_last_checkpoint() == []


def test_who_may_write_to_each_game_reads_as_it_was_sealed(keyed: Ledger) -> None:
    table = keyed.vouched.access(game_id("evo2-table"))
    assert table is not None and table.token_digest == token_digest(MADE["recorder_token"])
    assert table.co_recorder_of(MADE["co_recorder_token"]) == "ben's phone"
    private = keyed.vouched.access(game_id("evo1-private"))
    assert private is not None and private.private
    seated = keyed.vouched.access(game_id("traits-seats"))
    assert seated is not None and seated.seat_of("fixture-seat-ann") == "ann"
    answered = MADE["answered"]
    receipt = keyed.vouched.answered(UUID(answered["game"]), Idempotency(answered["key"], answered["request"]))
    assert receipt is not None and (receipt.version, receipt.head_hash) == (answered["version"], answered["head_hash"])


def test_the_people_and_the_competition_read_as_they_were_made(keyed: Ledger) -> None:
    made = MADE["person"]
    person = keyed.people.person(made["id"])
    assert person is not None and (person.name, list(person.seat_ids)) == (made["name"], made["seat_ids"])
    links = [keyed.people.seat_link(seat_id) for seat_id in made["seat_ids"]]
    assert [link.person_id if link is not None else None for link in links] == [made["id"]] * len(links)
    entered = MADE["competition"]
    competition = keyed.competitions.competition(UUID(entered["id"]))
    assert competition.name == entered["name"]
    assert competition.games == {entered["game"]: Placement(entered["round"], entered["table"])}
