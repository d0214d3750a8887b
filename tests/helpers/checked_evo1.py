"""Seeded self-played Evo 1st edition games, event cards and all, with actions bent out of the rules at every
step: a refused action changes nothing, `apply` never changes the state it is given, `replay` reaches the same
state, and snapshots read back the same."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from evo_ledger.app.selfplay import PLAYER_NAMES
from evo_ledger.rules.base import RuleViolation, Transition
from evo_ledger.rules.evo1 import auction, board
from evo_ledger.rules.evo1.actions import Action, Bid, Birth, Move, Pass, PlayCard, Proceed, Roll
from evo_ledger.rules.evo1.flow import awaited_roll
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.evo1.selfplay import Evo1SelfPlay
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.kits import load_kit

RULES = Evo1Ruleset()
KITS = {3: load_kit("standin-e1-3p"), 4: load_kit("standin-e1-4p-alt"), 5: load_kit("standin-e1-5p")}


def illegal_variants(state: State, action: Action) -> Iterator[Action]:
    """The chosen action bent out of the rules: onto an occupied space, too dear a bid, a baby far from any
    adult, a pass or a roll where none is taken, a card played before turn 3 or by a seat that does not hold it,
    a card played a second time, a step the table does not take now."""
    if isinstance(action, Move):
        occupied = next((space for space in state.board if space != action.path[0]), None)
        if occupied is not None:
            yield Move(action.player, (action.path[0], occupied))
    if isinstance(action, Bid):
        seat = state.seats[action.player]
        top = seat.mp + state.gene(action.player, "mutant") + auction.voucher_cover(state, action.player)
        yield Bid(action.player, top + 1, action.target)
    if isinstance(action, Birth):
        parents = board.birth_parents(state, action.player) or []
        reach = board.in_reach(state, action.player, parents)
        far = [s for s in state.kit.spaces if s not in state.board and s not in reach]
        if far and parents:
            yield Birth(action.player, far[0])
    if state.phase in (Phase.CLIMATE, Phase.SURVIVAL, Phase.INITIATIVE):
        yield Pass(next(iter(state.seats)))
    if awaited_roll(state) is None and not state.cards_due:
        yield Roll(1)
    player = next(iter(state.seats))
    hand = state.seats[player].hand
    if hand and state.turn <= 2:
        yield PlayCard(player, hand[0])
    missing = next((card for card in state.kit.card_ids if card not in hand), None)
    if missing is not None:
        yield PlayCard(player, missing)
    if isinstance(action, PlayCard):
        yield PlayCard(action.player, action.card, (*action.targets, "A1"))
    if not state.due:
        yield Proceed("survival")


def check_invariants(transition: Transition[State]) -> None:
    state = transition.state
    assert set(state.board) <= set(state.kit.spaces)
    for name, seat in state.seats.items():
        assert state.count_of(name) <= state.kit.dinosaurs_per_player, name
        assert seat.mp >= 0, name
    cards = [card for seat in state.seats.values() for card in seat.hand] + list(state.discards)
    assert len(cards) == len(set(cards)), "a card is in two places at once [E1-23]"
    if state.phase == Phase.OVER:
        assert 7 <= state.turn <= 14, f"the meteor struck in turn {state.turn}"


@dataclass
class Checked:
    """What one checked game did: its actions, the bent actions refused, the cards played, its last turn."""

    steps: int = 0
    refused: int = 0
    cards: Counter[str] = field(default_factory=Counter)
    turns: int = 0


def play_checked(seed: int) -> Checked:
    rng = random.Random(f"property:{seed}")
    players = rng.choice((3, 4, 5))
    kit = KITS[players]
    options = {"experienced": seed % 3 == 0, "rebirth_without_adults": seed % 5 == 0}
    options["recover_returns_to_owner"] = seed % 7 == 0
    state = RULES.setup(kit, PLAYER_NAMES[:players], options)
    bot = "random" if seed % 2 else "sensible"
    checked = Checked()
    for action, _ in Evo1SelfPlay(RULES).play(kit, PLAYER_NAMES[:players], seed, bot, options):
        before = RULES.snapshot_state(state)
        for bent in illegal_variants(state, action):
            with pytest.raises(RuleViolation):
                RULES.apply(state, bent)
                pytest.fail(f"{bent} was allowed where {action} was played")
            assert RULES.snapshot_state(state) == before, f"refusing {bent} changed the state"
            checked.refused += 1
        transition = RULES.apply(state, action)
        assert RULES.snapshot_state(state) == before, f"applying {action} changed the state it was given"
        after = RULES.snapshot_state(transition.state)
        assert RULES.snapshot_state(RULES.replay(state, action)) == after
        assert RULES.snapshot_state(RULES.restore_state(kit, after)) == after
        check_invariants(transition)
        state = transition.state
        checked.steps += 1
        if isinstance(action, PlayCard):
            checked.cards[action.card] += 1
    checked.turns = state.turn
    return checked
