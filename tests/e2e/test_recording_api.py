"""What the recording page asks of the API, on each database: an action offered a word at a time for its reader,
and the record's revisions (undo, correct, note) made by the recorder's token alone."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.api import HELD_CARD, append
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.tokens import bearer, co_recorder, co_recorder_stored_before_the_rule, new_game

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}


def choices(client: TestClient, game: str, words: str, headers: dict[str, str] | None = None) -> Any:
    answer = client.get(f"/v1/games/{game}/choices", params={"words": words}, headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_action_is_offered_a_word_at_a_time_and_complete_once_whole(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    for action in ROUND_ONE_AUCTION:
        words = action.split()
        for count, word in enumerate(words):
            offered = choices(client, game, " ".join(words[:count]), recorder)
            assert word in offered["next"] and not offered["complete"], (action, count, offered)
        whole = choices(client, game, action, recorder)
        assert whole["complete"] and whole["words"] == words
        assert append(client, game, recorder, action).status_code == 200
    assert choices(client, game, "zz nothing", recorder) == {
        "version": client.get(f"/v1/games/{game}").json()["version"],
        "words": ["zz", "nothing"],
        "forced": [],
        "next": [],
        "complete": False,
    }


def test_the_words_that_are_the_only_ones_possible_come_in_one_answer_when_asked(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    walked_any = False
    for action in ROUND_ONE_AUCTION:
        walked: list[str] = []
        offered = choices(client, game, "", recorder)
        while len(offered["next"]) == 1 and not offered["complete"]:
            walked.append(offered["next"][0])
            offered = choices(client, game, " ".join(walked), recorder)
        asked = client.get(f"/v1/games/{game}/choices", params={"forced": "true"}, headers=recorder).json()
        assert asked["words"] == [] and asked["forced"] == walked
        assert (asked["next"], asked["complete"]) == (offered["next"], offered["complete"])
        walked_any = walked_any or bool(walked)
        assert append(client, game, recorder, action).status_code == 200
    assert walked_any, "some step of the round has a word that is the only one possible"


def test_the_words_offered_rest_on_no_hidden_fact_the_reader_may_not_see(client: TestClient) -> None:
    """[E2-15] a held card is the recorder's and its player's alone until it is played."""
    game, recorder, ann = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}").status_code == 200
    assert HELD_CARD in choices(client, game, "cat play", recorder)["next"]
    for reader in ({}, ann):
        seen = client.get(f"/v1/games/{game}/choices", params={"words": "cat play"}, headers=reader)
        assert seen.status_code == 200 and HELD_CARD not in seen.text and seen.json()["next"] == []


def test_words_too_long_are_refused_naming_the_parameter(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    refused = client.get(f"/v1/games/{game}/choices", params={"words": "x" * 5000}, headers=recorder)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert "query.words" in refused.json()["message"]


def test_an_undo_is_the_recorders_and_names_what_is_wrong(client: TestClient) -> None:
    game, recorder, ann = new_game(client)
    version = append(client, game, recorder, *ROUND_ONE_AUCTION[:2]).json()["version"]
    undo = {"count": 1, "reason": "misread the die", "expected_version": version}
    refused = {
        "no token": client.post(f"/v1/games/{game}/undo", json=undo),
        "seat": client.post(f"/v1/games/{game}/undo", json=undo, headers=ann),
        "stale": client.post(
            f"/v1/games/{game}/undo", json={**undo, "expected_version": version - 1}, headers=recorder
        ),
        "too many": client.post(f"/v1/games/{game}/undo", json={**undo, "count": 9}, headers=recorder),
        "no reason": client.post(f"/v1/games/{game}/undo", json={**undo, "reason": ""}, headers=recorder),
    }
    assert {name: (answer.status_code, answer.json()["code"]) for name, answer in refused.items()} == {
        "no token": (401, "token_required"),
        "seat": (403, "token_refused"),
        "stale": (409, "version_conflict"),
        "too many": (422, "nothing_to_undo"),
        "no reason": (422, "invalid_request"),
    }
    assert client.get(f"/v1/games/{game}").json()["version"] == version, "nothing was stored"
    undone = client.post(f"/v1/games/{game}/undo", json=undo, headers=recorder)
    assert undone.status_code == 200 and undone.json()["version"] == version + 1
    events = client.get(f"/v1/games/{game}/events", params={"after": version}).json()["events"]
    assert [event["kind"] for event in events] == ["ActionsUndone"]
    admin = client.post(
        f"/v1/games/{game}/undo", json={**undo, "expected_version": None}, headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert admin.status_code == 200


def test_a_correction_is_checked_by_the_rules_and_a_refused_one_stores_nothing(client: TestClient) -> None:
    """[E2-07] a bid is at most what the player holds."""
    game, recorder, _ = new_game(client)
    version = append(client, game, recorder, *ROUND_ONE_AUCTION[:5]).json()["version"]
    correction = {"action": "ann bid 99 eggs", "reason": "she said 99", "expected_version": version}
    refused = client.post(f"/v1/games/{game}/correct", json=correction, headers=recorder)
    assert refused.status_code == 422 and refused.json()["code"] == "rule_violation"
    assert refused.json()["ruling"] == "E2-07"
    assert client.get(f"/v1/games/{game}").json()["version"] == version
    corrected = client.post(
        f"/v1/games/{game}/correct", json={**correction, "action": "ann bid 3 eggs"}, headers=recorder
    )
    assert corrected.status_code == 200, corrected.text
    assert "ann bid 3 eggs" in client.get(f"/v1/games/{game}/export", headers=recorder).text


def test_a_note_is_about_an_event_the_game_has(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    version = append(client, game, recorder, *ROUND_ONE_AUCTION[:2]).json()["version"]
    beyond = client.post(
        f"/v1/games/{game}/notes", json={"event": version + 5, "text": "a disputed roll"}, headers=recorder
    )
    assert beyond.status_code == 422 and beyond.json()["code"] == "unknown_event"
    noted = client.post(f"/v1/games/{game}/notes", json={"event": 2, "text": "a disputed roll"}, headers=recorder)
    assert noted.status_code == 200 and noted.json()["version"] == version + 1
    assert "note 2 a disputed roll" in client.get(f"/v1/games/{game}/export", headers=recorder).text


def test_the_time_an_action_was_entered_at_the_table_is_stored_with_it_in_utc(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    entered = "2026-05-01T21:15:02.125+02:00"
    body = {"actions": [ROUND_ONE_AUCTION[0]], "entered_at": entered}
    key = {**recorder, "Idempotency-Key": "the first entry"}
    first = client.post(f"/v1/games/{game}/actions", json=body, headers=key)
    assert first.status_code == 200, first.text
    assert client.post(f"/v1/games/{game}/actions", json=body, headers=key).json() == first.json(), "a retry"
    action = client.get(f"/v1/games/{game}/events").json()["events"][1]
    assert action["fields"]["entered_at"] == "2026-05-01T19:15:02.125+00:00"
    assert client.get(f"/v1/games/{game}/audit").json()["verdict"] == "clean", "the chain covers the time"
    untimed = append(client, game, recorder, ROUND_ONE_AUCTION[1])
    assert untimed.status_code == 200
    logged = client.get(f"/v1/games/{game}/events").json()["events"]
    [second] = [event for event in logged if event["fields"].get("notation") == ROUND_ONE_AUCTION[1]]
    assert second["fields"]["entered_at"] is None, "a time not given is not made up"


def test_a_time_at_the_table_without_an_offset_or_in_the_future_is_refused_naming_it(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    for entered in ("2026-05-01T21:15:02", "2999-01-01T00:00:00+00:00", "yesterday"):
        body = {"actions": [ROUND_ONE_AUCTION[0]], "entered_at": entered}
        refused = client.post(f"/v1/games/{game}/actions", json=body, headers=recorder)
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_request", entered
        assert "body.entered_at" in refused.json()["message"], refused.json()
    assert client.get(f"/v1/games/{game}").json()["version"] == 1, "nothing was stored"


def test_co_recorders_are_issued_and_revoked_by_the_recorders_own_token(client: TestClient) -> None:
    game, recorder, ann = new_game(client)
    issued = client.post(f"/v1/games/{game}/co-recorders", json={"name": "ben's phone"}, headers=recorder)
    assert issued.status_code == 201, issued.text
    body = issued.json()
    assert body["join_link"].endswith(f"/games/{game}/record#token={body['token']}")
    assert body["join_qr"].startswith("data:image/svg+xml")
    phone, phone_id = bearer(body["token"]), body["id"]
    assert append(client, game, phone, ROUND_ONE_AUCTION[0]).status_code == 200, "a co-recorder records"
    listed = client.get(f"/v1/games/{game}/co-recorders", headers=phone).json()
    assert listed == {"co_recorders": [{"id": phone_id, "name": "ben's phone"}]}
    refused = {
        "by a co-recorder": client.post(f"/v1/games/{game}/co-recorders", json={"name": "x"}, headers=phone),
        "by a seat": client.post(f"/v1/games/{game}/co-recorders", json={"name": "x"}, headers=ann),
        "by no one": client.post(f"/v1/games/{game}/co-recorders", json={"name": "x"}),
        "a name taken": client.post(f"/v1/games/{game}/co-recorders", json={"name": "ben's phone"}, headers=recorder),
        "a name with a line break": client.post(
            f"/v1/games/{game}/co-recorders", json={"name": "a\nb"}, headers=recorder
        ),
        "revoked by its holder": client.delete(f"/v1/games/{game}/co-recorders/{phone_id}", headers=phone),
        "an unknown one": client.delete(f"/v1/games/{game}/co-recorders/{phone_id + 99}", headers=recorder),
        "by its name": client.delete(f"/v1/games/{game}/co-recorders/ben's phone", headers=recorder),
        "listed to a seat": client.get(f"/v1/games/{game}/co-recorders", headers=ann),
    }
    assert {name: (answer.status_code, answer.json()["code"]) for name, answer in refused.items()} == {
        "by a co-recorder": (403, "token_refused"),
        "by a seat": (403, "token_refused"),
        "by no one": (401, "token_required"),
        "a name taken": (409, "co_recorder_exists"),
        "a name with a line break": (422, "invalid_request"),
        "revoked by its holder": (403, "token_refused"),
        "an unknown one": (404, "unknown_co_recorder"),
        "by its name": (422, "invalid_request"),
        "listed to a seat": (403, "token_refused"),
    }
    revoked = client.delete(f"/v1/games/{game}/co-recorders/{phone_id}", headers=recorder)
    assert revoked.status_code == 200 and revoked.json() == {"co_recorders": []}
    after = append(client, game, phone, ROUND_ONE_AUCTION[1])
    assert (after.status_code, after.json()["code"]) == (403, "token_refused"), "a revoked token records no more"
    assert append(client, game, recorder, ROUND_ONE_AUCTION[1]).status_code == 200


def test_a_seats_token_is_issued_anew_for_its_players_device_and_the_old_one_reads_no_more(
    client: TestClient,
) -> None:
    """[E2-15] the held card stays with its player: the new seat token reads it, another seat's does not."""
    game, recorder, ann = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}").status_code == 200
    refused = {
        "by a seat": client.post(f"/v1/games/{game}/seat-tokens/cat", headers=ann),
        "no such seat": client.post(f"/v1/games/{game}/seat-tokens/zed", headers=recorder),
        "no token": client.post(f"/v1/games/{game}/seat-tokens/zed"),
    }
    assert {name: (answer.status_code, answer.json()["code"]) for name, answer in refused.items()} == {
        "by a seat": (403, "token_refused"),
        "no such seat": (422, "unknown_seat"),
        "no token": (401, "token_required"),
    }
    issued = client.post(f"/v1/games/{game}/seat-tokens/cat", headers=recorder)
    assert issued.status_code == 201 and issued.json()["join_link"].endswith(f"#token={issued.json()['token']}")
    cat = bearer(issued.json()["token"])
    assert HELD_CARD in client.get(f"/v1/games/{game}/state", headers=cat).text
    assert HELD_CARD not in client.get(f"/v1/games/{game}/state", headers=ann).text
    again = client.post(f"/v1/games/{game}/seat-tokens/ann", headers=recorder)
    assert again.status_code == 201
    assert client.get(f"/v1/games/{game}/view", headers=ann).json()["perspectives"] == [], (
        "the old token reads as anyone"
    )


def test_a_seat_records_its_own_actions_alone_once_the_recorder_lets_it(client: TestClient) -> None:
    """A seat's token appends nothing until the recorder's own token lets seats record; then it appends its
    player's own actions, and neither another player's nor the table's, nor undoes."""
    game, recorder, ann = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION[:4]).status_code == 200  # ann bids next
    anns_bid = ROUND_ONE_AUCTION[4]
    assert anns_bid.startswith("ann ")
    refused = append(client, game, ann, anns_bid)
    assert (refused.status_code, refused.json()["code"]) == (403, "token_refused")
    allow = {"allowed": True}
    for headers, status in (({}, 401), (ann, 403)):
        assert client.put(f"/v1/games/{game}/seats-record", json=allow, headers=headers).status_code == status
    assert client.put(f"/v1/games/{game}/seats-record", json=allow, headers=recorder).json() == allow
    assert client.get(f"/v1/games/{game}").json()["seats_record"] is True
    version = client.get(f"/v1/games/{game}").json()["version"]
    for others in (ROUND_ONE_AUCTION[5], "climate cw"):
        refused = append(client, game, ann, anns_bid, others)
        assert (refused.status_code, refused.json()["code"]) == (403, "not_own_action"), others
    assert client.get(f"/v1/games/{game}").json()["version"] == version, "nothing stored"
    assert append(client, game, ann, anns_bid).status_code == 200
    undo = client.post(f"/v1/games/{game}/undo", json={"count": 1, "reason": "mine"}, headers=ann)
    assert undo.status_code == 403
    assert client.put(f"/v1/games/{game}/seats-record", json={"allowed": False}, headers=recorder).status_code == 200
    assert append(client, game, ann, ROUND_ONE_AUCTION[6]).json()["code"] == "token_refused"


# Names the rule refuses, each with what the refusal says is wrong.
NAMES_REFUSED = {
    "/": "'/'",
    "a/b": "'/'",
    "\\": "'\\'",
    ".": "dots",
    "..": "dots",
    ". .": "dots",
    " ben": "space",
    "ben ": "space",
    "a\nb": "U+000A",
    "\x7f": "U+007F",
    "ben\u202ephone": "U+202E",
    "b\u200ben": "U+200B",
    "x" * 41: "40",
}


def test_a_co_recorders_name_that_breaks_the_rule_is_refused_naming_what_is_wrong(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    for name, problem in NAMES_REFUSED.items():
        refused = client.post(f"/v1/games/{game}/co-recorders", json={"name": name}, headers=recorder)
        assert (refused.status_code, refused.json()["code"]) == (422, "invalid_request"), name
        assert "body.name" in refused.json()["message"] and problem in refused.json()["message"], refused.json()
    assert client.get(f"/v1/games/{game}/co-recorders", headers=recorder).json() == {"co_recorders": []}


def test_a_name_of_slashes_or_dots_lets_no_one_go_and_every_co_recorder_is_let_go_by_its_id(client: TestClient) -> None:
    """The attacks repeated with the names `/`, `%2F`, `.` and `..`: the rule refuses `/`, `.` and `..` as names
    (those stored before it are let go all the same), `%2F` is a name as any other, and a name in the path lets no
    one go, whatever the server or the client makes of it."""
    game, recorder, _ = new_game(client)
    for name in ("/", ".", ".."):
        refused = client.post(f"/v1/games/{game}/co-recorders", json={"name": name}, headers=recorder)
        assert refused.status_code == 422, name
    _, percent = co_recorder(client, game, recorder, "%2F")
    stored = [co_recorder_stored_before_the_rule(client, game, name) for name in ("/", ".", "..", "a/b")]
    listed = client.get(f"/v1/games/{game}/co-recorders", headers=recorder).json()["co_recorders"]
    assert sorted(entry["name"] for entry in listed) == ["%2F", ".", "..", "/", "a/b"]
    for path in ("/", "%2F", "a/b", "a%2Fb", ".", "..", "%2E", "%2E%2E", "%252F"):
        answer = client.delete(f"/v1/games/{game}/co-recorders/{path}", headers=recorder)
        assert 400 <= answer.status_code < 500, (path, answer.status_code)
    assert client.get(f"/v1/games/{game}/co-recorders", headers=recorder).json()["co_recorders"] == listed
    for entry in listed:
        let_go = client.delete(f"/v1/games/{game}/co-recorders/{entry['id']}", headers=recorder)
        assert let_go.status_code == 200, let_go.text
        assert entry not in let_go.json()["co_recorders"]
    assert client.get(f"/v1/games/{game}/co-recorders", headers=recorder).json() == {"co_recorders": []}
    for headers in (percent, *stored):
        refused = append(client, game, headers, ROUND_ONE_AUCTION[0])
        assert (refused.status_code, refused.json()["code"]) == (403, "token_refused")


def test_replacing_the_recorders_token_lets_every_co_recorder_go_and_says_how_many(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    _, phone = co_recorder(client, game, recorder, "ben's phone")
    stored = co_recorder_stored_before_the_rule(client, game, "a/b")
    replaced = client.post(f"/v1/games/{game}/recorder-token", headers=ADMIN_HEADERS)
    assert replaced.status_code == 200, replaced.text
    body = replaced.json()
    assert body["co_recorders_let_go"] == 2
    assert body["join_link"].endswith(f"/games/{game}/record#token={body['recorder_token']}")
    assert body["join_qr"].startswith("data:image/svg+xml")
    for headers in (phone, stored, recorder):
        refused = append(client, game, headers, ROUND_ONE_AUCTION[0])
        assert (refused.status_code, refused.json()["code"]) == (403, "token_refused")
    new_recorder = bearer(body["recorder_token"])
    assert client.get(f"/v1/games/{game}/co-recorders", headers=new_recorder).json() == {"co_recorders": []}
    assert append(client, game, new_recorder, ROUND_ONE_AUCTION[0]).status_code == 200
    again = client.post(f"/v1/games/{game}/recorder-token", headers=ADMIN_HEADERS)
    assert again.json()["co_recorders_let_go"] == 0


TIMES_REFUSED = (
    "0001-01-01T00:00:00+05:00",
    "1969-12-31T23:59:59.999Z",
    "1970-01-01T10:00:00+14:00",
    "9999-12-31T23:00:00-05:00",
    "2026-05-01T21:15:02+14:01",
    "2026-05-01T21:15:02-12:01",
    "2026-05-01T21:15:02+23:59",
)


def test_a_time_at_the_table_out_of_bounds_is_refused_naming_it_on_append_and_correct(client: TestClient) -> None:
    """From 1970 to 9999 in UTC, with an offset from -12:00 to +14:00: a time of the year 1 with an offset of its
    own once overflowed the conversion to UTC."""
    game, recorder, _ = new_game(client)
    version = append(client, game, recorder, ROUND_ONE_AUCTION[0]).json()["version"]
    for entered in TIMES_REFUSED:
        for route, body in (
            ("actions", {"actions": [ROUND_ONE_AUCTION[1]], "entered_at": entered}),
            ("correct", {"action": ROUND_ONE_AUCTION[0], "reason": "a slip", "entered_at": entered}),
        ):
            refused = client.post(f"/v1/games/{game}/{route}", json=body, headers=recorder)
            assert (refused.status_code, refused.json()["code"]) == (422, "invalid_request"), (route, entered)
            assert "body.entered_at" in refused.json()["message"], refused.json()
    assert client.get(f"/v1/games/{game}").json()["version"] == version, "nothing was stored"
    for entered in ("1970-01-01T00:00:00Z", "2026-05-01T21:15:02-12:00", "2026-05-01T21:15:02+14:00"):
        body = {"action": ROUND_ONE_AUCTION[0], "reason": "a slip", "entered_at": entered}
        assert client.post(f"/v1/games/{game}/correct", json=body, headers=recorder).status_code == 200, entered


def test_a_date_of_the_game_list_out_of_bounds_is_refused_naming_it(client: TestClient) -> None:
    for name in ("started_from", "started_to"):
        for day in ("0001-01-01", "1969-12-31"):
            refused = client.get("/v1/games", params={name: day})
            assert (refused.status_code, refused.json()["code"]) == (422, "invalid_request"), (name, day)
            assert f"query.{name}" in refused.json()["message"]
        assert client.get("/v1/games", params={name: "1970-01-01"}).status_code == 200
    assert client.get("/v1/games", params={"started_to": "9999-12-31"}).status_code == 200
