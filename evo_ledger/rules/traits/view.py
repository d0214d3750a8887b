"""A position of the trait-card "Evo" in words, for people at the table: what the game waits for, each player's
species with its decks as counts, its Future Genome and adaptations, and each location's cards and tokens."""

from __future__ import annotations

from collections import Counter

from evo_ledger.rules.base import StateView
from evo_ledger.rules.traits.flow import need_words
from evo_ledger.rules.traits.state import Location, Phase, Species, State, spoken, total
from evo_ledger.rules.words import counted

# The millennia, as a game over names its last.
ORDINALS = ("first", "second", "third", "fourth")


def view(state: State) -> StateView:
    players = tuple(player_line(state, player) for player in state.players)
    table = tuple(location_line(place) for place in state.locations.values())
    number, phase, step = where(state)
    return StateView(headline(state, number, phase, step), players, {}, table, round=number, phase=phase, step=step)


def where(state: State) -> tuple[int, str, str]:
    """The millennium (0 during the setup), the phase and what is awaited: the headline says them, and the view
    gives each apart. The end of a millennium is told by its stage (`extinction`, `natural selection`)."""
    if state.phase == Phase.OVER:
        return state.millennium, Phase.OVER, ""
    if state.need is not None:
        waiting = f"waiting for {need_words(state.need)}"
        if state.phase == Phase.SETUP:
            return 0, Phase.SETUP, waiting
        return state.millennium, state.stage or Phase.GENERATION, waiting
    species = state.species_of(state.current)
    doing = "to pick an active population" if state.active is None else "to act, or 'end'"
    if species.journey:
        doing = "to record the journey's random pick"
    return state.millennium, Phase.GENERATION, f"{state.current} ({species.name}) {doing}"


def headline(state: State, number: int, phase: str, step: str) -> str:
    """`millennium 2 · generation · ann (square) to act, or 'end'`; `setup (location) · waiting for ...` with the
    setup's stage; `game over after the fourth millennium`."""
    if phase == Phase.OVER:
        return f"game over after the {ORDINALS[number - 1]} millennium"
    if phase == Phase.SETUP:
        return f"setup ({state.stage}) · {step}"
    return f"millennium {number} · {phase} · {step}"


def player_line(state: State, player: str) -> str:
    played = state.plays.get(player)
    line = f"{player}: {counted(state.points[player], 'point')}"
    if played is None or played not in state.species:
        return line + (f", plays {played}" if played else "")
    return f"{line}, plays {played}: {species_words(state.species[played])}"


def species_words(species: Species) -> str:
    standing = Counter(p.location for p in species.populations if p.standing)
    lying = Counter(p.location for p in species.populations if not p.standing)
    populations = ", ".join(
        [f"{n} standing at {where}" for where, n in standing.items()]
        + [f"{n} used at {where}" for where, n in lying.items()]
    )
    adaptations = ", ".join(f"{name} ({tokens})" for name, tokens in species.adaptations.items()) or "none"
    future = spoken(species.future) if species.future else "empty"
    offspring = f" with {' '.join(species.offspring)} face up on top" if species.offspring else ""
    return (
        f"deck {species.deck_size}{offspring}, hand {total(species.hand)}, Lost Genome {total(species.lost)}, "
        f"Future Genome {total(species.future)} ({future}); populations {populations or 'none'}, "
        f"{species.reserve} in reserve; adaptations {adaptations}"
    )


def location_line(place: Location) -> str:
    cards = [f"{card} {tokens_words(place, card)}" for card in (*place.fauna, *place.flora)]
    return f"{place.id} ({place.primary}): {'; '.join(cards) or 'no card'}"


def tokens_words(place: Location, card: str) -> str:
    counts = place.tokens.get(card, {})
    held = ", ".join(f"{species} {n}" for species, n in sorted(counts.items()) if n)
    return f"[{held}]" if held else "[no token]"
