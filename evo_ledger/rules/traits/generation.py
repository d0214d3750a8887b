"""A generation [TR-07]: the active population, Hunt Fauna [TR-08], Forage Flora [TR-09], Migrate [TR-10], Hunt
Species refused [TR-11], adaptations as overrides [TR-12], and the end of the generation [TR-13]."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from evo_ledger.rules.base import RuleViolation, Warning
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.traits.actions import (
    Activate,
    EndGeneration,
    Forage,
    Hunt,
    HuntSpecies,
    Journey,
    Migrate,
    Use,
)
from evo_ledger.rules.traits.flow import need_words
from evo_ledger.rules.traits.state import (
    Cards,
    Location,
    Need,
    Phase,
    Population,
    Species,
    State,
    cards_of,
    contains,
    minus,
    plus,
    spoken,
)

HUNT_TOKENS = 2
GENERATION = Phase.GENERATION
HUNT_SPECIES = "[TR-11] Hunt Species is not defined by the source (003:162, 'Tbd')"


def check_turn(state: State, player: str, doing: str) -> None:
    if player != state.current or state.needs or state.phase != GENERATION:
        refuse_turn(state, player, doing)


def refuse_turn(state: State, player: str, doing: str) -> None:
    if state.phase != GENERATION:
        raise RuleViolation("TR-05", f"no generation is under way ({state.phase}): {player} cannot {doing}")
    if state.needs:
        raise RuleViolation("TR-13", f"the game waits for {need_words(state.needs[0])} first")
    raise RuleViolation("TR-05", f"it is {state.current}'s generation, not {player}'s, who cannot {doing}")


def check_acting(state: State, player: str, doing: str) -> Species:
    """The current player, with an active population and no journey half made."""
    if player != state.current or state.needs or state.phase != GENERATION:
        refuse_turn(state, player, doing)
    species = state.species[state.plays[player]]
    if state.active is None:
        raise RuleViolation("TR-07", f"{player} picks an active population first ('{player} active LOCATION')")
    if species.journey:
        raise RuleViolation("TR-10", f"{player}'s migration waits for its random pick ('{player} journey CARD PLACE')")
    return species


def active_location(state: State) -> Location:
    species = state.species_of(state.current)
    assert state.active is not None
    return state.locations[species.populations[state.active].location]


def check_activate(state: State, action: Activate) -> None:
    check_turn(state, action.player, "pick an active population")
    if state.active is not None:
        raise RuleViolation("TR-07", f"{action.player} already has an active population this generation")
    species = state.species_of(action.player)
    if not any(p.location == action.location and p.standing for p in species.populations):
        where = ", ".join(sorted({p.location for p in species.populations if p.standing})) or "none"
        raise RuleViolation(
            "TR-07", f"{species.name} has no standing population at {action.location} (standing at: {where})"
        )


def apply_activate(state: State, action: Activate, effects: Effects) -> None:
    species = state.species_of(action.player)
    state.active = next(
        index for index, p in enumerate(species.populations) if p.location == action.location and p.standing
    )


def check_cards(species: Species, cards: tuple[str, ...], player: str, ruling: str) -> None:
    wanted = cards_of(cards)
    if not contains(species.hand, wanted):
        raise RuleViolation(
            ruling,
            f"{player}'s hand holds {spoken(species.hand)}, not {spoken(wanted)}",
            public=f"{player} cannot do that with those cards",
        )


def check_uses(state: State, species: Species, uses: tuple[Use, ...]) -> list[Warning]:
    """Each adaptation named is the species' own, is named once, and claims its catalogue effect where the kit
    defines one [TR-12]; the others are recorded, not rule-checked."""
    warnings = []
    named: set[str] = set()
    for use in uses:
        if use.adaptation not in species.adaptations:
            held = ", ".join(sorted(species.adaptations)) or "none"
            raise RuleViolation("TR-12", f"{species.name} does not hold {use.adaptation} (it holds {held})")
        if use.adaptation in named:
            raise RuleViolation("TR-12", f"{use.adaptation} is named twice: an action uses each adaptation once")
        named.add(use.adaptation)
        for trait in use.traits:
            if trait not in state.kit.traits:
                raise RuleViolation("TR-12", f"{trait!r} is not a trait ({', '.join(state.kit.traits)})")
        effect = state.kit.adaptations[use.adaptation].effect if use.adaptation in state.kit.adaptations else None
        if effect is None:
            warnings.append(Warning("TR-12", f"{use.adaptation}'s {use.override} is recorded, not rule-checked"))
        elif (effect.kind, effect.traits) != (use.override, use.traits):
            claimed = " ".join((effect.kind, *effect.traits))
            raise RuleViolation(
                "TR-12", f"{use.adaptation}'s effect is '{claimed}', not '{' '.join((use.override, *use.traits))}'"
            )
    return warnings


@lru_cache(maxsize=4096)
def paid(cards: tuple[str, ...], uses: tuple[Use, ...]) -> tuple[Cards, Cards]:
    """The cards as they count once swaps apply, and the symbols waived."""
    counted: Cards = cards_of(cards)
    waived: Cards = {}
    for use in uses:
        if use.override == "swap" and counted.get(use.traits[0], 0) > 0:
            counted = plus(minus(counted, {use.traits[0]: 1}), {use.traits[1]: 1})
        elif use.override == "waive":
            waived = plus(waived, {use.traits[0]: 1})
    return counted, waived


def less(asked: Cards, waived: Cards) -> Cards:
    return {trait: n - waived.get(trait, 0) for trait, n in asked.items() if n > waived.get(trait, 0)}


def fauna_symbols(state: State, fauna: str) -> tuple[str, ...]:
    recorded = state.faces.get(fauna)
    if recorded is not None:
        return recorded
    symbols = state.kit.fauna[fauna].symbols
    assert symbols is not None
    return symbols


def check_food(state: State, action: Hunt | Forage, food: str, ruling: str) -> tuple[Location, list[Warning]]:
    """The acting species hunts or forages `food` at its active population's location, with cards it holds and
    adaptations it has: the location, and the warnings of adaptations used without a known effect."""
    species = check_acting(state, action.player, type(action).__name__.lower())
    place = active_location(state)
    if food not in (place.fauna if isinstance(action, Hunt) else place.flora):
        raise RuleViolation(ruling, f"{food} is not at {place.id}, where the active population is")
    check_cards(species, action.cards, action.player, ruling)
    return place, check_uses(state, species, action.uses)


def check_hunt(state: State, action: Hunt) -> list[Warning]:
    _, warnings = check_food(state, action, action.fauna, "TR-08")
    counted, waived = paid(action.cards, action.uses)
    asked = cards_of(fauna_symbols(state, action.fauna))
    if counted != less(asked, waived) and not warnings:
        waiving = f" less {spoken(waived)} waived" if waived else ""
        raise RuleViolation(
            "TR-08", f"{action.fauna} asks for {spoken(asked)}{waiving}; {action.player} plays {spoken(counted)}"
        )
    return warnings


def check_forage(state: State, action: Forage) -> list[Warning]:
    """A forage plays its search and gather cards as the overrides it claims leave them, whether or not the kit
    defines the adaptations' effects: an override stands as claimed, and the rest of the forage is checked
    [TR-09, TR-12]."""
    place, warnings = check_food(state, action, action.flora, "TR-09")
    gathered(state, place, action)
    return warnings


def gathered(state: State, place: Location, action: Forage) -> int:
    """The gather cards of a forage: one search card of the location's trait, the rest of the flora's [TR-09]."""
    search, gather = place.primary, state.kit.flora[action.flora].primary
    counted, waived = paid(action.cards, action.uses)
    searching = 0 if waived.get(search) else 1
    wrong = set(counted) - {search, gather}
    if wrong:
        raise RuleViolation(
            "TR-09",
            f"a forage at {place.id} plays {search} to search and {gather} to gather, not {', '.join(sorted(wrong))}",
        )
    if search == gather:
        gathering = counted.get(gather, 0) - searching
    else:
        if counted.get(search, 0) != searching:
            raise RuleViolation("TR-09", f"a forage at {place.id} plays exactly one {search} card to search")
        gathering = counted.get(gather, 0)
    if gathering < 1:
        raise RuleViolation("TR-09", f"a forage of {action.flora} gathers with at least one {gather} card")
    return gathering


def place_tokens(state: State, species: str, place: str, card: str, wanted: int) -> int:
    """Put up to `wanted` of the species' survival tokens on `card`: fewer once a capped supply runs out [TR-22]."""
    left = state.tokens_left(species)
    placed = wanted if left is None else max(0, min(wanted, left))
    if placed:
        location = state.own_location(place)
        counts = location.tokens.get(card, {})
        location.tokens = {**location.tokens, card: {**counts, species: counts.get(species, 0) + placed}}
    return placed


def reward_uses(state: State, species: Species, uses: tuple[Use, ...]) -> list[str]:
    """Each adaptation named earns 1 survival token [TR-12] (an action names each once)."""
    if not uses:
        return []
    rewarded = list(dict.fromkeys(use.adaptation for use in uses))
    for adaptation in rewarded:
        left = state.tokens_left(species.name)
        if left is None or left > 0:
            species.adaptations = {**species.adaptations, adaptation: species.adaptations[adaptation] + 1}
    return rewarded


def offspring(state: State, species: Species, trait: str) -> bool:
    """Microevolution: a supply card of `trait` face up on the deck; False when the capped pile is empty."""
    if state.supply is not None:
        if state.supply.get(trait, 0) < 1:
            return False
        state.supply = minus(state.supply, {trait: 1})
    species.offspring = (*species.offspring, trait)
    return True


def apply_food(
    state: State, player: str, card: str, cards: tuple[str, ...], uses: tuple[Use, ...], tokens: int, trait: str
) -> dict[str, object]:
    """What a hunt or a forage does once paid: tokens, the cards to the Future Genome, and microevolution."""
    place = active_location(state).id
    species = state.own_played(player)
    played = cards_of(cards)
    species.hand, species.future = minus(species.hand, played), plus(species.future, played)
    extra = sum(1 for use in uses if use.override == "token")
    placed = place_tokens(state, species.name, place, card, tokens + extra)
    rewarded = reward_uses(state, species, uses)
    if species.has_future():
        grown = offspring(state, species, trait)
        return {"tokens": placed, "adaptations": rewarded, "offspring": trait if grown else None}
    bountiful = place_tokens(state, species.name, place, card, 1)
    return {"tokens": placed + bountiful, "adaptations": rewarded, "offspring": None, "bountiful": True}


def apply_hunt(state: State, action: Hunt, effects: Effects) -> None:
    species, place = state.plays[action.player], active_location(state).id
    trait = state.kit.fauna[action.fauna].primary
    result = apply_food(state, action.player, action.fauna, action.cards, action.uses, HUNT_TOKENS, trait)
    effects.add(
        "hunted",
        player=action.player,
        species=species,
        fauna=action.fauna,
        cards=list(action.cards),
        location=place,
        **result,
    )


def apply_forage(state: State, action: Forage, effects: Effects) -> None:
    species = state.plays[action.player]
    place = active_location(state)
    gathering = gathered(state, place, action)
    result = apply_food(state, action.player, action.flora, action.cards, action.uses, gathering, place.primary)
    effects.add(
        "foraged",
        player=action.player,
        species=species,
        flora=action.flora,
        cards=list(action.cards),
        location=place.id,
        gathered=gathering,
        **result,
    )


def check_migrate(state: State, action: Migrate) -> None:
    species = check_acting(state, action.player, "migrate")
    if not species.has_future():
        raise RuleViolation("TR-10", f"{species.name}'s Trait Deck is empty: no future generation, so no migration")
    if len(action.cards) != 2:
        raise RuleViolation("TR-10", f"a migration takes two hand cards, not {len(action.cards)}")
    check_cards(species, action.cards, action.player, "TR-10")


def apply_migrate(state: State, action: Migrate, effects: Effects) -> None:
    species = state.own_played(action.player)
    species.hand = minus(species.hand, cards_of(action.cards))
    species.journey = action.cards


def check_journey(state: State, action: Journey) -> None:
    check_turn(state, action.player, "journey")
    species = state.species_of(action.player)
    if not species.journey:
        raise RuleViolation("TR-10", f"{action.player} has no migration under way")
    if action.card not in species.journey:
        raise RuleViolation("TR-10", f"the random pick is one of the two cards {action.player} chose for the journey")
    here = active_location(state).id
    if action.location not in state.locations or action.location == here:
        others = ", ".join(place for place in state.locations if place != here)
        raise RuleViolation("TR-10", f"the population moves to another location in play ({others})")


def apply_journey(state: State, action: Journey, effects: Effects) -> None:
    """The pick goes face up on the deck, the other to the Lost Genome (003:156's 'Lost Generation') [TR-25]."""
    species = state.own_played(action.player)
    first, second = species.journey
    lost = second if action.card == first else first
    species.offspring = (*species.offspring, action.card)
    species.lost = plus(species.lost, {lost: 1})
    species.journey = ()
    index = state.active
    assert index is not None
    populations = list(species.populations)
    source = populations[index].location
    populations[index] = Population(action.location, populations[index].standing)
    species.populations = tuple(populations)
    effects.add(
        "migrated", player=action.player, species=species.name, card=action.card, source=source, target=action.location
    )


def check_hunt_species(state: State, action: HuntSpecies) -> None:
    raise RuleViolation("TR-11", HUNT_SPECIES.removeprefix("[TR-11] "))


def check_end(state: State, action: EndGeneration) -> None:
    check_acting(state, action.player, "end a generation")


def apply_end(state: State, action: EndGeneration, effects: Effects) -> None:
    """The active population lies down, the hand goes to the Lost Genome; with a future generation and a
    standing population, the face-up offspring come to hand and 6 more are drawn; else the millennium is over
    for the player, its deck to the Lost Genome [TR-13]."""
    player = action.player
    species = state.own_played(player)
    index = state.active
    assert index is not None
    populations = list(species.populations)
    populations[index] = Population(populations[index].location, False)
    species.populations = tuple(populations)
    hand, lost = species.hand, 0
    if hand:
        lost = sum(hand.values())
        species.lost, species.hand = plus(species.lost, hand), {}
    offspring, deck = species.offspring, species.deck
    if (deck or offspring) and any(population.standing for population in populations):
        species.hand, species.offspring = cards_of(offspring), ()
        draw = min(state.kit.hand, sum(deck.values()))
        effects.add(
            "generation_ended", player=player, species=species.name, lost=lost, offspring=list(offspring), draws=draw
        )
        if draw:
            state.needs = (Need("draw", player, draw),)
        return
    left = sum(deck.values()) + len(offspring)
    species.lost = plus(plus(species.lost, deck), cards_of(offspring))
    species.deck, species.offspring = {}, ()
    state.finished = (*state.finished, player)
    effects.add("generation_ended", player=player, species=species.name, lost=lost + left, millennium_over=True)


def legal_food(state: State, player: str) -> Iterator[Hunt | Forage | Migrate]:
    """The hunts the hand pays for without an adaptation, the forages with each number of gather cards, and the
    migrations (each pair of hand cards)."""
    species = state.species_of(player)
    place, hand = active_location(state), species.hand
    for fauna in place.fauna:
        symbols = fauna_symbols(state, fauna)
        if contains(hand, cards_of(symbols)):
            yield Hunt(player, fauna, tuple(sorted(symbols)))
    for flora in place.flora:
        gather = state.kit.flora[flora].primary
        search = 1 if gather == place.primary else 0
        if hand.get(place.primary, 0) < 1:
            continue
        for count in range(1, hand.get(gather, 0) - search + 1):
            yield Forage(player, flora, tuple(sorted([place.primary, *[gather] * count])))
    if species.has_future():
        traits = sorted(hand)
        for index, first in enumerate(traits):
            for second in traits[index:]:
                if first != second or hand[first] > 1:
                    yield Migrate(player, (first, second))
