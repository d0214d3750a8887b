"""A hidden action cannot be recovered from what a reader who may not see it is given: each public route is
searched by brute force over every action it could be, and nothing matches. Once revealed, the audit verifies
it like any other."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import HIDDEN
from evo_ledger.game.aggregate import event_hash, hidden_commitment
from tests.helpers.api import HELD_CARD, append, client_for, new_game
from tests.helpers.servers import ADMIN
from tests.helpers.stored import FIXTURES, game_id_of
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.tampering import Tamperer

TEXT = {"Content-Type": "text/plain"}
CARD_NAMES = ("Ambush", "Heatwave", "Nest", "Migration", "Drought", "Earthquake", "Stampede", "Volcano")
CLIMATE_TOKENS = ("cw", "ccw", "acw", "hot", "cold", "meteorite", "2cw", "2acw")
PEEK_GAME = (
    "order ann ben cat",
    "climate cw",
    "draw sixth_sense",
    "draw eggs",
    "ann bid 2 sixth_sense",
    "ben bid 1 eggs",
    "cat bid 0 card",
    "ann peek acw",
)


def candidates(owner: str) -> list[str]:
    """Every action the hidden one could be: a card drawn or a token peeked."""
    return [f"{owner} drew {card}" for card in CARD_NAMES] + [f"{owner} peek {token}" for token in CLIMATE_TOKENS]


def recovered(event: dict[str, Any], game_id: str) -> list[str]:
    """The candidates that the public fields single out: one whose hash over the fields (the action in place of
    its commitment) is the one given, or whose commitment, with the salt given, is the one given."""
    fields = dict(event["fields"])
    given, commitment = fields.get("hash"), fields.get("action_commitment")
    timestamp = datetime.fromisoformat(event["timestamp"])
    found = []
    for guess in candidates(fields["visible_only_to"]):
        plain = {key: value for key, value in fields.items() if key not in ("action_salt", "action_commitment")}
        hashed = event_hash(event["topic"], game_id, event["number"], timestamp, {**plain, "notation": guess})
        committed = hidden_commitment(fields.get("action_salt") or "", guess)
        if (given and hashed == given) or (commitment and committed == commitment):
            found.append(guess)
    return found


@pytest.mark.parametrize("actions", [(*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}"), PEEK_GAME], ids=["card", "peek"])
def test_a_reader_who_may_not_see_a_hidden_action_cannot_recover_it_by_brute_force(
    client: TestClient, actions: tuple[str, ...]
) -> None:
    game, recorder = new_game(client)
    assert append(client, game, recorder, *actions).status_code == 200
    events = client.get(f"/v1/games/{game}/events").json()["events"]
    hidden = [event for event in events if event["hidden"]]
    assert len(hidden) == 1
    assert recovered(hidden[0], game) == []
    assert actions[-1] not in str(events)
    assert all(actions[-1] not in str(event) for event in client.get(f"/v1/games/{game}/events").json()["events"])


@pytest.mark.parametrize("actions", [(*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}"), PEEK_GAME], ids=["card", "peek"])
def test_no_import_of_the_public_game_file_tells_whether_a_guess_of_the_hidden_action_is_right(
    client: TestClient, actions: tuple[str, ...]
) -> None:
    """An imported game's id is its game file's content's: the public game file with each guess in the place of the
    hidden action is imported as a new game, the right guess as any other, and only the recorder, who sees the
    game whole, is told that the right one is stored already."""
    game, recorder = new_game(client)
    assert append(client, game, recorder, *actions).status_code == 200
    whole = client.get(f"/v1/games/{game}/export", headers=recorder).text
    moved = client.post("/v1/games/import", content=whole, headers=TEXT)  # a game moved from another server
    assert moved.status_code == 201, moved.text
    imported, holder = moved.json()["game_id"], {"Authorization": f"Bearer {moved.json()['recorder_token']}"}
    public = client.get(f"/v1/games/{imported}/export").text
    owner = actions[-1].split()[0]
    in_place = f"# {HIDDEN}: an action of {owner}"
    assert public.count(in_place) == 1
    told = {}
    for guess in candidates(owner):
        answer = client.post("/v1/games/import", content=public.replace(in_place, guess), headers=TEXT)
        told[guess] = (answer.status_code, answer.json().get("code"))
        assert answer.json().get("game_id") != imported
    assert told[actions[-1]] == (201, None) and list(told.values()).count((201, None)) > 1, told
    right = public.replace(in_place, actions[-1])
    again = client.post("/v1/games/import", content=right, headers={**TEXT, **holder})
    assert (again.status_code, again.json()["code"]) == (409, "already_stored") and imported in again.text


def test_a_hidden_action_stored_before_commitments_has_its_hashes_withheld(tmp_path: Path) -> None:
    """The fixture's `peek` game was stored when the chain covered a hidden action itself: from that action on,
    a reader who may not see it is given no hash to try actions against."""
    copy = tmp_path / "games.sqlite"
    shutil.copyfile(FIXTURES / "games.sqlite", copy)
    game = str(game_id_of("peek"))
    with client_for(str(copy)) as client:
        events = client.get(f"/v1/games/{game}/events").json()["events"]
        [peek] = [event for event in events if event["hidden"]]
        assert recovered(peek, game) == []
        assert all(event["fields"]["hash"] is None for event in events if event["number"] >= peek["number"])
        assert all(event["fields"]["hash"] for event in events if event["number"] < peek["number"])
        assert client.get(f"/v1/games/{game}").json()["head_hash"] is None
        admin = {"Authorization": f"Bearer {ADMIN}"}
        assert client.get(f"/v1/games/{game}/events", headers=admin).json()["events"][-1]["fields"]["hash"]
        # Nor does the audit confirm a guess of a withheld hash as a receipt's head: right and wrong read alike.
        right = client.get(f"/v1/games/{game}/events", headers=admin).json()["events"][peek["number"] - 1]
        answers = [
            client.get(f"/v1/games/{game}/audit", params={"expect_head": head}).content
            for head in (right["fields"]["hash"], "f" * 64)
        ]
        assert answers[0] == answers[1] and b"no event carries the receipt's head hash" in answers[0]
        admin_audit = client.get(
            f"/v1/games/{game}/audit", params={"expect_head": right["fields"]["hash"]}, headers=admin
        )
        assert b"the receipt's head is event" in admin_audit.content


def test_a_revealed_action_is_verified_by_the_audit_against_its_commitment(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(
        game, [*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}", f"cat play {HELD_CARD} no_attacks for round"]
    )
    assert ledger.queries.audit(game).verdict == "clean"
    drawn = next(e for e in ledger.queries.game_events(game) if getattr(e, "visible_only_to", None))
    assert drawn.action_commitment == hidden_commitment(drawn.action_salt, drawn.notation)
    tamperer = Tamperer(ledger, game)
    topic, state = tamperer.stored(drawn.originator_version)
    fields = ledger.store.mapper.transcoder.decode(state)
    tamperer.write(
        drawn.originator_version, topic, ledger.store.mapper.transcoder.encode({**fields, "notation": "cat drew Nest"})
    )
    hashes = ledger.queries.audit(game).check("hashes")
    assert hashes["event"] == drawn.originator_version and "does not match its commitment" in hashes["detail"]
