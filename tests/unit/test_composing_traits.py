"""The trait-card game's actions entered a word at a time (`Composing`): every action of the shipped games and of
seeded self-played ones is offered word by word, the listed legal actions too, and what is offered is sound: a
start reported complete is a legal action, and an offered word always leads on to one."""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

import pytest

from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import Composing, has, next_words
from evo_ledger.rules.kits import load_kit
from evo_ledger.rules.text import NotationError
from evo_ledger.rules.traits.actions import Action, Forage, Hunt, Use
from evo_ledger.rules.traits.generation import active_location, fauna_symbols, paid
from evo_ledger.rules.traits.kit import parse_kit
from evo_ledger.rules.traits.ruleset import TraitsRuleset
from evo_ledger.rules.traits.selfplay import TraitsSelfPlay
from evo_ledger.rules.traits.state import State, cards_of
from tests.helpers.composing import Game, assert_legal, entered, played
from tests.helpers.support import ROOT
from tools.make_traits_kit import make_kit

RULES = TraitsRuleset()
KIT = load_kit("standin-traits")
TRAITS = KIT.traits
REPLAYS = sorted(path.name for path in (ROOT / "replays").glob("traits-*.evo"))
NAMES = ("ann", "ben", "cat", "dan")
SELF_PLAYED = [f"selfplay-seed{seed}" for seed in range(1, 21)]
"""Seeds 1 to 20: 2 to 4 players, random and sensible bots, every fourth with the finite supply and token cap."""


@cache
def game(name: str) -> Game[State]:
    if name in REPLAYS:
        parsed = parse_game((ROOT / "replays" / name).read_text())
        kit = load_kit(parsed.header.kit)
        start = RULES.setup(kit, parsed.header.players, parsed.header.options)
        return played(RULES, start, [line.text for line in parsed.actions])
    seed = int(name.removeprefix("selfplay-seed"))
    names = NAMES[: 2 + seed % 3]
    options = {"finite_trait_supply": True, "token_cap": True} if seed % 4 == 0 else {}
    bot = ("random", "sensible")[seed % 2]
    moves = TraitsSelfPlay(RULES).play(KIT, names, seed, bot, options)
    return played(RULES, RULES.setup(KIT, names, options), [RULES.format_action(action) for action, _ in moves])


def sampled(every: int) -> list[State]:
    """Every `every`-th position of every game, the first move of each included."""
    return [state for name in (*REPLAYS, *SELF_PLAYED) for state, _ in game(name).positions[::every]]


def pick(rng: random.Random, offered: NextWords) -> str:
    """A random word of those offered; `with` half the time it is offered, so that a hunt or forage plays few cards
    beside its adaptations."""
    if "with" in offered.words and rng.random() < 0.5:
        return "with"
    return rng.choice(offered.words)


def walked(rng: random.Random, state: State, words: list[str], limit: int = 20) -> list[str] | None:
    """A random continuation of `words` to a complete action, each complete start on the way checked legal; None
    when it wanders past `limit` words (a hunt or forage may name many adaptations)."""
    while len(words) <= limit:
        offered = RULES.next_words(state, words)
        assert offered.words or offered.complete, f"dead end after {words}"
        if offered.complete:
            assert_legal(RULES, state, words)
            if not offered.words or rng.random() < 0.5:
                return words
        words = [*words, pick(rng, offered)]
    return None


def read(words: Sequence[str]) -> Action | None:
    try:
        return RULES.parse_action(" ".join(words))
    except NotationError:
        return None


def takes(state: State, action: Action) -> bool:
    try:
        RULES.apply(state, action)
    except RuleViolation:
        return False
    return True


def every_use(state: State, adaptation: str) -> list[Use]:
    """The uses an adaptation may be named with: its effect in the kit, or any override where it has none."""
    effect = state.kit.adaptations[adaptation].effect
    if effect is not None:
        return [Use(adaptation, effect.kind, effect.traits)]
    traits = state.kit.traits
    return [
        Use(adaptation, "token"),
        *(Use(adaptation, "waive", (trait,)) for trait in traits),
        *(Use(adaptation, "swap", (first, second)) for first in traits for second in traits),
    ]


Counting = tuple[tuple[str, ...], tuple[str, ...], bool]
"""What the rules' judgement of more uses rests on: the cards as the uses so far count them, the symbols waived,
and whether an adaptation with no effect in the kit is named (such a hunt's cost is not checked)."""


def counting(state: State, cards: tuple[str, ...], uses: tuple[Use, ...]) -> Counting:
    counted, waived = paid(cards, uses)
    unchecked = any(state.kit.adaptations[use.adaptation].effect is None for use in uses)
    return spread(counted), spread(waived), unchecked


def spread(cards: dict[str, int]) -> tuple[str, ...]:
    return tuple(sorted(trait for trait, count in cards.items() for _ in range(count)))


@cache
def counted_after(now: Counting, use: Use, unchecked: bool) -> Counting:
    """`now` after one more use (`unchecked`: of an adaptation with no effect in the kit): the rules' count of the
    cards as they stand, with the use alone."""
    counted, waiving = paid(now[0], (use,))
    return spread(counted), tuple(sorted((*now[1], *spread(waiving)))), now[2] or unchecked


def solved(rng: random.Random, state: State, words: list[str]) -> list[str]:
    """A legal hunt or forage that `words` lead on to: the words brought by offered words to the end of a use, or to
    cards after which `with` is offered, then the fewest uses after them that the rules take, found breadth first
    over what the uses count and the adaptations still unnamed (an action names each once [TR-12]), no trait waived
    more often than the action asks for it (a random continuation seldom hits the few swaps an adaptation with no
    effect in the kit must make)."""
    while True:
        offered = RULES.next_words(state, words)
        assert offered.words or offered.complete, f"dead end after {words}"
        if offered.complete:
            return words
        action = read(words)
        if isinstance(action, Hunt | Forage) and (action.uses or "with" in offered.words):
            break
        words = [*words, rng.choice(offered.words)]
    assert isinstance(action, Hunt | Forage), words
    moves = [use for name in state.species_of(action.player).adaptations for use in every_use(state, name)]
    place = active_location(state)
    asked = cards_of(fauna_symbols(state, action.fauna)) if isinstance(action, Hunt) else {place.primary: 1}
    start = counting(state, action.cards, action.uses)
    bound = Counter(asked) | Counter(start[1])
    named = frozenset(use.adaptation for use in action.uses)
    queue, seen = deque([(start, action.uses)]), {(start, named)}
    while queue and len(seen) < 3000:
        now, uses = queue.popleft()
        found = replace(action, uses=uses)
        if uses and takes(state, found):
            return RULES.format_action(found).split()
        named = frozenset(use.adaptation for use in uses)
        for move in moves:
            if move.adaptation in named:
                continue
            if move.override == "swap" and move.traits[0] not in now[0]:
                continue  # changes nothing
            if move.override == "waive" and now[1].count(move.traits[0]) >= bound[move.traits[0]]:
                continue
            after = counted_after(now, move, state.kit.adaptations[move.adaptation].effect is None)
            if (after, named | {move.adaptation}) not in seen:
                seen.add((after, named | {move.adaptation}))
                queue.append((after, (*uses, move)))
    raise AssertionError(f"no legal action found after {words}")


def finished(rng: random.Random, state: State, words: list[str]) -> list[str]:
    """A complete legal action that `words` lead on to, offered word by word: a random continuation, or where it
    wanders, a hunt's or forage's found by `solved`."""
    found = walked(rng, state, words)
    if found is not None:
        return found
    found = solved(rng, state, words)
    entered(RULES, state, " ".join(found))
    assert_legal(RULES, state, found)
    return found


def test_the_traits_ruleset_composes_its_actions() -> None:
    assert has(RULES, Composing)
    state = game(REPLAYS[0]).positions[0][0]
    assert next_words(RULES, state, []) == RULES.next_words(state, []) == NextWords(("ann",), False)
    hunting = before("traits-hand-2p.evo", "ann hunt grazer-2 size size speed")
    assert RULES.next_words(hunting, ("ann",)) == NextWords(("hunt", "forage", "migrate", "end"), False)


@pytest.mark.parametrize("name", [*REPLAYS, *SELF_PLAYED])
def test_every_action_of_the_game_is_entered_word_by_word(name: str) -> None:
    for state, line in game(name).positions:
        entered(RULES, state, line)


def test_every_listed_legal_action_is_entered_word_by_word() -> None:
    for state in sampled(29):
        for action in RULES.legal_actions(state):
            entered(RULES, state, RULES.format_action(action))


def test_a_start_reported_complete_is_legal_and_an_offered_word_leads_on_to_a_legal_action() -> None:
    rng = random.Random(2024)
    positions = sampled(23)
    for state in positions:
        words: list[str] = []
        while len(words) < 12:
            offered = RULES.next_words(state, words)
            assert offered.words or offered.complete, f"dead end after {words}"
            if offered.complete:
                assert_legal(RULES, state, words)
            if offered.words:
                finished(rng, state, [*words, rng.choice(offered.words)])
            if not offered.words or (offered.complete and rng.random() < 0.5):
                break
            words.append(pick(rng, offered))
    assert len(positions) > 300


def judged(state: State, action: Action) -> str | None:
    """The refusal `legal` gives the action (None where it takes it), the same as `apply` gives."""
    verdicts: list[str | None] = []
    for judge in (RULES.legal, RULES.apply):
        try:
            judge(state, action)
        except RuleViolation as violation:
            verdicts.append(str(violation))
        else:
            verdicts.append(None)
    legal, applied = verdicts
    assert legal == applied, f"{RULES.format_action(action)!r}: legal says {legal}, apply says {applied}"
    return legal


def generating(state: State) -> bool:
    """The acting player may hunt, forage or migrate."""
    return bool(state.active is not None and not state.needs and not state.species_of(state.current).journey)


def meal(rng: random.Random, state: State) -> Hunt | Forage:
    """A hunt or forage at the active population's location: some of the hand's cards, and up to 3 uses of the
    adaptations the species holds, drawn with replacement (so that one is now and then named twice), now and then
    of one it lacks."""
    species, place = state.species_of(state.current), active_location(state)
    hand = [trait for trait in sorted(species.hand) for _ in range(species.hand[trait])]
    cards = tuple(rng.sample(hand, rng.randint(0, min(len(hand), 5))))
    held = sorted(species.adaptations)
    named = [rng.choice(held) if rng.random() < 0.95 else rng.choice(sorted(KIT.adaptations)) for _ in held]
    uses = tuple(rng.choice(every_use(state, name)) for name in named[: rng.choice((0, 1, 1, 2, 2, 3))])
    if rng.random() < 0.5:
        return Hunt(state.current, rng.choice(place.fauna), cards, uses)
    return Forage(state.current, rng.choice(place.flora), cards, uses)


def test_legal_refuses_what_apply_refuses_and_the_composer_completes_what_legal_takes_TR_09_TR_12() -> None:
    """Over positions of the shipped and seeded self-played games: `legal` and `apply` agree on each listed action,
    each composed one and random hunts and forages naming adaptations; a hunt or forage is complete in the composer
    exactly when `legal` takes it, and then offered word by word."""
    rng = random.Random(912)
    seen: Counter[str] = Counter()
    positions = [state for state in sampled(5) if generating(state)]
    for state in positions:
        for action in RULES.legal_actions(state):
            assert judged(state, action) is None
        composed = walked(rng, state, [])
        if composed is not None:
            assert judged(state, RULES.parse_action(" ".join(composed))) is None
        for _ in range(15):
            action = meal(rng, state)
            line = RULES.format_action(action)
            verdict = judged(state, action)
            assert RULES.next_words(state, line.split()).complete == (verdict is None), f"{line!r}: {verdict}"
            if verdict is None:
                entered(RULES, state, line)
                seen["taken"] += 1
            elif "is named twice" in verdict:
                seen["named twice"] += 1
            elif (
                isinstance(action, Forage)
                and verdict.startswith("[TR-09]")
                and any(state.kit.adaptations[use.adaptation].effect is None for use in action.uses)
            ):
                seen["unchecked forage refused"] += 1
    assert len(positions) > 300 and min(seen.values()) >= 20 and len(seen) == 3, seen


def test_a_forage_naming_an_adaptation_with_no_effect_in_the_kit_still_searches_and_gathers_TR_09_TR_12() -> None:
    state = before("traits-hand-2p.evo", "ben forage berry-1 agility with lean-speed-1 waive speed")
    refused = ["ben", "forage", "berry-1", "size", "with", "uncharted-speed-1", "token"]
    assert not RULES.next_words(state, refused).complete
    assert RULES.next_words(state, refused[:6]) == NextWords(("swap",), False), "size cannot gather berries"
    swapped = [*refused[:6], "swap", "size", "agility"]
    assert RULES.next_words(state, swapped[:-1]) == NextWords(("agility",), False)
    assert RULES.next_words(state, swapped) == NextWords(("with",), False), "no speed card to search"
    assert RULES.next_words(state, [*swapped, "with"]) == NextWords(("lean-speed-1",), False)
    assert RULES.next_words(state, [*swapped, "with", "lean-speed-1", "waive", "speed"]).complete


def test_an_action_names_each_adaptation_once_TR_12() -> None:
    state = before("traits-hand-2p.evo", "ann hunt grazer-1 size strength with bountiful-size-2 token")
    words = ["ann", "hunt", "grazer-1", "size", "strength", "with", "bountiful-size-2", "token"]
    assert RULES.next_words(state, words).complete
    assert "bountiful-size-2" not in RULES.next_words(state, [*words, "with"]).words
    assert RULES.next_words(state, [*words, "with", "bountiful-size-2"]) == NextWords((), False)
    assert not RULES.next_words(state, [*words, *words[5:]]).complete


def before(name: str, line: str) -> State:
    return next(state for state, text in game(name).positions if text == line)


def test_a_draw_offers_what_the_trait_deck_still_holds_and_as_many_cards_as_are_drawn_TR_13() -> None:
    state = before("traits-hand-2p.evo", "ann draw size size speed strength toughness agility")
    assert RULES.next_words(state, ["ann"]) == NextWords(("draw",), False)
    assert RULES.next_words(state, ["ann", "draw"]) == NextWords(TRAITS, False), "2 of each trait in the deck"
    after_two = RULES.next_words(state, ["ann", "draw", "size", "size"])
    assert "size" not in after_two.words and not after_two.complete
    whole = ["ann", "draw", "size", "size", "speed", "strength", "toughness", "agility"]
    assert RULES.next_words(state, whole) == NextWords((), True)
    assert RULES.next_words(state, [*whole, "speed"]) == NextWords((), False)
    assert RULES.next_words(state, ["ben", "draw"]) == NextWords((), False), "ann draws first"


def test_a_topup_offers_any_trait_until_the_genome_meets_its_target_TR_17() -> None:
    line = next(text for _, text in game("traits-hand-2p.evo").positions if " topup " in text)
    state, words = before("traits-hand-2p.evo", line), line.split()
    assert RULES.next_words(state, words[:2]) == NextWords(TRAITS, False)
    assert RULES.next_words(state, words[:-1]) == NextWords(TRAITS, False)
    assert RULES.next_words(state, words) == NextWords((), True)


def test_a_hunt_takes_its_cards_in_any_order_the_face_first_and_those_a_swap_turns_into_it_TR_08_TR_12() -> None:
    state = before("traits-hand-2p.evo", "ann hunt sprinter-2 speed speed endurance")  # square: agility-for-speed
    assert RULES.next_words(state, ["ann", "hunt", "sprinter-2"]) == NextWords(("speed", "endurance", "agility"), False)
    assert RULES.next_words(state, ["ann", "hunt", "sprinter-2", "speed", "speed"]) == NextWords(("endurance",), False)
    assert RULES.next_words(state, ["ann", "hunt", "sprinter-2", "endurance", "speed", "speed"]).complete
    swapped = ["ann", "hunt", "sprinter-2", "endurance", "speed", "agility", "with", "agility-for-speed"]
    assert RULES.next_words(state, swapped) == NextWords(("swap",), False)
    assert RULES.next_words(state, [*swapped, "swap", "agility", "speed"]).complete


def test_a_hunt_naming_an_adaptation_with_no_effect_in_the_kit_may_play_any_cards_TR_12() -> None:
    state = before("traits-hand-2p.evo", "ben hunt sprinter-2 speed speed endurance")  # square: uncharted-speed-1
    offered = RULES.next_words(state, ["ben", "hunt", "sprinter-2"])
    assert offered == NextWords(("speed", "endurance", "size", "toughness", "agility", "with"), False)
    assert RULES.next_words(state, ["ben", "hunt", "sprinter-2", "with"]).words == ("lean-speed-1", "uncharted-speed-1")
    unchecked = ["ben", "hunt", "sprinter-2", "size", "with", "uncharted-speed-1"]
    assert RULES.next_words(state, unchecked) == NextWords(("swap", "waive", "token"), False)
    assert RULES.next_words(state, [*unchecked, "token"]).complete


def test_a_migration_takes_two_hand_cards_in_either_order_TR_10() -> None:
    state = before("traits-hand-2p.evo", "ann migrate strength toughness")
    hand = ("strength", "toughness", "agility")
    assert RULES.next_words(state, ["ann", "migrate"]) == NextWords(hand, False)
    assert RULES.next_words(state, ["ann", "migrate", "toughness"]) == NextWords(("strength", "agility"), False)
    assert RULES.next_words(state, ["ann", "migrate", "toughness", "strength"]) == NextWords((), True)


def test_a_forage_names_the_adaptation_that_waives_its_search_card_TR_09_TR_12() -> None:
    state = before("traits-hand-2p.evo", "ann forage berry-1 agility with lean-speed-1 waive speed")
    words = ["ann", "forage", "berry-1", "agility"]
    assert RULES.next_words(state, words[:3]) == NextWords(("agility",), False), "the hand holds no speed card"
    assert RULES.next_words(state, words) == NextWords(("with",), False)
    assert RULES.next_words(state, [*words, "with"]).words == ("lean-speed-1", "bountiful-speed-1")
    assert RULES.next_words(state, [*words, "with", "lean-speed-1"]) == NextWords(("waive",), False)
    assert RULES.next_words(state, [*words, "with", "lean-speed-1", "waive"]) == NextWords(("speed",), False)
    assert RULES.next_words(state, [*words, "with", "lean-speed-1", "waive", "speed"]) == NextWords(("with",), True)
    assert RULES.next_words(state, [*words, "with", "agility-for-speed"]) == NextWords((), False)


def test_a_fauna_is_dealt_with_its_face_where_the_kit_has_none_TR_02() -> None:
    document = make_kit()
    document["fauna"][0]["symbols"] = None  # grazer-1's face unknown
    kit = parse_kit(document, "unknown faces")
    state = RULES.setup(kit, ["ann", "ben"], {})
    for _, line in game("traits-hand-2p.evo").positions[:4]:  # the species and the location boards
        state = RULES.apply(state, RULES.parse_action(line)).state
    assert "grazer-1" in RULES.next_words(state, ["deal", "fauna", "lake"]).words
    assert RULES.next_words(state, ["deal", "fauna", "lake", "grazer-1"]) == NextWords(TRAITS, False)
    assert RULES.next_words(state, ["deal", "fauna", "lake", "grazer-1", "size"]) == NextWords(TRAITS, True)
    known = ["deal", "fauna", "lake", "grazer-2"]
    assert RULES.next_words(state, known) == NextWords(("size", "speed"), True), "the kit's face, or none"
    assert RULES.next_words(state, [*known, "speed", "size"]) == NextWords(("size",), False)
    assert RULES.next_words(state, [*known, "speed", "size", "size"]) == NextWords((), True)
