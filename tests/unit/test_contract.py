"""The contract: a core every ruleset writes, and capabilities, each a protocol of its own that the core finds with
`isinstance`; a ruleset without one is served its plain default."""

from __future__ import annotations

from typing import Any

import pytest

from evo_ledger.rules import registry, rulesets
from evo_ledger.rules.base import NextWords, Outcome, StateView
from evo_ledger.rules.contract import (
    CAPABILITIES,
    CORE_MEMBERS,
    Board,
    HiddenInformation,
    advice,
    at_version,
    capabilities,
    contract_problems,
    draw,
    explain,
    has,
    hidden_information,
    is_chance,
    layout,
    listed_next_words,
    next_words,
    reading,
    replayer,
    self_play,
)
from evo_ledger.rules.kits import load_kit
from evo_ledger.rules.registry import BadRuleset, checked
from tests.toy.ruleset import Hold, Roll, State, ToyRuleset, current, won

TOY = ToyRuleset()


def toy_state() -> State:
    return TOY.setup(load_kit("toy-2p"), ["ann", "ben"], {})


def test_the_core_is_a_short_list_the_toy_writes_and_nothing_more() -> None:
    assert len(CORE_MEMBERS) <= 20 and {"setup", "legal", "apply", "view", "snapshot_state"} <= set(CORE_MEMBERS)
    assert all(hasattr(TOY, member) for member in CORE_MEMBERS)
    assert capabilities(TOY) == ()


def test_the_installed_rulesets_declare_the_capabilities_they_have() -> None:
    assert set(capabilities(rulesets()["evo1"])) == {capability.__name__ for capability in CAPABILITIES}
    assert "Board" in capabilities(rulesets()["evo2"]) and "Advising" not in capabilities(rulesets()["evo2"])
    assert {"HiddenInformation", "Chance", "Bots", "ReadModels"} <= set(capabilities(rulesets()["traits"]))


def test_a_ruleset_without_a_capability_is_served_its_plain_default() -> None:
    state = toy_state()
    hidden = hidden_information(TOY)
    assert hidden.visible_only_to(Roll("ann", 3)) is None and not hidden.reveals(Roll("ann", 3), Hold("ann"))
    assert hidden.rests_on(state, Roll("ann", 3)) is None
    assert hidden.public_state(state) == hidden.seat_state(state, "ben") == TOY.snapshot_state(state)
    assert not is_chance(TOY, Roll("ann", 3))
    assert self_play(TOY) is None and reading(TOY) is None and advice(TOY, state) is None
    assert explain(TOY, [], 0) is None and at_version(TOY, "0") is None
    assert layout(TOY, state) is None and draw(TOY, state.kit) == ""
    assert replayer(TOY)(state, Roll("ann", 5)) == TOY.apply(state, Roll("ann", 5)).state


def test_without_composing_an_action_is_entered_a_word_at_a_time_from_the_listed_legal_actions() -> None:
    state = toy_state()
    assert next_words(TOY, state, []) == NextWords(("ann",), False)
    assert next_words(TOY, state, ["ann"]) == NextWords(("roll",), False)
    assert next_words(TOY, state, ["ann", "roll"]).words == tuple(str(face) for face in range(1, 7))
    assert next_words(TOY, state, ["ann", "roll", "6"]) == NextWords((), True)
    assert next_words(TOY, state, ["ben"]) == NextWords((), False), "ben is not to act"


def test_the_listed_words_follow_the_order_met_each_once() -> None:
    listed = ["ann move A1 B2", "ann move A1 B3", "ann move A2 B2", "ann bid 1"]
    assert listed_next_words(listed, ["ann"]) == NextWords(("move", "bid"), False)
    assert listed_next_words(listed, ["ann", "move"]) == NextWords(("A1", "A2"), False)
    assert listed_next_words(listed, ["ann", "bid", "1"]) == NextWords((), True)
    assert listed_next_words([*listed, "ann move A1"], ["ann", "move", "A1"]) == NextWords(("B2", "B3"), True)


class OwnEnd(ToyRuleset):
    """The toy with its own end and view, as a ruleset that hides facts writes them (`check_hiding`)."""

    def outcome(self, state: State) -> Outcome | None:
        return self.standings(state) if won(state) else None

    def view(self, state: State) -> StateView:
        return StateView("in play", (), {}, round=1, phase="play", step="")


class HiddenRolls(OwnEnd):
    """A roll seen by its player alone until the player holds: the hidden-information capability, added."""

    def visible_only_to(self, action: Roll | Hold) -> str | None:
        return action.player if isinstance(action, Roll) else None

    def reveals(self, hidden: Roll | Hold, later: Roll | Hold) -> bool:
        return isinstance(later, Hold) and later.player == hidden.player

    def rests_on(self, state: State, action: Roll | Hold) -> str | None:
        return None

    def public_state(self, state: State) -> dict[str, Any]:
        return {**self.snapshot_state(state), "at_stake": None}

    def seat_state(self, state: State, seat: str) -> dict[str, Any]:
        return self.snapshot_state(state) if seat == current(state) else self.public_state(state)


class HalfHidden(OwnEnd):
    def visible_only_to(self, action: Roll | Hold) -> str | None:
        return action.player


def test_a_capability_is_found_when_every_member_of_it_is_written() -> None:
    whole = HiddenRolls()
    assert isinstance(whole, HiddenInformation) and hidden_information(whole) is whole
    assert hidden_information(whole).public_state(toy_state())["at_stake"] is None
    assert not has(TOY, Board) and capabilities(whole) == ("HiddenInformation",)
    assert contract_problems(whole) == [] and contract_problems(TOY) == []


def test_a_capability_written_in_part_is_refused_rather_than_taken_for_absent() -> None:
    """Half of the hidden information would leave every hidden action public, for ever: refused at load."""
    wanted = "HiddenInformation in part: visible_only_to without reveals, rests_on, public_state, seat_state"
    with pytest.raises(BadRuleset, match=wanted):
        checked("toy", HalfHidden())


class OldLayout(ToyRuleset):
    def layout(self, state: State) -> None:  # type: ignore[override]  # the parameters the test refuses
        return None


class Stubbed(Board[State]):
    """Lists a protocol as a base, and writes nothing of the core."""

    name = "stubbed"


def test_a_member_with_other_parameters_or_only_the_protocols_declaration_is_refused() -> None:
    assert contract_problems(OldLayout()) == ["layout does not take the contract's (state, seat)"]
    made: Any = Stubbed  # as an entry point makes it, unchecked by the type checker
    stubbed = made()
    problems = contract_problems(stubbed)
    assert "no view" in problems and "no describe" in problems and "no layout" not in problems
    assert isinstance(stubbed, Board) and not has(stubbed, Board)  # a declaration inherited is not a layout


def test_a_ruleset_that_cannot_be_loaded_is_left_out_with_a_warning_and_the_others_serve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Entry:
        def __init__(self, name: str, made: Any) -> None:
            self.name, self.made = name, made

        def load(self) -> Any:
            return self.made

    def broken() -> Any:
        raise ImportError("no module named 'gone'")

    found = [Entry("toy", ToyRuleset), Entry("half", HalfHidden), Entry("gone", broken)]
    monkeypatch.setattr(registry, "entry_points", lambda group: found)
    with pytest.warns(RuntimeWarning) as warned:
        loaded = registry.installed.__wrapped__()
    assert list(loaded) == ["toy"]
    messages = sorted(str(warning.message) for warning in warned)
    assert messages[0].startswith("ruleset 'gone' left out: no module named 'gone'")
    assert "ruleset 'half' left out" in messages[1] and "HiddenInformation in part" in messages[1]


def test_an_entry_point_whose_ruleset_lacks_a_core_member_or_its_name_is_refused() -> None:
    class Unfinished:
        name = "unfinished"

    with pytest.raises(BadRuleset, match=r"'unfinished' .* no action_data; no action_from_data; no apply"):
        checked("unfinished", Unfinished())
    with pytest.raises(BadRuleset, match="gives a ruleset named 'toy'"):
        checked("pig", TOY)
    assert checked("toy", TOY) is TOY
