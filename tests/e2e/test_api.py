"""The HTTP API driven through HTTP, on each database: every endpoint, the roles, hidden cards, retries, conflicts."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Match

from api import ApiSettings, create_app
from api.routes import games
from evo_ledger.game.codec import unpack
from evo_ledger.settings import Settings
from tests.helpers.api import HAND_GAME, HELD_CARD, append, client_for, new_game
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION


def test_a_game_is_created_appended_to_and_read_back(client: TestClient) -> None:
    game, recorder = new_game(client)
    answer = append(client, game, recorder, *ROUND_ONE_AUCTION[:2], expected_version=1)
    assert answer.status_code == 200 and answer.json()["version"] == 5
    summary = client.get(f"/v1/games/{game}").json()
    assert summary["version"] == 5 and summary["status"] == "ongoing" and summary["headline"].startswith("round 1")
    assert summary["players"][2] == {"seat": 3, "name": "cat", "id": "cat@club"}
    page = client.get(f"/v1/games/{game}/events", params={"after": 1, "limit": 2}).json()
    assert [e["number"] for e in page["events"]] == [2, 3] and page["next_after"] == 3
    assert page["events"][0]["fields"]["notation"] == "order ann ben cat"
    packed = client.get(f"/v1/games/{game}/events", headers={"Accept": "application/msgpack"})
    assert packed.headers["content-type"] == "application/msgpack"
    assert [e["number"] for e in unpack(packed.content)["events"]] == [1, 2, 3, 4, 5]
    state = client.get(f"/v1/games/{game}/state", params={"at": 3}).json()
    assert state["version"] == 3 and "climate" in state["headline"]
    legal = client.get(f"/v1/games/{game}/legal").json()
    assert "draw legs" in legal["actions"]


def test_games_are_listed_by_ruleset_player_status_and_date(client: TestClient) -> None:
    game, _ = new_game(client)
    client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    listed = client.get("/v1/games").json()["games"]
    assert len(listed) == 2
    assert [g["game_id"] for g in client.get("/v1/games", params={"status": "ongoing"}).json()["games"]] == [game]
    assert len(client.get("/v1/games", params={"status": "over", "player": "ann"}).json()["games"]) == 1
    assert [g["game_id"] for g in client.get("/v1/games", params={"player": "cat@club"}).json()["games"]] == [game]
    assert client.get("/v1/games", params={"ruleset": "evo1"}).json()["games"] == []
    assert client.get("/v1/games", params={"started_to": "2000-01-01"}).json()["games"] == []


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"actions": ["order ann ben cat", "ann bid 2 eggs"]}, 422, "rule_violation"),
        ({"actions": ["ann flies away"]}, 422, "notation_error"),
        ({"actions": []}, 422, "invalid_request"),
        ({"action": "order ann ben cat"}, 422, "invalid_request"),
        ({"actions": ["order ann ben cat"], "expected_version": 7}, 409, "version_conflict"),
    ],
)
def test_a_refused_append_says_why_and_stores_nothing(
    client: TestClient, body: dict[str, Any], status: int, code: str
) -> None:
    game, recorder = new_game(client)
    answer = client.post(f"/v1/games/{game}/actions", json=body, headers=recorder)
    assert answer.status_code == status and answer.json()["code"] == code
    assert client.get(f"/v1/games/{game}").json()["version"] == 1
    if code == "rule_violation":
        assert answer.json()["ruling"] == "E2-01"


def test_actions_are_taken_as_data_and_stored_in_notation(client: TestClient) -> None:
    game, recorder = new_game(client)
    order = {"kind": "set_order", "players": ["ann", "ben", "cat"]}
    answer = append(client, game, recorder, order, "climate cw", {"kind": "draw_gene", "gene": "legs"})
    assert answer.status_code == 200 and answer.json()["version"] == 7
    events = client.get(f"/v1/games/{game}/events").json()["events"]
    notations = [e["fields"]["notation"] for e in events if "notation" in e["fields"]]
    assert notations == ["order ann ben cat", "climate cw", "draw legs"]
    bad = append(client, game, recorder, {"kind": "bid", "player": "ann", "amount": 9.5, "target": "legs"})
    assert bad.status_code == 422 and bad.json()["code"] == "action_data_error"
    assert "action.amount" in bad.json()["message"]
    illegal = append(
        client,
        game,
        recorder,
        {"kind": "draw_gene", "gene": "eggs"},
        {"kind": "bid", "player": "ann", "amount": 7, "target": "eggs"},
    )
    assert illegal.status_code == 422 and illegal.json()["ruling"] == "E2-07"
    assert client.get(f"/v1/games/{game}").json()["version"] == 7


def test_only_the_recorder_token_appends(client: TestClient) -> None:
    game, recorder = new_game(client)
    assert append(client, game, {}, "order ann ben cat").json()["code"] == "token_required"
    refused = append(client, game, {"Authorization": "Bearer guess"}, "order ann ben cat")
    assert refused.status_code == 403 and refused.json()["code"] == "token_refused"
    assert append(client, game, {"Authorization": "Basic x"}, "order ann ben cat").status_code == 401
    assert client.get(f"/v1/games/{game}").json()["version"] == 1
    assert append(client, game, recorder, "order ann ben cat").status_code == 200


def test_unknown_games_bad_ids_and_large_bodies_are_refused_by_code(database: str) -> None:
    with client_for(database, max_body_bytes=1000) as client:
        game, recorder = new_game(client)
        assert client.get("/v1/games/not-a-uuid").json()["code"] == "unknown_game"
        missing = client.get("/v1/games/00000000-0000-0000-0000-000000000000")
        assert missing.status_code == 404 and missing.json()["code"] == "unknown_game"
        large = append(client, game, recorder, "x" * 2000)
        assert large.status_code == 413 and large.json()["code"] == "body_too_large"
        broken = client.post(f"/v1/games/{game}/actions", content=b"{", headers=recorder)
        assert broken.status_code == 422 and broken.json()["code"] == "invalid_request"
        assert client.get(f"/v1/games/{game}/state", params={"at": 99}).json()["code"] == "unknown_event"


def test_a_held_card_reaches_no_one_but_the_recorder_until_the_game_ends(client: TestClient) -> None:
    game, recorder = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}").status_code == 200
    public = [
        client.get(f"/v1/games/{game}/state").text,
        client.get(f"/v1/games/{game}/events").text,
        client.get(f"/v1/games/{game}/events", headers={"Accept": "application/msgpack"}).content.decode("latin-1"),
        client.get(f"/v1/games/{game}/export").text,
        client.get(f"/v1/games/{game}").text,
    ]
    assert all(HELD_CARD not in text for text in public)
    bundle = client.get(f"/v1/games/{game}/export", params={"format": "bundle"})
    assert HELD_CARD.encode() not in bundle.content and bundle.headers["Evo-Left-Out"]
    assert HELD_CARD in client.get(f"/v1/games/{game}/state", headers=recorder).text
    assert HELD_CARD in client.get(f"/v1/games/{game}/events", headers=recorder).text
    assert HELD_CARD in client.get(f"/v1/games/{game}/export", headers=recorder).text


def test_a_held_card_is_shown_to_everyone_once_it_is_played(client: TestClient) -> None:
    """[E2-15] hidden until played; a peek stays hidden until the climate token is turned [E2-16]."""
    game, recorder = new_game(client)
    drawn = [*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}"]
    assert append(client, game, recorder, *drawn, f"cat play {HELD_CARD} no_attacks for round").status_code == 200
    events = client.get(f"/v1/games/{game}/events").json()["events"]
    assert [e["fields"]["notation"] for e in events if e["kind"] == "EventCardDrawn"] == [f"cat drew {HELD_CARD}"]
    assert not any(e["hidden"] for e in events)
    assert f"cat drew {HELD_CARD}" in client.get(f"/v1/games/{game}/export").text
    bundle = client.get(f"/v1/games/{game}/export", params={"format": "bundle"})
    assert bundle.status_code == 200


def test_a_retried_append_stores_one_event_also_after_a_restart(database: str) -> None:
    with client_for(database) as client:
        game, recorder = new_game(client)
        retry = {**recorder, "Idempotency-Key": "append-1"}
        first = client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=retry)
        again = client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=retry)
        assert first.json() == again.json() and first.json()["version"] == 3
    with client_for(database) as restarted:
        after = restarted.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=retry)
        assert after.json() == first.json()
        assert restarted.get(f"/v1/games/{game}").json()["version"] == 3
        other = restarted.post(f"/v1/games/{game}/actions", json={"actions": ["climate cw"]}, headers=retry)
        assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


@pytest.mark.parametrize(
    ("headers", "query", "names"),
    [
        ({"Idempotency-Key": "k" * 201}, {}, "header.Idempotency-Key"),
        ({}, {"wait_for_projections": "-1"}, "query.wait_for_projections"),
        ({}, {"wait_for_projections": "soon"}, "query.wait_for_projections"),
        ({}, {"wait_for_projections": "31"}, "query.wait_for_projections"),
        ({}, {"wait_for_projections": "nan"}, "query.wait_for_projections"),
    ],
)
def test_an_append_with_a_bad_optional_parameter_is_refused_naming_it_and_stores_nothing(
    client: TestClient, headers: dict[str, str], query: dict[str, str], names: str
) -> None:
    game, recorder = new_game(client)
    body = {"actions": ["order ann ben cat"]}
    refused = client.post(f"/v1/games/{game}/actions", json=body, headers={**recorder, **headers}, params=query)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert refused.json()["message"].startswith(names)
    assert client.get(f"/v1/games/{game}").json()["version"] == 1


@pytest.mark.parametrize(
    ("content", "content_type", "where"),
    [
        (b"", "application/json", "body: Field required"),
        (b'{"actions": ["order ann ben cat"]}', "text/plain", "body: the body must be JSON"),
        (b'{"actions": ["order ann ben cat"]}', None, "body: the body must be JSON"),
        (b'{"actions": ["order ann ben cat"]', "application/json", "body: Invalid JSON"),
        (b'{"actions": []}', "application/json", "body.actions: List should have at least 1 item"),
        (b'{"actions": [7]}', "application/json", "body.actions.0.str: Input should be a valid string"),
        (b'{"actions": ["x"], "expected_version": 0}', "application/json", "body.expected_version"),
        (b'{"actions": ["x"], "also": 1}', "application/json", "body.also: Extra inputs are not permitted"),
        (b'["order ann ben cat"]', "application/json", "body: Input should be an object"),
    ],
)
def test_an_append_with_a_bad_body_is_refused_naming_where_and_stores_nothing(
    client: TestClient, content: bytes, content_type: str | None, where: str
) -> None:
    game, recorder = new_game(client)
    headers = {**recorder, **({"Content-Type": content_type} if content_type else {})}
    refused = client.post(f"/v1/games/{game}/actions", content=content, headers=headers)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert refused.json()["message"].startswith(f"the request is not valid: {where}"), refused.json()["message"]
    assert client.get(f"/v1/games/{game}").json()["version"] == 1


def test_an_append_reads_a_json_body_of_any_json_media_type(client: TestClient) -> None:
    game, recorder = new_game(client)
    sent = [("application/json; charset=utf-8", "order ann ben cat"), ("application/vnd.evo+json", "climate cw")]
    for content_type, action in sent:
        content = f'{{"actions": ["{action}"]}}'.encode()
        headers = {**recorder, "Content-Type": content_type}
        answer = client.post(f"/v1/games/{game}/actions", content=content, headers=headers)
        assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
        summary = client.get(f"/v1/games/{game}").json()
        assert answer.json() == {key: summary[key] for key in ("game_id", "version", "head_hash")}


def test_an_append_with_a_malformed_authorization_header_is_refused(client: TestClient) -> None:
    game, _ = new_game(client)
    for header in ("Basic abc", "Bearer ", "token"):
        refused = client.post(f"/v1/games/{game}/actions", json={"actions": ["x"]}, headers={"Authorization": header})
        assert refused.status_code == 401 and refused.json()["code"] == "token_required"
    assert client.get(f"/v1/games/{game}").json()["version"] == 1


def test_the_append_operation_documents_what_it_reads_itself(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operation = schema["paths"]["/v1/games/{game_id}/actions"]["post"]
    documented = {(parameter["in"], parameter["name"]) for parameter in operation["parameters"]}
    assert documented == {
        ("path", "game_id"),
        ("header", "authorization"),
        ("header", "Idempotency-Key"),
        ("query", "wait_for_projections"),
    }
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body == "#/components/schemas/Append"
    append = schema["components"]["schemas"]["Append"]
    assert append["required"] == ["actions"] and append["additionalProperties"] is False
    action_data = append["properties"]["actions"]["items"]["anyOf"][1]["$ref"].rsplit("/", 1)[1]
    assert action_data in schema["components"]["schemas"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/Receipt")


def test_an_append_is_matched_by_the_first_route_tried_and_the_documentation_is_tried_last(database: str) -> None:
    app = create_app(ApiSettings(store=Settings(database)))
    append_request = {"type": "http", "method": "POST", "path": "/v1/games/some-game/actions", "root_path": ""}
    assert app.router.routes[0].matches(append_request)[0] is Match.FULL
    first_of_its_router = games.router.routes[0]
    assert isinstance(first_of_its_router, APIRoute) and first_of_its_router.endpoint is games.append
    # The schema is FastAPI's own route; the pages (Swagger UI at /docs among them) come after the API's.
    assert getattr(app.router.routes[-1], "path", None) == "/openapi.json"
    assert TestClient(app).get("/docs").status_code == 200


def test_two_writers_at_the_same_version_get_one_success_and_one_conflict(client: TestClient) -> None:
    game, recorder = new_game(client)
    statuses: list[int] = []
    start = threading.Barrier(2)

    def write(action: str) -> None:
        start.wait()
        statuses.append(append(client, game, recorder, action, expected_version=1).status_code)

    writers = [threading.Thread(target=write, args=(a,)) for a in ("order ann ben cat", "order cat ben ann")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert sorted(statuses) == [200, 409]
    assert client.get(f"/v1/games/{game}").json()["version"] == 3


def test_the_admin_issues_a_new_recorder_token_and_makes_games_private(client: TestClient) -> None:
    game, recorder = new_game(client)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert client.post(f"/v1/games/{game}/recorder-token", headers=recorder).json()["code"] == "token_refused"
    token = client.post(f"/v1/games/{game}/recorder-token", headers=admin).json()["recorder_token"]
    assert append(client, game, recorder, "order ann ben cat").status_code == 403
    assert append(client, game, {"Authorization": f"Bearer {token}"}, "order ann ben cat").status_code == 200
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    assert client.get(f"/v1/games/{game}").json()["code"] == "unknown_game"
    assert client.get("/v1/games").json()["games"] == []
    assert client.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert len(client.get("/v1/games", headers=admin).json()["games"]) == 1


def test_a_game_started_without_a_recorder_token_can_be_made_private_and_given_one(client: TestClient) -> None:
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    game = str(ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert append(client, game, admin, "order ann ben cat").json()["code"] == "no_recorder"
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    assert client.get(f"/v1/games/{game}").json()["code"] == "unknown_game"
    assert append(client, game, admin, "order ann ben cat").json()["code"] == "no_recorder"
    token = client.post(f"/v1/games/{game}/recorder-token", headers=admin).json()["recorder_token"]
    recorder = {"Authorization": f"Bearer {token}"}
    assert append(client, game, recorder, "order ann ben cat").status_code == 200
    assert client.get(f"/v1/games/{game}", headers=recorder).json()["private"] is True


def test_games_are_exported_and_imported_as_files_and_bundles(client: TestClient, tmp_path: Path) -> None:
    imported = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    assert imported.status_code == 201
    game = imported.json()["game_id"]
    text = client.get(f"/v1/games/{game}/export").text
    assert text.rstrip().endswith("result 1 ann 19/4, 2 cat 14/3, 3 ben 13/4")
    bundle = client.get(f"/v1/games/{game}/export", params={"format": "bundle"}).content
    with client_for(str(tmp_path / "other.sqlite")) as other:
        moved = other.post("/v1/games/import", content=bundle, headers={"Content-Type": "application/msgpack"})
        assert moved.status_code == 201 and moved.json()["game_id"] == game
        assert other.get(f"/v1/games/{game}/export", params={"format": "bundle"}).content == bundle
    illegal = (ROOT / "tests" / "rulings" / "e2-02-move-beyond-legs.evo").read_text()
    refused = client.post("/v1/games/import", content=illegal, headers={"Content-Type": "text/plain"})
    assert refused.status_code == 422 and refused.json()["ruling"] == "E2-02" and refused.json()["line"] == 14
    wrong = client.post("/v1/games/import", content=b"x", headers={"Content-Type": "image/png"})
    assert wrong.status_code == 415


def test_a_game_is_audited_over_http_with_the_command_lines_report(client: TestClient, tmp_path: Path) -> None:
    imported = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"}).json()
    game, head = imported["game_id"], imported["head_hash"]
    answer = client.get(f"/v1/games/{game}/audit", params={"expect_head": head})
    assert answer.status_code == 200 and answer.json()["verdict"] == "clean"
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    assert answer.content == ledger.queries.audit(UUID(game), expect_head=head).canonical
    assert answer.headers["X-Report-Hash"] == answer.json()["report_hash"]
    partial = client.get(f"/v1/games/{game}/audit", params={"event": 40}).json()
    assert partial["events_audited"] == 40
    assert client.get(f"/v1/games/{game}/audit", params={"expect_head": "x"}).json()["code"] == "invalid_request"


def test_an_unfinished_game_with_a_held_card_is_audited_for_everyone_with_the_card_left_out(
    client: TestClient,
) -> None:
    game, recorder = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}").status_code == 200
    public = client.get(f"/v1/games/{game}/audit")
    drawn = client.get(f"/v1/games/{game}").json()["version"]  # the card drawn is the latest event
    assert public.json()["verdict"] == "clean" and public.json()["left_out"]["hidden_actions"] == [drawn]
    assert HELD_CARD not in public.text
    full = client.get(f"/v1/games/{game}/audit", headers=recorder).json()
    assert full["verdict"] == "clean" and "left_out" not in full
    settled = f"/v1/games/{game}/events/{len(ROUND_ONE_AUCTION) + 6}"
    first_bid = f"/v1/games/{game}/events/{len(ROUND_ONE_AUCTION) + 3}"
    for path, params in ((f"{settled}/explanation", {}), (f"{first_bid}/what-if", {"replace": "ann bid 3 eggs"})):
        answer = client.get(path, params=params)
        assert answer.status_code == 200 and HELD_CARD not in answer.text
    assert client.get(f"{settled}/explanation", headers=recorder).json()["kind"] == "auction"
    assert client.get(f"/v1/games/{game}/events/{drawn}/explanation").json()["code"] == "hidden_event"


def test_an_event_is_explained_and_branched_over_http_with_the_command_lines_reports(client: TestClient) -> None:
    imported = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"}).json()
    game = imported["game_id"]
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    roll = next(e.originator_version for e in ledger.queries.game_events(UUID(game)) if type(e).__name__ == "DieRolled")
    explained = client.get(f"/v1/games/{game}/events/{roll}/explanation")
    assert explained.status_code == 200 and explained.json()["kind"] == "combat"
    assert explained.content == ledger.queries.explain(ledger.queries.game(UUID(game)), roll).canonical
    assert explained.headers["X-Report-Hash"] == explained.json()["report_hash"]
    branch = client.get(f"/v1/games/{game}/events/{roll}/what-if", params={"replace": "roll x"})
    assert (
        branch.status_code == 200
        and branch.content == ledger.queries.what_if(ledger.queries.game(UUID(game)), roll, "roll x").canonical
    )
    dropped = client.get(f"/v1/games/{game}/events/{roll}/what-if", params={"drop": True}).json()
    assert dropped["change"]["becomes"] is None
    refusals = {
        "an event before the attack": client.get(f"/v1/games/{game}/events/{roll - 2}/explanation"),
        "explanation beyond the log": client.get(f"/v1/games/{game}/events/{imported['version'] + 1}/explanation"),
        "what-if with nothing to do": client.get(f"/v1/games/{game}/events/{roll}/what-if"),
        "what-if with both": client.get(f"/v1/games/{game}/events/{roll}/what-if?drop=true&replace=roll+x"),
        "illegal replacement": client.get(f"/v1/games/{game}/events/{roll}/what-if", params={"replace": "ann pass"}),
    }
    codes = {name: (answer.status_code, answer.json()["code"]) for name, answer in refusals.items()}
    assert codes == {
        "an event before the attack": (422, "not_explainable"),
        "explanation beyond the log": (422, "not_explainable"),
        "what-if with nothing to do": (422, "invalid_request"),
        "what-if with both": (422, "invalid_request"),
        "illegal replacement": (422, "not_explainable"),
    }


def test_event_numbers_beyond_what_a_store_holds_are_refused_not_sent_to_the_database(client: TestClient) -> None:
    game, recorder = new_game(client)
    huge = str(2**64)
    refused = [
        client.get(f"/v1/games/{game}/events", params={"after": huge}),
        client.get(f"/v1/games/{game}/state", params={"at": huge}),
        client.get(f"/v1/games/{game}/audit", params={"event": huge}),
        client.get(f"/v1/games/{game}/events/{huge}/explanation"),
        client.get(f"/v1/games/{game}/stream", params={"after": huge}),
        client.get(f"/v1/games/{game}/stream", headers={"Last-Event-ID": huge}),
        client.post(
            f"/v1/games/{game}/actions", json={"actions": ["climate cw"], "expected_version": 2**64}, headers=recorder
        ),
    ]
    assert [(answer.status_code, answer.json()["code"]) for answer in refused] == [(422, "invalid_request")] * 7
    assert client.get(f"/v1/games/{game}/events", params={"after": str(2**63 - 1)}).json()["events"] == []


def test_a_game_imported_twice_over_http_is_found_stored_and_named(client: TestClient) -> None:
    first = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    assert first.status_code == 201
    again = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    assert again.status_code == 409 and again.json()["code"] == "already_stored"
    assert first.json()["game_id"] in again.json()["message"]
    assert len(client.get("/v1/games").json()["games"]) == 1


def test_an_actions_kind_is_the_notations_word_and_the_old_names_still_read(client: TestClient) -> None:
    game, recorder = new_game(client)
    words: list[dict[str, Any]] = [
        {"kind": "order", "players": ["ann", "ben", "cat"]},
        {"kind": "climate", "token": "cw"},
    ]
    assert append(client, game, recorder, *words, {"kind": "draw", "gene": "legs"}).status_code == 200
    assert append(client, game, recorder, {"kind": "draw_gene", "gene": "eggs"}).status_code == 200
    unknown = append(client, game, recorder, {"kind": "dance"})
    assert unknown.status_code == 422 and "expected one of attack, bid, birth, climate, draw" in unknown.text
    assert "draw_gene" not in unknown.text


def test_a_served_view_gives_the_round_phase_and_step_apart_from_its_headline(client: TestClient) -> None:
    """`/view`, `/state` and the summary serve the round, the phase and what is awaited that the headline says."""
    answer = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 201, answer.text
    game = answer.json()["game_id"]
    first = client.get(f"/v1/games/{game}/view", params={"at": 1}).json()
    assert (first["round"], first["phase"], first["step"]) == (1, "order", "the clan markers' order to be drawn")
    bidding = client.get(f"/v1/games/{game}/state", params={"at": 10}).json()
    assert (bidding["round"], bidding["phase"], bidding["step"]) == (1, "auction", "ben to bid")
    for at in (1, 10, 14, 40):
        for route in ("view", "state"):
            served = client.get(f"/v1/games/{game}/{route}", params={"at": at}).json()
            assert served["headline"] == f"round {served['round']} · {served['phase']} · {served['step']}", served
    summary = client.get(f"/v1/games/{game}").json()
    assert (summary["status"], summary["round"], summary["phase"], summary["step"]) == ("over", 10, "over", "")
    assert summary["headline"] == "game over after round 10"
    latest = client.get(f"/v1/games/{game}/view").json()
    assert {key: latest[key] for key in ("headline", "round", "phase", "step")} == {
        key: summary[key] for key in ("headline", "round", "phase", "step")
    }
    listed = client.get("/v1/games").json()["games"]
    assert [(g["round"], g["phase"], g["step"]) for g in listed] == [(10, "over", "")]


def test_an_answer_to_a_token_is_kept_by_no_cache_for_the_next_reader(client: TestClient) -> None:
    game, recorder = new_game(client)
    assert append(client, game, recorder, "order ann ben cat").status_code == 200
    for path in (f"/v1/games/{game}/setup", f"/v1/games/{game}/state", f"/v1/games/{game}/events"):
        assert client.get(path, headers=recorder).headers["cache-control"] == "no-store", path
        assert client.get(path).headers.get("cache-control") != "no-store", path
