"""The toy ruleset (Pig, the contract's core alone, with no capability), installed only through the rulesets' entry
point group, goes through every layer of the core: record, replay, undo, correct, export and import both ways,
audit, the read tables, the API and `play`; what it lacks (explanations, bots) is refused as absent. Nothing outside
its package names it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from api import ApiSettings, create_app
from evo_ledger.app.disputes import NotExplainable
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import NoSelfPlay
from evo_ledger.app.transfer import export_bundle, export_notation, import_bundles, import_notation
from evo_ledger.rules import rulesets
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.kits import builtin_kit_names
from evo_ledger.settings import Settings
from projections.runner import Projector
from projections.schema import GAMES, RESULTS
from projections.store import ReadStore
from tests.helpers.shown import handles, shown
from tests.helpers.support import EVO_LEDGER, child_env
from tests.helpers.terminal import Terminal
from tests.helpers.toy_game import WHOLE_GAME
from tests.toy.ruleset import ToyRuleset


@pytest.fixture
def toy_ledger(database: str) -> Iterator[Ledger]:
    ledger = Ledger(Settings(database))
    yield ledger
    ledger.close()


def new_toy_game(ledger: Ledger) -> UUID:
    return ledger.commands.create_game(None, "toy-2p", ["ann", "ben"]).game_id


def test_the_toy_ruleset_is_found_through_its_entry_point_with_its_kit() -> None:
    assert isinstance(rulesets()["toy"], ToyRuleset)
    assert "toy-2p" in builtin_kit_names()


def test_a_toy_game_is_recorded_replayed_and_refused_by_its_own_rules(toy_ledger: Ledger) -> None:
    game_id = new_toy_game(toy_ledger)
    with pytest.raises(RuleViolation) as refused:
        toy_ledger.commands.record(game_id, "ben roll 3")
    assert re.search(r"\[TOY-1\] it is ann's turn, not ben's", shown(toy_ledger, str(refused.value)))
    toy_ledger.commands.record(game_id, WHOLE_GAME)
    game = toy_ledger.queries.game(game_id)
    outcome = game.rules.outcome(game.state)
    assert outcome is not None and handles(toy_ledger, list(outcome.winners)) == ["ann"]
    kinds = [type(event).__name__ for event in toy_ledger.queries.game_events(game_id)]
    assert kinds.count("TurnScored") == 2 and kinds.count("TurnLost") == 1 and kinds[-1] == "TurnScored"
    topics = {stored.topic for stored in toy_ledger.queries.stored_events(game_id)}
    assert "evo-ledger:toy.DieRolled" in topics and "evo-ledger:toy.TurnHeld" in topics
    assert toy_ledger.queries.game(game_id, 3).state.at_stake == 11


def test_a_hold_with_nothing_at_stake_and_an_action_after_the_win_are_refused_TOY_2_TOY_3(toy_ledger: Ledger) -> None:
    game_id = new_toy_game(toy_ledger)
    with pytest.raises(RuleViolation, match=r"\[TOY-2\] there is nothing at stake to hold"):
        toy_ledger.commands.record(game_id, "ann hold")
    toy_ledger.commands.record(game_id, WHOLE_GAME)
    with pytest.raises(RuleViolation, match=r"\[TOY-3\] the game is won"):
        toy_ledger.commands.record(game_id, "ann roll 2")
    assert toy_ledger.queries.game(game_id).version == 1 + len(WHOLE_GAME) + 3  # nothing stored by a refusal


def test_a_toy_game_is_undone_corrected_and_audited_clean(toy_ledger: Ledger) -> None:
    game_id = new_toy_game(toy_ledger)
    toy_ledger.commands.record(game_id, ["ann roll 5", "ann roll 2"])
    toy_ledger.commands.undo(game_id, 1, "misread the die")
    toy_ledger.commands.correct(game_id, "ann roll 6", "it was a six")
    assert toy_ledger.queries.game(game_id).state.at_stake == 6
    assert toy_ledger.queries.audit(game_id).verdict == "clean"


def test_a_toy_game_goes_out_and_back_in_as_notation_and_as_a_bundle(toy_ledger: Ledger) -> None:
    game_id = new_toy_game(toy_ledger)
    toy_ledger.commands.record(game_id, WHOLE_GAME)
    text = shown(toy_ledger, export_notation(toy_ledger, game_id))
    assert "ruleset toy 1" in text and "result 1 ann 14, 2 ben 0" in text
    copy = import_notation(toy_ledger, text, again=True).game_id
    assert export_notation(toy_ledger, copy).split("# game")[0] == text.split("# game")[0]


def test_a_toy_bundle_imports_into_another_ledger(toy_ledger: Ledger, tmp_path: Path) -> None:
    game_id = new_toy_game(toy_ledger)
    toy_ledger.commands.record(game_id, WHOLE_GAME)
    bundle = export_bundle(toy_ledger, game_id)
    other = Ledger(Settings(str(tmp_path / "other.sqlite")))
    try:
        [receipt] = import_bundles(other, [bundle])
        assert (
            other.queries.audit(receipt.game_id).verdict == "clean" and export_bundle(other, receipt.game_id) == bundle
        )
    finally:
        other.close()


def test_what_the_toy_lacks_is_refused_as_absent(toy_ledger: Ledger) -> None:
    game_id = new_toy_game(toy_ledger)
    toy_ledger.commands.record(game_id, WHOLE_GAME[:3])
    with pytest.raises(NotExplainable, match="the toy rules explain none of their decisions"):
        toy_ledger.queries.explain(toy_ledger.queries.game(game_id), 2)
    with pytest.raises(NoSelfPlay, match="ruleset 'toy' has no bots"):
        toy_ledger.commands.generate_game(2, seed=3, ruleset="toy")


def test_a_toy_game_fills_the_generic_read_tables_and_an_undo_takes_its_result_back(
    toy_ledger: Ledger, database: str
) -> None:
    game_id = new_toy_game(toy_ledger)
    toy_ledger.commands.record(game_id, WHOLE_GAME)
    store = ReadStore(Settings(database))
    try:
        projector = Projector(toy_ledger, store)
        projector.catch_up()
        with store.engine.connect() as connection:
            results = connection.execute(select(RESULTS.c.rank, RESULTS.c.name, RESULTS.c.score)).all()
            shown_results = [(rank, shown(toy_ledger, name), score) for rank, name, score in results]
            assert sorted(shown_results) == [(1, "ann", 14), (2, "ben", 0)]
            assert connection.execute(select(GAMES.c.status)).scalar_one() == "over"
        toy_ledger.commands.undo(game_id, 1, "ann had not held")
        projector.catch_up()
        with store.engine.connect() as connection:
            assert connection.execute(select(GAMES.c.status)).scalar_one() == "ongoing"
            assert connection.execute(select(RESULTS.c.undone)).scalars().all() == [True, True]
    finally:
        store.close()


def test_a_toy_game_is_played_through_the_api(database: str) -> None:
    with TestClient(create_app(ApiSettings(store=Settings(database), admin_token="admin"))) as client:
        created = client.post("/v1/games", json={"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]})
        assert created.status_code == 201, created.text
        game, token = created.json()["game_id"], created.json()["recorder_token"]
        headers = {"Authorization": f"Bearer {token}"}
        refused = client.post(f"/v1/games/{game}/actions", json={"actions": ["ben hold"]}, headers=headers)
        assert refused.status_code == 422 and refused.json()["ruling"] == "TOY-1"
        answer = client.post(f"/v1/games/{game}/actions", json={"actions": WHOLE_GAME}, headers=headers)
        assert answer.status_code == 200, answer.text
        summary = client.get(f"/v1/games/{game}").json()
        assert summary["status"] == "over" and summary["ruleset"] == "toy"
        assert client.get(f"/v1/games/{game}/audit").json()["verdict"] == "clean"
        mismatched = client.post("/v1/games", json={"ruleset": "evo2", "kit": "toy-2p", "players": [{"name": "a"}]})
        assert mismatched.status_code == 422


def test_a_toy_game_is_recorded_through_play(tmp_path: Path) -> None:
    database = str(tmp_path / "toy.sqlite")
    ledger = Ledger(Settings(database))
    new_toy_game(ledger)
    env = {**child_env(), "EVO_LEDGER_DATABASE": database, "TERM": "xterm"}
    terminal = Terminal(str(EVO_LEDGER), "play", "last", env=env)
    try:
        terminal.expect(r"ann to roll")
        terminal.expect(r"\n> ")
        for line in WHOLE_GAME:
            terminal.type(line + "\n")
            terminal.expect(r"stored: event \d+")
        terminal.expect(re.escape("result 1 ann 14, 2 ben 0"))
        terminal.type(":quit\n")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()
    assert ledger.queries.game(ledger.queries.find_game("last")).rules.name == "toy"
    ledger.close()
