"""Every route of the API that quotes a game's state or events is put to a swap test: one that swaps a hidden value
and finds every other reader's answer unchanged. Each route the app serves is either swapped, naming the swap test
that asks it (which this test reads, and finds asking it), or listed among those that need no swap, with the
reason: it quotes no game's state, or quotes it only to those who see every hidden fact. A new route fails here
until it is one or the other."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route

from api import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.support import ROOT


@dataclass(frozen=True)
class SwapTest:
    """A test that swaps a hidden value: its module's file and its function."""

    path: str
    function: str


EVERY_ROUTE = SwapTest(
    "tests/property/test_hidden_swaps.py",
    "test_a_swapped_hidden_fact_changes_no_answer_a_reader_who_may_not_see_it_gets",
)
OVERTAKEN = SwapTest(
    "tests/e2e/test_version_conflicts.py",
    "test_a_seat_overtaken_is_told_the_same_whichever_card_another_seat_drew_meanwhile_E2_15",
)
LISTED = SwapTest(
    "tests/e2e/test_hidden_game_list.py", "test_a_swapped_card_changes_nothing_the_list_of_games_tells_the_public_E2_15"
)
STATISTICS = (
    "players",
    "ratings",
    "seats",
    "first-places",
    "lengths",
    "scores",
    "profiles",
    "calibration",
    "seat-advantage",
    "batch-ratings",
    "skill",
    "rulesets",
    "dice",
    "games",
)
GAME = "/v1/games/{game_id}"
SWAPPED: dict[str, SwapTest] = {
    **{
        f"GET {GAME}{route}": EVERY_ROUTE
        for route in (
            "",
            "/state",
            "/view",
            "/events",
            "/stream",
            "/export",
            "/legal",
            "/choices",
            "/audit",
            "/events/{event}/explanation",
            "/events/{event}/what-if",
            "/standings",
            "/auctions",
        )
    },
    **{f"GET /v1/statistics/{name}": EVERY_ROUTE for name in STATISTICS},
    "GET /v1/rulesets/{ruleset}/statistics/{name}": EVERY_ROUTE,
    "GET /v1/tables/{table}.csv": EVERY_ROUTE,
    f"POST {GAME}/actions": OVERTAKEN,
    "GET /v1/games": LISTED,
}
NO_GAME = "quotes no game's state or events"
RECORDERS_ONLY = "quotes a game only to those who record it (the recorder, a co-recorder, the admin): they see it all"
STATIC = "a file the package ships"
NEED_NO_SWAP: dict[str, str] = {
    "POST /v1/games": f"{NO_GAME}: the new game's id, version, head hash and tokens",
    "POST /v1/games/import": f"{NO_GAME}: the game imported from what its caller holds, by id, version and token",
    f"POST {GAME}/recorder-token": f"{NO_GAME}: a token and its link, to the admin alone",
    f"PUT {GAME}/reveal-at-end": f"{NO_GAME}: a receipt, to the recorder's own token or the admin's",
    f"PUT {GAME}/privacy": f"{NO_GAME}: the setting, to the admin alone",
    f"PUT {GAME}/broadcast-delay": f"{NO_GAME}: the setting, to the recorder's own token or the admin's",
    f"PUT {GAME}/seats-record": f"{NO_GAME}: the setting, to the recorder's own token or the admin's",
    f"POST {GAME}/co-recorders": f"{NO_GAME}: a co-recorder's id, token and link",
    f"GET {GAME}/co-recorders": f"{NO_GAME}: the co-recorders' ids and names, to those who record the game",
    f"DELETE {GAME}/co-recorders/{{co_recorder_id}}": f"{NO_GAME}: the co-recorders left",
    f"POST {GAME}/seat-tokens/{{seat}}": f"{NO_GAME}: a seat's token and its link",
    f"POST {GAME}/undo": f"{RECORDERS_ONLY} (a 409 quotes the events stored since)",
    f"POST {GAME}/correct": f"{RECORDERS_ONLY} (a 409 quotes the events stored since)",
    f"POST {GAME}/notes": f"{RECORDERS_ONLY} (a 409 quotes the events stored since)",
    f"GET {GAME}/setup": f"{RECORDERS_ONLY}: the setup and every action, hidden ones included",
    "GET /v1/projections": f"{NO_GAME}: how far the read tables follow the log",
    "GET /v1/rulesets/{ruleset}/statistics": f"{NO_GAME}: the names of a ruleset's statistics and what each means",
    "GET /v1/rules": f"{NO_GAME}: the rulings",
    "GET /v1/rules/{ruling_id}": f"{NO_GAME}: a ruling",
    "GET /v1/kits": f"{NO_GAME}: the built-in kits",
    "GET /health": f"{NO_GAME}: the server's processes and the events the read tables set aside, by type",
    "GET /docs": STATIC,
    "GET /": STATIC,
    "GET /dashboard": STATIC,
    "GET /games/{game_id}": f"{STATIC}: the viewer, which reads the game through the routes above",
    "GET /games/{game_id}/record": f"{STATIC}: the recording page, which reads the game through the routes above",
    "GET /ca.crt": f"{NO_GAME}: the certificate of the table's authority",
    "GET /rules.zip": STATIC,
    "GET /rules-worker.js": STATIC,
    "GET /sw.js": STATIC,
    "MOUNT /static": STATIC,
    "GET /openapi.json": f"{NO_GAME}: the API's schema",
}
HTTP_CALLS = {"get", "post", "put", "delete", "patch"}
CALLS_NAMING_THEIR_METHOD = {"request", "stream"}


@cache
def served_routes() -> frozenset[str]:
    """Every route the app serves, as `METHOD PATH` (a mount as `MOUNT PATH`)."""
    app = create_app(ApiSettings(store=Settings(":memory:")))
    found: set[str] = set()
    for route in app.routes:
        if isinstance(route, Mount):
            found.add(f"MOUNT {route.path}")
        elif isinstance(route, APIRoute | Route):
            found |= {f"{method} {route.path}" for method in route.methods or () if method != "HEAD"}
    return frozenset(found)


def test_every_route_is_swapped_or_said_to_need_no_swap() -> None:
    both = set(SWAPPED) & set(NEED_NO_SWAP)
    assert not both, f"swapped and said to need no swap: {sorted(both)}"
    classified = set(SWAPPED) | set(NEED_NO_SWAP)
    assert not served_routes() - classified, (
        f"routes neither swapped nor said to need no swap: {sorted(served_routes() - classified)}: ask them in a swap "
        "test, or list them in NEED_NO_SWAP with the reason"
    )
    assert not classified - served_routes(), f"listed but not served: {sorted(classified - served_routes())}"


@dataclass
class Asked:
    """What a test's code asks of the API: each request as (method, path), a path's variable parts as `{}`; the
    strings that could be what a path's last variable holds (the rest of its path, or its query); and every
    string it spells."""

    requests: set[tuple[str, str]]
    tails: set[str]
    words: set[str]


class Source:
    """A test module's functions, and those it imports from the suite's helpers, read from their files."""

    def __init__(self, path: Path) -> None:
        body = ast.parse(path.read_text(encoding="utf-8")).body
        self.functions = {node.name: node for node in body if isinstance(node, ast.FunctionDef)}
        self.constants = {
            target.id: node.value
            for node in body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        self.imported = {
            alias.asname or alias.name: str(node.module)
            for node in body
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests.helpers.")
            for alias in node.names
        }


@cache
def source_of(path: Path) -> Source:
    return Source(path)


def helper_path(module: str) -> Path:
    return ROOT / (module.replace(".", "/") + ".py")


def reached(source: Source, name: str, seen: set[tuple[int, str]]) -> Iterator[tuple[Source, ast.FunctionDef]]:
    """The function `name` of `source` (or the helper it imports by that name), and every function it calls that
    the module or the suite's helpers define, each once."""
    if name in source.imported:
        source = source_of(helper_path(source.imported[name]))
    function = source.functions.get(name)
    if function is None or (id(source), name) in seen:
        return
    seen.add((id(source), name))
    yield source, function
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            yield from reached(source, node.func.id, seen)


def template(node: ast.expr) -> str | None:
    """A path as the code writes it, its variable parts as `{}`; None for anything but a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def request_of(call: ast.Call) -> tuple[str, str] | None:
    """The method and path of an HTTP call (`client.get(path)`, `client.stream("GET", path)`), where it is one."""
    if not isinstance(call.func, ast.Attribute) or not call.args:
        return None
    verb, path = call.func.attr.upper(), template(call.args[0])
    if call.func.attr in CALLS_NAMING_THEIR_METHOD and len(call.args) > 1 and isinstance(call.args[0], ast.Constant):
        verb, path = str(call.args[0].value).upper(), template(call.args[1])
    elif call.func.attr not in HTTP_CALLS:
        return None
    return (verb, path) if path is not None and path.startswith("/") else None


def asked_by(test: SwapTest) -> Asked:
    asked = Asked(set(), set(), set())
    for source, function in reached(source_of(ROOT / test.path), test.function, set()):
        used = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
        nodes = [
            *ast.walk(function),
            *(n for name in used & set(source.constants) for n in ast.walk(source.constants[name])),
        ]
        for node in nodes:
            if isinstance(node, ast.Call) and (request := request_of(node)) is not None:
                asked.requests.add(request)
            text = template(node) if isinstance(node, ast.expr) else None
            if text is not None:
                asked.words.add(text)
                if text == "" or text.startswith(("/", "?")):
                    asked.tails.add(text)
    return asked


def segment_pattern(segment: str) -> re.Pattern[str]:
    return re.compile(
        "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{\w+\})", segment))
    )


def matches(route: str, path: str, words: set[str]) -> bool:
    """Whether a path asked (its variable parts `{}`) is the route's: a variable part stands for a route's own
    variable, or for one of its fixed parts that the test spells."""
    wanted, given = route.split("/"), path.partition("?")[0].split("/")
    if len(wanted) != len(given):
        return False
    for fixed, asked in zip(wanted, given, strict=True):
        if "{" in fixed:
            if not segment_pattern(fixed).fullmatch(asked.replace("{}", "x")):
                return False
        elif asked != fixed and not (asked == "{}" and fixed in words):
            return False
    return True


def asks(test: SwapTest, route: str) -> bool:
    asked = asked_by(test)
    method, _, path = route.partition(" ")
    paths = {found for verb, found in asked.requests if verb == method}
    paths |= {found[:-2] + tail for found in paths if found.endswith("{}") for tail in asked.tails}
    return any(matches(path, found, asked.words) for found in paths)


@pytest.mark.parametrize("route", sorted(SWAPPED))
def test_a_route_said_to_be_swapped_is_asked_by_its_swap_test(route: str) -> None:
    test = SWAPPED[route]
    assert test.function in source_of(ROOT / test.path).functions, f"{test.path} has no {test.function}"
    assert asks(test, route), f"{test.path}::{test.function} never asks {route}"


def test_the_reading_of_a_swap_test_finds_what_it_asks() -> None:
    assert asks(EVERY_ROUTE, f"GET {GAME}/events/{{event}}/what-if")
    assert not asks(EVERY_ROUTE, f"GET {GAME}/setup")
    assert not asks(EVERY_ROUTE, f"POST {GAME}/actions/{{x}}")
    assert asks(OVERTAKEN, f"POST {GAME}/actions") and not asks(OVERTAKEN, f"GET {GAME}/actions")
    assert not matches("/v1/statistics/seats", "/v1/statistics/{}", {"players"})
