"""Evo 2nd edition's actions entered a word at a time (`Composing`): every action of the shipped games and of
seeded self-played ones is offered word by word, the listed legal actions too, and what is offered is sound: a
start reported complete is a legal action, and an offered word always leads on to one. What the list leaves out
is offered as well: moves of several steps, removals in any order, a bid naming its column, peeks, cards drawn
and played, and overrides."""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

import pytest

from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import NextWords
from evo_ledger.rules.contract import Composing, has, next_words
from evo_ledger.rules.evo2.actions import Move, PlayCard
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset
from evo_ledger.rules.evo2.selfplay import Evo2SelfPlay
from evo_ledger.rules.evo2.state import Phase, State, player_to_act
from evo_ledger.rules.hexisland.kit import CardDefinition, Kit
from evo_ledger.rules.kits import load_kit
from tests.helpers.composing import Game, assert_legal, entered, played
from tests.helpers.support import ROOT, play

RULES = Evo2Ruleset()
REPLAYS = sorted(
    path.name for path in (ROOT / "replays").glob("*.evo") if parse_game(path.read_text()).header.ruleset == "evo2"
)
NAMES = ("ann", "ben", "cat", "dan", "eve")
SELF_PLAYED = [f"selfplay-seed{seed}" for seed in range(1, 21)]
"""Seeds 1 to 20: 2 to 5 players, random and sensible bots, every fifth on a kit whose catalogue defines cards."""
CATALOGUE = {
    "Ambush": CardDefinition(("movement",), ("remove", "shift")),
    "Truce": CardDefinition((), ("peace",)),
    "Sprint": CardDefinition(("movement",), ("movement",)),
    "Stampede": CardDefinition(("movement",), ()),
    "Nest": CardDefinition(("birth",), ()),
}


def with_catalogue(kit: Kit) -> Kit:
    return replace(kit, cards=CATALOGUE)


@cache
def game(name: str) -> Game[State]:
    if name in REPLAYS:
        parsed = parse_game((ROOT / "replays" / name).read_text())
        start = RULES.setup(load_kit(parsed.header.kit), parsed.header.players, parsed.header.options)
        return played(RULES, start, [line.text for line in parsed.actions])
    seed = int(name.removeprefix("selfplay-seed"))
    names = NAMES[: 2 + seed % 4]
    kit = load_kit(f"standin-e2-{len(names)}p")
    kit = with_catalogue(kit) if seed % 5 == 0 else kit
    bot = ("random", "sensible")[seed % 2]
    moves = Evo2SelfPlay(RULES).play(kit, names, seed, bot)
    return played(RULES, RULES.setup(kit, names, {}), [RULES.format_action(action) for action, _ in moves])


def sampled(every: int) -> list[State]:
    """Every `every`-th position of every game, the first of each included."""
    return [state for name in (*REPLAYS, *SELF_PLAYED) for state, _ in game(name).positions[::every]]


def said(line: str) -> list[str]:
    """The words of an action in notation."""
    return line.split()


def finished(rng: random.Random, state: State, words: list[str], limit: int = 120) -> list[str]:
    """A random continuation of `words` to a complete action, each complete start on the way checked legal."""
    while True:
        offered = RULES.next_words(state, words)
        assert offered.words or offered.complete, f"dead end after {words}"
        if offered.complete:
            assert_legal(RULES, state, words)
            if not offered.words or rng.random() < 0.5:
                return words
        assert len(words) < limit, f"no end in sight after {words}"
        words = [*words, rng.choice(offered.words)]


def kind_of(words: Sequence[str]) -> str:
    """What a complete action is, as the soundness walks count what they met."""
    if "override" in words:
        return "override"
    verb = words[1] if len(words) > 1 else words[0]
    if verb == "move" and len(words) > 4:
        return "move of several steps"
    if verb == "bid" and words[-1].startswith("col"):
        return "bid naming its column"
    if verb == "play" and len(words) > 3:
        return "play with effects"
    return verb


def walked(rng: random.Random, state: State, met: Counter[str], words: Sequence[str] = ()) -> None:
    """Random walks through the words offered at the position after `words`, each offered word sampled led on to
    a legal action."""
    words = list(words)
    while True:
        offered = RULES.next_words(state, words)
        assert offered.words or offered.complete, f"dead end after {words}"
        if offered.complete:
            assert_legal(RULES, state, words)
            met[kind_of(words)] += 1
        for word in rng.sample(offered.words, min(2, len(offered.words))):
            met[kind_of(finished(rng, state, [*words, word]))] += 1
        if not offered.words or (offered.complete and rng.random() < 0.5):
            break
        words.append(rng.choice(offered.words))


def test_the_evo2_ruleset_composes_its_actions() -> None:
    assert has(RULES, Composing)
    state = game(REPLAYS[0]).positions[0][0]
    assert next_words(RULES, state, []) == RULES.next_words(state, []) == NextWords(("order",), False)


@pytest.mark.parametrize("name", [*REPLAYS, *SELF_PLAYED])
def test_every_action_of_the_game_is_entered_word_by_word(name: str) -> None:
    for state, line in game(name).positions:
        entered(RULES, state, line)


def test_every_listed_legal_action_is_entered_word_by_word() -> None:
    for state in sampled(41):
        for action in RULES.legal_actions(state):
            entered(RULES, state, RULES.format_action(action))


def test_a_start_reported_complete_is_legal_and_an_offered_word_leads_on_to_a_legal_action() -> None:
    rng = random.Random(2026)
    met: Counter[str] = Counter()
    positions = sampled(13)
    for state in positions:
        walked(rng, state, met)
    assert len(positions) > 400
    for kind in ("move of several steps", "remove", "bid naming its column", "peek", "drew", "play with effects"):
        assert met[kind], f"no {kind} was met: {met}"


def test_after_a_card_played_the_actions_it_lets_stand_are_sound_and_offered_with_override_E2_15() -> None:
    """In the games on the catalogue's kit: the player to move or give birth plays a card that bends the rules;
    walks from there meet the overrides, each legal."""
    rng = random.Random(15)
    met: Counter[str] = Counter()
    for name in SELF_PLAYED[4::5]:
        for state, _ in game(name).positions[::7]:
            player = player_to_act(state)
            card = {Phase.MOVEMENT: "Stampede", Phase.BIRTH: "Nest"}.get(state.phase)
            if player is None or card is None or state.pending is not None or state.players[player].event_cards < 1:
                continue
            after = RULES.apply(state, PlayCard(player, card)).state
            walked(rng, after, met, [player])
    assert met["override"] > 20, met


def before(name: str, line: str) -> State:
    return next(state for state, text in game(name).positions if text == line)


def test_a_move_goes_on_a_step_at_a_time_while_movement_points_last_E2_02_E2_10() -> None:
    state = before("hand-3p-first-game.evo", "ben move G1 F2 E2")
    assert RULES.next_words(state, ["ben"]).words[0] == "move"
    assert "G1" in RULES.next_words(state, ["ben", "move"]).words
    one_step = RULES.next_words(state, ["ben", "move", "G1", "F2"])
    assert one_step.complete and "E2" in one_step.words and "G1" not in one_step.words, "not back to G1"
    assert RULES.next_words(state, said("ben move G1 F2 E2")) == NextWords((), True), "2 legs, 2 steps"
    assert RULES.next_words(state, ["cat", "move"]) == NextWords((), False), "not cat's turn"


def test_a_removal_names_its_dinosaurs_in_any_order_E2_12() -> None:
    state = before("hand-3p-first-game.evo", "ben remove E3 G2 F2")
    first = RULES.next_words(state, ["ben", "remove"])
    assert {"E3", "G2", "F2"} <= set(first.words) and not first.complete
    for order in (["E3", "G2", "F2"], ["F2", "E3", "G2"], ["G2", "F2", "E3"]):
        assert RULES.next_words(state, ["ben", "remove", *order]) == NextWords((), True)
        assert order[0] not in RULES.next_words(state, ["ben", "remove", order[0]]).words
    assert RULES.next_words(state, ["ben", "remove", "E3", "E3"]) == NextWords((), False)


def test_a_bid_may_name_its_column_E2_07() -> None:
    state = before("hand-3p-first-game.evo", "ann bid 2 eggs")
    targets = RULES.next_words(state, ["ann", "bid", "2"]).words
    assert targets[:3] == ("card", "legs", "eggs") and {"col1", "col2", "col3"} <= set(targets)
    assert RULES.next_words(state, ["ann", "bid", "2", "col3"]) == NextWords((), True)


def catalogue_game(*lines: str) -> State:
    """The hand game's first round on a kit whose catalogue defines cards: cat won the event card."""
    start = RULES.setup(with_catalogue(load_kit("standin-e2-3p")), ("ann", "ben", "cat"), {})
    opening = ("order ann ben cat", "climate cw", "draw legs", "draw eggs")
    return play(start, *opening, "ann bid 2 eggs", "ben bid 3 eggs", "ann bid 1 legs", "cat bid 0 card", *lines)


def test_a_card_is_drawn_by_a_name_the_game_knows_and_played_with_the_effects_it_has_E2_15() -> None:
    state = catalogue_game()
    assert "cat" in RULES.next_words(state, []).words, "a card may be drawn or played out of turn"
    verbs = RULES.next_words(state, ["cat"]).words
    assert verbs[0] == "move" and {"drew", "play"} <= set(verbs)
    assert RULES.next_words(state, ["cat", "drew"]).words == tuple(CATALOGUE)
    assert "Nest" not in RULES.next_words(state, ["cat", "play"]).words, "Nest is played in the birth phase"
    assert RULES.next_words(state, ["cat", "play", "Ambush"]) == NextWords(("remove", "shift"), False)
    removed = RULES.next_words(state, ["cat", "play", "Ambush", "remove", "C1"])
    assert removed == NextWords((",",), False), "Ambush also shifts the climate"
    assert RULES.next_words(state, said("cat play Ambush remove C1 ,")) == NextWords(("shift",), False)
    whole = said("cat play Ambush remove C1, shift -1")
    assert RULES.next_words(state, whole[:5]).words == ("shift",), "a word with its comma, as the notation has it"
    entered(RULES, state, "cat play Ambush remove C1 , shift -1")
    assert RULES.next_words(state, whole).complete
    assert RULES.next_words(state, ["ann", "play"]) == NextWords((), False), "ann holds no card"


def test_a_card_the_catalogue_does_not_define_may_have_any_effects_E2_15() -> None:
    state = play(catalogue_game(), "cat drew Meteor")
    assert RULES.next_words(state, ["cat", "drew"]) == NextWords((), False), "cat's one card is named"
    assert RULES.next_words(state, ["cat", "play"]).words == ("Meteor",)
    alone = RULES.next_words(state, ["cat", "play", "Meteor"])
    assert alone.complete and alone.words[0] == "remove" and "no_births" in alone.words
    entered(RULES, state, "cat play Meteor mp ann -2 , no_attacks for round , peace ben for phase")
    assert "cat" not in RULES.next_words(state, ["cat", "play", "Meteor", "peace"]).words, "peace is with another"


def test_an_action_a_card_lets_stand_names_it_with_override_E2_15() -> None:
    state = catalogue_game("cat play Stampede")
    two_steps = RULES.next_words(state, said("cat move C1 C2 C3"))
    assert two_steps.complete and "override" not in two_steps.words and two_steps.words, "2 legs; Stampede bends"
    further = [*said("cat move C1 C2 C3"), two_steps.words[0]]
    beyond = RULES.next_words(state, further)
    assert not beyond.complete and beyond.words[-1] == "override", "on, or stop with the card named"
    assert RULES.next_words(state, [*further, "override"]) == NextWords(("Stampede",), False)
    assert RULES.next_words(state, [*further, "override", "Stampede"]) == NextWords((), True)
    assert RULES.next_words(catalogue_game(), said("cat move C1 C2 C3")).words == (), "no card, no further"


def test_a_peek_offers_the_climate_tokens_that_can_come_up_next_E2_16() -> None:
    state = catalogue_game().copy()
    state.own_player("ann").genes["sixth_sense"] = 1
    assert "peek" in RULES.next_words(state, ["ann"]).words
    assert RULES.next_words(state, ["ann", "peek"]).words == ("cw", "cw2", "zero", "acw"), "no meteorite in round 1"
    assert RULES.next_words(state, ["ann", "peek", "zero"]) == NextWords((), True)
    assert RULES.next_words(state, ["ben", "peek"]) == NextWords((), False)


def test_a_call_takes_well_under_ten_milliseconds() -> None:
    spent = []
    for state in sampled(7):
        for words in ([], [player_to_act(state) or "ann"]):
            began = time.perf_counter()
            RULES.next_words(state, words)
            spent.append(time.perf_counter() - began)
    assert statistics.median(spent) < 0.002 and sorted(spent)[len(spent) * 9 // 10] < 0.005


def test_no_move_is_composed_through_an_occupied_space() -> None:
    state = before("hand-3p-first-game.evo", "ben move G1 F2 E2")
    for space in RULES.next_words(state, ["ben", "move", "G1"]).words:
        assert space not in state.board
        RULES.legal(state, Move("ben", ("G1", space)))
