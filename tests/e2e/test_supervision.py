"""The server supervises its processes: the read tables' process, killed, is started again with a log line (and a
back-off if it keeps dying), and `/health` reports each process and how far the read tables lag behind the log."""

from __future__ import annotations

import logging
import os
import signal
from typing import Any

import httpx
import pytest

from tests.helpers.servers import WAIT, health_when, running_server

PLAYERS = [{"name": name} for name in ("ann", "ben", "cat")]


@pytest.mark.parametrize(
    ("process", "logged"), [("read_tables", "read tables' process ended"), ("writer", "writing process ended")]
)
def test_a_killed_process_is_started_again_with_a_log_line_and_the_server_goes_on(
    tmp_path: Any, caplog: pytest.LogCaptureFixture, process: str, logged: str
) -> None:
    caplog.set_level(logging.WARNING)
    with running_server(str(tmp_path / "health.sqlite")) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        first = health_when(http, lambda h: h["status"] == "ok" and h["read_tables"]["state"] == "running")
        os.kill(first[process]["pid"], signal.SIGKILL)
        again = health_when(
            http, lambda h: h[process]["state"] == "running" and h[process]["pid"] != first[process]["pid"]
        )
        assert again["status"] == "ok"
        assert again["read_tables"]["restarts"] == (1 if process == "read_tables" else 0)
        assert any(logged in record.getMessage() for record in caplog.records)
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS})
        assert created.status_code == 201
        caught_up = health_when(http, lambda h: h["read_tables"]["lag"] == 0)
        assert caught_up["read_tables"]["position"] >= 1
        assert http.get("/v1/projections").json()["position"] == caught_up["read_tables"]["position"]
