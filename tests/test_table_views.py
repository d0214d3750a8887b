"""`show` and `play` read like the table: the climate and its zones, the genes up for auction and their bids, a
legend of the board, how many dinosaurs must go and why, "steps" for movement (MP are mutation points only), and
colour at a terminal."""

from __future__ import annotations

import io
from typing import Any

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.cli.views import print_position
from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.contract import draw
from evo_ledger.rules.kits import load_kit
from evo_ledger.settings import Settings
from tests.helpers.support import ROOT

EVO2_GAME = ROOT / "replays" / "hand-3p-first-game.evo"
EVO1_GAME = ROOT / "replays" / "evo1-hand-3p.evo"


def headlines_and_tables(path: Any) -> list[tuple[str, tuple[str, ...]]]:
    """The view after each action of a shipped game."""
    game = parse_game(path.read_text())
    rules, state = get_ruleset(game.header.ruleset), start(game, ROOT / "replays")
    seen = []
    for line in game.actions:
        state = rules.apply(state, line.action).state
        view = rules.view(state)
        seen.append((view.headline, view.table))
    return seen


def test_movement_counts_steps_and_mp_are_only_mutation_points() -> None:
    for path in (EVO2_GAME, EVO1_GAME):
        headlines = [headline for headline, _ in headlines_and_tables(path)]
        assert any("steps left" in h for h in headlines) and not any(" MP left" in h for h in headlines)


def test_a_survival_choice_says_how_many_go_and_why() -> None:
    evo2 = [h for h, _ in headlines_and_tables(EVO2_GAME) if "survival · " in h and " to choose " in h]
    assert (
        "round 1 · survival · cat to choose 1 of their dinosaurs to go (2 in hot zones, thermoregulation keeps 0)"
        in evo2
    )
    evo1 = [h for h, _ in headlines_and_tables(EVO1_GAME) if "to choose which" in h]
    assert "ben to choose which go: 2 of the 3 in the hot zone (parasol keeps 1)" in "\n".join(evo1), evo1


def test_the_table_shows_the_climate_and_the_auction_with_its_bids() -> None:
    evo2 = [table for _, table in headlines_and_tables(EVO2_GAME)]
    assert all(table[0].startswith("climate: wheel at position ") and " ideal" in table[0] for table in evo2)
    assert any(line.startswith("lab: column 1 event card") and "(" in line for table in evo2 for line in table)
    evo1 = [table for _, table in headlines_and_tables(EVO1_GAME) if table]
    assert all(
        table[0].startswith("climate: marker on ") and table[1].startswith("meteor: on space ") for table in evo1
    )
    assert "auction: row 1 foot (ben 2); row 2 fur; row 3 mutant (ann 7)" in [line for t in evo1 for line in t]


def test_the_board_has_a_legend_of_its_terrains() -> None:
    for ruleset, kit, legend in (
        ("evo2", "standin-e2-3p", "y yellow, g green, b brown, w white"),
        ("evo1", "standin-e1-3p", "y yellow beach, g green plain, b brown hill, m grey mountain"),
    ):
        assert legend in draw(get_ruleset(ruleset), load_kit(kit), {"A1": "a"})


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_show_colours_a_terminal_and_writes_plain_text_elsewhere(tmp_path: Any) -> None:
    ledger = Ledger(Settings(str(tmp_path / "show.sqlite")))
    try:
        game = ledger.queries.game(import_notation(ledger, EVO1_GAME.read_text()).game_id, version=60)
    finally:
        ledger.close()
    plain, coloured = io.StringIO(), Terminal()
    print_position(game, plain)
    print_position(game, coloured)
    assert "\x1b[" not in plain.getvalue() and "\x1b[1m" in coloured.getvalue()
    assert plain.getvalue().startswith("event 60 · turn ") and "\nclimate: marker on " in plain.getvalue()
