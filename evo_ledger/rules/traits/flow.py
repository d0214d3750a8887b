"""How a game of the trait-card "Evo" goes from the setup [TR-04] through its four millennia [TR-05] and the steps
between them [TR-14 to TR-20] to its end [TR-21]: the records each step waits for (`State.needs`), checked and
applied in order."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from evo_ledger.rules.base import Outcome, RuleViolation, Standing
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.traits.actions import (
    Action,
    AddPopulation,
    ChooseSpecies,
    Cull,
    Deal,
    Draw,
    DrawLocation,
    Drop,
    MovePopulation,
    Select,
    StartPlayer,
    TopUp,
)
from evo_ledger.rules.traits.state import (
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
    total,
)

MILLENNIA = 4
EXTINCTION_BASE = 5
FAUNA_DEALT, FLORA_DEALT = 3, 2
SCORE_LABELS = ("points",)
# The ruling each kind of record answers to, by the stage it is awaited in.
RULINGS = {
    "species": "TR-03",
    "location": "TR-04",
    "fauna": "TR-04",
    "flora": "TR-04",
    "adaptation": "TR-04",
    "draw": "TR-13",
    "start": "TR-04",
    "topup": "TR-17",
    "cull": "TR-17",
    "drop": "TR-18",
    "select": "TR-19",
    "add": "TR-19",
    "move": "TR-19",
}
STAGE_RULINGS = {"extinction": "TR-14", "mutation": "TR-18", "selection": "TR-19", "next start": "TR-20"}
KIND_OF: dict[type, str] = {
    ChooseSpecies: "species",
    DrawLocation: "location",
    Draw: "draw",
    StartPlayer: "start",
    TopUp: "topup",
    Cull: "cull",
    Drop: "drop",
    Select: "select",
    AddPopulation: "add",
    MovePopulation: "move",
}


def ruling_of(state: State, kind: str) -> str:
    if kind in ("fauna", "flora", "adaptation", "start", "draw") and state.stage in STAGE_RULINGS:
        return STAGE_RULINGS[state.stage]
    return RULINGS[kind]


def need_words(need: Need) -> str:
    """What the game waits for, as the recorder would write it."""
    count = f" ({need.cards} cards)" if need.cards else ""
    among = f", one of {', '.join(need.candidates)}" if need.candidates else ""
    forms = {
        "species": f"'{need.who} species SPECIES'",
        "location": f"'{need.who} location LOCATION'",
        "fauna": f"'deal fauna {need.who} CARD'",
        "flora": f"'deal flora {need.who} CARD'",
        "adaptation": f"'deal adaptation {need.who} CARD'",
        "draw": f"'{need.who} draw TRAIT...'{count}",
        "start": f"'start PLAYER'{among}",
        "topup": f"'{need.who} topup TRAIT...'{count}",
        "cull": f"'{need.who} cull TRAIT...'{count}",
        "drop": f"'drop {need.who} ADAPTATION'{among}",
        "select": f"'PLAYER selects SPECIES'{among}",
        "add": f"'{need.who} adds LOCATION'",
        "move": f"'{need.who} moves FROM TO' or '{need.who} stays'",
    }
    return forms[need.kind]


def check_record(state: State, action: Action) -> None:
    """A record the game waits for: the kind it waits for next, by whom, and what it may hold."""
    need = state.needs[0] if state.needs else None
    kind = action.kind if type(action) is Deal else KIND_OF[type(action)]
    if need is None or need.kind != kind:
        waited = f"it waits for {need_words(need)}" if need is not None else f"nothing is awaited ({state.phase})"
        raise RuleViolation(ruling_of(state, kind), f"'{kind}' is not recorded now: {waited}")
    CHECKS[kind](state, need, action)


# Who a pick among candidates is made from, by the kind of record.
CANDIDATES = {
    "select": "the players with the fewest points still to select",
    "start": "the players the start may go to",
}


def check_who(need: Need, who: str, ruling: str) -> None:
    if need.candidates and who not in need.candidates:
        among = CANDIDATES.get(need.kind, "the candidates")
        if need.kind == "start" and ruling == "TR-20":
            among = "the players with the most points"
        raise RuleViolation(ruling, f"{who} is not one of {among}: {', '.join(need.candidates)}")
    if need.who and who != need.who:
        raise RuleViolation(ruling, f"the game waits for {need.who}, not {who}")


def check_species(state: State, need: Need, action: ChooseSpecies) -> None:
    check_who(need, action.player, "TR-03")
    taken = set(state.plays.values())
    if action.species not in state.kit.species or action.species in taken:
        free = ", ".join(s for s in state.kit.species if s not in taken)
        raise RuleViolation("TR-03", f"{action.species!r} is not a free species ({free})")


def check_location(state: State, need: Need, action: DrawLocation) -> None:
    check_who(need, action.player, "TR-04")
    if action.location not in state.kit.locations or action.location in state.drawn_locations.values():
        free = ", ".join(p for p in state.kit.locations if p not in state.drawn_locations.values())
        raise RuleViolation("TR-25", f"{action.location!r} is not a location board still to draw ({free})")


DECK_OF_KIT = {"fauna": "fauna", "flora": "flora", "adaptation": "adaptations"}


def catalogue(state: State, kind: str) -> Mapping[str, object]:
    catalogued: Mapping[str, object] = getattr(state.kit, DECK_OF_KIT[kind])
    return catalogued


def deck_empty(state: State, kind: str) -> bool:
    return len(state.out[kind]) >= len(catalogue(state, kind))


def deck_of(state: State, kind: str) -> list[str]:
    """The cards still face down in a deck; an empty deck is its shuffled discards again [TR-22]."""
    if deck_empty(state, kind):
        return list(state.discards[kind])
    return [card for card in catalogue(state, kind) if card not in state.out[kind]]


def in_deck(state: State, kind: str, card: str) -> bool:
    if deck_empty(state, kind):
        return card in state.discards[kind]
    return card in catalogue(state, kind) and card not in state.out[kind]


def check_deal(state: State, need: Need, action: Deal) -> None:
    if action.to != need.who or not in_deck(state, action.kind, action.card):
        ruling = ruling_of(state, action.kind)
        check_who(need, action.to, ruling)
        raise RuleViolation(ruling, f"{action.card!r} is not a {action.kind} card left in its deck")
    if action.kind != "fauna":
        if action.symbols:
            raise RuleViolation("TR-02", f"only a fauna's face is recorded, not a {action.kind}'s")
        return
    known = state.kit.fauna[action.card].symbols
    if known is None and not action.symbols:
        raise RuleViolation("TR-02", f"the kit does not know {action.card}'s face: record its symbols as dealt")
    if any(symbol not in state.kit.traits for symbol in action.symbols):
        raise RuleViolation("TR-02", f"a fauna's symbols are traits ({', '.join(state.kit.traits)})")
    if known is not None and action.symbols and cards_of(action.symbols) != cards_of(known):
        raise RuleViolation("TR-02", f"the kit gives {action.card} the face {' '.join(known)}")


def check_draw(state: State, need: Need, action: Draw) -> None:
    if action.player != need.who or len(action.cards) != need.cards:
        ruling = ruling_of(state, "draw")
        check_who(need, action.player, ruling)
        raise RuleViolation(ruling, f"{action.player} draws {need.cards} cards, not {len(action.cards)}")
    if not contains(state.species_of(action.player).deck, cards_of(action.cards)):
        raise RuleViolation(
            ruling_of(state, "draw"), f"{action.player}'s Trait Deck does not hold {' '.join(action.cards)}"
        )


def check_start(state: State, need: Need, action: StartPlayer) -> None:
    check_who(need, action.player, ruling_of(state, "start"))


def check_traits(state: State, cards: tuple[str, ...], ruling: str) -> None:
    wrong = [card for card in cards if card not in state.kit.traits]
    if wrong:
        raise RuleViolation(ruling, f"{', '.join(wrong)}: not a trait ({', '.join(state.kit.traits)})")


def check_topup(state: State, need: Need, action: TopUp) -> None:
    check_who(need, action.player, "TR-17")
    check_traits(state, action.cards, "TR-17")
    if len(action.cards) != need.cards:
        raise RuleViolation("TR-17", f"{action.player}'s genome takes {need.cards} supply cards to its target")


def check_cull(state: State, need: Need, action: Cull) -> None:
    check_who(need, action.player, "TR-17")
    if len(action.cards) != need.cards:
        raise RuleViolation("TR-17", f"{action.player}'s genome returns {need.cards} cards to reach its target")
    if not contains(state.species_of(action.player).future, cards_of(action.cards)):
        raise RuleViolation("TR-17", f"the Future Genome does not hold {' '.join(action.cards)}")


def check_drop(state: State, need: Need, action: Drop) -> None:
    if action.species != need.who:
        raise RuleViolation("TR-18", f"the game waits for {need.who}'s natural selection, not {action.species}'s")
    if action.adaptation not in need.candidates:
        raise RuleViolation("TR-18", f"the pick is among the fewest tokens: {', '.join(need.candidates)}")


def check_select(state: State, need: Need, action: Select) -> None:
    check_who(need, action.player, "TR-19")
    if action.species not in state.species or action.species in state.selected:
        free = ", ".join(s for s in state.species if s not in state.selected)
        raise RuleViolation("TR-19", f"{action.species!r} is not a species left to take ({free})")


def check_add(state: State, need: Need, action: AddPopulation) -> None:
    check_who(need, action.player, "TR-19")
    species = state.species_of(action.player)
    if not any(p.location == action.location for p in species.populations):
        where = ", ".join(sorted({p.location for p in species.populations}))
        raise RuleViolation("TR-19", f"the new population joins one of {species.name}'s: at {where}")


def check_move(state: State, need: Need, action: MovePopulation) -> None:
    check_who(need, action.player, "TR-19")
    if not action.source:
        return
    species = state.species_of(action.player)
    if not any(p.location == action.source for p in species.populations):
        raise RuleViolation("TR-19", f"{species.name} has no population at {action.source}")
    if action.target not in state.locations or action.target == action.source:
        raise RuleViolation("TR-19", f"{action.target!r} is not another location in play")


CHECKS: dict[str, Callable[[State, Need, object], None]] = {
    "species": check_species, "location": check_location, "fauna": check_deal, "flora": check_deal,  # type: ignore[dict-item]
    "adaptation": check_deal, "draw": check_draw, "start": check_start, "topup": check_topup,  # type: ignore[dict-item]
    "cull": check_cull, "drop": check_drop, "select": check_select, "add": check_add, "move": check_move,  # type: ignore[dict-item]
}  # fmt: skip


def apply_record(state: State, action: Action, effects: Effects) -> None:
    needs = state.needs
    state.needs = needs[1:]
    APPLIES[needs[0].kind](state, action, effects)
    if not state.needs:
        if state.phase == Phase.GENERATION:
            pass_turn(state, effects)
        else:
            STAGES[state.stage](state, effects)


def apply_species(state: State, action: ChooseSpecies, effects: Effects) -> None:
    state.plays = {**state.plays, action.player: action.species}


def apply_location(state: State, action: DrawLocation, effects: Effects) -> None:
    state.drawn_locations = {**state.drawn_locations, action.player: action.location}


def apply_deal(state: State, action: Deal, effects: Effects) -> None:
    kind = action.kind
    if deck_empty(state, kind):
        discarded = state.discards[kind]
        state.out = {**state.out, kind: tuple(card for card in state.out[kind] if card not in discarded)}
        effects.add("deck_rebuilt", deck=kind, cards=len(discarded))
        state.discards = {**state.discards, kind: ()}
    state.out = {**state.out, kind: (*state.out[kind], action.card)}
    if action.symbols:
        state.faces = {**state.faces, action.card: action.symbols}
    if action.kind == "adaptation":
        species = state.own_species(action.to)
        species.adaptations = {**species.adaptations, action.card: 0}
        return
    place = state.own_location(action.to)
    if action.kind == "fauna":
        place.fauna = (*place.fauna, action.card)
    else:
        place.flora = (*place.flora, action.card)
    if state.phase == Phase.INTERLUDE:
        place.fresh = (*place.fresh, action.card)


def apply_draw(state: State, action: Draw, effects: Effects) -> None:
    species = state.own_played(action.player)
    drawn = cards_of(action.cards)
    species.deck, species.hand = minus(species.deck, drawn), plus(species.hand, drawn)


def apply_start(state: State, action: StartPlayer, effects: Effects) -> None:
    state.start = action.player


def apply_topup(state: State, action: TopUp, effects: Effects) -> None:
    """Supply cards up to the target, 1 point less each; a card a capped pile lacks still costs it [TR-17]."""
    species = state.own_played(action.player)
    if state.supply is None:
        species.future = plus(species.future, cards_of(action.cards))
    else:
        supply = state.supply
        for trait in action.cards:
            if supply.get(trait, 0) > 0:
                species.future = plus(species.future, {trait: 1})
                supply = minus(supply, {trait: 1})
        state.supply = supply
    genome_settled(state, action.player, -len(action.cards), list(action.cards), effects)


def apply_cull(state: State, action: Cull, effects: Effects) -> None:
    species = state.own_played(action.player)
    species.future = minus(species.future, cards_of(action.cards))
    if state.supply is not None:
        state.supply = plus(state.supply, cards_of(action.cards))
    genome_settled(state, action.player, len(action.cards), list(action.cards), effects)


def genome_settled(state: State, player: str, points: int, cards: list[str], effects: Effects) -> None:
    state.points = {**state.points, player: state.points[player] + points}
    effects.add(
        "genome_target",
        player=player,
        species=state.plays[player],
        millennium=state.millennium,
        target=target(state),
        cards=cards,
        points=points,
        total=state.points[player],
    )


def apply_drop(state: State, action: Drop, effects: Effects) -> None:
    drop_adaptation(state, state.own_species(action.species), action.adaptation, effects)


def apply_select(state: State, action: Select, effects: Effects) -> None:
    state.plays = {**state.plays, action.player: action.species}
    state.selected = (*state.selected, action.species)
    species = state.species[action.species]
    follow = [Need("move", action.player)]
    if species.reserve > 0:
        follow.insert(0, Need("add", action.player))
    draw = min(state.kit.hand, total(species.deck))
    if draw:
        follow.append(Need("draw", action.player, draw))
    state.needs = (*follow, *state.needs)


def apply_add(state: State, action: AddPopulation, effects: Effects) -> None:
    species = state.own_played(action.player)
    species.reserve -= 1
    species.populations = (*species.populations, Population(action.location))


def apply_move(state: State, action: MovePopulation, effects: Effects) -> None:
    if not action.source:
        return
    species = state.own_played(action.player)
    index = next(i for i, p in enumerate(species.populations) if p.location == action.source)
    populations = list(species.populations)
    populations[index] = populations[index]._replace(location=action.target)
    species.populations = tuple(populations)


APPLIES: dict[str, Callable[[State, object, Effects], None]] = {
    "species": apply_species, "location": apply_location, "fauna": apply_deal, "flora": apply_deal,  # type: ignore[dict-item]
    "adaptation": apply_deal, "draw": apply_draw, "start": apply_start, "topup": apply_topup,  # type: ignore[dict-item]
    "cull": apply_cull, "drop": apply_drop, "select": apply_select, "add": apply_add, "move": apply_move,  # type: ignore[dict-item]
}  # fmt: skip


def setup_needs(players: tuple[str, ...]) -> tuple[Need, ...]:
    return tuple(Need("species", player) for player in players)


def after_species(state: State, effects: Effects) -> None:
    kit = state.kit
    for player in state.players:
        name = state.plays[player]
        deck = {trait: kit.deck_per_trait for trait in kit.traits if kit.deck_per_trait}
        state.species = {**state.species, name: Species(name, deck, reserve=kit.population - kit.start_population)}
    state.stage, state.needs = "location", tuple(Need("location", player) for player in state.players)


def after_locations(state: State, effects: Effects) -> None:
    kit = state.kit
    for player in state.players:
        place = state.drawn_locations[player]
        state.locations = {**state.locations, place: Location(place, kit.locations[place])}
        species = state.own_played(player)
        species.populations = tuple(Population(place) for _ in range(kit.start_population))
    dealt = (("fauna", FAUNA_DEALT), ("flora", FLORA_DEALT))
    cards = [Need(kind, place) for place in state.locations for kind, count in dealt for _ in range(count)]
    state.stage, state.needs = "cards", tuple(cards)


def after_cards(state: State, effects: Effects) -> None:
    needs = [Need("adaptation", state.plays[p]) for p in state.players for _ in range(state.kit.start_adaptations)]
    state.stage, state.needs = "adaptations", tuple(needs)
    if not needs:
        after_adaptations(state, effects)


def after_adaptations(state: State, effects: Effects) -> None:
    if state.options.get("finite_trait_supply"):
        kit = state.kit
        state.supply = {t: kit.trait_cards - kit.deck_per_trait * len(state.players) for t in kit.traits}
    state.stage = "hands"
    state.needs = tuple(Need("draw", player, state.kit.hand) for player in state.players)


def after_hands(state: State, effects: Effects) -> None:
    state.stage, state.needs = "start", (Need("start", "", candidates=state.players),)


def begin_millennium(state: State, effects: Effects) -> None:
    state.phase, state.stage = Phase.GENERATION, ""
    state.current, state.active, state.finished, state.selected = state.start, None, (), ()
    for place in list(state.locations):
        if state.locations[place].fresh:
            state.own_location(place).fresh = ()
    effects.add(
        "millennium_begun",
        millennium=state.millennium,
        start=state.start,
        plays={player: state.plays[player] for player in state.players},
    )


def pass_turn(state: State, effects: Effects) -> None:
    """The next player to the left whose millennium is not over; when every one's is, the millennium ends."""
    state.active = None
    seats = state.players
    here = seats.index(state.current)
    for step in range(1, len(seats) + 1):
        player = seats[(here + step) % len(seats)]
        if player not in state.finished:
            state.current = player
            return
    start_interlude(state, effects)


def start_interlude(state: State, effects: Effects) -> None:
    """Extinction: the cards with more than 5 + M tokens go, each replaced from its deck [TR-14]."""
    state.phase, state.stage = Phase.INTERLUDE, "extinction"
    limit = EXTINCTION_BASE + state.millennium
    needs = []
    for name in list(state.locations):
        for kind in ("fauna", "flora"):
            for card in getattr(state.locations[name], kind):
                tokens = state.locations[name].card_tokens(card)
                if tokens > limit:
                    by_species = {s: n for s, n in sorted(state.locations[name].tokens[card].items()) if n}
                    place = state.own_location(name)
                    setattr(place, kind, tuple(c for c in getattr(place, kind) if c != card))
                    place.tokens = {c: counts for c, counts in place.tokens.items() if c != card}
                    state.discards = {**state.discards, kind: (*state.discards[kind], card)}
                    needs.append(Need(kind, name))
                    effects.add(
                        "extinct",
                        location=name,
                        deck=kind,
                        card=card,
                        tokens=tokens,
                        limit=limit,
                        by_species=by_species,
                    )
    state.needs = tuple(needs)
    if not needs:
        after_extinction(state, effects)


def after_extinction(state: State, effects: Effects) -> None:
    thrive(state, effects)
    score(state, effects)
    state.stage = "targets"
    state.needs = tuple(
        Need("topup" if n < target(state) else "cull", player, abs(target(state) - n))
        for player in state.players
        if (n := total(state.species_of(player).future)) != target(state)
    )
    for player in state.players:
        if total(state.species_of(player).future) == target(state):
            genome_settled(state, player, 0, [], effects)
    if not state.needs:
        after_targets(state, effects)


def target(state: State) -> int:
    return state.kit.genome_targets[state.millennium - 1]


def thrive(state: State, effects: Effects) -> None:
    """Thriving competitors: each card here with no token (not a replacement just dealt) takes a token from each
    species with tokens here [TR-15]."""
    for name in list(state.locations):
        place = state.locations[name]
        thriving = [c for c in (*place.fauna, *place.flora) if c not in place.fresh and not place.card_tokens(c)]
        if not thriving:
            continue
        place = state.own_location(name)
        losses, before = {}, {}
        for species in sorted({s for counts in place.tokens.values() for s, n in counts.items() if n}):
            before[species] = place.species_tokens(species)
            lost = min(before[species], len(thriving))
            take_tokens(place, species, lost)
            losses[species] = lost
        effects.add("thriving", location=place.id, cards=thriving, losses=losses, before=before)


def take_tokens(place: Location, species: str, count: int) -> None:
    tokens = dict(place.tokens)
    for card, counts in place.tokens.items():
        taken = min(count, counts.get(species, 0))
        if taken:
            tokens[card] = {**counts, species: counts[species] - taken}
            count -= taken
    place.tokens = tokens


def score(state: State, effects: Effects) -> None:
    """Each player scores its species' tokens at the locations, 1 a token and the bonus, and they go back
    [TR-16]."""
    for player in state.players:
        species = state.plays[player]
        where = {name: n for name, place in state.locations.items() if (n := place.species_tokens(species))}
        tokens = sum(where.values())
        bonus = state.kit.bonus_for(tokens)
        state.points = {**state.points, player: state.points[player] + tokens + bonus}
        effects.add(
            "scored",
            player=player,
            species=species,
            millennium=state.millennium,
            tokens=tokens,
            bonus=bonus,
            total=state.points[player],
            locations=where,
        )
    for name in list(state.locations):
        state.own_location(name).tokens = {}


def after_targets(state: State, effects: Effects) -> None:
    """After millennium 4 the game ends [TR-21]; before it, each genome becomes the next Trait Deck, the Lost
    Genome goes back to the supply, and natural selection drops each species' least used adaptation [TR-17,
    TR-18]."""
    if state.millennium == MILLENNIA:
        end_game(state, effects)
        return
    for player in state.players:
        species = state.own_played(player)
        species.deck, species.future = species.future, {}
        if state.supply is not None:
            state.supply = plus(state.supply, species.lost)
        species.lost = {}
    state.stage = "natural selection"
    needs = []
    for player in state.players:
        species = state.own_played(player)
        if not species.adaptations:
            continue
        fewest = min(species.adaptations.values())
        tied = tuple(a for a, tokens in species.adaptations.items() if tokens == fewest)
        if len(tied) == 1:
            drop_adaptation(state, species, tied[0], effects)
        else:
            needs.append(Need("drop", species.name, candidates=tied))
    state.needs = tuple(needs)
    if not needs:
        after_selection_drop(state, effects)


def drop_adaptation(state: State, species: Species, adaptation: str, effects: Effects) -> None:
    tokens, held = species.adaptations[adaptation], dict(species.adaptations)
    species.adaptations = {name: n for name, n in species.adaptations.items() if name != adaptation}
    state.discards = {**state.discards, "adaptation": (*state.discards["adaptation"], adaptation)}
    effects.add("adaptation_dropped", species=species.name, adaptation=adaptation, tokens=tokens, held=held)


def after_selection_drop(state: State, effects: Effects) -> None:
    """Every adaptation's tokens go back; random mutation deals each species 2 more [TR-18]."""
    for player in state.players:
        species = state.own_played(player)
        species.adaptations = dict.fromkeys(species.adaptations, 0)
    state.stage = "mutation"
    state.needs = tuple(Need("adaptation", state.plays[p]) for p in state.players for _ in range(2))


def after_mutation(state: State, effects: Effects) -> None:
    """A new age: every population stands; the players take species, the fewest points first [TR-18, TR-19]."""
    for name in list(state.species):
        species = state.own_species(name)
        species.populations = tuple(p._replace(standing=True) for p in species.populations)
    state.stage, state.selected, state.plays = "selection", (), {}
    next_selection(state, effects)


def next_selection(state: State, effects: Effects) -> None:
    waiting = [player for player in state.players if player not in state.plays]
    if not waiting:
        most = max(state.points.values())
        state.stage = "next start"
        state.needs = (Need("start", "", candidates=tuple(p for p in state.players if state.points[p] == most)),)
        return
    fewest = min(state.points[player] for player in waiting)
    tied = tuple(player for player in waiting if state.points[player] == fewest)
    state.needs = (Need("select", "", candidates=tied),)


def after_selection(state: State, effects: Effects) -> None:
    next_selection(state, effects)


def after_next_start(state: State, effects: Effects) -> None:
    state.millennium += 1
    begin_millennium(state, effects)


def end_game(state: State, effects: Effects) -> None:
    state.phase, state.stage, state.needs = Phase.OVER, "", ()
    result = standings(state)
    effects.add(
        "game_ended", standings=[{"rank": s.rank, "player": s.player, "score": list(s.score)} for s in result.standings]
    )


def standings(state: State) -> Outcome:
    """Most points first; equal points share the place [TR-21]."""
    ranked = sorted(state.players, key=lambda p: -state.points[p])
    result = tuple(
        Standing(1 + sum(state.points[o] > state.points[p] for o in state.players), p, (state.points[p],))
        for p in ranked
    )
    return Outcome(result, SCORE_LABELS)


STAGES: dict[str, Callable[[State, Effects], None]] = {
    "species": after_species,
    "location": after_locations,
    "cards": after_cards,
    "adaptations": after_adaptations,
    "hands": after_hands,
    "start": begin_millennium,
    "extinction": after_extinction,
    "targets": after_targets,
    "natural selection": after_selection_drop,
    "mutation": after_mutation,
    "selection": after_selection,
    "next start": after_next_start,
}
