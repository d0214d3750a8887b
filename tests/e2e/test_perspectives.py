"""Reading as another: a token may read a game as one who sees less (`?as=public`, `?as=SEAT`), on every endpoint
that answers a reader, and is answered exactly as that reader would be; never as one who sees more."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.e2e.test_api import client_for
from tests.e2e.test_seat_readers import every_answer, seated_game


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with client_for(database) as test_client:
        yield test_client


def test_the_recorder_reads_as_the_public_and_as_each_seat_exactly_as_they_would(client: TestClient) -> None:
    game, readers = seated_game(client)
    recorder = readers["recorder"]
    for who in ("public", "ann", "cat"):
        narrowed = every_answer(client, game, recorder, who)
        assert narrowed == every_answer(client, game, readers[who]), who


def test_a_seat_reads_as_the_public_but_not_as_another_seat(client: TestClient) -> None:
    game, readers = seated_game(client)
    cat = readers["cat"]
    as_public = client.get(f"/v1/games/{game}/state?as=public", headers=cat)
    assert as_public.json() == client.get(f"/v1/games/{game}/state", headers=readers["public"]).json()
    refused = client.get(f"/v1/games/{game}/state?as=ann", headers=cat)
    assert refused.status_code == 403 and refused.json()["code"] == "perspective_refused"
    refused = client.get(f"/v1/games/{game}/view?as=cat", headers=readers["public"])
    assert refused.status_code == 403 and refused.json()["code"] == "perspective_refused"
    unknown = client.get(f"/v1/games/{game}/view?as=dora", headers=readers["recorder"])
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_perspective"
    assert "ann, ben, cat" in unknown.json()["message"]
