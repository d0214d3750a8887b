"""The API reads a request by hand in one module only (`api.fast_paths`, each place named with the benchmark line
it pays for), and what it reads by hand is answered as FastAPI reading the same declared parameters answers it:
the append at its own path and the same append declared to FastAPI (`bench.http_ceiling.DECLARED_APPEND`) give
the same status and code to the same requests."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.fast_paths import FAST_PATHS
from bench.http_ceiling import DECLARED_APPEND, service_app
from tests.helpers.api import PLAYERS
from tests.helpers.support import ROOT

READ_BY_HAND = frozenset({"body", "json", "form", "stream", "query_params", "path_params"})
# Where a module other than api.fast_paths reads its request by hand, and why.
ALLOWED = {
    ("api/routes/events.py", "body"): "a game file or a bundle: a body FastAPI does not parse, read as its own "
    "documentation reads one (the request used directly)",
}
OWN = "/v1/games/{game_id}/actions"


def hand_reads(source: str) -> Iterator[str]:
    """The names of a request's raw parts the source reads: `request.body()`, `request.query_params`..."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or node.attr not in READ_BY_HAND:
            continue
        if isinstance(node.value, ast.Name) and node.value.id == "request":
            yield node.attr


def test_only_the_fast_paths_module_reads_a_request_by_hand() -> None:
    found = {
        (path.relative_to(ROOT).as_posix(), name)
        for path in sorted((ROOT / "api").rglob("*.py"))
        if path.name != "fast_paths.py"
        for name in hand_reads(path.read_text())
    }
    assert found == set(ALLOWED)
    assert [fast_path.name for fast_path in FAST_PATHS] == ["append_reads_its_request"]


def test_the_check_finds_a_hand_read() -> None:
    snippet = "async def f(request):\n    return await request.body(), request.query_params, request.app\n"
    assert sorted(hand_reads(snippet)) == ["body", "query_params"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(service_app(str(tmp_path / "ledger.sqlite"))) as client:
        yield client


def game(client: TestClient) -> tuple[str, str]:
    created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).json()
    return created["game_id"], created["recorder_token"]


ACTION = "order ann ben cat"
JSON = {"Content-Type": "application/json"}
BASIC = {"Authorization": "Basic eA=="}
REQUESTS: dict[str, dict[str, Any]] = {
    "an action": {"json": {"actions": ["order ann ben cat"]}},
    "a stale version": {"json": {"actions": ["order ann ben cat"], "expected_version": 9}},
    "no body": {},
    "not JSON": {"content": b"{", "headers": {"Content-Type": "application/json"}},
    "text": {"content": b"order ann ben cat", "headers": {"Content-Type": "text/plain"}},
    "no actions": {"json": {"expected_version": 1}},
    "an action too long": {"json": {"actions": ["x" * 5000]}},
    "an idempotency key too long": {
        "json": {"actions": ["order ann ben cat"]},
        "headers": {"Idempotency-Key": "k" * 201},
    },
    "a wait out of bounds": {"json": {"actions": ["order ann ben cat"]}, "params": {"wait_for_projections": "31"}},
    "a wait that is not a number": {
        "json": {"actions": ["order ann ben cat"]},
        "params": {"wait_for_projections": "x"},
    },
    "no token": {"json": {"actions": ["order ann ben cat"]}, "token": None},
    "a wrong token": {"json": {"actions": ["order ann ben cat"]}, "token": "wrong"},
    "an illegal action": {"json": {"actions": ["ann move A1 A2"]}},
    "a wait in another script's digits": {"json": {"actions": [ACTION]}, "params": {"wait_for_projections": "\u0663"}},
    "UTF-16": {"content": f'{{"actions": ["{ACTION}"]}}'.encode("utf-16"), "headers": JSON},
    "a byte order mark": {"content": f'\ufeff{{"actions": ["{ACTION}"]}}'.encode(), "headers": JSON},
    "another scheme and JSON that does not parse": {"content": b"{", "headers": {**JSON, **BASIC}, "token": None},
    "another scheme and no body": {"headers": BASIC, "token": None},
    "another scheme and a body that is no append": {"json": {"actions": []}, "headers": BASIC, "token": None},
}


def answered(client: TestClient, path: str, request: dict[str, Any], game_id: str, token: str) -> tuple[int, str]:
    sent = dict(request)
    given = sent.pop("token", token)
    headers = {**sent.pop("headers", {}), **({"Authorization": f"Bearer {given}"} if given else {})}
    answer = client.post(path.format(game_id=game_id), headers=headers, **sent)
    return answer.status_code, answer.json().get("code", "") if answer.status_code != 200 else ""


@pytest.mark.parametrize("name", list(REQUESTS))
def test_the_append_read_by_hand_is_answered_as_fastapi_reading_it_answers(client: TestClient, name: str) -> None:
    own, declared = game(client), game(client)
    assert answered(client, OWN, REQUESTS[name], *own) == answered(client, DECLARED_APPEND, REQUESTS[name], *declared)


def test_an_unknown_game_is_refused_alike(client: TestClient) -> None:
    _, token = game(client)
    for game_id in ("not-a-game", "00000000-0000-0000-0000-000000000000"):
        mine = answered(client, OWN, REQUESTS["an action"], game_id, token)
        assert mine == answered(client, DECLARED_APPEND, REQUESTS["an action"], game_id, token)
        assert mine == (404, "unknown_game")
