"""`evo-ledger serve` says where it listens, logs each request (method, path, status, time) at the level asked
for, and says when it has stopped, also with a live stream open."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest

from evo_ledger.cli.request_deadlines import STOP_SECONDS
from tests.helpers.servers import WAIT, Viewer
from tests.helpers.support import child_env, serve_process


def served(options: Sequence[str], paths: Sequence[str], database: Path) -> tuple[int, str, int]:
    """A server started with `options`, each path asked of it, then stopped with Ctrl-C: its port, what it
    logged, and its exit status."""
    with serve_process(["--database", str(database), *options], child_env()) as server:
        for path in paths:
            httpx.get(f"{server.base}{path}", timeout=10)
    return int(server.base.rsplit(":", 1)[1]), server.logged, server.process.returncode


def test_serve_logs_where_it_listens_each_request_and_its_stop(tmp_path: Path) -> None:
    port, logged, status = served([], ["/v1/games/nope"], tmp_path / "logs.sqlite")
    assert f"serving on http://127.0.0.1:{port}" in logged
    assert "GET /health 200" in logged and "GET /v1/games/nope 404" in logged and " ms" in logged
    assert "stopped" in logged and status == 0


@pytest.mark.slow
def test_serve_at_warning_logs_no_request(tmp_path: Path) -> None:
    """Slow: a server started as a process, asked, and stopped."""
    _, logged, status = served(["--log-level", "warning"], ["/health"], tmp_path / "quiet.sqlite")
    assert "GET /health" not in logged and status == 0


@pytest.mark.slow
def test_serve_stopped_with_a_live_stream_open_ends_it_and_stops(tmp_path: Path) -> None:
    """A live stream never ends by itself: Ctrl-C has it end itself (its viewer reconnects elsewhere), and the
    server stops well before it would end the requests still open (STOP_SECONDS), cancelling none.

    Slow: a server started as a process, and stopped."""
    with serve_process(["--database", str(tmp_path / "streamed.sqlite")], child_env()) as server:
        players = [{"name": "ann"}, {"name": "ben"}]
        created = httpx.post(f"{server.base}/v1/games", json={"kit": "toy-2p", "players": players})
        viewer = Viewer(server.base, created.json()["game_id"])
        assert viewer.received_up_to(1, WAIT) == [1]
        stopping = time.monotonic()
        server.process.send_signal(signal.SIGINT)
        server.process.wait(timeout=STOP_SECONDS + WAIT)
        stopped = time.monotonic() - stopping
    assert stopped < STOP_SECONDS
    assert "stopped" in server.logged and server.process.returncode == 0
    assert "graceful shutdown exceeded" not in server.logged and "Traceback" not in server.logged
    viewer.thread.join(timeout=WAIT)
    assert not viewer.thread.is_alive()
