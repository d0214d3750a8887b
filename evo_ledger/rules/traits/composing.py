"""Actions of the trait-card "Evo" entered a word at a time, for the recorder who sees every hidden fact.

The listed legal actions give the records that are choices (a species, a location board, a start player, a
selection, a population added or moved), the active population, a journey and the end of a generation. The rest
is composed here from the state: the cards dealt face up (with a fauna's face where the kit has none) [TR-02], the
trait cards drawn from the deck as it stands [TR-13, TR-19], the supply cards of a top-up and the Future Genome
cards of a cull [TR-17], the two cards of a migration [TR-10], and hunts and forages with their cards in any
order and the adaptations they name, each once [TR-08, TR-09, TR-12]. A word is offered only where some legal
action follows it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import listed_next_words
from evo_ledger.rules.traits import flow
from evo_ledger.rules.traits.actions import Action, Forage, Hunt, Use, format_action
from evo_ledger.rules.traits.generation import active_location, check_forage, check_hunt, fauna_symbols, paid
from evo_ledger.rules.traits.kit import Effect, Kit
from evo_ledger.rules.traits.state import Cards, Need, Phase, State, cards_of, contains, minus, total

NOTHING = NextWords((), False)
NAMED_TRAITS = {"swap": 2, "waive": 1, "token": 0}
"""The traits each override names after it."""
PLENTY = 1 << 10
"""Room without a limit (the gather cards of a forage, a route through any swap)."""
CARD_RECORDS = ("draw", "topup", "cull")
Listed = Callable[[State], Iterator[Action]]


def next_words(state: State, words: Sequence[str], listed: Listed) -> NextWords:
    """The words that may follow `words` in a legal action now, and whether `words` is one; `listed` gives the
    legal actions the ruleset lists."""
    words = list(words)
    if state.phase == Phase.OVER:
        return NOTHING
    if state.needs:
        need = state.needs[0]
        if need.kind in flow.DECK_OF_KIT:
            return deal_words(state, need, words)
        if need.kind in CARD_RECORDS:
            return record_words(state, need, words)
        return listed_words(state, words, listed)
    if state.active is None or state.species_of(state.current).journey:
        return listed_words(state, words, listed)
    return generation_words(state, words, listed)


def listed_words(state: State, words: Sequence[str], listed: Listed) -> NextWords:
    return listed_next_words((format_action(action) for action in listed(state)), words)


def lead_words(lead: Sequence[str], words: Sequence[str]) -> NextWords | None:
    """The next word of `lead` while `words` are a part of it; NOTHING when they stray from it; None once it is
    entered whole."""
    if list(words[: len(lead)]) != list(lead[: len(words)]):
        return NOTHING
    return NextWords((lead[len(words)],), False) if len(words) < len(lead) else None


def chosen_cards(pool: Cards | None, count: int, traits: Sequence[str], chosen: Sequence[str]) -> NextWords:
    """`count` cards in any order, each one `pool` still holds (any trait where it is None): the traits that may
    come next, in `traits`' order."""
    if len(chosen) > count or any(card not in traits for card in chosen):
        return NOTHING
    left = pool
    if pool is not None:
        taken = cards_of(tuple(chosen))
        if not contains(pool, taken):
            return NOTHING
        left = minus(pool, taken)
    if len(chosen) == count:
        return NextWords((), True)
    return NextWords(tuple(trait for trait in traits if left is None or left.get(trait, 0) > 0), False)


def record_words(state: State, need: Need, words: Sequence[str]) -> NextWords:
    """A draw from the species' Trait Deck as it stands, a top-up from the supply (any trait, even one a finite
    pile lacks), or a cull from the Future Genome: as many cards as the game waits for [TR-13, TR-17, TR-19]."""
    lead = (need.who, need.kind)
    before = lead_words(lead, words)
    if before is not None:
        return before
    species = state.species_of(need.who)
    pool = {"draw": species.deck, "topup": None, "cull": species.future}[need.kind]
    return chosen_cards(pool, need.cards, state.kit.traits, words[len(lead) :])


def deal_words(state: State, need: Need, words: Sequence[str]) -> NextWords:
    """A card left in its deck, dealt face up; a fauna's face after it: required where the kit has none, and where it
    has one, the same symbols in any order or none [TR-02, TR-22]."""
    before = lead_words(("deal", need.kind, need.who), words)
    if before is not None:
        return before
    if len(words) == 3:
        return NextWords(tuple(flow.deck_of(state, need.kind)), False)
    card, symbols = words[3], words[4:]
    if not flow.in_deck(state, need.kind, card):
        return NOTHING
    if need.kind != "fauna":
        return NOTHING if symbols else NextWords((), True)
    traits = state.kit.traits
    known = state.kit.fauna[card].symbols
    if known is None:
        return NextWords(traits, bool(symbols)) if all(symbol in traits for symbol in symbols) else NOTHING
    face = cards_of(known)
    given = cards_of(tuple(symbols))
    if not contains(face, given):
        return NOTHING
    left = minus(face, given)
    return NextWords(tuple(trait for trait in dict.fromkeys(known) if left.get(trait)), not symbols or not left)


def generation_words(state: State, words: Sequence[str], listed: Listed) -> NextWords:
    """The acting player's hunts, forages and migrations, composed; the end of the generation, listed."""
    player = state.current
    if words[:1] not in ([], [player]):
        return NOTHING
    if len(words) < 2:
        found = listed_words(state, words, listed)
        if not words:
            return found
        verbs = [verb for verb in ("hunt", "forage") if any(meals(state, verb))]
        if state.species_of(player).has_future() and total(state.species_of(player).hand) >= 2:
            verbs.append("migrate")
        return NextWords(tuple(dict.fromkeys((*verbs, *found.words))), False)
    verb = words[1]
    species = state.species_of(player)
    if verb in ("hunt", "forage"):
        if len(words) == 2:
            return NextWords(tuple(meal.target for meal in meals(state, verb)), False)
        meal = Meal(state, verb, words[2])
        return meal.next_words(words[3:]) if meal.served else NOTHING
    if verb == "migrate":
        if not species.has_future():
            return NOTHING
        return chosen_cards(species.hand, 2, state.kit.traits, words[2:])
    return listed_words(state, words, listed)


def meals(state: State, verb: str) -> Iterator[Meal]:
    """The hunts or forages at the active population's location that some cards and adaptations pay for."""
    place = active_location(state)
    for target in place.fauna if verb == "hunt" else place.flora:
        meal = Meal(state, verb, target)
        if meal.finishes((), meal.hand, ()):
            yield meal


def effect_of(kit: Kit, adaptation: str) -> Effect | None:
    found = kit.adaptations.get(adaptation)
    return found.effect if found is not None else None


@lru_cache(maxsize=1024)
def uses_of(traits: tuple[str, ...], adaptation: str, effect: Effect | None) -> tuple[Use, ...]:
    """The uses an adaptation may be named with: its effect where the kit gives one, else any override [TR-12]."""
    if effect is not None:
        return (Use(adaptation, effect.kind, effect.traits),)
    swaps = (Use(adaptation, "swap", (first, second)) for first in traits for second in traits)
    return (*swaps, *(Use(adaptation, "waive", (trait,)) for trait in traits), Use(adaptation, "token"))


class Spare(NamedTuple):
    """What the adaptations not yet named in an action can still do to its cost, each once: the swaps of those with
    an effect in the kit (source, target and how many adaptations make it, by trait index), the symbols they waive
    (a count a trait, in the kit's order), and how many have no effect in the kit (each claims any one swap or
    waive, its use not rule-checked) [TR-12]."""

    swaps: tuple[tuple[int, int, int], ...]
    waives: tuple[int, ...]
    wild: int


@lru_cache(maxsize=1024)
def spare(traits: tuple[str, ...], effects: tuple[Effect | None, ...]) -> Spare:
    index = {trait: i for i, trait in enumerate(traits)}
    swaps: dict[tuple[int, int], int] = {}
    waives = [0] * len(traits)
    for effect in effects:
        if effect is None:
            continue
        if effect.kind == "swap" and effect.traits[0] != effect.traits[1]:
            pair = (index[effect.traits[0]], index[effect.traits[1]])
            swaps[pair] = swaps.get(pair, 0) + 1
        elif effect.kind == "waive":
            waives[index[effect.traits[0]]] += 1
    wild = sum(1 for effect in effects if effect is None)
    return Spare(tuple((*pair, count) for pair, count in sorted(swaps.items())), tuple(waives), wild)


@lru_cache(maxsize=1024)
def spelled_uses(
    traits: tuple[str, ...], adaptation: str, effect: Effect | None
) -> tuple[tuple[Use, tuple[str, ...]], ...]:
    """Each use an adaptation may be named with, and its words."""
    return tuple(
        (use, ("with", use.adaptation, use.override, *use.traits)) for use in uses_of(traits, adaptation, effect)
    )


class Meal:
    """A hunt of a fauna or a forage of a flora by the acting species, entered a word at a time: its cards (a part
    of the hand, in any order), then the adaptations it names, each once.

    Whether an entered start can still become a legal action is a flow (`routed`): each card played ends as the
    trait it stands for after the swaps of the adaptations not yet named (each moves one card, one after another),
    every card the cost asks is met, and no trait gets more than asked; a waive lowers what is asked by one. A hunt
    naming an adaptation with no effect in the kit is not rule-checked, so any cards pay for it; a forage's search
    and gather cards are checked as the overrides claimed leave them all the same [TR-08, TR-09, TR-12]."""

    def __init__(self, state: State, verb: str, target: str) -> None:
        self.state, self.verb, self.target = state, verb, target
        self.player = state.current
        kit = state.kit
        place = active_location(state)
        self.served = target in (place.fauna if verb == "hunt" else place.flora)
        species = state.species_of(self.player)
        self.hand, self.adaptations = species.hand, tuple(species.adaptations)
        self.traits = kit.traits
        self.index = {trait: i for i, trait in enumerate(self.traits)}
        self.asked: Cards = cards_of(fauna_symbols(state, target)) if verb == "hunt" and self.served else {}
        self.search = place.primary
        self.gather = kit.flora[target].primary if verb == "forage" and self.served else ""
        self.effects = {adaptation: effect_of(kit, adaptation) for adaptation in self.adaptations}
        self.unchecked = None in self.effects.values()
        first = fauna_symbols(state, target) if verb == "hunt" and self.served else (self.search, self.gather)
        self.order = tuple(dict.fromkeys((*first, *self.traits)))

    def uses(self, adaptation: str) -> tuple[Use, ...]:
        return uses_of(self.traits, adaptation, self.effects[adaptation])

    def vector(self, cards: Cards) -> tuple[int, ...]:
        """The cards as a count a trait, in the kit's order."""
        return tuple(cards.get(trait, 0) for trait in self.traits)

    def next_words(self, rest: Sequence[str]) -> NextWords:
        """After the fauna or flora: the cards, then `with` and the uses."""
        parts = split_uses(rest)
        if parts is None:
            return NOTHING
        cards, named, partial = parts
        if any(card not in self.index for card in cards) or not contains(self.hand, cards_of(cards)):
            return NOTHING
        uses: list[Use] = []
        for words in named:
            use = Use(words[1], words[2], tuple(words[3:]))
            if use.adaptation not in self.effects or use not in self.uses(use.adaptation):
                return NOTHING
            if any(earlier.adaptation == use.adaptation for earlier in uses):
                return NOTHING
            uses.append(use)
        if partial:
            return NextWords(self.use_words(cards, tuple(uses), partial), False)
        offered: list[str] = []
        if not uses:
            left = minus(self.hand, cards_of(cards))
            for trait in self.order:
                if left.get(trait, 0) and self.finishes((*cards, trait), minus(left, {trait: 1}), ()):
                    offered.append(trait)
        if self.use_words(cards, tuple(uses), ("with",)):
            offered.append("with")
        return NextWords(tuple(offered), self.legal(cards, tuple(uses)))

    def use_words(self, cards: tuple[str, ...], uses: tuple[Use, ...], partial: Sequence[str]) -> tuple[str, ...]:
        """The words that may follow `partial`, the start of one more use (`with`, an adaptation not yet named, its
        override, its traits)."""
        at, begun, offered = len(partial), tuple(partial), dict[str, None]()
        named = self.adaptations if at < 2 else (partial[1],) if partial[1] in self.effects else ()
        taken = {use.adaptation for use in uses}
        for adaptation in named:
            if adaptation in taken:
                continue  # an action names each adaptation once [TR-12]
            for use, words in spelled_uses(self.traits, adaptation, self.effects[adaptation]):
                if words[:at] == begun and words[at] not in offered and self.finishes(cards, {}, (*uses, use)):
                    offered[words[at]] = None
        return tuple(offered)

    def legal(self, cards: tuple[str, ...], uses: tuple[Use, ...]) -> bool:
        """Whether the rules take the action as it stands, a forage's resolution included."""
        try:
            if self.verb == "hunt":
                check_hunt(self.state, Hunt(self.player, self.target, cards, uses))
            else:
                check_forage(self.state, Forage(self.player, self.target, cards, uses))
        except RuleViolation:
            return False
        return True

    def finishes(self, cards: tuple[str, ...], more: Cards, uses: tuple[Use, ...]) -> bool:
        """Whether `cards`, with some of `more` after them, and `uses`, with uses of the adaptations not yet named
        after them, can make a legal action."""
        named = {use.adaptation for use in uses}
        if len(named) < len(uses):
            return False
        if self.verb == "hunt" and self.unchecked:
            return True
        left = spare(self.traits, tuple(effect for name, effect in self.effects.items() if name not in named))
        counted, waived = paid(cards, uses)
        must, may = self.vector(counted), self.vector(more)
        if self.verb == "hunt":
            return routed(must, may, *self.hunt_bounds(waived, left), left.swaps, 0)
        bounds = self.forage_bounds(waived, left)
        return any(routed(must, may, low, high, left.swaps, wild) for low, high, wild in bounds)

    def hunt_bounds(self, waived: Cards, left: Spare) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Each trait's cards: at most what the fauna asks less the symbols waived, and at least that less the
        waives still to come."""
        high = [max(0, self.asked.get(trait, 0) - waived.get(trait, 0)) for trait in self.traits]
        low = [max(0, most - waives) for most, waives in zip(high, left.waives, strict=True)]
        return tuple(low), tuple(high)

    def forage_bounds(self, waived: Cards, left: Spare) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], int]]:
        """One search card of the location's trait (none once it is waived, by a waive named or still to come) and
        at least one gather card of the flora's, nothing else [TR-09]; and the adaptations with no effect in the kit
        left for swaps (one fewer where one of them waives the search card)."""
        search, gather = self.index[self.search], self.index[self.gather]
        searches = [(1, left.wild)]
        if waived.get(self.search):
            searches = [(0, left.wild)]
        elif left.waives[search]:
            searches.append((0, left.wild))
        elif left.wild:
            searches.append((0, left.wild - 1))
        for searching, wild in searches:
            low, high = [0] * len(self.traits), [0] * len(self.traits)
            if search == gather:
                low[gather], high[gather] = 1 + searching, PLENTY
            else:
                low[search] = high[search] = searching
                low[gather], high[gather] = 1, PLENTY
            yield tuple(low), tuple(high), wild


@lru_cache(maxsize=8192)
def routed(
    must: tuple[int, ...],
    may: tuple[int, ...],
    low: tuple[int, ...],
    high: tuple[int, ...],
    swaps: tuple[tuple[int, int, int], ...],
    wild: int,
) -> bool:
    """Whether every card of `must` and some of `may` (a count a trait) end as traits that each get from `low` to
    `high` cards, each swap moving one card of its source to its target and each of `wild` swaps one card of any
    trait to any other.

    A feasible flow: cards enter at their trait, run along the swaps (capacity: how many adaptations make each)
    or through a hub that `wild` bounds, and leave at the trait they end as. Its paths are the swaps named in turn,
    each finding the card it moves, since a flow without cycles may be taken trait by trait in a topological order.
    The bounds below are met by the usual reduction: a maximum flow from a new source to a new sink must fill what
    the lower bounds ask."""
    if sum(must) > sum(high) or sum(must) + sum(may) < sum(low):
        return False
    n = len(must)
    hub_in, hub_out, source, sink, first, last = n, n + 1, n + 2, n + 3, n + 4, n + 5
    capacity = [[0] * (n + 6) for _ in range(n + 6)]
    excess = [0] * (n + 6)

    def edge(tail: int, head: int, least: int, most: int) -> None:
        capacity[tail][head] += most - least
        excess[head] += least
        excess[tail] -= least

    for trait in range(n):
        edge(source, trait, must[trait], must[trait] + may[trait])
        edge(trait, sink, low[trait], high[trait])
        if wild:
            edge(trait, hub_in, 0, PLENTY)
            edge(hub_out, trait, 0, PLENTY)
    for tail, head, count in swaps:
        edge(tail, head, 0, count)
    edge(hub_in, hub_out, 0, wild)
    edge(sink, source, 0, PLENTY * n)
    wanted = 0
    for node, amount in enumerate(excess):
        if amount > 0:
            capacity[first][node] += amount
            wanted += amount
        elif amount < 0:
            capacity[node][last] -= amount
    return max_flow(capacity, first, last, wanted) == wanted


def max_flow(capacity: list[list[int]], source: int, sink: int, limit: int) -> int:
    """The maximum flow from `source` to `sink` up to `limit`, by shortest augmenting paths; `capacity` becomes the
    residual network."""
    size, flow = len(capacity), 0
    while flow < limit:
        parent = [-1] * size
        parent[source] = source
        queue = [source]
        for node in queue:
            for head in range(size):
                if parent[head] < 0 and capacity[node][head] > 0:
                    parent[head] = node
                    queue.append(head)
        if parent[sink] < 0:
            break
        push, node = limit - flow, sink
        while node != source:
            push = min(push, capacity[parent[node]][node])
            node = parent[node]
        node = sink
        while node != source:
            capacity[parent[node]][node] -= push
            capacity[node][parent[node]] += push
            node = parent[node]
        flow += push
    return flow


def split_uses(rest: Sequence[str]) -> tuple[tuple[str, ...], list[tuple[str, ...]], tuple[str, ...]] | None:
    """The cards before the first `with`, the uses named whole, and the start of one more (or none); None when the
    words cannot be a hunt's or a forage's."""
    words = tuple(rest)
    at = words.index("with") if "with" in words else len(words)
    cards, named = words[:at], list[tuple[str, ...]]()
    while at < len(words):
        if words[at] != "with":
            return None
        if len(words) - at < 3:
            return cards, named, words[at:]
        if words[at + 2] not in NAMED_TRAITS:
            return None
        size = 3 + NAMED_TRAITS[words[at + 2]]
        if len(words) - at < size:
            return cards, named, words[at:]
        named.append(words[at : at + size])
        at += size
    return cards, named, ()
