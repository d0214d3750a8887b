"""What each role may do is one table, in docs/api.md ("Who may do what"), and this test holds the app to it: every
route of the app is asked as each role (the recorder, a co-recorder, a seat, the public, the admin, a
competition's organiser, given its token by the admin who opened it) on a public game, entered in the organiser's
competition where a route asks for one. A role the table lets use a route is answered (neither 401 nor 403, nor a
server error); one it does not is refused with 401 or 403. A route of the app without a row fails, as does a row
without a route."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Mount, Route

from api import ApiSettings, create_app
from evo_ledger.rules.kits import canonical_hash, load_kit_document
from evo_ledger.settings import Settings
from projections.schema import tables
from tests.helpers.api import HAND_GAME, client_for
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION
from tests.helpers.tokens import bearer

DOC = ROOT / "docs" / "api.md"
HEADING = "## Who may do what"
ROLES = ("recorder", "co-recorder", "seat", "public", "admin", "organiser")


def route_names(app: Any) -> list[str]:
    """Each route of the app as the table names it: `METHOD /path` (HEAD goes with GET), a mounted app's files as
    `GET /mount/{path}`."""
    names = []
    for route in app.routes:
        if isinstance(route, Mount):
            names.append(f"GET {route.path}/{{path}}")
        elif isinstance(route, Route):
            names.extend(f"{method} {route.path}" for method in sorted((route.methods or set()) - {"HEAD"}))
        else:
            raise AssertionError(f"a route of a kind the table cannot name: {route!r}")
    return names


@cache
def roles_table() -> dict[str, dict[str, bool]]:
    """The table's rows: each route, and whether each role may use it (a cell's first word, `yes` or `no`)."""
    lines = iter(DOC.read_text(encoding="utf-8").split(HEADING, 1)[1].splitlines())
    header = next(line for line in lines if line.startswith("|"))
    assert [cell.strip() for cell in header.strip("|").split("|")] == ["route", *ROLES], header
    next(lines)  # the rule under the header
    rows = {}
    for line in itertools.takewhile(lambda line: line.startswith("|"), lines):
        route, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        rows[route.strip("`")] = {role: cell.split()[0] == "yes" for role, cell in zip(ROLES, cells, strict=True)}
    return rows


ROUTES = route_names(create_app(ApiSettings(store=Settings("unopened.sqlite"), admin_token=ADMIN)))


@dataclass(frozen=True)
class Asked:
    """How a route is asked: its query and its body (JSON, or text with its type)."""

    query: dict[str, str] = field(default_factory=dict)
    json: Any = None
    text: str | None = None
    content_type: str = "text/plain"


RULESET = {"ruleset": "toy"}  # the statistics that weigh bots play a few of its games, quickly
BUILT_IN_KIT = load_kit_document("standin-e2-3p")[0]
ASKED = {
    "POST /v1/games": Asked(json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}),
    "POST /v1/games/import": Asked(text=HAND_GAME),
    "POST /v1/games/{game_id}/actions": Asked(json={"actions": [ROUND_ONE_AUCTION[1]]}),
    "GET /v1/games/{game_id}/events/{event}/what-if": Asked(query={"drop": "true"}),
    "POST /v1/games/{game_id}/undo": Asked(json={"count": 1, "reason": "misread"}),
    "POST /v1/games/{game_id}/correct": Asked(json={"action": ROUND_ONE_AUCTION[0], "reason": "misread"}),
    "POST /v1/games/{game_id}/notes": Asked(json={"event": 1, "text": "a note"}),
    "POST /v1/games/{game_id}/co-recorders": Asked(json={"name": "cat's phone"}),
    "PUT /v1/games/{game_id}/broadcast-delay": Asked(json={"minutes": 5}),
    "PUT /v1/games/{game_id}/seats-record": Asked(json={"allowed": True}),
    "POST /v1/games/{game_id}/withdraw": Asked(json={"reason": "a test game"}),
    "POST /v1/games/{game_id}/reinstate": Asked(json={"reason": "a real game after all"}),
    "PUT /v1/games/{game_id}/reveal-at-end": Asked(json={"reveal_at_end": False}),
    "PUT /v1/games/{game_id}/privacy": Asked(json={"private": True}),
    "POST /v1/kits": Asked(json={**BUILT_IN_KIT, "name": "roles-island"}),
    "POST /v1/competitions": Asked(json={"kind": "night", "name": "Tuesday"}),
    "POST /v1/competitions/{competition_id}/games": Asked(json={"game_id": "{game_id}", "round": 1}),
    "POST /v1/people": Asked(json={"name": "Ann Smith"}),
    "PATCH /v1/people/{person_id}": Asked(json={"name": "Ann Smith"}),
    "POST /v1/people/{person_id}/merge": Asked(json={"into": "ben"}),
    "POST /v1/people/{person_id}/split": Asked(json={"seat_id": "ben"}),
    **{route: Asked(query=RULESET) for route in ROUTES if route.startswith("GET /v1/statistics/")},
    "GET /v1/statistics/dice": Asked(query={"ruleset": "evo2"}),  # the toy rolls no die
}


@dataclass(frozen=True)
class Game:
    """A public game with one action recorded, a co-recorder and a token per seat, and a competition: their ids,
    and each role's headers."""

    game_id: str
    co_recorder_id: int
    competition_id: str
    headers: dict[str, dict[str, str]]

    def path(self, route: str) -> str:
        values = {
            "game_id": self.game_id,
            "co_recorder_id": str(self.co_recorder_id),
            "competition_id": self.competition_id,
            "person_id": "ann",
            "seat": "ann",
            "event": "2",
            "ruling_id": "E2-07",
            "ruleset": "evo2",
            "name": "genes",
            "table": next(iter(tables())),
            "path": "common.css",
            "kit_hash": canonical_hash(BUILT_IN_KIT),
        }
        return route.partition(" ")[2].format(**values)


def new_game(client: TestClient) -> Game:
    created = client.post("/v1/games", json={**ASKED["POST /v1/games"].json, "seat_tokens": True})
    assert created.status_code == 201, created.text
    body = created.json()
    game, recorder = body["game_id"], bearer(body["recorder_token"])
    recorded = client.post(f"/v1/games/{game}/actions", json={"actions": [ROUND_ONE_AUCTION[0]]}, headers=recorder)
    assert recorded.status_code == 200, recorded.text
    issued = client.post(f"/v1/games/{game}/co-recorders", json={"name": "ben's phone"}, headers=recorder)
    assert issued.status_code == 201, issued.text
    opened = client.post("/v1/competitions", json=ASKED["POST /v1/competitions"].json, headers=bearer(ADMIN))
    assert opened.status_code == 201, opened.text
    headers = {
        "recorder": recorder,
        "co-recorder": bearer(issued.json()["token"]),
        "seat": bearer(body["seat_tokens"]["ann"]),
        "public": {},
        "admin": bearer(ADMIN),
        "organiser": bearer(opened.json()["organiser_token"]),
    }
    return Game(game, issued.json()["id"], opened.json()["competition_id"], headers)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = Path(tmp_path_factory.mktemp("roles")) / "ledger.sqlite"
    authority = b"an authority's certificate"
    served = client_for(str(database), follow_projections=False, writer_process=False, tls_authority=authority)
    with served as test_client:
        yield test_client


@pytest.fixture(scope="module")
def read_game(client: TestClient) -> Game:
    """The game the reads ask about (a read changes nothing)."""
    return new_game(client)


def asked_as(client: TestClient, route: str, game: Game, role: str) -> tuple[int, str]:
    """The route asked as the role: the answer's status and code."""
    method, asked = route.partition(" ")[0], ASKED.get(route, Asked())
    headers = {**game.headers[role], **({"Content-Type": asked.content_type} if asked.text is not None else {})}
    body = (
        {key: game.game_id if value == "{game_id}" else value for key, value in asked.json.items()}
        if isinstance(asked.json, dict)
        else asked.json
    )
    request = client.build_request(
        method, game.path(route), params=asked.query, json=body, content=asked.text, headers=headers
    )
    answer = client.send(request, stream=True)  # a stream's answer is known by its status
    try:
        status = answer.status_code
        code = answer.read().decode(errors="replace") if status >= 400 else ""
    finally:
        answer.close()
    return status, code


def test_every_route_of_the_app_has_a_row_and_every_row_a_route() -> None:
    rows = set(roles_table())
    assert sorted(set(ROUTES) - rows) == [], f"routes without a row in {DOC.name}'s table"
    assert sorted(rows - set(ROUTES)) == [], f"rows of {DOC.name}'s table without a route"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", ROUTES)
def test_each_role_may_use_a_route_as_the_table_says(
    client: TestClient, read_game: Game, route: str, role: str
) -> None:
    row = roles_table().get(route)
    assert row is not None, f"{route} has no row in {DOC.name}'s table ({HEADING!r}): add one"
    game = read_game if route.startswith("GET ") else new_game(client)
    status, answer = asked_as(client, route, game, role)
    if row[role]:
        assert status not in (401, 403) and status < 500, f"{role} refused: {status} {answer}"
    else:
        assert status in (401, 403), f"{role} answered: {status} {answer}"
