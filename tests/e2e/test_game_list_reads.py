"""The game list tells games apart without reading them: by their setups (ruleset, players, start) and, once the
read tables have followed the log, by their status; only the games it lists are read."""

from __future__ import annotations

from fastapi.testclient import TestClient

from projections.runner import wait_until
from tests.helpers.support import ROOT, Counted

SHIPPED = ("hand-3p-first-game.evo", "evo1-hand-3p.evo", "traits-hand-2p.evo")


def test_the_game_list_reads_only_the_games_it_lists(client: TestClient) -> None:
    for name in SHIPPED:  # over
        answer = client.post(
            "/v1/games/import", content=(ROOT / "replays" / name).read_text(), headers={"Content-Type": "text/plain"}
        )
        assert answer.status_code == 201, answer.text
    for _ in range(2):  # ongoing
        client.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("dan", "eve", "fay")]})
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    assert wait_until(client.app.state.read_store, ledger.store.recorder.max_notification_id(), 60)  # type: ignore[attr-defined]
    folds = Counted(ledger.queries, "game")
    expected = {"ruleset=toy": 0, "player=dan": 2, "status=ongoing": 2, "status=over": 3}
    for query, listed in expected.items():
        folds.count = 0
        games = client.get(f"/v1/games?{query}").json()["games"]
        assert len(games) == listed and folds.count == listed, (query, len(games), folds.count)
    folds.count = 0
    unknown = client.get("/v1/games?player=nobody")
    assert unknown.json()["code"] == "unknown_player" and folds.count == 0
