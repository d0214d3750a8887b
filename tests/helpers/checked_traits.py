"""Seeded self-played games of the trait-card game with actions bent out of the rules at every step, each step
checked as the Evo 1st edition games are (`checked_evo1`)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from evo_ledger.app.selfplay import PLAYER_NAMES
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.kits import load_kit
from evo_ledger.rules.traits.actions import Action, Deal, Draw, EndGeneration, Hunt, HuntSpecies, Journey
from evo_ledger.rules.traits.ruleset import TraitsRuleset
from evo_ledger.rules.traits.selfplay import TraitsSelfPlay
from evo_ledger.rules.traits.state import Phase, State, total

RULES = TraitsRuleset()
KIT = load_kit("standin-traits")


def illegal_variants(state: State, action: Action) -> Iterator[Action]:
    """The chosen action bent out of the rules: a hunt a card short, a draw a card long, a card dealt twice, a
    journey's pick outside its pair, a generation ended by another player, and Hunt Species."""
    if isinstance(action, Hunt):
        yield Hunt(action.player, action.fauna, action.cards[1:])
    if isinstance(action, Draw):
        yield Draw(action.player, (*action.cards, "size"))
    if isinstance(action, Deal) and state.out[action.kind]:
        yield Deal(action.kind, action.to, state.out[action.kind][0])
    if isinstance(action, Journey):
        others = [trait for trait in state.kit.traits if trait not in state.species_of(action.player).journey]
        yield Journey(action.player, others[0], action.location)
    if state.phase == Phase.GENERATION and not state.needs:
        other = next(player for player in state.players if player != state.current)
        yield EndGeneration(other)
        yield HuntSpecies(state.current, ("square",))


def check_invariants(state: State) -> None:
    for species in state.species.values():
        for cards in (species.deck, species.hand, species.future, species.lost):
            assert all(count > 0 for count in cards.values())
        assert not species.populations or len(species.populations) + species.reserve == state.kit.population
        assert all(tokens >= 0 for tokens in species.adaptations.values())
    for place in state.locations.values():
        assert all(n >= 0 for counts in place.tokens.values() for n in counts.values())
        assert len(place.fauna) == 3 or state.needs, place.id
    if state.phase == Phase.OVER:
        assert state.millennium == 4


@dataclass
class Checked:
    steps: int = 0
    refused: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


def play_checked(seed: int) -> Checked:
    rng = random.Random(f"property:{seed}")
    players = rng.choice((2, 3, 4))
    options = {"finite_trait_supply": seed % 3 == 0, "token_cap": seed % 4 == 0}
    names = PLAYER_NAMES[:players]
    state: State = RULES.setup(KIT, names, options)
    bot = "random" if seed % 2 else "sensible"
    checked = Checked()
    for action, transition in TraitsSelfPlay(RULES).play(KIT, names, seed, bot, options):
        before = RULES.snapshot_state(state)
        for bent in illegal_variants(state, action):
            with pytest.raises(RuleViolation):
                RULES.apply(state, bent)
                pytest.fail(f"{bent} was allowed where {action} was played")
            assert RULES.snapshot_state(state) == before, f"refusing {bent} changed the state"
            checked.refused += 1
        after = RULES.snapshot_state(transition.state)
        assert RULES.snapshot_state(state) == before, f"applying {action} changed the state it was given"
        assert RULES.snapshot_state(RULES.replay(state, action)) == after
        assert RULES.snapshot_state(RULES.restore_state(KIT, after)) == after
        check_invariants(transition.state)
        state = transition.state
        checked.steps += 1
        checked.kinds[type(action).__name__] += 1
    assert RULES.outcome(state) is not None
    if state.supply is None:  # an unlimited supply brings every genome to its target [TR-17, TR-22]
        assert total(state.species_of(names[0]).future) == KIT.genome_targets[-1]
    return checked
