"""Explanations of a combat, a survival phase, an auction and a climate reveal, checked field by field against the
hand-made game (its comments say what happened, worked out by hand from the rules); and what-if branches, which
never touch the log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.disputes import NotExplainable, game_steps
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.transfer import import_notation
from evo_ledger.game.aggregate import Game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import Step
from evo_ledger.settings import Settings
from tests.helpers.evo2 import cat_holding_a_card
from tests.helpers.support import ROOT, RULES, play, step

GAME_TEXT = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()


@pytest.fixture(scope="module")
def hand_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Ledger, Receipt]]:
    with Ledger(Settings(str(tmp_path_factory.mktemp("disputes") / "games.sqlite"))) as ledger:
        yield ledger, import_notation(ledger, GAME_TEXT)


def version_of(ledger: Ledger, game_id: UUID, kind: str, nth: int = 0) -> int:
    found = [e.originator_version for e in ledger.queries.game_events(game_id) if type(e).__name__ == kind]
    version: int = found[nth]
    return version


def explained(hand_game: tuple[Ledger, Receipt], kind: str, nth: int = 0) -> dict[str, Any]:
    ledger, receipt = hand_game
    data: dict[str, Any] = ledger.queries.explain(
        ledger.queries.game(receipt.game_id), version_of(ledger, receipt.game_id, kind, nth)
    ).data
    return data


def test_a_won_combat_is_explained_by_each_sides_horns_the_odds_row_and_the_face_E2_09(
    hand_game: tuple[Ledger, Receipt],
) -> None:
    """Round 6: cat (2 horns) attacks ben's E2 (1 horn); one more horn wins on horn, horn= and horn+; horn+."""
    report = explained(hand_game, "CombatResolved")
    assert report["kind"] == "combat"
    assert report["data"] == {
        "round": 6,
        "attacker": "cat",
        "defender": "ben",
        "source": "D2",
        "target": "E2",
        "attack": {"player": "cat", "horns": 2, "sources": [{"source": "horns", "count": 2, "value": 2}]},
        "defence": {"player": "ben", "horns": 1, "sources": [{"source": "horns", "count": 1, "value": 1}]},
        "difference": 1,
        "odds_row": "+1",
        "winning_faces": ["horn", "horn=", "horn+"],
        "face": "horn+",
        "winner": "cat",
        "removed": "E2",
        "escape_from": None,
        "undone_rolls": [],
    }
    assert (
        report["words"][-1] == "The die shows horn+: cat wins; the dinosaur on E2 is removed and the attacker moves in."
    )


def test_a_lost_attack_is_explained_from_the_attack_its_roll_or_its_combat_alike_E2_09(
    hand_game: tuple[Ledger, Receipt],
) -> None:
    """ben (1 horn) attacks back against cat's 2: fewer horns win only on horn; the die shows x."""
    ledger, receipt = hand_game
    combat = version_of(ledger, receipt.game_id, "CombatResolved", 1)
    reports = [
        ledger.queries.explain(ledger.queries.game(receipt.game_id), version).data["data"]
        for version in (combat - 2, combat - 1, combat)
    ]
    assert reports[0] == reports[1] == reports[2]
    data = reports[0]
    assert (data["attacker"], data["defender"], data["source"], data["target"]) == ("ben", "cat", "E3", "E2")
    assert (data["attack"]["horns"], data["defence"]["horns"], data["difference"]) == (1, 2, -1)
    assert (data["odds_row"], data["winning_faces"], data["face"]) == ("-1 or less", ["horn"], "x")
    assert (data["winner"], data["removed"], data["escape_from"]) == ("cat", None, None)


def test_a_card_played_for_the_attack_is_a_source_of_its_horns_E2_15() -> None:
    state = play(cat_holding_a_card(), "cat play Rage attack +2 for phase", "cat attack C2 C3")
    roll = RULES.parse_action("roll horn+")
    explanation = RULES.explain([step_of(state, roll)], 0)
    assert explanation is not None and explanation.kind == "combat"
    assert explanation.data["attack"] == {
        "player": "cat",
        "horns": 2,
        "sources": [{"source": "card Rage", "count": 1, "value": 2}],
    }
    assert explanation.data["defence"] == {"player": "ann", "horns": 0, "sources": []}
    assert explanation.words[1] == "cat's horns: 2 (card Rage 2); ann's: 0 (none)."


def step_of(state: Any, action: Any) -> Step[Any, Any]:
    return Step(state, action, RULES.apply(state, action).consequences)


def test_an_undone_roll_of_a_combat_is_reported_as_a_re_roll(tmp_path: Path) -> None:
    actions = [line.text for line in parse_game(GAME_TEXT).actions]
    roll_at = next(i for i, text in enumerate(actions) if text.startswith("roll "))
    with Ledger(Settings(str(tmp_path / "games.sqlite"))) as ledger:
        game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        ledger.commands.record(game, [*actions[:roll_at], "roll x"])
        undone = ledger.queries.receipt(game).version - 1  # the roll, then the combat it decided
        ledger.commands.undo(game, 1, "the die fell off the table")
        combat = ledger.commands.record(game, actions[roll_at]).version
        data = ledger.queries.explain(ledger.queries.game(game), combat).data["data"]
    assert data["undone_rolls"] == [{"event": undone, "roll": "roll x"}]
    assert data["face"] == "horn+"


def test_a_survival_phase_is_explained_player_by_player_E2_12(hand_game: tuple[Ledger, Receipt]) -> None:
    """Round 3, yellow hot: cat chooses to keep B2; ann's two beach dinosaurs go without a choice; ben's
    thermoregulation keeps one beach dinosaur, he keeps F2 and loses the other four."""
    ledger, receipt = hand_game
    forced = version_of(ledger, receipt.game_id, "DinosaursPerished", 4)
    report = ledger.queries.explain(ledger.queries.game(receipt.game_id), forced).data
    assert report["kind"] == "survival"
    none: dict[str, list[str]] = {"hot": [], "cold": [], "deadly": []}
    nothing_kept = {"hot": 0, "cold": 0, "deadly": 0}
    assert report["data"] == {
        "round": 3,
        "climate_position": 1,
        "zones": {"ideal": 4, "hot": 18, "cold": 6, "deadly": 3},
        "players": [
            {
                "player": "cat",
                "dinosaurs": {"ideal": ["C2"], "hot": ["B1", "B2", "C1"], "cold": [], "deadly": []},
                "keeps": nothing_kept,
                "keep_sources": none,
                "floor": 2,
                "must_lose": 2,
                "ways": 3,
                "lost": ["B1", "C1"],
                "chosen_by_player": True,
            },
            {
                "player": "ann",
                "dinosaurs": {"ideal": ["C5", "E5"], "hot": ["C6", "D5"], "cold": [], "deadly": []},
                "keeps": nothing_kept,
                "keep_sources": none,
                "floor": 2,
                "must_lose": 2,
                "ways": 1,
                "lost": ["C6", "D5"],
                "chosen_by_player": False,
            },
            {
                "player": "ben",
                "dinosaurs": {"ideal": ["E2"], "hot": ["D1", "E1", "F1", "F2", "G1"], "cold": [], "deadly": []},
                "keeps": {"hot": 1, "cold": 1, "deadly": 0},
                "keep_sources": {"hot": ["thermo 1"], "cold": ["fur 1"], "deadly": []},
                "floor": 2,
                "must_lose": 4,
                "ways": 5,
                "lost": ["D1", "E1", "F1", "G1"],
                "chosen_by_player": True,
            },
        ],
    }
    assert "  ann: 2 in hot (keeps 0): must lose 2 (floor 2, 1 way); had no choice, losing C6, D5." in report["words"]


def test_every_event_of_a_survival_phase_gives_the_same_explanation(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    events = ledger.queries.game_events(receipt.game_id)
    round_three = [e.originator_version for e in events if type(e).__name__ == "DinosaursPerished"][3:6]
    choices = [e.originator_version for e in events if type(e).__name__ == "SurvivalChosen"]
    last_choice = max(version for version in choices if version < round_three[-1])
    reports = [
        ledger.queries.explain(ledger.queries.game(receipt.game_id), version).data
        for version in [*round_three, last_choice]
    ]
    assert all(report["data"] == reports[0]["data"] and report["kind"] == "survival" for report in reports)


def test_an_auction_is_explained_bid_by_bid_with_its_discounts_E2_07(hand_game: tuple[Ledger, Receipt]) -> None:
    """Round 4: ann outbids cat on eggs with 4 and pays 3 (one vial); cat takes horns for 2; ben the card for 0."""
    report = explained(hand_game, "AuctionSettled", 3)
    assert report["kind"] == "auction"
    assert report["data"] == {
        "round": 4,
        "bids": [
            {"player": "cat", "amount": 3, "column": 2, "item": "eggs", "forced_rebid": False, "outbid": None},
            {"player": "ann", "amount": 4, "column": 2, "item": "eggs", "forced_rebid": False, "outbid": "cat"},
            {"player": "cat", "amount": 2, "column": 3, "item": "horns", "forced_rebid": True, "outbid": None},
            {"player": "ben", "amount": 0, "column": 1, "item": "card", "forced_rebid": False, "outbid": None},
        ],
        "settled": True,
        "settlement": [
            {"player": "ben", "column": 1, "item": "card", "bid": 0, "paid": 0, "discount": 0, "vials": 0},
            {"player": "ann", "column": 2, "item": "eggs", "bid": 4, "paid": 3, "discount": 1, "vials": 1},
            {"player": "cat", "column": 3, "item": "horns", "bid": 2, "paid": 2, "discount": 0, "vials": 0},
        ],
    }
    assert "  ann takes eggs for 3 MP: the bid 4 less 1 for 1 vials." in report["words"]
    ledger, receipt = hand_game
    [outbid] = [
        e
        for e in ledger.queries.game_events(receipt.game_id)
        if type(e).__name__ == "BidOutbid" and e.data["round"] == 4
    ]
    assert (
        ledger.queries.explain(ledger.queries.game(receipt.game_id), outbid.originator_version).data["data"]
        == report["data"]
    )


def test_a_climate_reveal_is_explained_by_the_pile_and_the_round_E2_04(hand_game: tuple[Ledger, Receipt]) -> None:
    report = explained(hand_game, "ClimateChanged")
    assert report["kind"] == "climate"
    assert report["data"] == {
        "round": 1,
        "token": "cw",
        "left_before": {"acw": 2, "cw": 8, "cw2": 1, "meteorite": 1, "zero": 1},
        "possible": ["acw", "cw", "cw2", "zero"],
        "meteorite_rounds": [10, 12],
        "position_before": 0,
        "position_after": 1,
    }


def test_events_with_nothing_to_explain_are_refused_by_name(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    moved = version_of(ledger, receipt.game_id, "DinosaurMoved")
    with pytest.raises(
        NotExplainable, match=f"event {moved} \\(DinosaurMoved\\) is not part of anything the evo2 rules explain"
    ):
        ledger.queries.explain(ledger.queries.game(receipt.game_id), moved)
    with pytest.raises(NotExplainable, match=f"the game has events 1 to {receipt.version}, not 0"):
        ledger.queries.explain(ledger.queries.game(receipt.game_id), 0)
    with pytest.raises(NotExplainable, match="event 1 \\(Started\\) is not in the game as it stands"):
        ledger.queries.explain(ledger.queries.game(receipt.game_id), 1)


def test_a_what_if_replaying_the_same_action_changes_nothing(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    roll = version_of(ledger, receipt.game_id, "DieRolled")
    report = ledger.queries.what_if(ledger.queries.game(receipt.game_id), roll, "roll horn+").data
    assert report["branch"]["stopped_at"] is None and report["recorded"]["before_event"] is None
    recorded = {k: v for k, v in report["recorded"].items() if k != "before_event"}
    assert {k: v for k, v in report["branch"].items() if k in recorded} == recorded
    assert report["recorded"]["over"] is True


def test_a_what_if_with_another_roll_plays_on_until_the_rules_stop_it(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    roll = version_of(ledger, receipt.game_id, "DieRolled")
    before = ledger.queries.receipt(receipt.game_id)
    report = ledger.queries.what_if(ledger.queries.game(receipt.game_id), roll, "roll x").data
    assert ledger.queries.receipt(receipt.game_id) == before  # the log is never touched
    assert report["change"] == {"event": roll, "was": "roll horn+", "becomes": "roll x"}
    stop = report["branch"]["stopped_at"]
    assert stop["event"] == roll + 3 and stop["action"] == "ben attack E3 E2"  # cat never took E2
    assert stop["reason"].startswith("[E2-10] E2 holds one of the attacker's own dinosaurs")
    # The recorded game is read at the same point: just before the action the branch stopped at.
    assert report["recorded"]["before_event"] == stop["event"] and report["recorded"]["over"] is False
    at_stop = ledger.queries.game(receipt.game_id, stop["event"] - 1)
    assert [[row.player, *row.score] for row in at_stop.rules.standings(at_stop.state).standings] == [
        [row["player"], *row["score"]] for row in report["recorded"]["standings"]
    ]
    assert report["branch"]["over"] is False


def test_a_what_if_refuses_an_illegal_replacement_and_a_consequence(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    roll = version_of(ledger, receipt.game_id, "DieRolled")
    with pytest.raises(NotExplainable, match="'ann pass' is not legal where the event stood"):
        ledger.queries.what_if(ledger.queries.game(receipt.game_id), roll, "ann pass")
    with pytest.raises(NotExplainable, match=f"event {roll + 1} is a consequence: change the action at event {roll}"):
        ledger.queries.what_if(ledger.queries.game(receipt.game_id), roll + 1, None)


def test_dropping_a_survival_choice_stops_the_branch_where_one_is_owed(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    choice = version_of(ledger, receipt.game_id, "SurvivalChosen")
    report = ledger.queries.what_if(ledger.queries.game(receipt.game_id), choice, None).data
    assert report["change"]["becomes"] is None
    assert report["branch"]["stopped_at"]["reason"].startswith("[E2-12]")


def test_the_steps_fold_to_the_game_as_recorded(hand_game: tuple[Ledger, Receipt]) -> None:
    ledger, receipt = hand_game
    game: Game = ledger.queries.game(receipt.game_id)
    steps = game_steps(game)
    assert len(steps) == len(game.history)
    assert RULES.snapshot_state(step(steps[-1].before, game.history[-1][1]).state) == RULES.snapshot_state(game.state)
