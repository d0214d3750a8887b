"""The birth phase [E2-11]: passes in initiative order, one optional birth per player per pass."""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.evo2.actions import Birth
from evo_ledger.rules.evo2.movement import check_own, check_space
from evo_ledger.rules.evo2.state import State


def check_birth_turn(state: State, player: str) -> None:
    current = state.current_player
    if player != current:
        raise RuleViolation(
            "E2-11", f"births go in initiative order, one per player per pass: it is {current}'s turn, not {player}'s"
        )


def all_on_board(state: State, player: str) -> bool:
    return state.count_of(player) >= state.kit.dinosaurs_per_player


def check_birth(state: State, action: Birth) -> None:
    player = action.player
    check_birth_turn(state, player)
    check_space(state, action.space)
    if action.relocated_from is None and all_on_board(state, player):
        raise RuleViolation(
            "E2-11",
            f"all {state.kit.dinosaurs_per_player} of {player}'s dinosaurs are on the board: "
            "a birth must take one off ('birth SPACE from SPACE')",
        )
    if action.relocated_from is not None:
        if not all_on_board(state, player):
            raise RuleViolation(
                "E2-11", f"{player} has dinosaurs in supply: only with all on the board may one be taken off"
            )
        if action.space == action.relocated_from:
            raise RuleViolation("E2-11", f"the dinosaur taken off {action.space} must be born elsewhere")
        check_own(state, player, action.relocated_from, ruling="E2-11")
    if action.space in state.board:
        raise RuleViolation("E2-11", f"{action.space} is occupied: a newborn goes on an empty space")
    parents = set(state.dinosaurs_of(player)) - {action.relocated_from}
    if not parents & state.kit.neighbours[action.space]:
        raise RuleViolation("E2-11", f"{action.space} is not next to any of {player}'s dinosaurs")


def apply_birth(state: State, action: Birth) -> None:
    if action.relocated_from is not None:
        del state.board[action.relocated_from]
    state.board[action.space] = action.player


def _empty_neighbours(state: State, parents: list[str]) -> list[str]:
    return sorted({n for space in parents for n in state.kit.neighbours[space] if n not in state.board})


def legal_births(state: State, player: str) -> Iterator[Birth]:
    own = state.dinosaurs_of(player)
    if not all_on_board(state, player):
        yield from (Birth(player, space) for space in _empty_neighbours(state, own))
        return
    for taken_off in own:
        parents = [space for space in own if space != taken_off]
        yield from (Birth(player, space, taken_off) for space in _empty_neighbours(state, parents))
