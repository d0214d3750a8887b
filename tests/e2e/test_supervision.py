"""The server supervises its processes: the read tables' process, killed, is started again with a log line (and a
back-off if it keeps dying), and `/health` reports each process and how far the read tables lag behind the log."""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any

import httpx
import pytest

from tests.e2e.test_stream import WAIT, running_server

PLAYERS = [{"name": name} for name in ("ann", "ben", "cat")]


def health_when(http: httpx.Client, ready: Any) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        health = http.get("/health").json()
        if ready(health):
            return dict(health)
        assert time.monotonic() < deadline, health
        time.sleep(0.1)


def test_a_killed_read_tables_process_is_started_again_and_catches_up(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with running_server(str(tmp_path / "health.sqlite")) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        first = health_when(http, lambda h: h["read_tables"]["state"] == "running")
        assert first["status"] == "ok" and first["writer"]["state"] == "running"
        os.kill(first["read_tables"]["pid"], signal.SIGKILL)
        again = health_when(
            http, lambda h: h["read_tables"]["restarts"] == 1 and h["read_tables"]["state"] == "running"
        )
        assert again["read_tables"]["pid"] != first["read_tables"]["pid"]
        assert any("read tables' process ended" in record.getMessage() for record in caplog.records)
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS})
        assert created.status_code == 201
        caught_up = health_when(http, lambda h: h["read_tables"]["lag"] == 0)
        assert caught_up["read_tables"]["position"] >= 1
        assert http.get("/v1/projections").json()["position"] == caught_up["read_tables"]["position"]


def test_a_killed_writing_process_is_started_again_with_a_log_line(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with running_server(str(tmp_path / "writer.sqlite")) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        first = health_when(http, lambda h: h["writer"]["state"] == "running")
        os.kill(first["writer"]["pid"], signal.SIGKILL)
        again = health_when(
            http, lambda h: h["writer"]["state"] == "running" and h["writer"]["pid"] != first["writer"]["pid"]
        )
        assert again["status"] == "ok"
        assert any("writing process ended" in record.getMessage() for record in caplog.records)
        assert http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).status_code == 201
