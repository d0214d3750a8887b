"""A co-recorder's id is the number of the access event that added it: no event gained a field, so a game's access
stored before co-recorders had ids reads as it always did, each co-recorder in it with an id; replacing the
recorder's token lets every co-recorder go with events of their own, and a token replaced before that leaves its
co-recorders in, as stored."""

from __future__ import annotations

from uuid import uuid4

from evo_ledger.app.access import GameAccess, access_id, new_token, token_digest
from evo_ledger.app.ledger import Ledger


def stored_as_always(ledger: Ledger, tokens: dict[str, str]) -> GameAccess:
    """A game's access with co-recorders under names the rule now refuses and a token replaced before replacing
    one let co-recorders go: its events made as they were always made, stored, and read back."""
    access = GameAccess.grant(uuid4(), new_token())
    for name, token in tokens.items():
        access.trigger_event(GameAccess.CoRecorderAdded, name=name, token_digest=token_digest(token))
    access.trigger_event(GameAccess.TokenReplaced, token_digest=token_digest(new_token()))
    ledger.store.save(access)
    read = ledger.vouched.access(access.game_id)
    assert read is not None
    return read


def test_co_recorders_stored_before_ids_read_with_ids_and_keep_their_meaning(ledger: Ledger) -> None:
    tokens = {"ben's phone": new_token(), "a/b": new_token(), "..": new_token()}
    access = stored_as_always(ledger, tokens)
    assert {held.id: held.name for held in access.co_recorders.values()} == {2: "ben's phone", 3: "a/b", 4: ".."}
    assert all(access.co_recorder_of(token) == name for name, token in tokens.items()), "still in, as stored"
    access.revoke_co_recorder(3)
    access.add_co_recorder("ben's tablet", new_token())
    ledger.store.save(access)
    read = ledger.vouched.access(access.game_id)
    assert read is not None
    assert {held.id: held.name for held in read.co_recorders.values()} == {2: "ben's phone", 4: "..", 7: "ben's tablet"}
    assert read.co_recorder_of(tokens["a/b"]) is None


def test_replacing_the_token_now_lets_each_co_recorder_go_with_an_event_of_its_own(ledger: Ledger) -> None:
    tokens = {"ben's phone": new_token(), "a/b": new_token()}
    access = stored_as_always(ledger, tokens)
    access.replace_token(new_token())
    ledger.store.save(access)
    read = ledger.vouched.access(access.game_id)
    assert read is not None and read.co_recorders == {}
    stored = ledger.store.recorder.select_events(access_id(access.game_id))
    assert [event.topic.rpartition(".")[2] for event in stored] == [
        "Granted",
        "CoRecorderAdded",
        "CoRecorderAdded",
        "TokenReplaced",
        "CoRecorderRevoked",
        "CoRecorderRevoked",
        "TokenReplaced",
    ]
