"""Answers that quote the rules are made for their reader: a refusal, a legal list or a branch that rests on a
player's hidden facts (a hand, a held card, a peek) tells a reader who may not see them nothing of them. Each test
asks the public the same question of two games that differ only in a hidden fact, and gets the same answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.cli.main import main
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION

TEXT = {"Content-Type": "text/plain"}
PEEKED_ROUND = (
    "order ann ben cat",
    "climate cw",
    "draw sixth_sense",
    "draw eggs",
    "ann bid 2 sixth_sense",
    "ben bid 1 eggs",
    "cat bid 0 card",
    "ann peek {token}",
    "cat pass",
    "ann pass",
    "ben pass",
    "cat pass",
    "ann pass",
    "ben pass",
    "ben pass",
)


def game_file(ruleset: str, kit: str, players: str, actions: list[str]) -> str:
    return "\n".join([f"ruleset {ruleset}", f"kit {kit}", f"players {players}", *actions]) + "\n"


def imported(client: TestClient, text: str) -> tuple[str, dict[str, str]]:
    answer = client.post("/v1/games/import", content=text, headers={**TEXT, "Authorization": f"Bearer {ADMIN}"})
    assert answer.status_code == 201, answer.text
    return answer.json()["game_id"], {"Authorization": f"Bearer {answer.json()['recorder_token']}"}


def actions_of(replay: str, through: str) -> tuple[str, list[str]]:
    """A shipped game's header and its actions up to and including the first line that starts with `through`."""
    lines = [line for line in (ROOT / "replays" / replay).read_text().splitlines() if line and line[0] != "#"]
    header, actions = lines[:3], lines[3:]
    end = next(index for index, line in enumerate(actions) if line.startswith(through))
    return "\n".join(header), actions[: end + 1]


def answer(client: TestClient, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    got = client.get(path, headers=headers)
    return got.status_code, got.json()


def event_of(client: TestClient, game: str, notation: str, headers: dict[str, str]) -> int:
    events = client.get(f"/v1/games/{game}/events", params={"limit": 1000}, headers=headers).json()["events"]
    number: int = next(e["number"] for e in events if e["fields"].get("notation") == notation)
    return number


def test_the_legal_actions_after_a_peek_are_the_same_to_the_public_whichever_token_was_peeked_E2_16(
    client: TestClient,
) -> None:
    public, recorded = [], []
    for token in ("acw", "zero"):
        actions = [action.format(token=token) for action in PEEKED_ROUND]
        game, recorder = imported(client, game_file("evo2 1", "standin-e2-3p", "ann ben cat", actions))
        public.append(answer(client, f"/v1/games/{game}/legal"))
        recorded.append(answer(client, f"/v1/games/{game}/legal", recorder)[1]["actions"])
    assert public[0] == public[1] and public[0][0] == 200
    assert not any(action.startswith("climate") for action in public[0][1]["actions"])
    assert recorded == [["climate acw"], ["climate zero"]]  # the recorder sees what the peek allows


def test_a_what_if_with_a_card_play_tells_the_public_nothing_of_the_hand_E2_15(client: TestClient) -> None:
    answers = []
    for held in ("Heatwave", "Ambush"):
        actions = [*ROUND_ONE_AUCTION, f"cat drew {held}", "cat pass"]
        game, recorder = imported(client, game_file("evo2 1", "standin-e2-3p", "ann ben cat", actions))
        passed = event_of(client, game, "cat pass", recorder)
        asked = [
            answer(client, f"/v1/games/{game}/events/{passed}/what-if?replace=cat%20play%20{card}")
            for card in ("Heatwave", "Ambush", "zzz")
        ]
        assert {status for status, _ in asked} == {403} and all(body["code"] == "hidden_facts" for _, body in asked)
        assert "holds" not in str(asked)
        recorded = answer(client, f"/v1/games/{game}/events/{passed}/what-if?replace=cat%20play%20zzz", recorder)
        assert recorded[0] == 422 and f"cat holds {held}, not zzz" in recorded[1]["message"]
        answers.append(asked)
    assert answers[0] == answers[1]


def test_a_what_if_with_a_hunt_tells_the_public_nothing_of_the_hand_TR_08(client: TestClient) -> None:
    header, actions = actions_of("traits-hand-2p.evo", "ann hunt")
    game, recorder = imported(client, header + "\n" + "\n".join(actions) + "\n")
    hunt = event_of(client, game, actions[-1], recorder)
    asked = [
        client.get(f"/v1/games/{game}/events/{hunt}/what-if", params={"replace": replacement})
        for replacement in ("ann hunt grazer-2 size size agility", "ann hunt grazer-2 size size endurance")
    ]
    assert [a.status_code for a in asked] == [403, 403] and asked[0].json()["code"] == "hidden_facts"
    assert "hand holds" not in asked[1].text
    refused = client.get(
        f"/v1/games/{game}/events/{hunt}/what-if",
        params={"replace": "ann hunt grazer-2 size size endurance"},
        headers=recorder,
    )
    assert refused.status_code == 422 and "TR-08" in refused.text and "hand holds" in refused.text


def test_a_what_if_with_a_card_play_answers_alike_for_held_and_other_cards_E1_23(client: TestClient) -> None:
    header, actions = actions_of("evo1-hand-3p.evo", "survival")
    game, recorder = imported(client, header + "\n" + "\n".join(actions) + "\n")
    last = event_of(client, game, actions[-1], recorder)
    cards = ("heat_stroke", "peace_treaty", "no_fighting")  # ann holds the first, cat the second, ben the third
    asked = [
        client.get(f"/v1/games/{game}/events/{last}/what-if", params={"replace": f"ann play {card}"}) for card in cards
    ]
    assert {a.status_code for a in asked} == {403}
    assert len({a.text.replace(card, "CARD") for a, card in zip(asked, cards, strict=True)}) == 1


def test_the_command_line_answers_as_a_seat_or_the_public_would_be_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database, game = str(tmp_path / "games.sqlite"), tmp_path / "held.evo"
    game.write_text(game_file("evo2 1", "standin-e2-3p", "ann ben cat", [*ROUND_ONE_AUCTION, "cat drew Heatwave"]))
    assert main(["import", str(game), "--database", database]) == 0
    capsys.readouterr()
    logs = {}
    for reader in ("public", "ann", "cat"):
        assert main(["log", "last", "--as", reader, "--database", database]) == 0
        logs[reader] = capsys.readouterr().out
    assert "Heatwave" in logs["cat"] and "Heatwave" not in logs["public"] + logs["ann"]
    assert "an action of cat, hidden from this reader" in logs["ann"]
    assert (
        main(["what-if", "last", "2", "--replace", "cat play Heatwave", "--as", "public", "--database", database]) == 2
    )
    assert "rests on cat's hidden facts" in capsys.readouterr().err
    assert main(["explain", "last", "15", "--as", "ann", "--database", database]) == 2
    assert "hidden from this reader" in capsys.readouterr().err
    assert main(["log", "last", "--as", "dan", "--database", database]) == 2
    assert "--as 'dan': not a seat of the game" in capsys.readouterr().err


def test_a_branch_stops_before_an_action_hidden_from_its_reader_whatever_it_hides_E2_16(client: TestClient) -> None:
    answers = []
    for token in ("acw", "zero"):
        actions = [action.format(token=token) for action in PEEKED_ROUND]
        game, _ = imported(client, game_file("evo2 1", "standin-e2-3p", "ann ben cat", actions))
        branch = client.get(f"/v1/games/{game}/events/4/what-if", params={"replace": "climate zero"})
        assert branch.status_code == 200, branch.text
        answers.append(branch.json())
    for report in answers:
        del report["game"], report["report_hash"]
    assert answers[0] == answers[1]
    assert answers[0]["branch"]["stopped_at"] == {
        "event": 15,  # ann's peek
        "action": "ann: hidden until revealed",
        "reason": "an action hidden from this reader: the branch goes no further for it",
    }


def test_a_seat_may_not_branch_with_a_draw_which_rests_on_every_other_hand_E1_23(client: TestClient) -> None:
    _, actions = actions_of("evo1-hand-3p.evo", "survival")
    created = client.post(
        "/v1/games",
        json={"kit": "standin-e1-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")], "seat_tokens": True},
    ).json()
    recorder = {"Authorization": f"Bearer {created['recorder_token']}"}
    game = created["game_id"]
    assert client.post(f"/v1/games/{game}/actions", json={"actions": actions[:7]}, headers=recorder).status_code == 200
    ben = {"Authorization": f"Bearer {created['seat_tokens']['ben']}"}
    own_draw = event_of(client, game, actions[3], recorder)
    asked = [
        client.get(f"/v1/games/{game}/events/{own_draw}/what-if", params={"replace": f"ben drew {card}"}, headers=ben)
        for card in ("heat_stroke", "stampede")
    ]
    assert [a.status_code for a in asked] == [403, 403] and all(a.json()["code"] == "hidden_facts" for a in asked)
