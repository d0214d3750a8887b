"""The trait-card game through every layer: the ledger, game files, the audit, `check`, `show`, `log`, `play` with
Tab completion and the API, with each reader seeing only the hands it may [TR-24]."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from api import ApiSettings, create_app
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import export_notation, import_notation
from evo_ledger.cli.main import main
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import RuleViolation
from evo_ledger.settings import Settings
from projections.runner import Projector
from projections.store import ReadStore
from tests.helpers.shown import handles
from tests.helpers.support import EVO_LEDGER, ROOT, child_env
from tests.helpers.terminal import Terminal

HAND_GAME = (ROOT / "replays" / "traits-hand-2p.evo").read_text()
LINES = [line.text for line in parse_game(HAND_GAME).actions]
PLAYERS = ["ann", "ben"]


@pytest.fixture
def ledger(database: str) -> Iterator[Ledger]:
    opened = Ledger(Settings(database))
    yield opened
    opened.close()


def test_a_game_on_the_trait_card_kit_is_recorded_and_refused_by_its_rulings_TR_11(ledger: Ledger) -> None:
    game_id = ledger.commands.create_game(None, "standin-traits", PLAYERS).game_id
    assert ledger.queries.game(game_id).rules.name == "traits"
    ledger.commands.record(game_id, LINES[:30])
    with pytest.raises(RuleViolation, match=r"\[TR-11\] Hunt Species is not defined"):
        ledger.commands.record(game_id, "ann hunt_species square")
    ledger.commands.record(game_id, LINES[30:])
    game = ledger.queries.game(game_id)
    outcome = game.rules.outcome(game.state)
    assert outcome is not None and handles(ledger, list(outcome.winners)) == ["ann", "ben"]


def test_the_hand_worked_game_goes_out_and_back_in_and_audits_clean(ledger: Ledger) -> None:
    receipt = import_notation(ledger, HAND_GAME)
    text = export_notation(ledger, receipt.game_id)
    assert "ruleset traits 1" in text and "result 1 ann -11, 1 ben -11" in text
    again = import_notation(ledger, text, again=True).game_id
    assert export_notation(ledger, again).split("# game")[0] == text.split("# game")[0]
    assert ledger.queries.audit(receipt.game_id).verdict == "clean"


def test_check_show_and_log_speak_the_trait_card_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(ROOT / "replays" / "traits-hand-2p.evo")]) == 0
    assert "result 1 ann -11, 1 ben -11" in capsys.readouterr().out
    database = str(tmp_path / "traits.sqlite")
    assert main(["import", str(ROOT / "replays" / "traits-hand-2p.evo"), "--database", database]) == 0
    assert main(["show", "last", "--at", "50", "--database", database]) == 0
    shown = capsys.readouterr().out
    assert "event 50 · millennium 1 · generation · ben (square) to act" in shown
    assert "lake (size): grazer-1 [circle 3]; grazer-2 [circle 2]" in shown and "Future Genome 7" in shown
    assert main(["log", "last", "--database", database]) == 0
    logged = capsys.readouterr().out
    assert "ann (circle) hunts grazer-2 at lake with size, size and speed: 2 survival tokens" in logged
    assert "Millennium 1: ben (square) scores 11 tokens and a bonus of 7: 18 points." in logged


def test_a_generation_is_recorded_through_play_with_tab_completion(tmp_path: Path) -> None:
    database = str(tmp_path / "traits.sqlite")
    ledger = Ledger(Settings(database))
    game_id = ledger.commands.create_game(None, "standin-traits", PLAYERS).game_id
    ledger.commands.record(game_id, LINES[:22])  # the setup and ann's active population
    env = {**child_env(), "EVO_LEDGER_DATABASE": database, "TERM": "xterm"}
    terminal = Terminal(str(EVO_LEDGER), "play", "last", env=env)
    try:
        terminal.expect(r"ann \(circle\) to act")
        terminal.expect(r"\n> ")
        terminal.type("ann hunt grazer-2\t")  # completes to the cards the hand pays the hunt with
        terminal.expect(r"size size speed")
        terminal.type("\n")
        terminal.expect(r"stored: event \d+")
        terminal.type("ann hunt_species square\n")
        terminal.expect(r"refused \[TR-11\]")
        terminal.type(":quit\n")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()
    assert sum(ledger.queries.game(game_id).state.species["circle"].future.values()) == 3
    ledger.close()


def test_another_seats_token_never_reads_a_hand_it_may_not_see_on_any_endpoint_TR_24(database: str) -> None:
    with TestClient(create_app(ApiSettings(store=Settings(database), admin_token="admin"))) as client:
        created = client.post(
            "/v1/games", json={"kit": "standin-traits", "players": [{"name": p} for p in PLAYERS], "seat_tokens": True}
        )
        assert created.status_code == 201, created.text
        body = created.json()
        game, recorder = body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}
        journey = LINES.index("ann journey toughness field")
        answer = client.post(f"/v1/games/{game}/actions", json={"actions": LINES[:journey]}, headers=recorder)
        assert answer.status_code == 200, answer.text
        readers = {seat: {"Authorization": f"Bearer {token}"} for seat, token in body["seat_tokens"].items()}
        # What only ann may see: her draw, the pair she chose to migrate with, and what they leave in her hand.
        ann_hidden = ["ann draw size size speed strength toughness agility", "ann migrate strength toughness"]
        ben_hidden = ["ben draw speed speed endurance agility size toughness"]
        paths = [
            "",
            "/events",
            "/state",
            "/legal",
            "/export",
            "/export?format=bundle",
            "/audit",
            "/standings",
            "/view",
            "/events/30/explanation",
        ]
        for path in paths:
            ben = client.get(f"/v1/games/{game}{path}", headers=readers["ben"])
            public = client.get(f"/v1/games/{game}{path}")
            for text in (ben.content.decode("latin-1"), public.content.decode("latin-1")):
                assert not [line for line in ann_hidden if line in text], path
            assert not [line for line in ben_hidden if line in public.content.decode("latin-1")], path
        own = client.get(f"/v1/games/{game}/events", headers=readers["ann"]).text
        assert all(line in own for line in ann_hidden)
        state = client.get(f"/v1/games/{game}/state", headers=readers["ben"]).json()
        circle = state["state"]["species"]["circle"] if "state" in state else state["species"]["circle"]
        assert circle["hand"] == 1 and circle["journey"] == 2 and circle["lost"] == 0
        legal = client.get(f"/v1/games/{game}/legal", headers=readers["ben"]).json()["actions"]
        assert not [action for action in legal if action.startswith("ann journey")]
        assert [a for a in client.get(f"/v1/games/{game}/legal", headers=recorder).json()["actions"] if "journey" in a]


def test_a_species_that_changes_hands_shows_its_new_holder_none_of_the_old_hidden_facts_TR_24(database: str) -> None:
    with TestClient(create_app(ApiSettings(store=Settings(database), admin_token="admin"))) as client:
        created = client.post(
            "/v1/games", json={"kit": "standin-traits", "players": [{"name": p} for p in PLAYERS], "seat_tokens": True}
        )
        body = created.json()
        game, recorder = body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}
        start = LINES.index("start ben")  # ann has taken square, ben circle, for millennium 2
        assert (
            client.post(f"/v1/games/{game}/actions", json={"actions": LINES[:start]}, headers=recorder).status_code
            == 200
        )
        ann = {"Authorization": f"Bearer {body['seat_tokens']['ann']}"}
        events = client.get(f"/v1/games/{game}/events", headers=ann).text
        assert "ben draw speed speed endurance agility size toughness" not in events  # square's hand, when ben's
        assert "ann draw speed speed agility endurance size strength" in events  # what ann drew for square
        square = client.get(f"/v1/games/{game}/state", headers=ann).json()
        square = (square.get("state") or square)["species"]["square"]
        assert square["hand"] == {"speed": 2, "agility": 1, "endurance": 1, "size": 1, "strength": 1}
        assert square["lost"] == {}


def test_the_what_if_of_a_random_pick_replays_the_game_with_the_other_pick_TR_18(ledger: Ledger) -> None:
    """Natural selection's pick between two untouched adaptations, the other way: the game plays on until a later
    record no longer fits, and the standings of both are set side by side."""
    game_id = import_notation(ledger, HAND_GAME).game_id
    events = list(ledger.queries.game_events(game_id))
    drop = next(
        n for n, e in enumerate(events, start=1) if getattr(e, "notation", None) == "drop circle bountiful-size-1"
    )
    report = ledger.queries.what_if(ledger.queries.game(game_id), drop, "drop circle speed-for-size").data
    assert report["change"] == {
        "event": drop,
        "was": "drop circle bountiful-size-1",
        "becomes": "drop circle speed-for-size",
    }
    stop = report["branch"]["stopped_at"]
    assert stop is not None and "TR-" in stop["reason"]  # a later use of speed-for-size, say, no longer fits
    assert report["recorded"]["standings"] and report["branch"]["standings"]


def test_the_read_tables_hold_each_millennium_the_actions_the_traits_played_and_the_extinctions(
    ledger: Ledger, database: str
) -> None:
    import_notation(ledger, HAND_GAME)
    store = ReadStore(Settings(database))
    try:
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            millennia = connection.execute(
                text("SELECT name, round, tokens, bonus, genome_points, points FROM read_tr_millennia ORDER BY event")
            ).all()
            counted = connection.execute(text("SELECT kind, count(*) FROM read_tr_actions GROUP BY kind")).all()
            kinds = {kind: count for kind, count in counted}
            played = connection.execute(text("SELECT sum(cards) FROM read_tr_traits_played")).scalar_one()
            extinct = connection.execute(
                text("SELECT round, card, tokens, threshold FROM read_tr_extinctions ORDER BY event")
            ).all()
            first = connection.execute(
                text("SELECT name, generation, kind, target, tokens FROM read_tr_actions ORDER BY event LIMIT 2")
            ).all()
    finally:
        store.close()
    # The hand-worked game's comments, millennium by millennium.
    assert [tuple(row) for row in millennia] == [
        ("ann", 1, 6, 3, -17, -8),
        ("ben", 1, 11, 7, -13, 5),
        ("ann", 2, 9, 3, -12, -8),
        ("ben", 2, 2, 0, -13, -6),
        ("ann", 3, 9, 3, -15, -11),
        ("ben", 3, 10, 3, -16, -9),
        ("ann", 4, 13, 7, -20, -11),
        ("ben", 4, 14, 7, -23, -11),
    ]
    assert kinds == {"hunt": 47, "forage": 9, "migrate": 2}
    food = [line.split(" with ")[0].split()[3:] for line in LINES if " hunt " in line or " forage " in line]
    assert played == sum(len(cards) for cards in food)
    assert [tuple(row) for row in extinct] == [(2, "grazer-2", 8, 7), (2, "darter-1", 8, 7), (3, "grazer-1", 11, 8)]
    assert [tuple(row) for row in first] == [("ann", 1, "hunt", "grazer-2", 2), ("ann", 1, "migrate", "field", 0)]
