"""The read tables over HTTP, on each database, with the server following the log itself: an append that waits for
them, standings and auction histories, statistics without private games, CSV export of every table."""

from __future__ import annotations

import csv
import io
import re

from fastapi.testclient import TestClient

from evo_ledger.game.notation import parse_game
from projections.schema import RECORD_TABLES, read_tables
from tests.helpers.api import HAND_GAME, append, new_game
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import WAIT, caught_up, import_hand_game
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION


def test_an_append_can_wait_until_the_read_tables_include_it(client: TestClient) -> None:
    game, recorder = new_game(client)
    answer = client.post(
        f"/v1/games/{game}/actions", json={"actions": list(ROUND_ONE_AUCTION)}, headers=recorder, params=WAIT
    )
    assert answer.status_code == 200 and answer.headers["Evo-Projections"] == "caught-up"
    history = client.get(f"/v1/games/{game}/auctions").json()
    assert history["position"] == history["log_position"]
    assert [(b["name"], b["amount"], b["target"]) for b in history["bids"]] == [
        ("ann", 2, "eggs"),
        ("ben", 1, "legs"),
        ("cat", 0, "card"),
    ]
    assert [(r["name"], r["item"], r["paid"]) for r in history["results"]] == [
        ("cat", "card", 0),
        ("ben", "legs", 1),
        ("ann", "eggs", 2),
    ]
    assert client.get("/v1/projections").json() == {
        "position": history["position"],
        "log_position": history["position"],
    }


def test_standings_and_statistics_come_from_the_read_tables(client: TestClient) -> None:
    game = import_hand_game(client)
    caught_up(client)
    final = client.get(f"/v1/games/{game}/standings").json()["final"]
    assert [(s["rank"], s["name"], s["mp"]) for s in final] == [(1, "ann", 19), (2, "cat", 14), (3, "ben", 13)]
    players = {p["name"]: p for p in client.get("/v1/statistics/players").json()["rows"]}
    assert players["ann"]["person_id"] == players["ann"]["player_id"]  # no record: the stable id is the person
    assert players["ann"] | {"person_id": None, "player_id": None} == {
        "ruleset": "evo2",
        "person_id": None,
        "player_id": None,
        "name": "ann",
        "games": 1,
        "wins": 1,
        "mean_score": 19.0,
        "best_score": 19,
    }
    genes = client.get("/v1/rulesets/evo2/statistics/genes").json()
    assert "[E2-07]" in genes["means"] and genes["position"] == genes["log_position"]
    assert {g["item"]: (g["won"], g["mean_price"]) for g in genes["rows"]}["horns"] == (4, 3.25)
    combats = client.get("/v1/rulesets/evo2/statistics/combats").json()["rows"]
    assert [(c["difference"], c["combats"], c["attacker_wins"]) for c in combats] == [(-1, 1, 0), (1, 1, 1), (2, 1, 1)]
    dice = client.get("/v1/statistics/dice", params={"game_id": game, "ruleset": "evo2"}).json()
    assert dice["fit"]["verdict"] == "not enough data" and dice["fit"]["rolls"] == 3
    losses = client.get("/v1/rulesets/evo2/statistics/survival").json()["rows"]
    assert sum(row["losses"] for row in losses) == 37
    games = client.get("/v1/statistics/games").json()["rows"]
    assert {g["game_id"]: g["rounds"] for g in games}[game] == 10


def test_private_games_are_left_out_of_statistics_but_for_the_admin(client: TestClient) -> None:
    game = import_hand_game(client)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    caught_up(client)
    assert client.get("/v1/statistics/players").json()["rows"] == []
    assert len(client.get("/v1/statistics/players", headers=admin).json()["rows"]) == 3
    assert client.get(f"/v1/games/{game}/standings").status_code == 404
    assert (
        client.get("/v1/statistics/dice", params={"game_id": game, "ruleset": "evo2"}).json()["code"] == "unknown_game"
    )
    public_csv = client.get("/v1/tables/read_final_standings.csv").text
    assert public_csv.splitlines()[1:] == []
    assert len(client.get("/v1/tables/read_final_standings.csv", headers=admin).text.splitlines()) == 4


def test_every_read_table_exports_as_csv(client: TestClient) -> None:
    """Every installed ruleset's tables: a hand-worked game of each edition fills them, and a self-played evo1
    game its cards."""
    import_hand_game(client)
    import_hand_game(client, (ROOT / "replays" / "evo1-hand-3p.evo").read_text())
    import_hand_game(client, (ROOT / "replays" / "evo1-selfplay-3p-seed5.evo").read_text())
    import_hand_game(client, (ROOT / "replays" / "traits-hand-2p.evo").read_text())
    game, recorder = new_game(client)
    assert append(client, game, recorder, "order ann ben cat").status_code == 200
    caught_up(client)
    for table in read_tables():
        answer = client.get(f"/v1/tables/{table.name}.csv")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(answer.text)))
        assert rows[0] == [column.name for column in table.columns]
        assert len(rows) > 1 or table in RECORD_TABLES, table.name
    unknown = client.get("/v1/tables/stored_events.csv")
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_table"


def test_die_faces_are_kept_per_recorder(client: TestClient) -> None:
    game, recorder = new_game(client)
    actions = [line.text for line in parse_game(HAND_GAME).actions]
    first_roll = actions.index("roll horn+")
    answer = append(client, game, recorder, *actions[: first_roll + 1])
    assert answer.status_code == 200, answer.text
    caught_up(client)
    csv_rows = list(csv.DictReader(io.StringIO(client.get("/v1/tables/read_die_rolls.csv").text)))
    [roll] = csv_rows
    by_recorder = client.get("/v1/statistics/dice", params={"recorder": roll["recorder"], "ruleset": "evo2"}).json()
    assert by_recorder["by_purpose"] == {"combat": {"horn": 0, "horn=": 0, "horn+": 1, "horn++": 0, "x": 0}}
    someone_else = client.get("/v1/statistics/dice", params={"recorder": "someone-else", "ruleset": "evo2"})
    assert someone_else.status_code == 404 and someone_else.json()["code"] == "unknown_recorder"


def test_an_evo1_game_has_standings_per_turn_and_its_auctions_and_a_traits_game_has_no_auctions(
    client: TestClient,
) -> None:
    evo1 = import_hand_game(client, (ROOT / "replays" / "evo1-hand-3p.evo").read_text())
    traits = import_hand_game(client, (ROOT / "replays" / "traits-hand-2p.evo").read_text())
    caught_up(client)
    standings = client.get(f"/v1/games/{evo1}/standings").json()
    assert standings["ruleset"] == "evo1" and standings["position"] == standings["log_position"]
    assert {row["round"] for row in standings["turns"]} >= {1, 2} and standings["final"][0]["rank"] == 1
    bids = client.get(f"/v1/games/{evo1}/auctions").json()["bids"]
    assert bids and {"name", "amount", "target", "outbid_player"} <= set(bids[0])
    millennia = client.get(f"/v1/games/{traits}/standings").json()["millennia"]
    assert {row["round"] for row in millennia} >= {1} and {"points", "tokens", "genome_points"} <= set(millennia[0])
    answer = client.get(f"/v1/games/{traits}/auctions")
    assert answer.status_code == 404 and answer.json()["code"] == "no_auctions"


def test_each_ruleset_lists_its_own_statistics_and_an_unknown_one_is_named(client: TestClient) -> None:
    listed = {r: client.get(f"/v1/rulesets/{r}/statistics").json()["statistics"] for r in ("evo1", "evo2", "traits")}
    assert [s["name"] for s in listed["evo1"]] == ["cards", "combats", "autosaurs", "genes"]
    assert [s["name"] for s in listed["traits"]] == ["actions", "traits", "extinctions"]
    assert all(re.search(r"\[(E2|E1|AS|TR)-\d\d", s["means"]) for found in listed.values() for s in found)
    missing = client.get("/v1/rulesets/traits/statistics/genes")
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_statistic"
    assert "actions, traits, extinctions" in missing.json()["message"]
    assert client.get("/v1/rulesets/chess/statistics").json()["code"] == "unknown_ruleset"
    assert client.get("/v1/statistics/genes").status_code == 404  # evo2's own, now under its ruleset
