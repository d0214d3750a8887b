"""Reading as another: a token may read a game as one who sees less (`?as=public`, `?as=SEAT`), on every endpoint
that answers a reader, and is answered exactly as that reader would be; never as one who sees more."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from api.deps import Reader, lost_access, narrowed
from tests.helpers.seats import every_answer, seated_game


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


def test_a_public_reader_reading_as_the_public_is_not_told_it_lost_access(client: TestClient) -> None:
    game, _ = seated_game(client)
    answer = client.get(f"/v1/games/{game}/events?as=public")
    assert answer.status_code == 200
    # The stream's check, asked directly: a live stream never ends in a test client.
    public = narrowed(Reader(UUID(game), sees_all=False), "public", ["ann", "ben", "cat"])
    assert not public.narrowed and lost_access(public, app_of(client).state.ledger.vouched.access(UUID(game))) is None


def app_of(client: TestClient) -> Any:
    return client.app


def test_a_player_may_not_take_a_name_a_game_file_line_begins_with(client: TestClient) -> None:
    players = [{"name": "ann"}, {"name": "hidden"}, {"name": "cat"}]
    refused = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players})
    assert refused.status_code == 422 and "'hidden' cannot be a player's name" in refused.text


def test_the_view_names_the_seat_it_was_made_for(client: TestClient) -> None:
    """A seat's token is answered as its seat, and so is the recorder reading as a seat; the recorder and the public
    are answered as no seat, and so is a seat reading as the public."""
    game, readers = seated_game(client)
    for headers, perspective, seat in (
        (readers["ann"], "", "ann"),
        (readers["recorder"], "cat", "cat"),
        (readers["recorder"], "", None),
        (readers["public"], "", None),
        (readers["ann"], "public", None),
    ):
        asked = {"as": perspective} if perspective else {}
        view = client.get(f"/v1/games/{game}/view", params=asked, headers=headers).json()
        assert view["seat"] == seat, (headers, perspective)
