"""`evo-ledger play` driven through a real terminal (a pseudo-terminal), as a recorder at the table uses it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import export_notation, import_notation
from evo_ledger.game.aggregate import Game
from evo_ledger.game.checker import check_game
from evo_ledger.game.notation import ActionLine, GameFile, format_game, parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.kits import load_kit
from evo_ledger.settings import Settings
from tests.helpers.shown import shown
from tests.helpers.support import EVO_LEDGER, ROOT
from tests.helpers.terminal import TIMEOUT, Terminal

HAND_GAME = parse_game((ROOT / "replays" / "hand-3p-first-game.evo").read_text())


def split_at_round(game: GameFile, round_number: int) -> tuple[list[ActionLine], list[ActionLine]]:
    """The game's actions before the round begins, and from there to the end."""
    rules = get_ruleset(game.header.ruleset, game.header.version)
    state = rules.setup(load_kit(game.header.kit), list(game.header.players), game.header.options)
    for index, line in enumerate(game.actions):
        if state.round == round_number:
            return list(game.actions[:index]), list(game.actions[index:])
        state = rules.apply(state, rules.parse_action(line.text)).state
    raise AssertionError(f"the game has no round {round_number}")


@pytest.fixture
def round_nine(tmp_path: Path) -> Iterator[tuple[str, Ledger, list[ActionLine]]]:
    """The hand-worked game imported up to the start of round 9, and the actions left to record."""
    database = str(tmp_path / "table.sqlite")
    played, rest = split_at_round(HAND_GAME, 9)
    text = format_game(HAND_GAME.header, [line.text for line in played], None)
    ledger = Ledger(Settings(database))
    import_notation(ledger, text)
    yield database, ledger, rest
    ledger.close()


def play(database: str) -> Terminal:
    env = {**os.environ, "EVO_LEDGER_DATABASE": database, "TERM": "xterm"}
    return Terminal(str(EVO_LEDGER), "play", "last", env=env)


def test_a_game_is_recorded_to_its_end_through_a_terminal(round_nine: tuple[str, Ledger, list[ActionLine]]) -> None:
    database, ledger, rest = round_nine
    terminal = play(database)
    try:
        terminal.expect(r"round 9 · climate")
        terminal.expect(r"\n> ")
        terminal.type("\t\t")  # an empty line completes to every legal action
        terminal.expect(re.escape(rest[0].text))
        terminal.type("\x15")  # clear the line
        terminal.type("ann bid 3 legs\n")
        terminal.expect(r"refused \[E2-\d\d\] .*nothing was recorded")
        terminal.expect(r"legal now: .*" + re.escape(rest[0].text))
        terminal.type(rest[0].text + "\n")
        terminal.expect(r"stored: event \d+")
        terminal.type(":undo 1 misread the token\n")
        terminal.expect(r"undone: event \d+ \(misread the token\)")
        for line in rest:
            terminal.type(line.text + "\n")
            terminal.expect(r"stored: event \d+")
        terminal.expect(r"game over after round 10: result 1 ann 19/4, 2 cat 14/3, 3 ben 13/4")
        terminal.type(":quit\n")
        assert terminal.process.wait(timeout=TIMEOUT) == 0
    finally:
        terminal.close()
    game_id = ledger.queries.find_game("last")
    report = check_game(parse_game(export_notation(ledger, game_id)))
    assert report.refused is None and report.result_mismatch is None
    assert report.outcome == check_game(HAND_GAME).outcome
    undone = [event for event in ledger.queries.game_events(game_id) if isinstance(event, Game.ActionsUndone)]
    assert [shown(ledger, event.reason) for event in undone] == ["misread the token"]  # stored sealed


def test_killing_the_session_loses_no_recorded_action(round_nine: tuple[str, Ledger, list[ActionLine]]) -> None:
    database, ledger, rest = round_nine
    game_id = ledger.queries.find_game("last")
    imported = len(actions_of(ledger, game_id))
    terminal = play(database)
    acknowledged = []
    try:
        terminal.expect(r"\n> ")
        for line in rest[:8]:
            terminal.type(line.text + "\n")
            acknowledged.append(int(terminal.expect(r"stored: event (\d+)").group(1)))
        terminal.type(rest[8].text + "\n")  # killed while this one may be on its way to the disk
    finally:
        terminal.close()
    reopened = Ledger(Settings(database))
    try:
        assert reopened.queries.receipt(game_id).version >= acknowledged[-1]
        recorded = actions_of(reopened, game_id)[imported:]
        assert recorded in ([line.text for line in rest[:8]], [line.text for line in rest[:9]])
    finally:
        reopened.close()


def actions_of(ledger: Ledger, game_id: UUID) -> list[str]:
    return [event.notation for event in ledger.queries.game_events(game_id) if isinstance(event, Game.ActionRecorded)]
