"""An Evo 1st edition game through every layer: the ledger, import and export, the audit, explanations, the
API with its readers, and `play` with Tab completion. The ruleset comes from the kit."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

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
from tests.helpers.shown import handles, shown
from tests.helpers.support import EVO_LEDGER, ROOT, child_env
from tests.helpers.terminal import Terminal

HAND_GAME = (ROOT / "replays" / "evo1-hand-3p.evo").read_text()
LINES = [line.text for line in parse_game(HAND_GAME).actions]
PLAYERS = ["ann", "ben", "cat"]
# The first combat of the hand-worked game: cat attacks ann's C5 from D5 with 1 horn against 0, rolls 3.
ATTACK = "cat attack D5 C5"


@pytest.fixture
def ledger(database: str) -> Iterator[Ledger]:
    opened = Ledger(Settings(database))
    yield opened
    opened.close()


def test_a_game_on_an_evo1_kit_is_an_evo1_game_and_refuses_by_its_rulings(ledger: Ledger) -> None:
    game_id = ledger.commands.create_game(None, "standin-e1-3p", PLAYERS).game_id
    game = ledger.queries.game(game_id)
    seat = {shown(ledger, name): name for name in game.player_names}  # each handle's label
    assert game.rules.name == "evo1" and game.state.seats[seat["ann"]].mp == 10
    with pytest.raises(RuleViolation, match=r"\[E1-02\]"):
        ledger.commands.record(game_id, "start ann A3 ben H2 cat A1")
    ledger.commands.record(game_id, LINES)
    outcome = ledger.queries.game(game_id).rules.outcome(ledger.queries.game(game_id).state)
    assert outcome is not None and handles(ledger, list(outcome.winners)) == ["cat"]
    with pytest.raises(Exception, match=r"E1-01"):
        ledger.commands.create_game(None, "standin-e1-3p", ["ann", "ben", "cat", "dan"])


def test_an_evo1_game_goes_out_and_back_in_and_audits_clean(ledger: Ledger) -> None:
    receipt = import_notation(ledger, HAND_GAME)
    text = export_notation(ledger, receipt.game_id)
    assert "ruleset evo1 2" in text and "result 1 cat 44/10, 2 ann 42/7, 3 ben 32/7" in text
    again = import_notation(ledger, text, again=True).game_id
    assert export_notation(ledger, again).split("# game")[0] == text.split("# game")[0]
    assert ledger.queries.audit(receipt.game_id).verdict == "clean"


def test_a_combat_names_the_faces_that_win_E1_09(ledger: Ledger) -> None:
    game_id = import_notation(ledger, HAND_GAME).game_id
    events = list(ledger.queries.game_events(game_id))
    attack = next(n for n, e in enumerate(events, start=1) if getattr(e, "notation", None) == ATTACK)
    report = ledger.queries.explain(ledger.queries.game(game_id), attack + 1)
    assert report.data["kind"] == "combat"
    assert report.data["data"]["winning_faces"] == [1, 2, 3, 4] and report.data["data"]["face"] == 3
    assert any("wins on 1-4" in line for line in report.data["words"])


def test_hidden_cards_reach_only_their_seat_through_the_api(database: str) -> None:
    with TestClient(create_app(ApiSettings(store=Settings(database), admin_token="admin"))) as client:
        created = client.post(
            "/v1/games", json={"kit": "standin-e1-3p", "players": [{"name": p} for p in PLAYERS], "seat_tokens": True}
        )
        assert created.status_code == 201, created.text
        body = created.json()
        game, recorder = body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}
        answer = client.post(f"/v1/games/{game}/actions", json={"actions": LINES[:40]}, headers=recorder)
        assert answer.status_code == 200, answer.text
        refused = client.post(f"/v1/games/{game}/actions", json={"actions": ["ann play heat_stroke"]}, headers=recorder)
        assert refused.status_code == 422 and refused.json()["ruling"] == "E1-23"
        ann = {"Authorization": f"Bearer {body['seat_tokens']['ann']}"}
        # The kit's catalogue names every card; a hand is read in the draws and in the state.
        for path, own_card, other_card in (
            ("events", "drew heat_stroke", "drew choose_climate"),
            ("export", "drew heat_stroke", "drew choose_climate"),
            ("state", "heat_stroke", "choose_climate"),
        ):
            public = client.get(f"/v1/games/{game}/{path}").text
            own = client.get(f"/v1/games/{game}/{path}", headers=ann).text
            assert own_card not in public and other_card not in own and own_card in own, path
        assert client.get(f"/v1/games/{game}").json()["ruleset"] == "evo1"
        too_many = client.post("/v1/games", json={"kit": "standin-e1-3p", "players": [{"name": "a"}, {"name": "b"}]})
        assert too_many.status_code == 422 and "E1-01" in too_many.text


def test_an_evo1_game_is_recorded_through_play_with_tab_completion(tmp_path: Path) -> None:
    database = str(tmp_path / "evo1.sqlite")
    ledger = Ledger(Settings(database))
    game_id = ledger.commands.create_game(None, "standin-e1-3p", PLAYERS).game_id
    ledger.commands.record(game_id, LINES[:10])
    env = {**child_env(), "EVO_LEDGER_DATABASE": database, "TERM": "xterm"}
    terminal = Terminal(str(EVO_LEDGER), "play", "last", env=env)
    try:
        terminal.expect(r"ann to roll for initiative")
        terminal.expect(r"\n> ")
        terminal.type("\t\t")  # an empty line completes to every legal action: here, the six faces
        terminal.expect(r"roll 1\s+roll 3\s+roll 5")
        terminal.type("\x15roll 4\n")
        terminal.expect(r"stored: event \d+")
        terminal.type("ann move A3 A2\n")
        terminal.expect(re.escape("refused [E1-05]"))
        terminal.type(":quit\n")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()
    game = ledger.queries.game(game_id)
    ann = {shown(ledger, name): name for name in game.player_names}["ann"]  # her seat's label
    assert game.state.tiebreaks[ann] == (4,)
    ledger.close()


def explained(ledger: Ledger, game_id: UUID, notation: str, after: int = 0) -> dict[str, Any]:
    """The explanation of the event the action `notation` made (the first at or after event `after`)."""
    events = list(ledger.queries.game_events(game_id))
    event = next(n for n, e in enumerate(events, start=1) if n > after and getattr(e, "notation", None) == notation)
    return ledger.queries.explain(ledger.queries.game(game_id), event).data


def test_a_survival_an_auction_with_bids_above_6_and_a_climate_roll_are_explained_E1_11_E1_16_E1_06(
    ledger: Ledger,
) -> None:
    game_id = import_notation(ledger, HAND_GAME).game_id
    survival = explained(ledger, game_id, "ben remove G2 G5")
    assert survival["kind"] == "survival"
    assert any(
        "ben: 3 in the hot zone (parasols keep 1)" in line and "chose G2, G5" in line for line in survival["words"]
    )
    auction = explained(ledger, game_id, "cat bid 8 mutant")
    assert auction["kind"] == "auction"
    assert {"player": "ann", "amount": 7, "target": "mutant"} in auction["data"]["bids"]
    assert "cat won row 3 (mutant) at 8 and paid 8 [E1-19]." in auction["words"]
    assert "ann won row 1 (foot) at 3 and paid 2, 1 off for mutants bought before [E1-19]." in auction["words"]
    events = list(ledger.queries.game_events(game_id))
    changed = next(n for n, event in enumerate(events, start=1) if type(event).__name__ == "ClimateChanged")
    climate = ledger.queries.explain(ledger.queries.game(game_id), changed).data
    assert climate["kind"] == "climate" and climate["data"]["colour"] == "green"
    assert climate["words"][0] == "ben rolled the climate die: 3 moves the marker one position clockwise [E1-06]."


def test_an_initiative_decided_by_rolls_again_is_explained_E1_05(ledger: Ledger) -> None:
    game_id = import_notation(ledger, HAND_GAME).game_id
    # Turn 3: ann and cat tie on tail and dinosaurs, roll 2 and 2, then 5 and 1.
    initiative = explained(ledger, game_id, "roll 5", after=explained_turn_start(ledger, game_id, 3))
    assert initiative["kind"] == "initiative" and initiative["data"]["order"] == ["ben", "cat", "ann"]
    assert "Rolls: ann rolled 2, then 5; cat rolled 2, then 1 (equal rolls roll again)." in initiative["words"]


def explained_turn_start(ledger: Ledger, game_id: UUID, turn: int) -> int:
    """The event at which `turn` begins: the last event of the turn before it."""
    events = list(ledger.queries.game_events(game_id))
    ends = [n for n, event in enumerate(events, start=1) if type(event).__name__ == "AuctionSettled"]
    return ends[turn - 2]


def test_new_takes_the_ruleset_from_an_evo1_kit_and_refuses_a_table_of_two_E1_01(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "new.sqlite")
    assert main(["new", "--kit", "standin-e1-3p", "--players", "ann", "ben", "cat", "--database", database]) == 0
    assert main(["show", "last", "--database", database]) == 0
    assert "setup · ann to draw an event card" in capsys.readouterr().out
    assert main(["new", "--kit", "standin-e1-3p", "--players", "ann", "ben", "--database", database]) == 2
    assert "[E1-01] Evo 1st edition is for 3 to 5 players, not 2" in capsys.readouterr().err


def test_the_read_tables_count_the_hand_worked_games_rolls_combats_and_auctions(ledger: Ledger, database: str) -> None:
    import_notation(ledger, HAND_GAME)
    store = ReadStore(Settings(database))
    try:
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            counted = connection.execute(text("SELECT purpose, count(*) FROM read_e1_die_rolls GROUP BY purpose"))
            rolls = {purpose: count for purpose, count in counted.all()}
            combats = connection.execute(
                text("SELECT attacker, defender, face, attacker_won FROM read_e1_combats ORDER BY round")
            ).all()
            results = connection.execute(text("SELECT count(*), sum(paid) FROM read_e1_auction_results")).one()
            final = connection.execute(
                text("SELECT name, mp FROM read_e1_turn_standings WHERE round = 10 ORDER BY mp DESC")
            ).all()
    finally:
        store.close()
    # The file's comments: 15 initiative rolls, 10 climate rolls, 4 attacks, 2 meteor rolls; 9 auctions of 3 rows.
    assert rolls == {"initiative": 15, "climate": 10, "combat": 4, "meteor": 2}
    assert [(a, d, f, bool(w)) for a, d, f, w in combats] == [
        ("cat", "ann", 3, True),
        ("cat", "ben", 5, False),
        ("cat", "ben", 2, True),
        ("ben", "cat", 1, True),
    ]
    assert results[0] == 27
    assert [(name, mp) for name, mp in final] == [("cat", 44), ("ann", 42), ("ben", 32)]


def test_the_cards_played_and_the_vouchers_are_read_per_player_and_turn_E1_19_E1_28(
    ledger: Ledger, database: str
) -> None:
    golden = (ROOT / "replays" / "evo1-selfplay-4p-seed39.evo").read_text()
    plays = [line.split() for line in golden.splitlines() if re.match(r"\w+ play ", line)]
    game_id = import_notation(ledger, golden).game_id
    import_notation(ledger, (ROOT / "replays" / "evo1-selfplay-3p-seed5.evo").read_text())  # a voucher paid
    store = ReadStore(Settings(database))
    try:
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            played = connection.execute(
                text(
                    "SELECT name, card, targets, timing, recovered, round FROM read_e1_cards_played"
                    " WHERE game_id = :game ORDER BY event"
                ),
                {"game": str(game_id)},
            ).all()
            vouchers = connection.execute(
                text("SELECT name, vouchers, bid, paid FROM read_e1_auction_results WHERE vouchers > 0")
            ).all()
            heat = connection.execute(text("SELECT count(*) FROM read_e1_die_rolls WHERE purpose = 'heat stroke'"))
            heat_rolls = heat.scalar_one()
    finally:
        store.close()
    assert [(name, card, targets) for name, card, targets, *_ in played] == [
        (words[0], words[2], " ".join(words[3:])) for words in plays
    ]
    assert all(round_ >= 3 for *_, round_ in played)
    assert ("recover_card", "response") in {(card, window) for _, card, _, window, _, _ in played}
    assert all(recovered for _, card, _, _, recovered, _ in played if card == "recover_card")
    assert vouchers and all(paid <= max(0, bid - 3 * count) for _, count, bid, paid in vouchers)
    assert heat_rolls > 0
