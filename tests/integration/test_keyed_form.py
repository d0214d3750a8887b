"""A database stored in the keyed form and one stored in the compact form (tests/fixtures/stored/README.md) are each
read as they were made: every game loads and replays to the head it was stored with, its hidden actions still
hidden; every game audits clean under the seal key, against the checkpoints kept elsewhere; the checkpoint log
verifies under the key; and the records beside the games (who may write to each, an answered append, the people, the
competition) read as they were made."""

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
from evo_ledger.app.personal import game_owner
from evo_ledger.game.checkpoints import published
from evo_ledger.settings import Settings
from tests.helpers.shown import shown
from tests.helpers.stored import FIXTURES

FORMS = ("keyed-form", "compact-form")
MADE: dict[str, dict[str, Any]] = {form: json.loads((FIXTURES / f"{form}.json").read_text()) for form in FORMS}
NAMES = [game["name"] for game in MADE["keyed-form"]["games"]]


@pytest.fixture(params=FORMS)
def form(request: pytest.FixtureRequest) -> str:
    """The fixture's name: `keyed-form` or `compact-form`."""
    return str(request.param)


@pytest.fixture
def made(form: str) -> dict[str, Any]:
    """What the fixture's JSON file says it holds."""
    return MADE[form]


@pytest.fixture
def stored(form: str, made: dict[str, Any], tmp_path: Path) -> Iterator[Ledger]:
    """The fixture's SQLite file, copied so that the test never changes it, opened with its seal key."""
    copy = tmp_path / f"{form}.sqlite"
    shutil.copyfile(FIXTURES / f"{form}.sqlite", copy)
    with Ledger(Settings(str(copy), seal_key=made["seal_key"])) as ledger:
        yield ledger


def games_of(made: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {game["name"]: game for game in made["games"]}


def game_id(made: dict[str, Any], name: str) -> UUID:
    return UUID(games_of(made)[name]["id"])


def still_hidden(ledger: Ledger, made: dict[str, Any], name: str) -> list[int]:
    """The versions of the game's actions hidden from everyone but their player."""
    game = ledger.queries.game(game_id(made, name))
    shown_versions = game.revealed_versions()
    return [
        event.originator_version
        for event in ledger.queries.game_events(game.id, up_to=game.version)
        if getattr(event, "visible_only_to", None) is not None and event.originator_version not in shown_versions
    ]


def test_both_fixtures_hold_the_same_games() -> None:
    """Each fixture's games are recorded the same way: the same names, rulesets, versions, snapshots and hidden
    actions (their ids, times and so their hashes differ)."""
    kept = ("name", "ruleset", "version", "snapshots", "hidden")

    def recorded(form: str) -> list[dict[str, Any]]:
        return [{key: game[key] for key in kept} for game in MADE[form]["games"]]

    assert recorded("compact-form") == recorded("keyed-form")


@pytest.mark.parametrize("name", NAMES)
def test_every_game_replays_to_the_head_it_was_stored_with(stored: Ledger, made: dict[str, Any], name: str) -> None:
    game_made, key = games_of(made)[name], game_id(made, name)
    game = stored.queries.game(key)
    assert (game.rules.name, Receipt.of(game).head_hash) == (game_made["ruleset"], game_made["head_hash"])
    for version in sorted({1, game_made["version"] // 2, 99, 100, game_made["version"]}):
        if version <= game_made["version"]:
            assert stored.queries.game(key, version).version == version
    snapshots = stored.store.snapshots.recorder.select_events(key) if stored.store.snapshots else []
    assert len(snapshots) == game_made["snapshots"]
    assert still_hidden(stored, made, name) == game_made["hidden"]


@pytest.mark.parametrize("name", NAMES)
def test_every_game_audits_clean_under_the_seal_key(stored: Ledger, made: dict[str, Any], name: str) -> None:
    game_made = games_of(made)[name]
    report = stored.queries.audit(game_id(made, name), expect_head=game_made["head_hash"], kept=made["checkpoints"])
    verdicts = {check["check"]: check["verdict"] for check in report.data["checks"]}
    assert report.verdict == "clean", report.data
    assert set(verdicts.values()) <= {"pass", "not run"}, verdicts
    ran = ["hashes", "chain", "seals", "checkpoints", "rules", "head"]
    ran += ["snapshots"] if game_made["snapshots"] else []
    assert all(verdicts[check] == "pass" for check in ran), verdicts
    signed = f"events 1 to {game_made['version']} are as checkpoints signed them"
    assert report.check("checkpoints")["detail"] == signed


def test_the_checkpoint_log_verifies_under_the_seal_key(stored: Ledger, made: dict[str, Any]) -> None:
    index = stored.vouched.checkpoint_index()
    assert index.faults == []
    assert all(checkpoint.genuine for checkpoint in index.checkpoints)
    assert [published(checkpoint) for checkpoint in index.checkpoints] == made["checkpoints"]
    assert {name: index.covered_of(str(game_id(made, name))) for name in NAMES} == {
        name: game["version"] for name, game in games_of(made).items()
    }
    assert stored.vouched.unvouched_by_last_checkpoint() == []


def test_who_may_write_to_each_game_reads_as_it_was_sealed(stored: Ledger, made: dict[str, Any]) -> None:
    table = stored.vouched.access(game_id(made, "evo2-table"))
    assert table is not None and table.token_digest == token_digest(made["recorder_token"])
    assert table.co_recorder_of(made["co_recorder_token"]) == "ben's phone"
    private = stored.vouched.access(game_id(made, "evo1-private"))
    assert private is not None and private.private
    seated = stored.vouched.access(game_id(made, "traits-seats"))
    seat = seated.seat_of("fixture-seat-ann") if seated is not None else None
    assert seat is not None and shown(stored, seat) == "ann"  # a seat's label, shown as its handle
    answered = made["answered"]
    game, request = UUID(answered["game"]), answered["request"]
    # The request as an append gives it: keyed under the game's key, and as it came (what an answer stored
    # before requests were keyed holds).
    keyed = Idempotency(answered["key"], stored.store.personal.keyed_digest(game_owner(game), request), request)
    receipt = stored.vouched.answered(game, keyed)
    assert receipt is not None and (receipt.version, receipt.head_hash) == (answered["version"], answered["head_hash"])


def test_the_people_and_the_competition_read_as_they_were_made(stored: Ledger, made: dict[str, Any]) -> None:
    person_made = made["person"]
    person = stored.people.person(person_made["id"])
    assert person is not None and person.name is not None  # its name sealed, or as it was typed
    assert (shown(stored, person.name), list(person.seat_ids)) == (person_made["name"], person_made["seat_ids"])
    links = [stored.people.seat_link(seat_id) for seat_id in person_made["seat_ids"]]
    assert [link.person_id if link is not None else None for link in links] == [person_made["id"]] * len(links)
    entered = made["competition"]
    competition = stored.competitions.competition(UUID(entered["id"]))
    assert competition.name == entered["name"]
    assert competition.games == {entered["game"]: Placement(entered["round"], entered["table"])}
