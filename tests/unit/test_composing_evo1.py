"""Evo 1st edition's actions entered a word at a time (`Composing`): every action of every game file and of seeded
self-played games (Autosaur seats in some) is offered word by word, as written; what is offered is sound (an action
reported complete is legal, and no word offered leads to a dead end); and what the listed legal actions leave out
is composed (a bid naming its row's gene, removals and beaches in another order, a move that comes back)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import OptionValue, RuleViolation
from evo_ledger.rules.contract import Composing, at_version, has
from evo_ledger.rules.evo1.actions import Action, Move
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.evo1.selfplay import Evo1SelfPlay
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.kits import load_kit
from tests.helpers.support import ROOT

RULES = Evo1Ruleset()
GAME_FILES = sorted((ROOT / "replays").glob("evo1-*.evo"))
VERSION_1_FILE = ROOT / "tests" / "fixtures" / "stored" / "evo1-v1-hand.evo"
NAMES = ("ann", "ben", "cat", "dan", "eve")


@dataclass(frozen=True)
class SelfPlayed:
    seed: int
    players: int
    bot: str
    autosaurs: str = ""
    experienced: bool = False

    def __str__(self) -> str:
        autosaurs = f"-autosaurs-{self.autosaurs.replace(' ', '-')}" if self.autosaurs else ""
        return f"{self.players}p-seed{self.seed}-{self.bot}{autosaurs}{'-experienced' if self.experienced else ''}"


def self_played(seed: int) -> SelfPlayed:
    """Every table size, both bots, an Autosaur seat in every other game (two in some), some experienced."""
    players = 3 + seed % 3
    autosaurs = NAMES[players - 1 - seed % 5 // 4 : players] if seed % 2 else ()
    return SelfPlayed(seed, players, "sensible" if seed % 4 < 2 else "random", " ".join(autosaurs), seed % 7 == 3)


SELF_PLAYED = tuple(self_played(seed) for seed in range(1, 21))


@dataclass(frozen=True)
class Position:
    rules: Evo1Ruleset
    state: State
    text: str
    action: Action


@cache
def file_positions(path: Path) -> tuple[Position, ...]:
    """Each action of the game file as written, with the state it was recorded in."""
    game = parse_game(path.read_text(encoding="utf-8"))
    header = game.header
    rules = RULES if header.version == RULES.version else at_version(RULES, header.version)
    assert isinstance(rules, Evo1Ruleset)
    state = rules.setup(load_kit(header.kit), header.players, header.options)
    positions = []
    for line in game.actions:
        positions.append(Position(rules, state, line.text, line.action))
        state = rules.apply(state, line.action).state
    return tuple(positions)


@cache
def played_positions(game: SelfPlayed) -> tuple[Position, ...]:
    names = NAMES[: game.players]
    options: dict[str, OptionValue] = {"autosaurs": game.autosaurs, "experienced": game.experienced}
    kit = load_kit(f"standin-e1-{game.players}p")
    state = RULES.setup(kit, names, options)
    positions = []
    for action, transition in Evo1SelfPlay(RULES).play(kit, names, game.seed, game.bot, options):
        positions.append(Position(RULES, state, RULES.format_action(action), action))
        state = transition.state
    return tuple(positions)


def check_complete(rules: Evo1Ruleset, state: State, words: list[str]) -> None:
    """Words reported complete are an action in notation, and a legal one."""
    rules.legal(state, rules.parse_action(" ".join(words)))


def walk(position: Position) -> None:
    """The action's words, one at a time, each among those offered; complete at the end, and legal wherever the
    words before were reported complete."""
    rules, state, words = position.rules, position.state, position.text.split()
    for index, word in enumerate(words):
        offered = rules.next_words(state, words[:index])
        assert word in offered.words, f"{position.text!r}: {word!r} not among {offered.words} after {words[:index]}"
        if offered.complete:
            check_complete(rules, state, words[:index])
    assert rules.next_words(state, words).complete, f"{position.text!r} is not reported complete"


@pytest.mark.parametrize("path", [*GAME_FILES, VERSION_1_FILE], ids=lambda path: path.name)
def test_every_action_of_every_evo1_game_file_is_offered_word_by_word_as_written(path: Path) -> None:
    positions = file_positions(path)
    assert positions
    for position in positions:
        walk(position)


@pytest.mark.parametrize("game", SELF_PLAYED, ids=str)
def test_every_action_of_a_self_played_game_is_offered_word_by_word(game: SelfPlayed) -> None:
    positions = played_positions(game)
    assert RULES.outcome(RULES.apply(positions[-1].state, positions[-1].action).state) is not None
    for position in positions:
        walk(position)


def test_the_self_played_games_seat_autosaurs_in_some() -> None:
    seated = [game for game in SELF_PLAYED if game.autosaurs]
    assert 5 <= len(seated) < len(SELF_PLAYED) and any(" " in game.autosaurs for game in seated)
    assert {game.players for game in seated} == {3, 4, 5}


def sample(every: int) -> Iterator[Position]:
    for path in GAME_FILES:
        yield from file_positions(path)[::every]
    for game in SELF_PLAYED[::4]:
        yield from played_positions(game)[::every]


def random_walk(rules: Evo1Ruleset, state: State, words: list[str], rng: random.Random) -> list[str]:
    """On from `words`, a word offered at random at each step, until an action complete is kept (or nothing more is
    offered): every prefix reported complete is checked as it is met."""
    while True:
        offered = rules.next_words(state, words)
        if offered.complete:
            check_complete(rules, state, words)
            if not offered.words or rng.random() < 0.4:
                return words
        assert offered.words, f"{' '.join(words)!r} is a dead end: nothing follows and it is not an action"
        words = [*words, rng.choice(offered.words)]


def test_what_is_reported_complete_is_legal_and_every_word_offered_leads_on_to_a_legal_action() -> None:
    rng = random.Random(20)
    walked = 0
    for position in sample(every=5):
        rules, state = position.rules, position.state
        first = rules.next_words(state, [])
        assert not first.complete and first.words
        for word in first.words:
            for second in rules.next_words(state, [word]).words:
                random_walk(rules, state, [word, second], rng)
                walked += 1
    assert walked > 2000


def listed_texts(position: Position) -> list[str]:
    return [position.rules.format_action(action) for action in position.rules.legal_actions(position.state)]


def test_every_listed_action_is_offered_word_by_word() -> None:
    for position in sample(every=10):
        listed = listed_texts(position)
        for text in listed[:: 1 + len(listed) // 8]:
            walk(Position(position.rules, position.state, text, position.action))


def composed(state: State, text: str) -> bool:
    words = text.split()
    found = all(word in RULES.next_words(state, words[:index]).words for index, word in enumerate(words))
    return found and RULES.next_words(state, words).complete


def test_what_the_listed_actions_leave_out_is_composed_E1_02_E1_11_E1_16() -> None:
    """The hand-played game names rows by their genes and lists a removal out of the list's order; the beaches
    may be given seat by seat in any order."""
    positions = {position.text: position for position in file_positions(ROOT / "replays" / "evo1-hand-3p.evo")}
    bid, removal = positions["ben bid 2 tail"], positions["ben remove G4 E3"]
    assert "ben bid 2 tail" not in listed_texts(bid) and "ben bid 2 row1" in listed_texts(bid)
    assert RULES.next_words(bid.state, ["ben", "bid", "2"]).words[:2] == ("row1", "tail")
    assert "ben remove G4 E3" not in listed_texts(removal) and "ben remove E3 G4" in listed_texts(removal)
    assert composed(removal.state, "ben remove G4 E3") and composed(removal.state, "ben remove E3 G4")
    assert not composed(removal.state, "ben remove G4 G4") and not composed(removal.state, "ben remove G4")
    start = positions["start ann A3 ben H2 cat F6"]
    assert composed(start.state, "start cat F6 ann A3 ben H2")
    assert RULES.next_words(start.state, ["start", "cat", "F6"]).words == ("ann", "ben")
    assert RULES.next_words(start.state, ["start", "cat", "F6", "ann"]).words == ("A3", "H2")


def test_a_move_may_come_back_through_a_space_it_left_one_step_at_a_time_E1_08() -> None:
    """The list has the paths that never come back; the rules allow any path through empty spaces."""
    for position in sample(every=1):
        state, player = position.state, position.state.current_player
        if state.phase != Phase.MOVEMENT or player is None or state.movement_left < 3:
            continue
        for source in sorted(state.dinosaurs_of(player)):
            for there in sorted(state.kit.neighbours[source]):
                for beyond in sorted(state.kit.neighbours[there] - {source}):
                    back = Move(player, (source, there, beyond, there))
                    try:
                        RULES.legal(state, back)
                    except RuleViolation:
                        continue
                    text = RULES.format_action(back)
                    assert text not in listed_texts(position) and composed(state, text), text
                    return
    raise AssertionError("no position with a move that comes back")


def test_a_mover_is_offered_its_verbs_in_the_notations_order_and_bids_in_increasing_order() -> None:
    positions = file_positions(ROOT / "replays" / "evo1-hand-3p.evo")
    mover = next(p for p in positions if p.state.phase == Phase.MOVEMENT and p.text.split()[1:2] == ["move"])
    assert RULES.next_words(mover.state, mover.text.split()[:1]).words[:1] == ("move",)
    bidder = next(p for p in positions if p.text.split()[1:2] == ["bid"])
    amounts = RULES.next_words(bidder.state, bidder.text.split()[:2]).words
    assert [int(amount) for amount in amounts] == sorted({int(amount) for amount in amounts})


def test_version_1_composes_no_card_play_and_both_versions_have_the_capability() -> None:
    earlier = at_version(RULES, "1")
    assert isinstance(earlier, Evo1Ruleset) and has(earlier, Composing) and has(RULES, Composing)
    late = [
        p for p in file_positions(VERSION_1_FILE) if p.state.turn > 2 and any(s.hand for s in p.state.seats.values())
    ]
    assert late
    for position in late[::5]:
        for player in position.state.seats:
            assert "play" not in earlier.next_words(position.state, [player]).words
