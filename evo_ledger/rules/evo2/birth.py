"""The birth phase [E2-11]: passes in initiative order, one optional birth per player per pass.

Thick shell reaches 3 spaces; killer babies are born onto an adjacent enemy and the die decides who dies.
"""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo2.actions import Birth, Roll
from evo_ledger.rules.evo2.movement import check_own, check_protected, check_space
from evo_ledger.rules.evo2.state import KILLER_BABY_ROLL, Pending, State, player_to_act

THICK_SHELL_RANGE = 3
# Killer babies, the literal reading of RULINGS E2-11 (flagged there): these faces kill the enemy.
KILLER_BABY_WINS = frozenset({"horn", "horn=", "horn+"})


def check_birth_turn(state: State, player: str) -> None:
    current = player_to_act(state)
    if player != current:
        raise RuleViolation(
            "E2-11", f"births go in initiative order, one per player per pass: it is {current}'s turn, not {player}'s"
        )


def all_on_board(state: State, player: str) -> bool:
    return state.count_of(player) >= state.kit.dinosaurs_per_player


def birth_range(state: State, player: str) -> int:
    """How far from its species a newborn may go: 1, 3 with thick shell, or what a card allows [E2-11, E2-15]."""
    reach = THICK_SHELL_RANGE if state.players[player].has("thick_shell") else 1
    cards = state.active("birth_range", player) if state.modifiers else None
    return max(reach, *(m.value for m in cards)) if cards else reach


def check_birth(state: State, action: Birth) -> None:
    player = action.player
    check_birth_turn(state, player)
    check_space(state, action.space)
    for modifier in state.active("no_births") if state.modifiers else ():
        raise RuleViolation("E2-15", f"{modifier.player}'s card {modifier.card} forbids births")
    check_supply(state, action)
    holder = state.board.get(action.space)
    if holder is not None:
        check_killer_baby(state, action, holder, parents_of(state, action))
        return
    reach = birth_range(state, player)
    if reach == 1:
        near = next_to_parent(state, action)
    else:
        near = any(state.kit.distance(action.space, parent) <= reach for parent in parents_of(state, action))
    if not near:
        where = "next to" if reach == 1 else f"within {reach} spaces of"
        raise RuleViolation("E2-11", f"{action.space} is not {where} any of {player}'s dinosaurs", waivable=True)


def next_to_parent(state: State, action: Birth) -> bool:
    """One of the player's dinosaurs, other than the one taken off, is next to the newborn's space."""
    neighbours = state.kit.neighbours[action.space]
    if action.relocated_from is not None:
        neighbours = neighbours - {action.relocated_from}
    return action.player in map(state.board.get, neighbours)


def parents_of(state: State, action: Birth) -> list[str]:
    """The player's dinosaurs a newborn may come from: all but the one taken off to be born."""
    taken_off = action.relocated_from
    return [space for space, owner in state.board.items() if owner == action.player and space != taken_off]


def check_supply(state: State, action: Birth) -> None:
    """A newborn comes from the supply; with all on the board, one is taken off to be born elsewhere."""
    player = action.player
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


def check_killer_baby(state: State, action: Birth, holder: str, parents: list[str]) -> None:
    player = action.player
    if holder == player or not state.players[player].has("killer_babies"):
        raise RuleViolation("E2-11", f"{action.space} is occupied: a newborn goes on an empty space")
    if not set(parents) & state.kit.neighbours[action.space]:
        raise RuleViolation(
            "E2-11", f"killer babies reach adjacent spaces only: {action.space} is not next to {player}'s"
        )
    check_protected(state, holder, "E2-11", "targeted by killer babies")


def apply_birth(state: State, action: Birth) -> None:
    board = state.own_board()
    if action.relocated_from is not None:
        del board[action.relocated_from]
    if action.space in board:
        state.pending = Pending(KILLER_BABY_ROLL, action.player, None, action.space)
    else:
        board[action.space] = action.player


def apply_killer_baby_roll(state: State, action: Roll, effects: Effects) -> None:
    """Horn, horn= and horn+ kill the enemy and the baby takes the space; otherwise the baby dies [E2-11]."""
    pending = state.pending
    assert pending is not None
    victim = state.board[pending.target]
    won = action.face in KILLER_BABY_WINS
    if won:
        state.own_board()[pending.target] = pending.player
    state.pending = None
    effects.add(
        "killer_baby_resolved",
        round=state.round,
        player=pending.player,
        victim=victim,
        target=pending.target,
        face=action.face,
        winner=pending.player if won else victim,
    )


def legal_births(state: State, player: str) -> Iterator[Birth]:
    if state.active("no_births"):
        return
    own = state.dinosaurs_of(player)
    if not all_on_board(state, player):
        yield from (Birth(player, space) for space in _targets(state, player, own))
        return
    for taken_off in own:
        parents = [space for space in own if space != taken_off]
        yield from (Birth(player, space, taken_off) for space in _targets(state, player, parents) if space != taken_off)


def _targets(state: State, player: str, parents: list[str]) -> list[str]:
    reach = birth_range(state, player)
    empty = [
        s for s in state.kit.spaces if s not in state.board and any(state.kit.distance(s, p) <= reach for p in parents)
    ]
    killer = []
    if state.players[player].has("killer_babies"):
        adjacent = {n for p in parents for n in state.kit.neighbours[p]}
        killer = [
            s
            for s in adjacent
            if state.board.get(s) not in (None, player)
            and state.count_of(state.board[s]) > state.players[state.board[s]].floor
        ]
    return sorted({*empty, *killer})
