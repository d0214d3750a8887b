"""`/health` while the read tables have set an event aside: `degraded` (503), naming each such event by its game
(to the admin), its version there and its position in the log, with the error's type only; the games stored after
it are applied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import Settings
from projections.store import ReadStore
from tests.helpers.servers import ADMIN, WAIT, health_when, running_server
from tests.helpers.support import ROOT, game_whose_seats_share_a_player, log_position

HAND_GAME = ROOT / "replays" / "hand-3p-first-game.evo"
UNAPPLIED_EVENT = 3
DUPLICATE_KEY = ("IntegrityError", "UniqueViolation")


def test_health_is_degraded_and_names_the_event_the_read_tables_set_aside(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Ledger(Settings(database)) as ledger:
        broken = game_whose_seats_share_a_player(ledger, monkeypatch)
        position = log_position(ledger, broken, UNAPPLIED_EVENT)
    with running_server(database) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        game_file = HAND_GAME.read_text()
        imported = http.post("/v1/games/import", content=game_file, headers={"Content-Type": "text/plain"})
        assert imported.status_code == 201, imported.text
        health_when(http, lambda h: h["read_tables"]["lag"] == 0)
        answer = http.get("/health")
        health = http.get("/health", headers={"Authorization": f"Bearer {ADMIN}"}).json()
        standings = http.get(f"/v1/games/{imported.json()['game_id']}/standings").json()
    assert answer.status_code == 503 and answer.json()["status"] == "degraded"
    assert "game_id" not in answer.json()["read_tables"]["set_aside"][0]  # a game may be private: admin only
    read_tables = health["read_tables"]
    assert read_tables["position"] == read_tables["log_position"]
    [set_aside] = read_tables["set_aside"]
    assert set_aside in [
        {"game_id": broken, "event": UNAPPLIED_EVENT, "position": position, "error": error} for error in DUPLICATE_KEY
    ]
    assert read_tables["set_aside_count"] == 1
    assert standings["final"][0]["name"] == "ann"


def test_health_shows_the_read_tables_and_the_job_running_them_as_they_stood_at_one_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lease lost while a health answer is made (here, as it reads the read tables' position) shows in the next
    answer, never half in this one: the read tables' process and the job that runs it under its lease are read
    together."""
    apps: list[Any] = []
    with (
        running_server(str(tmp_path / "health.sqlite"), adapted=apps.append) as base,
        httpx.Client(base_url=base, timeout=WAIT) as http,
    ):
        health_when(http, lambda health: health["read_tables"]["state"] == "running")
        job, supervisor = apps[0].state.jobs.jobs["read_tables"], apps[0].state.supervisor
        position = ReadStore.position

        def lost_meanwhile(store: ReadStore) -> int:
            job.running = supervisor.following = False  # as the server does once the lease is lost
            return position(store)

        monkeypatch.setattr(ReadStore, "position", lost_meanwhile)
        answer = http.get("/health").json()
        monkeypatch.undo()
        job.running = supervisor.following = True
    assert (answer["read_tables"]["state"], answer["jobs"]["read_tables"]["state"]) == ("running", "held")
