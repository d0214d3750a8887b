"""A view gives the round, the phase and what is awaited apart from its headline, and they agree with it at every
position of every shipped game of each ruleset, recorded by hand or self-played: the headline reads the round,
then the phase, then what is awaited; the rounds never go back; a game over says so and awaits nothing."""

from __future__ import annotations

from pathlib import Path

from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.base import StateView
from tests.helpers.support import ROOT

REPLAYS = ROOT / "replays"


def replays_of(ruleset: str) -> list[Path]:
    found = [path for path in sorted(REPLAYS.glob("*.evo")) if parse_game(path.read_text()).header.ruleset == ruleset]
    assert found, f"no shipped game of {ruleset}"
    return found


def views_of(path: Path) -> list[StateView]:
    """The view before the first action of a shipped game and after each."""
    game = parse_game(path.read_text())
    rules, state = get_ruleset(game.header.ruleset), start(game, REPLAYS)
    seen = [rules.view(state)]
    for line in game.actions:
        state = rules.apply(state, line.action).state
        seen.append(rules.view(state))
    return seen


def check_the_game(path: Path, views: list[StateView]) -> None:
    """What every ruleset's views share: the rounds never go back, and only a game over awaits nothing."""
    rounds = [view.round for view in views]
    assert rounds == sorted(rounds), f"{path.name}: the rounds go back"
    for view in views:
        assert (view.step == "") == (view.phase == "over"), (path.name, view.headline)
        assert view.phase and " · " not in view.phase, (path.name, view.headline)


def test_an_evo2_view_gives_the_round_phase_and_step_its_headline_says() -> None:
    # The initiative phase waits only while an adrenaline rush may be placed.
    phases = {"order", "climate", "mutations", "auction", "movement", "birth", "survival", "over"}
    for path in replays_of("evo2"):
        views = views_of(path)
        check_the_game(path, views)
        for view in views:
            if view.phase == "over":
                assert view.headline == f"game over after round {view.round}", view.headline
            else:
                assert view.headline == f"round {view.round} · {view.phase} · {view.step}", view
        assert views[0].round == 1 and views[-1].phase == "over", path.name
        assert phases <= {view.phase for view in views} <= phases | {"initiative"}, path.name


def test_an_evo1_view_gives_the_turn_phase_and_step_its_headline_says() -> None:
    in_turns = {"initiative", "climate", "movement", "births", "survival", "evolution", "end"}
    for path in replays_of("evo1"):
        views = views_of(path)
        check_the_game(path, views)
        for view in views:
            if view.phase == "over":
                assert view.headline == f"game over in turn {view.round}: the meteor struck", view.headline
            elif view.phase == "setup":
                assert view.round == 0 and view.headline == f"setup · {view.step}", view
            else:
                # The climate and the meteor come between the phase and what is awaited.
                assert view.phase in in_turns and view.round >= 1, view
                assert view.headline.startswith(f"turn {view.round} · {view.phase} · "), view
                assert view.headline.endswith(f" · {view.step}"), view
        assert views[-1].phase == "over", path.name
        assert {"setup", "initiative", "movement", "births", "survival", "evolution"} <= {v.phase for v in views}


def test_a_trait_card_view_gives_the_millennium_phase_and_step_its_headline_says() -> None:
    for path in replays_of("traits"):
        views = views_of(path)
        check_the_game(path, views)
        for view in views:
            if view.phase == "over":
                assert (view.round, view.headline) == (4, "game over after the fourth millennium"), view
            elif view.phase == "setup":
                assert view.round == 0 and view.headline.startswith("setup ("), view
                assert view.headline.endswith(f") · {view.step}"), view
            else:
                assert 1 <= view.round <= 4, view
                assert view.headline == f"millennium {view.round} · {view.phase} · {view.step}", view
        assert views[0].phase == "setup" and views[-1].phase == "over", path.name
        # The end of a millennium is told by its stages.
        assert {"generation", "extinction", "natural selection"} <= {view.phase for view in views}, path.name
        assert {view.round for view in views} == {0, 1, 2, 3, 4}, path.name
