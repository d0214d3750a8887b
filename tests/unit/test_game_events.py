"""Events made by the game are the events their classes make: the same fields, in the same order, so the same bytes."""

from __future__ import annotations

from evo_ledger.codec import pack
from evo_ledger.game import field_names
from evo_ledger.transfer import game_from_notation
from tests.support import ROOT


def test_every_event_of_a_recorded_game_equals_the_one_its_class_makes_field_for_field() -> None:
    game = game_from_notation((ROOT / "replays" / "selfplay-5p-seed5.evo").read_text())
    events = game.collect_events()
    assert len(events) > 100
    for event in events:
        made_by_class = type(event)(**vars(event))
        assert tuple(vars(event)) == tuple(vars(made_by_class)) == field_names(type(event))
        assert event == made_by_class and pack(vars(event)) == pack(vars(made_by_class))
