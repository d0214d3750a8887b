"""The game as the recording page's rules keep it on the device (`evo_ledger.rules.judge.Table`), opened from
`GET /v1/games/{id}/setup`: its position, state, legal actions, advice and next words equal the server's answers
to the recorder, all through a hand-made game of each ruleset; the setup is the recorders' alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import SetupError
from evo_ledger.rules.judge import Table
from evo_ledger.rules.kits import load_kit_document
from tests.helpers.support import ROOT

HAND_MADE = {
    "evo2": "hand-3p-first-game.evo",
    "evo1": "evo1-hand-3p.evo",
    "autosaurs": "evo1-autosaur-hand-3p.evo",
    "traits": "traits-hand-2p.evo",
}
STRIDE = 23  # the positions compared: every 23rd action's, and the last


def new_game(client: TestClient, name: str) -> tuple[str, dict[str, str], list[str]]:
    """The hand-made game's setup as a new game: its id, its recorder's headers and the file's actions."""
    parsed = parse_game((ROOT / "replays" / name).read_text())
    header = parsed.header
    body = {"kit": header.kit, "players": [{"name": player} for player in header.players], "options": header.options}
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    recorder = {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    return created.json()["game_id"], recorder, [line.text for line in parsed.actions]


def asked(client: TestClient, path: str, headers: dict[str, str], **params: Any) -> Any:
    answer = client.get(path, headers=headers, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def served_position(client: TestClient, game: str, recorder: dict[str, str]) -> dict[str, Any]:
    view = asked(client, f"/v1/games/{game}/view", recorder)
    legal = asked(client, f"/v1/games/{game}/legal", recorder)
    state = asked(client, f"/v1/games/{game}/state", recorder)["state"]
    shown = {key: view[key] for key in ("headline", "round", "phase", "step", "players", "table", "layout")}
    return {**shown, "state": state, "actions": legal["actions"], "advice": legal["advice"]}


def served_choices(client: TestClient, game: str, recorder: dict[str, str], words: list[str]) -> dict[str, Any]:
    choices = asked(client, f"/v1/games/{game}/choices", recorder, words=" ".join(words), forced="true")
    return {key: choices[key] for key in ("words", "forced", "next", "complete")}


def opened(client: TestClient, game: str, recorder: dict[str, str]) -> Table:
    setup = asked(client, f"/v1/games/{game}/setup", recorder)
    rules = {key: setup[key] for key in ("ruleset", "kit", "players", "options")} | {
        "version": setup["ruleset_version"]
    }
    return Table.of_json(json.dumps({"setup": rules, "actions": setup["actions"]}))


@pytest.mark.parametrize("ruleset", sorted(HAND_MADE))
def test_the_table_on_the_device_shows_what_the_server_shows_the_recorder(client: TestClient, ruleset: str) -> None:
    game, recorder, actions = new_game(client, HAND_MADE[ruleset])
    table = opened(client, game, recorder)
    for start in range(0, len(actions), STRIDE):
        step = actions[start : start + STRIDE]
        for text in step:
            assert "consequences" in table.enter(text), text
        appended = client.post(f"/v1/games/{game}/actions", json={"actions": step}, headers=recorder)
        assert appended.status_code == 200, appended.text
        assert table.position() == served_position(client, game, recorder), f"after {start + len(step)} actions"
        upcoming = actions[start + STRIDE].split() if start + STRIDE < len(actions) else []
        for count in range(len(upcoming) + 1):
            words = upcoming[:count]
            assert table.choices(words) == served_choices(client, game, recorder, words), words
    again = opened(client, game, recorder)  # opened afresh on the whole game, as a reloaded page does
    assert again.position() == table.position() and again.entered == len(actions)


def test_the_device_table_answers_its_worker_in_one_message_and_applies_a_legal_entry_alone(
    client: TestClient,
) -> None:
    """[E2-01] the order is decided before the climate: an entry out of its phase is refused, and changes nothing."""
    game, recorder, actions = new_game(client, HAND_MADE["evo2"])
    table = opened(client, game, recorder)
    before = table.position()
    refused = json.loads(table.answer_json(json.dumps({"enter": "climate cw", "position": None})))
    assert refused["enter"]["ruling"] == "E2-01" and refused["position"] == before and table.entered == 0
    answered = json.loads(table.answer_json(json.dumps({"enter": actions[0], "position": None, "choices": []})))
    assert answered["enter"]["consequences"] and table.entered == 1
    assert answered["position"] == table.position() != before
    assert answered["choices"] == table.choices([])
    looked = json.loads(table.answer_json(json.dumps({"ahead": [actions[1], actions[0]]})))["ahead"]
    assert table.entered == 1 and looked[1]["enter"]["ruling"] == "E2-01" and "position" not in looked[1]
    entered = json.loads(table.answer_json(json.dumps({"enter": actions[1], "position": None, "choices": []})))
    assert looked[0] == entered  # what an action would lead to, tried without entering it
    words = [[word] for word in table.choices([])["next"]]
    following = json.loads(table.answer_json(json.dumps({"following": words})))["following"]
    assert following == [table.choices(listed) for listed in words]


def test_the_setup_holding_every_hidden_fact_is_given_to_those_who_record_the_game_alone(client: TestClient) -> None:
    created = client.post(
        "/v1/games",
        json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")], "seat_tokens": True},
    ).json()
    path = f"/v1/games/{created['game_id']}/setup"
    seat = client.get(path, headers={"Authorization": f"Bearer {created['seat_tokens']['ann']}"})
    public = client.get(path)
    assert (seat.status_code, seat.json()["code"]) == (403, "token_refused")
    assert (public.status_code, public.json()["code"]) == (403, "token_refused")
    recorder = client.get(path, headers={"Authorization": f"Bearer {created['recorder_token']}"})
    assert recorder.status_code == 200 and recorder.json()["players"] == ["ann", "ben", "cat"]


def test_a_table_opened_on_actions_the_rules_refuse_names_the_first() -> None:
    setup = {"ruleset": "evo2", "kit": load_kit_document("standin-e2-3p")[0], "players": ["ann", "ben", "cat"]}
    with pytest.raises(SetupError, match=r"action 1 \('climate cw'\) is refused"):
        Table(setup, ["climate cw"])
