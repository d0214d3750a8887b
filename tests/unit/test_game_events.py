"""Events made by the game are the events their classes make: the same fields, in the same order, so the same bytes."""

from __future__ import annotations

from typing import Any, cast

import pytest
from eventsourcing.domain import OriginatorIDError, OriginatorVersionError

from evo_ledger.app.transfer import game_from_notation
from evo_ledger.game.aggregate import field_names
from evo_ledger.game.codec import pack
from tests.helpers.support import ROOT


def test_every_event_of_a_recorded_game_equals_the_one_its_class_makes_field_for_field() -> None:
    game = game_from_notation((ROOT / "replays" / "selfplay-5p-seed5.evo").read_text())
    events = game.collect_events()
    assert len(events) > 100
    for event in events:
        made_by_class = type(event)(**vars(event))
        assert tuple(vars(event)) == tuple(vars(made_by_class)) == field_names(type(event))
        assert event == made_by_class and pack(vars(event)) == pack(vars(made_by_class))


def test_an_event_folds_only_into_its_own_game_at_the_version_after_the_game_s() -> None:
    text = (ROOT / "replays" / "selfplay-5p-seed5.evo").read_text()
    game, other = game_from_notation(text), game_from_notation(text, again=True)
    events: list[Any] = list(game.collect_events())
    first, second, third = events[:3]
    folded = second.mutate(first.mutate(None))
    assert (folded.version, folded.modified_on, folded.head_hash) == (2, second.timestamp, second.hash)
    with pytest.raises(OriginatorVersionError):
        second.mutate(folded)  # again
    with pytest.raises(OriginatorIDError):
        third.mutate(cast(Any, other.collect_events()[0]).mutate(None))
    assert third.mutate(folded).version == 3
