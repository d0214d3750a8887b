"""The ids of the records kept beside the games (a competition's, a person's, a stored kit's) are public or follow
from public values: a game's route asked with one answers as for a game never stored, never a server error."""

from __future__ import annotations

from fastapi.testclient import TestClient

from evo_ledger.app.people import person_record_id
from evo_ledger.app.stored_kits import stored_kit_id
from tests.helpers.servers import ADMIN
from tests.helpers.tokens import bearer

TOY_KIT = {"format": 1, "ruleset": "toy", "name": "toy-ids", "stand_in": False, "players": 2, "target": 12}


def other_records(client: TestClient) -> dict[str, str]:
    """A competition, a person and a stored kit, each by its record's id."""
    admin = bearer(ADMIN)
    competition = client.post("/v1/competitions", json={"kind": "night", "name": "ids"}, headers=admin)
    person = client.post("/v1/people", json={"name": "Ann Smith"}, headers=admin)
    kit = client.post("/v1/kits", json=TOY_KIT, headers=admin)
    assert (competition.status_code, person.status_code, kit.status_code) == (201, 201, 201)
    return {
        "competition": competition.json()["competition_id"],
        "person": str(person_record_id(person.json()["person_id"])),
        "kit": str(stored_kit_id(kit.json()["kit_hash"])),
    }


def test_a_game_route_asked_with_another_records_id_answers_unknown_game(client: TestClient) -> None:
    for kind, record in other_records(client).items():
        for answer in (
            client.get(f"/v1/games/{record}"),
            client.get(f"/v1/games/{record}/state"),
            client.post(f"/v1/games/{record}/actions", json={"actions": ["ann roll 1"]}, headers=bearer(ADMIN)),
            client.post(f"/v1/games/{record}/actions", json={"actions": ["ann roll 1"]}),
            client.post(f"/v1/games/{record}/withdraw", json={"reason": "a test"}, headers=bearer(ADMIN)),
        ):
            assert answer.status_code == 404, (kind, answer.status_code, answer.text)
            assert answer.json()["code"] == "unknown_game", (kind, answer.text)
