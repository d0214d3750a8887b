"""Kits stored on the server over HTTP: a kit its ruleset accepts is stored once under its content hash, listed,
read and started on by that hash; one it refuses, one too large and one past a caller's count are refused as
docs/api.md says, and store nothing; the admin alone removes a kit, one no game was started on, by an event."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.stored_kits import MAX_STORED_KIT_BYTES, KitShelf, StoredKit
from evo_ledger.rules.kits import builtin_kit_names, canonical_hash, load_kit_document
from tests.helpers.api import PLAYERS, append, client_for
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.tokens import bearer

SHIPPED = load_kit_document("standin-e2-3p")[0]


def island(name: str = "our-island") -> dict[str, Any]:
    """The shipped 3-player island of the 2nd edition, under a name of its own: a kit no server ships."""
    return {**copy.deepcopy(SHIPPED), "name": name}


def ledger_of(client: TestClient) -> Ledger:
    ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return ledger


def log_length(client: TestClient) -> int:
    return ledger_of(client).store.recorder.max_notification_id() or 0


def topics_after(client: TestClient, position: int) -> list[str]:
    return [notification.topic for notification in ledger_of(client).queries.notifications_after(position)]


@pytest.fixture
def two_a_caller(database: str) -> Iterator[TestClient]:
    """The API where a caller may hold two stored kits."""
    with client_for(database, kits_per_caller=2) as test_client:
        yield test_client


def test_a_kit_is_stored_once_under_its_content_hash(client: TestClient) -> None:
    kit = island()
    first = client.post("/v1/kits", json=kit)
    assert first.status_code == 201, first.text
    assert first.json() == {
        "kit": canonical_hash(kit),
        "ruleset": "evo2",
        "min_players": 3,
        "max_players": 3,
        "seat_marks": [],
        "name": "our-island",
        "kit_hash": canonical_hash(kit),
        "stored": True,
    }
    stored = log_length(client)
    again = client.post("/v1/kits", json=dict(reversed(list(kit.items()))))  # the same kit, its keys in another order
    assert (again.status_code, again.json()) == (200, first.json())
    assert log_length(client) == stored, "the same kit twice is one kit"


def test_a_built_in_kits_document_is_known_already_and_not_stored(client: TestClient) -> None:
    before = log_length(client)
    answer = client.post("/v1/kits", json=SHIPPED)
    assert answer.status_code == 200
    assert answer.json()["kit"] == "standin-e2-3p" and answer.json()["stored"] is False
    assert log_length(client) == before


def test_a_kit_its_ruleset_refuses_is_refused_naming_the_field_and_stores_nothing(client: TestClient) -> None:
    kit = island()
    kit["start_marks"]["1"] = ["Z9", *kit["start_marks"]["1"][1:]]  # a start mark on a space the island lacks
    before = log_length(client)
    refused = client.post("/v1/kits", json=kit)
    assert refused.status_code == 422
    assert refused.json()["code"] == "invalid_kit"
    assert "start_marks.1" in refused.json()["message"] and "'Z9'" in refused.json()["message"]
    assert log_length(client) == before
    no_ruleset = client.post("/v1/kits", json={"name": "nothing"})
    assert (no_ruleset.status_code, no_ruleset.json()["code"]) == (422, "invalid_kit")
    assert log_length(client) == before


def test_a_kit_over_the_size_limit_is_refused_and_stores_nothing(client: TestClient) -> None:
    """The `note`, which the ruleset takes as it is, fills the kit to the limit as canonical JSON, then one past."""
    kit = island()
    kit["note"] = "x" * (MAX_STORED_KIT_BYTES - canonical_size({**kit, "note": ""}) + 1)
    before = log_length(client)
    refused = client.post("/v1/kits", json=kit)
    assert (refused.status_code, refused.json()["code"]) == (413, "kit_too_large")
    assert f"{MAX_STORED_KIT_BYTES + 1:,} bytes" in refused.json()["message"]
    assert log_length(client) == before
    kit["note"] = kit["note"][1:]
    assert client.post("/v1/kits", json=kit).status_code == 201, "a kit of the limit itself is stored"


def canonical_size(kit: dict[str, Any]) -> int:
    return len(json.dumps(kit, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())


def test_a_caller_past_its_count_is_refused_until_the_admin_removes_one_of_its_kits(two_a_caller: TestClient) -> None:
    client = two_a_caller
    first, second = (client.post("/v1/kits", json=island(name)).json()["kit_hash"] for name in ("one", "two"))
    before = log_length(client)
    refused = client.post("/v1/kits", json=island("three"))
    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_kits")
    assert log_length(client) == before
    assert client.post("/v1/kits", json=island("one")).status_code == 200, "a kit stored already is not counted again"
    admin = bearer(ADMIN)
    assert client.post("/v1/kits", json=island("the admin's"), headers=admin).status_code == 201
    assert client.post("/v1/kits", json=island("three"), headers=bearer("any-token")).status_code == 409
    assert client.delete(f"/v1/kits/{first}", headers=admin).status_code == 204
    assert client.post("/v1/kits", json=island("three")).status_code == 201, "the removal freed a place"
    assert second in {kit["kit"] for kit in client.get("/v1/kits").json()["kits"]}


def test_a_game_is_started_on_a_stored_kits_hash_and_recorded(client: TestClient) -> None:
    kit = island()
    kit_hash = client.post("/v1/kits", json=kit).json()["kit_hash"]
    created = client.post("/v1/games", json={"kit": kit_hash, "players": PLAYERS})
    assert created.status_code == 201, created.text
    game, recorder = created.json()["game_id"], bearer(created.json()["recorder_token"])
    recorded = append(client, game, recorder, ROUND_ONE_AUCTION[0])
    assert recorded.status_code == 200, recorded.text
    summary = client.get(f"/v1/games/{game}").json()
    assert summary["version"] == recorded.json()["version"] > 1
    assert (summary["kit"], summary["kit_hash"], summary["ruleset"]) == ("our-island", kit_hash, "evo2")
    setup = client.get(f"/v1/games/{game}/setup", headers=recorder).json()
    assert setup["kit"] == kit, "the game carries the kit's whole document"


def test_a_game_on_a_hash_no_kit_has_is_refused(client: TestClient) -> None:
    unknown = "sha256:" + "0" * 64
    refused = client.post("/v1/games", json={"kit": unknown, "players": PLAYERS})
    assert (refused.status_code, refused.json()["code"]) == (404, "unknown_kit")
    not_a_hash = client.post("/v1/games", json={"kit": "sha256:xyz", "players": PLAYERS})
    assert (not_a_hash.status_code, not_a_hash.json()["code"]) == (422, "invalid_request")


def test_the_list_gives_the_built_in_kits_as_before_then_the_stored_ones(client: TestClient) -> None:
    kit_hash = client.post("/v1/kits", json=island()).json()["kit_hash"]
    listed = client.get("/v1/kits").json()["kits"]
    built_in = [entry for entry in listed if not entry["stored"]]
    assert [entry["kit"] for entry in built_in] == builtin_kit_names()
    three = next(entry for entry in built_in if entry["kit"] == "standin-e2-3p")
    assert three["kit_hash"] == canonical_hash(SHIPPED) and three["name"] == "standin-e2-3p"
    assert [entry for entry in listed if entry["stored"]] == [
        {**three, "kit": kit_hash, "kit_hash": kit_hash, "name": "our-island", "stored": True}
    ]
    assert client.get(f"/v1/kits/{kit_hash}").json() == island()
    assert client.get(f"/v1/kits/{canonical_hash(SHIPPED)}").json() == SHIPPED
    for unknown in ("sha256:" + "0" * 64, "standin-e2-3p"):
        missing = client.get(f"/v1/kits/{unknown}")
        assert (missing.status_code, missing.json()["code"]) == (404, "unknown_kit")


def test_the_admin_removes_a_kit_no_game_uses_by_an_event_and_it_may_be_stored_again(client: TestClient) -> None:
    kit_hash = client.post("/v1/kits", json=island()).json()["kit_hash"]
    before = log_length(client)
    assert client.delete(f"/v1/kits/{kit_hash}", headers=bearer(ADMIN)).status_code == 204
    assert topics_after(client, before) == [StoredKit.Removed.TOPIC, KitShelf.KitUncounted.TOPIC], (
        "the removal is an event of the kit's record, and of the shelf of the caller that stored it"
    )
    gone = client.get(f"/v1/kits/{kit_hash}")
    assert (gone.status_code, gone.json()["code"]) == (404, "unknown_kit")
    assert kit_hash not in {kit["kit"] for kit in client.get("/v1/kits").json()["kits"]}
    refused = client.post("/v1/games", json={"kit": kit_hash, "players": PLAYERS})
    assert (refused.status_code, refused.json()["code"]) == (404, "unknown_kit")
    again = client.delete(f"/v1/kits/{kit_hash}", headers=bearer(ADMIN))
    assert (again.status_code, again.json()["code"]) == (404, "unknown_kit")
    assert client.post("/v1/kits", json=island()).status_code == 201, "a kit removed is stored again"
    assert client.get(f"/v1/kits/{kit_hash}").json() == island()


def test_a_kit_a_game_was_started_on_stays(client: TestClient) -> None:
    kit_hash = client.post("/v1/kits", json=island()).json()["kit_hash"]
    assert client.post("/v1/games", json={"kit": kit_hash, "players": PLAYERS}).status_code == 201
    refused = client.delete(f"/v1/kits/{kit_hash}", headers=bearer(ADMIN))
    assert (refused.status_code, refused.json()["code"]) == (409, "kit_in_use")
    built_in = client.delete(f"/v1/kits/{canonical_hash(SHIPPED)}", headers=bearer(ADMIN))
    assert (built_in.status_code, built_in.json()["code"]) == (409, "kit_built_in")
    assert client.get(f"/v1/kits/{kit_hash}").status_code == 200


def test_only_the_admin_removes_a_kit(client: TestClient) -> None:
    kit_hash = client.post("/v1/kits", json=island()).json()["kit_hash"]
    created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).json()
    before = log_length(client)
    stranger = client.delete(f"/v1/kits/{kit_hash}")
    assert (stranger.status_code, stranger.json()["code"]) == (401, "token_required")
    recorder = client.delete(f"/v1/kits/{kit_hash}", headers=bearer(created["recorder_token"]))
    assert (recorder.status_code, recorder.json()["code"]) == (403, "token_refused")
    assert log_length(client) == before
    assert client.get(f"/v1/kits/{kit_hash}").status_code == 200


def test_a_kit_with_a_string_that_is_no_text_is_refused_and_stores_nothing(client: TestClient) -> None:
    """JSON's escapes reach a lone surrogate, which no UTF-8 text holds: refused, never a server error."""
    before = log_length(client)
    body = json.dumps(island()).replace('"our-island"', '"our-\\ud800island"')
    refused = client.post("/v1/kits", content=body, headers={"Content-Type": "application/json"})
    assert (refused.status_code, refused.json()["code"]) == (422, "invalid_kit")
    assert "lone surrogate" in refused.json()["message"] and log_length(client) == before


def test_a_kit_a_game_imported_whole_was_started_on_stays(client: TestClient, tmp_path: Any) -> None:
    """A game started elsewhere on the same kit, and imported here as a bundle, keeps the kit as a game started here
    does."""
    kit_hash = client.post("/v1/kits", json=island()).json()["kit_hash"]
    with client_for(str(tmp_path / "elsewhere.sqlite")) as elsewhere:
        assert elsewhere.post("/v1/kits", json=island()).json()["kit_hash"] == kit_hash
        created = elsewhere.post("/v1/games", json={"kit": kit_hash, "players": PLAYERS}).json()
        recorder = bearer(created["recorder_token"])
        bundle = elsewhere.get(f"/v1/games/{created['game_id']}/export?format=bundle", headers=recorder).content
    imported = client.post("/v1/games/import", content=bundle, headers={"Content-Type": "application/msgpack"})
    assert imported.status_code == 201, imported.text
    refused = client.delete(f"/v1/kits/{kit_hash}", headers=bearer(ADMIN))
    assert (refused.status_code, refused.json()["code"]) == (409, "kit_in_use")
