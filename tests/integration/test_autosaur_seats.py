"""Autosaur seats marked where a game is made: a game file's `autosaurs` header line, `evo-ledger new --autosaur`,
and the API's player `{"name": ..., "autosaur": true}` all give the game its option `autosaurs` [AS-01]."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.cli import main
from evo_ledger.ledger import Ledger
from evo_ledger.notation import format_header, parse_game
from evo_ledger.settings import Settings
from evo_ledger.transfer import export_notation

HEADER = "ruleset evo1 2\nkit standin-e1-3p\nplayers ann ben rex\nautosaurs rex\n"


def test_AS_01_a_game_file_names_its_autosaurs_in_a_header_line_and_writes_it_back() -> None:
    game = parse_game(HEADER + "ann drew heat_stroke\n")
    assert game.header.options == {"autosaurs": "rex"}
    assert "autosaurs rex" in format_header(game.header).splitlines()
    assert "option autosaurs" not in format_header(game.header)


def test_AS_01_the_command_line_marks_a_seat_an_autosaur(tmp_path: Path) -> None:
    database = str(tmp_path / "games.sqlite")
    code = main(["new", "--database", database, "--kit", "standin-e1-3p", "--players", "ann", "ben", "rex",
                 "--autosaur", "rex"])  # fmt: skip
    assert code == 0
    with Ledger(Settings(database)) as ledger:
        [game_id] = ledger.game_ids()
        assert "autosaurs rex" in export_notation(ledger, game_id).splitlines()


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
