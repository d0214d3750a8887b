"""Requests of any size up to the limits cross to the server's writing process whole, under uvloop and asyncio
alike: a large batch is answered for what it holds, never taken for a lost writer, and another recorder's append
beside it goes through."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from tests.helpers.servers import running_server

PLAYERS = [{"name": name} for name in ("ann", "ben", "cat")]
MAX_ACTION = 4096


def new_game(http: httpx.Client) -> tuple[str, dict[str, str]]:
    body = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).json()
    return body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_batch_near_the_request_limit_is_answered_for_what_it_holds(tmp_path: Any, loop: str) -> None:
    with running_server(str(tmp_path / "large.sqlite"), loop) as base, httpx.Client(base_url=base, timeout=60) as http:
        game, recorder = new_game(http)
        other, other_recorder = new_game(http)
        long_action = "ann bid 2 " + "x" * (MAX_ACTION - 12)
        answers: dict[str, httpx.Response] = {}

        def append_beside() -> None:
            answers["other"] = http.post(
                f"/v1/games/{other}/actions", json={"actions": ["order ann ben cat"]}, headers=other_recorder
            )

        beside = threading.Thread(target=append_beside)
        beside.start()
        large = http.post(f"/v1/games/{game}/actions", json={"actions": [long_action] * 200}, headers=recorder)
        beside.join()
        assert large.status_code == 422 and large.json()["code"] == "rule_violation", large.text[:300]
        assert answers["other"].status_code == 200, answers["other"].text
        too_long = http.post(f"/v1/games/{game}/actions", json={"actions": ["x" * (MAX_ACTION + 1)]}, headers=recorder)
        assert too_long.status_code == 422 and too_long.json()["code"] == "action_too_long"
        huge = http.post(f"/v1/games/{game}/actions", content=b"{" + b" " * 1_000_001 + b"}", headers=recorder)
        assert huge.status_code == 413 and huge.json()["code"] == "body_too_large"
        assert http.post(
            f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=recorder
        ).is_success
