"""Every event line of `log` and `play` reads as a sentence a player would say: each consequence kind of every
installed ruleset is put into words by its ruleset, with no data dump (`{`, `[`, True, False, None) and no
snake_case word; and every line of the shipped games' logs reads the same way."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import import_notation
from evo_ledger.cli.views import event_line
from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset, rulesets
from evo_ledger.settings import Settings
from tests.helpers.support import ROOT
from tests.helpers.toy_game import WHOLE_GAME

DUMPED = re.compile(r"[{}\[\]]|\b(?:True|False|None)\b")
SNAKE_CASE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
REPLAYS = sorted((ROOT / "replays").glob("*.evo"))
# Kinds the shipped and self-played games do not reach, with data of the shape their rules give.
UNREACHED: dict[str, dict[str, Mapping[str, Any]]] = {
    "evo2": {
        "card_played": {
            "round": 4,
            "player": "cat",
            "card": "Ambush",
            "effects": ["remove D3", "shift -1"],
            "checked": False,
        },
        "dinosaur_removed": {"round": 4, "player": "ann", "space": "D3", "card": "Ambush"},
        "rule_overridden": {"round": 4, "player": "cat", "card": "Nest", "action": "cat birth C4"},
    },
    "evo1": {"auction_skipped": {"turn": 12, "reason": "the gene bag is empty"}},
    "traits": {"deck_rebuilt": {"deck": "fauna", "cards": 7}},
}


def games_of(ruleset: str) -> Iterator[tuple[Any, list[Any]]]:
    """Games of the ruleset: its shipped replays and a few self-played ones, as a start and the actions."""
    texts = [path.read_text() for path in REPLAYS]
    if ruleset == "evo2":
        texts += [play_game(2 + seed % 4, seed, "sensible", "evo2").text() for seed in range(6)]
    if ruleset == "evo1":
        texts += [play_game(3 + seed % 3, seed, "random", "evo1").text() for seed in range(6)]
        texts += [play_game(4, seed, "random", "evo1", None, (), {"autosaurs": 2}).text() for seed in range(3)]
    if ruleset == "toy":
        texts.append("ruleset toy 1\nkit toy-2p\nplayers ann ben\n" + "\n".join(WHOLE_GAME) + "\n")
    for text in texts:
        game = parse_game(text)
        if game.header.ruleset == ruleset:
            yield start(game, ROOT / "replays"), [line.action for line in game.actions]


def samples(ruleset: str) -> dict[str, list[Mapping[str, Any]]]:
    """Data of each consequence kind the ruleset's games derive, a few of each."""
    rules = get_ruleset(ruleset)
    found: dict[str, list[Mapping[str, Any]]] = {kind: [data] for kind, data in UNREACHED.get(ruleset, {}).items()}
    for first, actions in games_of(ruleset):
        state = first
        for action in actions:
            transition = rules.apply(state, action)
            for consequence in transition.consequences:
                kept = found.setdefault(consequence.kind, [])
                if len(kept) < 20 or consequence.data.get("card") not in {data.get("card") for data in kept}:
                    kept.append(consequence.data)
            state = transition.state
    return found


@pytest.mark.parametrize("ruleset", sorted(rulesets()))
def test_every_consequence_kind_of_every_ruleset_reads_as_a_sentence(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    found = samples(ruleset)
    assert set(rules.vocabulary.consequences) <= set(found), "kinds with no sample to put into words"
    for kind, datas in found.items():
        for data in datas:
            sentence = rules.describe(kind, data)
            assert not DUMPED.search(sentence), (kind, sentence)
            assert not SNAKE_CASE.search(sentence), (kind, sentence)
            assert sentence[:1].isalnum() and sentence.endswith("."), (kind, sentence)


def test_every_line_of_the_shipped_games_logs_reads_without_a_data_dump(tmp_path: Any) -> None:
    ledger = Ledger(Settings(str(tmp_path / "log.sqlite")))
    try:
        for path in REPLAYS:
            game_id = import_notation(ledger, path.read_text()).game_id
            rules = ledger.queries.game(game_id).rules
            for event in ledger.queries.game_events(game_id):
                line = event_line(event, rules)
                assert not DUMPED.search(line), (path.name, line)
    finally:
        ledger.close()


def test_a_long_line_wraps_at_word_boundaries_under_its_text(tmp_path: Any) -> None:
    ledger = Ledger(Settings(str(tmp_path / "wrap.sqlite")))
    try:
        game_id = import_notation(ledger, (ROOT / "replays" / "evo1-hand-3p.evo").read_text()).game_id
        rules, events = ledger.queries.game(game_id).rules, list(ledger.queries.game_events(game_id))
    finally:
        ledger.close()
    longest = max(events, key=lambda event: len(event_line(event, rules)))
    line = event_line(longest, rules)
    wrapped = event_line(longest, rules, width=60).splitlines()
    assert len(line) > 120 and len(wrapped) > 2
    assert all(len(part) <= 60 for part in wrapped) and all(part.startswith(" " * 9) for part in wrapped[1:])
    assert " ".join(wrapped).split() == line.split()
