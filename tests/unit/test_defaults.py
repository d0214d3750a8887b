"""The defaults of `BaseRuleset` read a ruleset's declarations and never guess: its notation reads what it writes
(a player named like an action included), a class the default notation cannot write is refused when it is made,
a snapshot comes back as the state it was, and a ruleset that hides facts writes what would read them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from evo_ledger.rules.base import Outcome, Transition
from evo_ledger.rules.defaults import BaseRuleset, PlainKit, as_tuples, ranked
from evo_ledger.rules.text import NotationError
from tests.toy.ruleset import Hold, Roll, State, ToyRuleset

TOY = ToyRuleset()


@pytest.mark.parametrize("action", [Roll("hold", 3), Hold("roll"), Roll("ann", 6), Hold("ben")])
def test_an_action_reads_back_as_written_whatever_its_player_is_named(action: Roll | Hold) -> None:
    assert TOY.parse_action(TOY.format_action(action)) == action


@pytest.mark.parametrize(("text", "expected"), [("hold", "an action's word"), ("roll 3", "an action's word")])
def test_an_action_without_its_player_is_refused_as_notation(text: str, expected: str) -> None:
    with pytest.raises(NotationError, match=expected):
        TOY.parse_action(text)


@dataclass(frozen=True)
class Bet:
    player: str
    double: bool


@dataclass(frozen=True)
class Tick:
    pass


def test_an_action_the_default_notation_cannot_write_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"Bet\.double"):

        class Betting(BaseRuleset[State, Any, PlainKit]):
            name = "betting"
            actions = (Bet,)


def test_an_action_of_the_table_is_read_by_its_word_and_a_players_after_a_name() -> None:
    @dataclass(frozen=True)
    class Chime:
        player: str

    class Clock(BaseRuleset[State, Any, PlainKit]):
        name = "clock"
        actions = (Tick, Chime)

    clock = Clock()
    assert clock.parse_action("tick") == Tick() and clock.parse_action("ann chime") == Chime("ann")
    for refused in ("ann tick", "tick chime"):  # the table's action takes no player; its word is no player's name
        with pytest.raises(NotationError):
            clock.parse_action(refused)


def test_a_snapshot_comes_back_with_its_tuples_however_deep() -> None:
    assert as_tuples({"board": [["a", "b"], ["c", "d"]], "n": 1}) == {"board": (("a", "b"), ("c", "d")), "n": 1}


def test_a_ruleset_that_hides_facts_and_keeps_the_defaults_reading_its_legal_actions_is_refused() -> None:
    with pytest.raises(TypeError, match="writes its own outcome and view"):

        class Secret(ToyRuleset):
            def visible_only_to(self, action: Roll | Hold) -> str | None:
                return action.player


def test_a_variant_keeps_the_state_class_it_declares() -> None:
    @dataclass(frozen=True)
    class Counted(State):
        rolls: int = 0

    class Variant(ToyRuleset):
        state_class = Counted

    assert Variant.state_class is Counted and ToyRuleset.state_class is State


class Nim(BaseRuleset[int, Any, PlainKit]):
    """A ruleset with nothing but the four members every ruleset writes."""

    name = "nim-defaults"

    def setup(self, kit: PlainKit, players: Sequence[str], options: Mapping[str, Any]) -> int:
        return 3

    def apply(self, state: int, action: Any) -> Transition[int]:
        return Transition(state - 1)

    def legal_actions(self, state: int) -> Iterator[Any]:
        return iter([Tick()] if state else [])

    def standings(self, state: int) -> Outcome:
        return ranked([("ann", (1,)), ("ben", (0,))])


def test_the_game_is_over_by_default_once_no_action_is_legal() -> None:
    assert Nim().outcome(1) is None and Nim().outcome(0) == ranked([("ann", (1,)), ("ben", (0,))])


def test_rulesets_load_once_when_threads_first_read_games_at_once() -> None:
    """Four threads of a fresh process read a game at once: its ruleset's events are registered once."""
    script = (
        "import os, tempfile, threading\n"
        "from evo_ledger.app.ledger import Ledger\n"
        "from evo_ledger.settings import Settings\n"
        "path = os.path.join(tempfile.mkdtemp(), 'l.sqlite')\n"
        "with Ledger(Settings(path)) as ledger:\n"
        "    game = ledger.commands.generate_game(3, seed=1, ruleset='evo2').game_id\n"
        "import subprocess, sys\n"
        "reader = (\n"
        "    'import sys, threading\\nfrom uuid import UUID\\nfrom evo_ledger.app.ledger import Ledger\\n'\n"
        "    'from evo_ledger.settings import Settings\\nfailed = []\\n'\n"
        "    f'ledger = Ledger(Settings({path!r}))\\nstart = threading.Barrier(4)\\n'\n"
        "    'def read():\\n    start.wait()\\n    try:\\n'\n"
        "    f'        ledger.queries.game(UUID({str(game)!r}))\\n'\n"
        "    '    except Exception as error:\\n        failed.append(repr(error))\\n'\n"
        "    'threads = [threading.Thread(target=read) for _ in range(4)]\\n'\n"
        "    '[t.start() for t in threads]; [t.join() for t in threads]\\nprint(failed)\\n'\n"
        ")\n"
        "print(subprocess.run([sys.executable, '-c', reader], capture_output=True, text=True, check=True).stdout)\n"
    )
    answer = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert answer.stdout.strip() == "[]"
