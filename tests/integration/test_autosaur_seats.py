"""Autosaur seats marked where a game is made: a game file's `autosaurs` header line, `evo-ledger new --autosaur`,
and the API's player `{"name": ..., "autosaur": true}` all give the game its option `autosaurs` [AS-01]."""

from __future__ import annotations

import io
from pathlib import Path
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import PUBLIC, RECORDER, Seen, advice_for
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import export_notation, import_notation
from evo_ledger.cli.console import PlaySession
from evo_ledger.cli.main import main
from evo_ledger.game.checker import check_game
from evo_ledger.game.notation import format_header, parse_game
from evo_ledger.rules.base import Advice
from evo_ledger.rules.evo1.actions import PlayCard
from evo_ledger.settings import Settings
from tests.helpers.shown import shown, shown_value
from tests.helpers.support import ROOT

HEADER = "ruleset evo1 2\nkit standin-e1-3p\nplayers ann ben rex\nautosaurs rex\n"


def test_AS_01_a_game_file_names_its_autosaurs_in_a_header_line_and_writes_it_back() -> None:
    game = parse_game(HEADER + "ann drew heat_stroke\n")
    assert game.header.options == {"autosaurs": "rex"}
    assert "autosaurs rex" in format_header(game.header).splitlines()
    assert "option autosaurs" not in format_header(game.header)


def test_AS_01_the_command_line_marks_a_seat_an_autosaur(tmp_path: Path) -> None:
    database = str(tmp_path / "games.sqlite")
    code = main(
        ["new", "--database", database, "--kit", "standin-e1-3p", "--players", "ann", "ben", "rex", "--autosaur", "rex"]
    )
    assert code == 0
    with Ledger(Settings(database)) as ledger:
        [game_id] = ledger.queries.game_ids()
        assert "autosaurs rex" in shown(ledger, export_notation(ledger, game_id)).splitlines()


def test_AS_01_the_api_marks_a_player_an_autosaur_and_refuses_an_unknown_mark(tmp_path: Path) -> None:
    settings = ApiSettings(store=Settings(str(tmp_path / "games.sqlite")))
    with TestClient(create_app(settings)) as client:
        players = [{"name": "ann"}, {"name": "ben"}, {"name": "rex", "autosaur": True}]
        made = client.post("/v1/games", json={"kit": "standin-e1-3p", "players": players})
        assert made.status_code == 201, made.text
        game = made.json()["game_id"]
        exported = client.get(f"/v1/games/{game}/export").text
        assert "autosaurs rex" in exported.splitlines()
        robot = [*players[:2], {"name": "x", "robot": True}]
        unknown = client.post("/v1/games", json={"kit": "standin-e1-3p", "players": robot})
        assert unknown.status_code == 422 and "robot" in unknown.text
        other = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players})
        assert other.status_code == 422 and "autosaurs" in other.json()["message"]


TINY = ROOT / "tests" / "rulings" / "tiny-e1-3p.json"
SETUP = [
    "ann drew heat_stroke",
    "ann drew cull_enemy",
    "ann drew climate_double_shift",
    "ben drew choose_climate",
    "ben drew mirror_climate",
    "ben drew no_fighting",
    "start ann A1 ben D1 cat D3",
]


# The rest of turn 1 on the tiny board (as tests/unit/test_autosaurs.py plays it), to cat outbid on row 1.
OUTBID_LINES = [
    "cat birth D2",
    "roll 1",
    "roll 2",
    "roll 2",
    "ann pass",
    "ben pass",
    "ann birth A2",
    "ben birth C1",
    "cat birth D1",
    "roll 6",
    "roll 6",
    "draw horn",
    "draw tail",
    "draw egg",
    "ann bid 0 row1",
    "ben bid 0 row2",
    "roll 3",
    "cat bid 1 row1",
    "ann bid 2 row1",
]


def placing_game(ledger: Ledger) -> UUID:
    game_id = ledger.commands.create_game(None, str(TINY), ["ann", "ben", "cat"], {"autosaurs": "cat"}).game_id
    for line in SETUP:
        ledger.commands.record(game_id, line)
    return game_id


def test_AS_18_play_offers_the_autosaurs_decision_and_enter_records_it(tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        game_id = placing_game(ledger)
        typed = iter(["", ":quit"])
        prompts: list[str] = []

        def read(prompt: str) -> str:
            prompts.append(prompt)
            return next(typed)

        out = io.StringIO()
        assert PlaySession(ledger, game_id, read, out).run() == 0
        assert "the algorithm [AS-03]" in prompts[0] and "(Enter records cat birth D2)" in prompts[0]
        assert "C3 out on key 2" in prompts[0]
        assert shown(ledger, ledger.queries.game(game_id).state.board["D2"]) == "cat"


def test_AS_18_the_legal_actions_offer_the_autosaurs_decision(tmp_path: Path) -> None:
    settings = Settings(str(tmp_path / "games.sqlite"))
    with Ledger(settings) as ledger:
        game_id = placing_game(ledger)
    with TestClient(create_app(ApiSettings(store=settings))) as client:
        legal = client.get(f"/v1/games/{game_id}/legal").json()
        assert legal["actions"] == ["cat birth C3", "cat birth D2"]
        assert legal["advice"]["actions"] == ["cat birth D2"] and legal["advice"]["ruling"] == "AS-03"


def test_AS_18_the_readers_offer_an_advice_to_a_reader_its_actions_are_shown_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Autosaur's birth is offered to every reader; an advice whose action rests on a hand (a card's play) only
    to those who may see the hand: its seat and the recorder."""
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        game = ledger.queries.game(placing_game(ledger))
        seat = {shown(ledger, name): name for name in game.player_names}  # each handle's label
        birth = advice_for(PUBLIC, game)
        assert birth is not None and shown_value(ledger, birth["actions"]) == ["cat birth D2"]
    assert birth["actions"] == [f"{seat['cat']} birth D2"] and advice_for(Seen(seat=seat["ben"]), game) == birth
    play = PlayCard(seat["ann"], "heat_stroke")
    monkeypatch.setattr(type(game.rules), "advice", lambda _, state: Advice((play,), "AS-18", "ann's card"))
    assert advice_for(PUBLIC, game) is None and advice_for(Seen(seat=seat["ben"]), game) is None
    offered = {"actions": [game.rules.format_action(play)], "ruling": "AS-18", "reason": "ann's card"}
    assert advice_for(Seen(seat=seat["ann"]), game) == advice_for(RECORDER, game) == offered


def test_AS_18_the_audit_lists_a_deviation_and_ranks_it_below_damage(tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        followed = placing_game(ledger)
        ledger.commands.record(followed, "cat birth D2")
        assert ledger.queries.audit(followed).verdict == "clean"
        deviated = placing_game(ledger)
        ledger.commands.record(deviated, "cat birth C3")
        report = ledger.queries.audit(deviated)
        assert report.verdict == "deviations"
        [deviation] = report.data["deviations"]
        assert (deviation["event"], deviation["ruling"]) == (ledger.queries.game(deviated).version, "AS-03")
        assert "deviation: event" in report.text() and "[AS-03]" in report.text()
        assert "deviations" not in ledger.queries.audit(followed).data  # a clean log's report is as it was


def test_AS_18_check_names_the_as_id_of_a_deviation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deviated.evo"
    path.write_text(
        f"ruleset evo1 2\nkit {TINY}\nplayers ann ben cat\nautosaurs cat\n" + "\n".join(SETUP) + "\ncat birth C3\n"
    )
    assert main(["check", str(path)]) == 0
    assert f"{path}:12: warning [AS-03] cat's algorithm places its dinosaur on D2, not on C3" in capsys.readouterr().out


def test_AS_07_explain_shows_each_candidate_and_the_key_that_left_it_out(tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        game_id = placing_game(ledger)
        ledger.commands.record(game_id, "cat birth C3")
        game = ledger.queries.game(game_id)
        text = shown(ledger, ledger.queries.explain(game, game.version).text())
        assert "cat, an Autosaur, placed its second dinosaur at the setup [AS-03]" in text
        assert "D2: best." in text and "C3: out on key 2: ideal zone before hot or cold." in text
        assert "Recorded: C3, a deviation [AS-18]." in text


def test_AS_15_explain_shows_the_roll_and_the_rule_that_made_the_bid(tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        game_id = placing_game(ledger)
        for line in OUTBID_LINES:
            ledger.commands.record(game_id, line)
        rolled = ledger.commands.record(game_id, "roll 2").version
        explained = ledger.queries.explain(ledger.queries.game(game_id), rolled)
        assert explained.data["kind"] == "autosaur" and (
            explained.data["data"]["row"],
            explained.data["data"]["roll"],
        ) == (3, 2)
        text = shown(ledger, explained.text())
        assert "cat, an Autosaur, rolled 2, 2 modified [AS-14]" in text
        assert "Its algorithm makes a bid of 0 on row 3: its roll 2 is below 5: it moves to row 3 [AS-15]." in text


@pytest.mark.parametrize(("players", "autosaurs"), [(3, 1), (4, 2), (5, 3)])
def test_AS_18_self_play_with_autosaur_seats_follows_the_algorithm_and_repeats_byte_for_byte(
    players: int, autosaurs: int
) -> None:
    for seed in range(3):
        game = play_game(players, seed, "sensible", "evo1", None, (), {"autosaurs": autosaurs})
        assert game.text() == play_game(players, seed, "sensible", "evo1", None, (), {"autosaurs": autosaurs}).text()
        parsed = parse_game(game.text())
        assert len(parsed.header.options["autosaurs"].split()) == autosaurs  # type: ignore[union-attr]
        report = check_game(parsed)
        assert report.refused is None and report.result_mismatch is None
        assert not [w for w in report.warnings if "algorithm" in w.message]  # no deviation, only open ties


def test_AS_13_the_chance_check_draws_the_autosaurs_rolls_again_from_the_seed(tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        receipt = ledger.commands.generate_game(3, "sensible", 4, ruleset="evo1", marked={"autosaurs": 2})
        report = ledger.queries.audit(receipt.game_id)
        assert report.verdict == "clean" and report.check("chance")["verdict"] == "pass"
        events = ledger.queries.game_events(receipt.game_id)
        causes = [event.cause for event in events if type(event).__name__ == "AutosaurRolled"]
        assert len(causes) > 10 and all(events[cause - 1].notation.startswith("roll") for cause in causes)
        assert report.check("chance")["detail"].endswith("chance actions drawn again from seed 4")


HAND_GAME = ROOT / "replays" / "evo1-autosaur-hand-3p.evo"


def test_AS_18_the_hand_worked_game_checks_clean_and_a_birth_moved_off_the_algorithm_is_a_deviation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(HAND_GAME)]) == 0
    assert "warning" not in capsys.readouterr().out
    text = HAND_GAME.read_text()
    # rex's last birth of turn 9 on D2, ben's, a candidate of its step A, instead of the algorithm's B4.
    changed = tmp_path / "changed.evo"
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("rex birth B4"))
    lines[at] = "rex birth D2"
    changed.write_text("\n".join(line for line in lines if not line.startswith("result")) + "\n")
    assert main(["check", str(changed)]) == 0
    assert f"{changed}:{at + 1}: warning [AS-07] rex's algorithm places its dinosaur on B4, not on D2" in (
        capsys.readouterr().out
    )
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        kept = import_notation(ledger, text, HAND_GAME.parent).game_id
        moved = import_notation(ledger, changed.read_text(), HAND_GAME.parent).game_id
        assert ledger.queries.audit(kept).verdict == "clean"
        report = ledger.queries.audit(moved)
        assert report.verdict == "deviations"
        assert [entry["ruling"] for entry in report.data["deviations"]] == ["AS-07"]


def test_AS_07_the_rules_command_explains_the_preferences(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "AS-07"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("AS-07 An Autosaur's preferences among spaces (evo1)")
    assert "1 empty" in out and "7 more dinosaurs of seats with more MP" in " ".join(out.split())
