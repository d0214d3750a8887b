"""Invariants over a thousand seeded self-play games, and actions altered to be illegal at every step.

The number of games is set so the suite keeps within its time budget; `bench/rules_speed.py` plays more.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from evo_ledger.app.selfplay import PLAYER_NAMES
from evo_ledger.rules.base import RuleViolation, Transition
from evo_ledger.rules.evo2.actions import Action, Bid, Birth, Move, Pass, RevealClimate
from evo_ledger.rules.evo2.auction import price
from evo_ledger.rules.evo2.selfplay import Table, next_action, random_bot, sensible_bot
from evo_ledger.rules.evo2.state import Phase, State
from evo_ledger.rules.kits import load_kit
from tests.helpers.profiles import Seeds, seeded
from tests.helpers.support import RULES

GAMES = 1000
SEEDS = seeded(GAMES, batches=10, quick=10, reason="a tenth of a thousand whole games, every step checked")
KITS = {n: load_kit(f"standin-e2-{n}p") for n in (2, 3, 4, 5)}


def fingerprint(state: State) -> tuple[Any, ...]:
    """Everything a refused action could have changed."""
    players = tuple((p.mp, tuple(sorted(p.genes.items())), p.event_cards) for p in state.players.values())
    markers = tuple(sorted((name, m.column, m.amount) for name, m in state.markers.items()))
    return (
        tuple(sorted(state.board.items())),
        players,
        state.phase,
        state.round,
        state.turn,
        state.movement_left,
        state.pending,
        tuple(state.to_bid),
        markers,
        state.outbid,
        tuple(state.lab),
        state.climate_position,
        tuple(state.to_choose),
        state.birth_pass,
        state.order,
    )


def illegal_variants(state: State, action: Action) -> Iterator[Action]:
    """The chosen action bent out of the rules: another player, an occupied space, a bid too high or too dear."""
    player = getattr(action, "player", None)
    if player is not None:
        other = next(name for name in state.players if name != player)
        yield replace(action, player=other)  # type: ignore[arg-type]
    if isinstance(action, Move):
        occupied = next(space for space in state.board if space != action.path[0])
        yield Move(action.player, (action.path[0], occupied))
    if isinstance(action, Bid):
        yield Bid(action.player, 7, action.target)
        mp = state.players[action.player].mp
        dear = next((n for n in range(7) if price(state, action.player, n) > mp), None)
        if dear is not None:
            yield Bid(action.player, dear, action.target)
    if isinstance(action, Birth):
        far = [s for s in state.kit.spaces if s not in state.board and not _near(state, action.player, s)]
        if far:
            yield Birth(action.player, far[0])
    if isinstance(action, RevealClimate) and state.round < 10:
        yield RevealClimate("meteorite")
    if state.phase in (Phase.CLIMATE, Phase.MUTATIONS, Phase.AUCTION, Phase.SURVIVAL):
        yield Pass(PLAYER_NAMES[0])


def _near(state: State, player: str, space: str) -> bool:
    reach = 3 if state.players[player].has("thick_shell") else 1
    return any(state.kit.distance(space, own) <= reach for own in state.dinosaurs_of(player))


def check_invariants(before: State, transition: Transition[State]) -> None:
    state = transition.state
    assert set(state.board) <= set(state.kit.spaces)
    for name, player in state.players.items():
        assert state.count_of(name) <= state.kit.dinosaurs_per_player, name
        assert player.mp >= 0, name
    for consequence in transition.consequences:
        if consequence.kind == "dinosaurs_perished":
            name = consequence.data["player"]
            floor = before.players[name].floor
            assert state.count_of(name) >= min(before.count_of(name), floor), "a species went below its floor"
    if state.phase == Phase.OVER:
        assert 10 <= state.round <= 12, f"the meteorite came in round {state.round}"


def play_checked(seed: int) -> int:
    rng = random.Random(f"property:{seed}")
    players = rng.choice((2, 3, 4, 5))
    kit = KITS[players]
    state = RULES.setup(kit, PLAYER_NAMES[:players], {})
    table, bot_rng = Table(kit, random.Random(f"chance:{seed}")), random.Random(f"bots:{seed}")
    bot = random_bot if seed % 2 else sensible_bot
    steps = 0
    while RULES.outcome(state) is None:
        action = next_action(RULES, state, table, bot, bot_rng)
        before = fingerprint(state)
        for bent in illegal_variants(state, action):
            with pytest.raises(RuleViolation):
                RULES.apply(state, bent)
            assert fingerprint(state) == before, f"refusing {bent} changed the state"
        transition = RULES.apply(state, action)
        assert fingerprint(state) == before, "apply changed the state it was given"
        check_invariants(state, transition)
        state = transition.state
        steps += 1
    return steps


@pytest.mark.parametrize("seeds", SEEDS)
def test_a_thousand_seeded_games_keep_every_invariant_and_refuse_every_bent_action(seeds: Seeds) -> None:
    steps = sum(play_checked(seed) for seed in seeds)
    assert steps > len(seeds) * 100  # every game ran to its end
