"""Every route of the API is put to a swap test here, or listed among those that need no swap, with the reason: it
quotes no game's state, or quotes it only to those who see every hidden fact. The swap: one game recorded in two
servers, the same but for one hidden value (a card drawn, a peek), and moved in again as a game file by each (a
copy whose id is its file's content's). Every reader who may not see that value (the public and each other seat
while the game is live, then a spectator once the game is broadcast with a delay) asks both servers every request
`questions` makes, reads, refused changes and imports of the copy's public game file with each hidden value in
place alike, and is answered the same by both: status, headers and body, byte for byte once ids, hashes, salts,
recording times and new games' tokens are set aside.

A request asks the route its path matches, segment for segment, unless a route with more fixed segments matches it
too (as the app routes it); each route not listed in NEED_NO_SWAP must be asked by every reader. A new route fails
here until it is asked or listed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit
from uuid import uuid4

import pytest
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route

from api import ApiSettings, create_app
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.contract import reading
from evo_ledger.settings import Settings
from projections.schema import tables
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.swapped import (
    DELAYED,
    PUBLIC,
    RULESET,
    Compared,
    Events,
    Question,
    Swap,
    delayed,
    guessed_files,
    hidden_as_recorded,
    imported_copy,
    put_side_by_side,
    recorded,
    servers,
)

CARDS = ("Heatwave", "Ambush")
MOVE = "cat move C1 C2"  # in each swap's game, a move the rules allow in the place of the pass after the hidden action
SWAPS = (
    Swap("card drawn", ROUND_ONE_AUCTION, ("cat drew Heatwave", "cat drew Ambush"), ("cat pass",), "cat"),
    Swap(
        "peek",
        (
            *ROUND_ONE_AUCTION[:2],
            "draw sixth_sense",
            "draw eggs",
            "ann bid 2 sixth_sense",
            "ben bid 1 eggs",
            "cat bid 0 card",
        ),
        ("ann peek acw", "ann peek zero"),
        ("cat pass", "ann pass"),
        "ann",
    ),
)
# The game's reads that name no event: as it stands, exported, audited, and its rows in the read tables.
READS = (
    "",
    "/state",
    "/view",
    "/events?limit=1000",
    "/export",
    "/export?format=bundle",
    "/legal",
    "/choices",
    "/choices?forced=true",
    "/audit",
    "/standings",
    "/auctions",
)
STATISTIC = re.compile(r"GET /v1/statistics/[\w-]+")
LIST_FILTERS = ("", "?player=cat", f"?ruleset={RULESET}", "?status=ongoing", "?withdrawn=include")
GAME = "/v1/games/{game_id}"  # a request's path: the game's id in the place of `{game_id}`
# The people behind the seats, the game's among them: names, stable ids and games counted.
PEOPLE_READS = ("/v1/people", "/v1/people?q=cat", "/v1/people/cat@club")
NO_GAME = "quotes no game's state or events"
RECORDERS_ONLY = "quotes a game only to those who record it (the recorder, a co-recorder, the admin): they see it all"
STATIC = "a file the package ships"
PERSON_CHANGED = f"{NO_GAME}: a person's name, stable ids and games counted, to a keeper alone"
NEED_NO_SWAP: dict[str, str] = {
    "POST /v1/games": f"{NO_GAME}: the new game's id, version, head hash and tokens",
    f"POST {GAME}/recorder-token": f"{NO_GAME}: a token and its link, to the admin alone",
    f"PUT {GAME}/reveal-at-end": f"{NO_GAME}: a receipt, to the recorder's own token or the admin's",
    f"PUT {GAME}/privacy": f"{NO_GAME}: the setting, to the admin alone",
    f"PUT {GAME}/broadcast-delay": f"{NO_GAME}: the setting, to the recorder's own token or the admin's",
    f"PUT {GAME}/seats-record": f"{NO_GAME}: the setting, to the recorder's own token or the admin's",
    f"POST {GAME}/withdraw": f"{NO_GAME}: whether it is withdrawn and the reason given, to the recorder's own token "
    "or the admin's",
    f"POST {GAME}/reinstate": f"{NO_GAME}: whether it is withdrawn and the reason given, to the recorder's own token "
    "or the admin's",
    f"POST {GAME}/co-recorders": f"{NO_GAME}: a co-recorder's id, token and link",
    f"GET {GAME}/co-recorders": f"{NO_GAME}: the co-recorders' ids and names, to those who record the game",
    f"DELETE {GAME}/co-recorders/{{co_recorder_id}}": f"{NO_GAME}: the co-recorders left",
    f"POST {GAME}/seat-tokens/{{seat}}": f"{NO_GAME}: a seat's token and its link",
    f"GET {GAME}/setup": f"{RECORDERS_ONLY}: the setup and every action, hidden ones included",
    "GET /v1/projections": f"{NO_GAME}: how far the read tables follow the log",
    "GET /v1/rulesets/{ruleset}/statistics": f"{NO_GAME}: the names of a ruleset's statistics and what each means",
    "GET /v1/rules": f"{NO_GAME}: the rulings",
    "GET /v1/rules/{ruling_id}": f"{NO_GAME}: a ruling",
    "GET /v1/kits": f"{NO_GAME}: the built-in and stored kits, whole boards that no game's hidden state is in",
    "POST /v1/kits": f"{NO_GAME}: a kit's hash and summary; a kit quotes no game's hidden state",
    "GET /v1/kits/{kit_hash}": f"{NO_GAME}: a kit's document, built in or stored, which no game's hidden state is in",
    "DELETE /v1/kits/{kit_hash}": f"{NO_GAME}: nothing, to the admin alone",
    "POST /v1/competitions": f"{NO_GAME}: the new competition's fields and its organiser token",
    "GET /v1/competitions": f"{NO_GAME}: the competitions' fields",
    "GET /v1/competitions/{competition_id}": "the competition's fields, its games' ids with their rounds and tables, "
    "and standings counted from the results of its games over (places and scores, as `read_results` gives the same "
    "caller); no hidden value reaches them, and the swap's game is in no competition",
    "POST /v1/competitions/{competition_id}/games": f"{NO_GAME}: the game's id, round and table, to the organiser or "
    "the admin; a private game is told unknown by the readers (`check_seen`)",
    "DELETE /v1/competitions/{competition_id}/games/{game_id}": f"{NO_GAME}: nothing, to the organiser or the admin",
    "POST /v1/people": PERSON_CHANGED,
    "PATCH /v1/people/{person_id}": PERSON_CHANGED,
    "POST /v1/people/{person_id}/merge": PERSON_CHANGED,
    "POST /v1/people/{person_id}/split": PERSON_CHANGED,
    "DELETE /v1/people/{person_id}/personal-data": f"{PERSON_CHANGED}; the admin's alone",
    "GET /health": f"{NO_GAME}: the server's processes and the events the read tables set aside, by type",
    "GET /docs": STATIC,
    "GET /": STATIC,
    "GET /dashboard": STATIC,
    "GET /kits/new": STATIC,
    "GET /people": f"{STATIC}: the people's page, which reads them through the routes above",
    "GET /competitions/{competition_id}": f"{STATIC}: a competition's page, which reads it through the routes above",
    "GET /games/{game_id}": f"{STATIC}: the viewer, which reads the game through the routes above",
    "GET /games/{game_id}/record": f"{STATIC}: the recording page, which reads the game through the routes above",
    "GET /ca.crt": f"{NO_GAME}: the certificate of the table's authority",
    "GET /rules.zip": STATIC,
    "GET /rules-worker.js": STATIC,
    "GET /sw.js": STATIC,
    "MOUNT /static": STATIC,
    "GET /openapi.json": f"{NO_GAME}: the API's schema",
}


def questions(swap: Swap, events: Events, seat: str) -> list[Question]:
    """Every request asked of both servers but the imports: the game's reads, the changes to it that are refused,
    and the read side (statistics, tables, the list of games); `seat` is the seat a change is made as."""
    return [*game_reads(swap, events), *refused_changes(events.hidden, seat), *read_side()]


def game_reads(swap: Swap, events: Events) -> list[Question]:
    """The game read as it stands, at the hidden action, and about the hidden action and the events around it:
    explained, and branched from (dropped; the event after it replaced by the owner's play of either card and by
    a public move)."""
    hidden, after = events.hidden, events.hidden + 1
    replacements = [f"{swap.owner} play {card}" for card in CARDS] + [MOVE]
    paths = [
        *READS,
        *(f"/events?after={hidden - 1}", f"/stream?after={hidden - 1}", f"/choices?words={swap.owner}%20play"),
        *(f"/state?at={hidden}", f"/view?at={hidden}"),
        *(f"/events/{event}/explanation" for event in (hidden, after)),
        *(f"/events/{event}/what-if?drop=true" for event in (events.replayed, hidden, after)),
        *(f"/events/{after}/what-if?replace={action.replace(' ', '%20')}" for action in replacements),
    ]
    return [Question("GET", GAME + path) for path in paths]


def refused_changes(hidden: int, seat: str) -> list[Question]:
    """Changes the game refuses, so that both stay as recorded: an append, an undo, a correction and a note made
    on the version before the hidden action (409 quotes what was stored since, to a caller who may make them),
    and appends of a card's play that end in an action the rules refuse, whatever the play is."""
    seen = hidden - 1
    return [
        Question("POST", f"{GAME}/actions", {"actions": [f"{seat} pass"], "expected_version": seen}),
        *(Question("POST", f"{GAME}/actions", {"actions": [f"{seat} play {card}", "zz nothing"]}) for card in CARDS),
        Question("POST", f"{GAME}/undo", {"count": 1, "reason": "a slip", "expected_version": seen}),
        Question("POST", f"{GAME}/correct", {"action": f"{seat} pass", "reason": "a slip", "expected_version": seen}),
        Question("POST", f"{GAME}/notes", {"event": hidden, "text": "disputed", "expected_version": seen}),
    ]


def read_side() -> list[Question]:
    """Every statistic (each the app serves under `/v1/statistics/`, and the game's ruleset's own), every read
    table, the list of games by each filter, and the people."""
    declared = reading(get_ruleset(RULESET))
    own = declared.statistics if declared is not None else {}
    every_ruleset = sorted(route.partition(" ")[2] for route in served_routes() if STATISTIC.fullmatch(route))
    paths = [
        *(f"{path}?ruleset={RULESET}" for path in every_ruleset),
        *(f"/v1/rulesets/{RULESET}/statistics/{name}" for name in own),
        *(f"/v1/tables/{name}.csv" for name in tables()),
        *(f"/v1/games{query}" for query in LIST_FILTERS),
        *PEOPLE_READS,
    ]
    return [Question("GET", path) for path in paths]


def imports(guessed: list[str]) -> list[Question]:
    """Game files imported: a game file's id is its content's, so that an import of a file with a guess of a hidden
    action would tell a right one if a game stored already were told to a reader who may not see the action.
    They are asked after every other question: the games they store, whose ids are drawn apart in each server,
    would change the order of the read side's rows."""
    return [Question("POST", "/v1/games/import", game_file=text) for text in guessed]


def swapped_answers(swap: Swap, folder: Path) -> Compared:
    """Every question asked of both servers by each reader who may not see the hidden value: the public and each
    other seat while the game is live, then a spectator once both games are broadcast with a delay that shows
    the hidden action and holds back the next. Last, each of them imports the first server's copy's game file, as
    the public is given it, with each hidden value in place: one of them is each server's copy's own content."""
    compared = Compared()
    first, second = servers(folder)
    with first, second:
        pair = (recorded(first, swap, swap.hidden[0]), recorded(second, swap, swap.hidden[1]))
        events = pair[0].events
        assert events == pair[1].events
        assert hidden_as_recorded(pair[0]) != hidden_as_recorded(pair[1]), "the games differ in the hidden value"
        others = [reader for reader in swap.readers if reader != PUBLIC]
        for reader in swap.readers:
            seat = others[0] if reader == PUBLIC else reader
            put_side_by_side(pair, reader, questions(swap, events, seat), events.last, compared)
        for held in pair:
            delayed(held, events.hidden)
        put_side_by_side(pair, DELAYED, questions(swap, events, others[0]), events.hidden, compared)
        copies = [imported_copy(held) for held in pair]
        guessed = imports(guessed_files(pair[0], copies[0], swap))
        for reader in (*swap.readers, DELAYED):
            put_side_by_side(pair, reader, guessed, events.hidden, compared)
    return compared


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


def segment_pattern(segment: str) -> re.Pattern[str]:
    """A route's segment as a pattern: its fixed parts as they are, each variable part (`{table}`) one or more
    characters of the one segment."""
    parts = re.split(r"(\{\w+\})", segment)
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts))


def matches(route: str, path: str) -> bool:
    """Whether a request's path (without its query) is the route's path: as many segments, each matching the
    route's."""
    wanted, given = route.split("/"), path.split("/")
    return len(wanted) == len(given) and all(
        segment_pattern(fixed).fullmatch(asked) for fixed, asked in zip(wanted, given, strict=True)
    )


def fixed_segments(route: str) -> int:
    return sum("{" not in segment for segment in route.split("/"))


def asks(route: str, method: str, path: str, routes: Iterable[str]) -> bool:
    """Whether a request asks the route (`METHOD PATH`, one of `routes`): its method is the route's, its path
    matches the route's, and no route of that method with more fixed segments matches it."""
    verb, _, pattern = route.partition(" ")
    if verb != method or not matches(pattern, path):
        return False
    rivals = (other.partition(" ")[2] for other in routes if other.partition(" ")[0] == method)
    return not any(matches(rival, path) and fixed_segments(rival) > fixed_segments(pattern) for rival in rivals)


def unasked(requests: set[tuple[str, str]]) -> list[str]:
    """The routes served that no request asks and NEED_NO_SWAP does not list."""
    routes = served_routes()
    swapped = routes - set(NEED_NO_SWAP)
    return sorted(route for route in swapped if not any(asks(route, *request, routes) for request in requests))


def test_every_route_is_asked_or_said_to_need_no_swap() -> None:
    """The questions, for a game id made up, ask every route NEED_NO_SWAP does not list, and none it lists (the
    swap test below finds each asked of both servers by every reader)."""
    game = str(uuid4())
    requests = {
        (question.method, urlsplit(question.path.replace("{game_id}", game)).path)
        for question in [*questions(SWAPS[0], Events(2, 3, 4), "ann"), *imports(["a game file"])]
    }
    assert not unasked(requests), (
        f"routes neither asked nor said to need no swap: {unasked(requests)}: ask them in `questions`, or list them "
        "in NEED_NO_SWAP with the reason"
    )
    listed_and_asked = [
        route for route in NEED_NO_SWAP if any(asks(route, *request, served_routes()) for request in requests)
    ]
    assert not listed_and_asked, f"said to need no swap, but asked: {listed_and_asked}"
    assert not set(NEED_NO_SWAP) - served_routes(), (
        f"listed but not served: {sorted(set(NEED_NO_SWAP) - served_routes())}"
    )


@pytest.mark.parametrize("swap", SWAPS, ids=lambda swap: swap.name)
def test_a_swapped_hidden_value_changes_no_answer_any_route_gives_a_reader_who_may_not_see_it(
    swap: Swap, tmp_path: Path
) -> None:
    """Each reader is answered alike by both servers, and has asked both every route NEED_NO_SWAP does not list."""
    compared = swapped_answers(swap, tmp_path)
    assert not compared.differing, {asked: [told[-900:] for told in pair] for asked, pair in compared.differing.items()}
    readers = (*swap.readers, DELAYED)
    missed = {
        reader: unasked({(method, path) for who, method, path in compared.asked if who == reader}) for reader in readers
    }
    assert not any(missed.values()), f"routes not asked of both servers, by reader: {missed}"


ROUTES = ("GET /a/{x}", "GET /a/b", "GET /a/{x}/c", "POST /a/{x}", "GET /t/{name}.csv")


def test_a_request_asks_the_one_route_its_path_is_routed_to() -> None:
    assert asks("GET /a/b", "GET", "/a/b", ROUTES) and not asks("GET /a/{x}", "GET", "/a/b", ROUTES)
    assert asks("GET /a/{x}", "GET", "/a/z", ROUTES) and not asks("POST /a/{x}", "GET", "/a/z", ROUTES)
    assert not asks("GET /a/{x}", "GET", "/a/z/c", ROUTES) and not asks("GET /a/{x}/c", "GET", "/a/z/d", ROUTES)
    assert not asks("GET /a/{x}", "GET", "/a/", ROUTES) and not asks("GET /a/{x}", "GET", "/a/y/z", ROUTES)
    assert asks("GET /t/{name}.csv", "GET", "/t/bids.csv", ROUTES) and not asks(
        "GET /t/{name}.csv", "GET", "/t/bids", ROUTES
    )
    assert asks(f"POST {GAME}/undo", "POST", f"/v1/games/{uuid4()}/undo", served_routes())
    assert not asks(f"GET {GAME}", "GET", "/v1/games/import", [f"GET {GAME}", "GET /v1/games/import"])
