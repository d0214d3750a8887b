"""The movement phase and combat [E2-09, E2-10]; movement points as RULINGS [E2-02] counts them."""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.evo2.actions import Attack, Move, Roll
from evo_ledger.rules.evo2.effects import Effects
from evo_ledger.rules.evo2.state import State

# Faces of the combat die; the attacker wins on the faces listed for its horn difference [E2-09].
DIE = ("horn", "horn=", "horn+", "horn+", "horn++", "x")
WINNING_FACES = {
    -1: frozenset({"horn"}),
    0: frozenset({"horn", "horn="}),
    1: frozenset({"horn", "horn=", "horn+"}),
    2: frozenset({"horn", "horn=", "horn+", "horn++"}),
}


def check_space(state: State, space: str) -> None:
    if space not in state.kit.spaces:
        raise RuleViolation(None, f"there is no space {space!r} on the island of kit {state.kit.name}")


def check_own(state: State, player: str, space: str, ruling: str = "E2-10") -> None:
    check_space(state, space)
    if state.board.get(space) != player:
        holder = state.board.get(space)
        what = f"{holder}'s dinosaur" if holder else "no dinosaur"
        raise RuleViolation(ruling, f"{space} holds {what}, not one of {player}'s")


def check_turn(state: State, player: str) -> None:
    current = state.current_player
    if player != current:
        raise RuleViolation("E2-08", f"it is {current}'s turn in the {state.phase} phase, not {player}'s")


def check_points(state: State, player: str, needed: int) -> None:
    if needed > state.movement_left:
        raise RuleViolation(
            "E2-02",
            f"{player} has {state.movement_left} movement point(s) left this phase and needs {needed} "
            f"(movement points = legs, {state.players[player].legs})",
        )


def check_move(state: State, action: Move) -> None:
    check_turn(state, action.player)
    check_own(state, action.player, action.path[0])
    for here, there in zip(action.path, action.path[1:], strict=False):
        check_space(state, there)
        if there not in state.kit.neighbours[here]:
            raise RuleViolation("E2-10", f"{there} is not next to {here}: a step moves to an adjacent space")
        if there in state.board:
            raise RuleViolation(
                "E2-10",
                f"{there} is occupied by {state.board[there]}'s dinosaur: no moving through or onto an occupied "
                "space except to attack an enemy",
            )
    if len(set(action.path)) != len(action.path):
        raise RuleViolation("E2-10", "a path may not pass the same space twice")
    check_points(state, action.player, len(action.path) - 1)


def apply_move(state: State, action: Move) -> None:
    del state.board[action.path[0]]
    state.board[action.path[-1]] = action.player
    state.movement_left -= len(action.path) - 1


def can_be_attacked(state: State, player: str) -> bool:
    """Two or fewer dinosaurs cannot be attacked; with regeneration, three neither [E2-09]."""
    return state.count_of(player) > state.players[player].floor


def check_attack(state: State, action: Attack) -> None:
    check_turn(state, action.player)
    check_own(state, action.player, action.source)
    check_space(state, action.target)
    if action.target not in state.kit.neighbours[action.source]:
        raise RuleViolation(
            "E2-10", f"{action.target} is not next to {action.source}: only an adjacent space can be attacked"
        )
    defender = state.board.get(action.target)
    if defender is None or defender == action.player:
        what = "an empty space" if defender is None else "one of the attacker's own dinosaurs"
        raise RuleViolation("E2-10", f"{action.target} holds {what}: an attack enters a space held by an enemy")
    if not can_be_attacked(state, defender):
        floor = state.players[defender].floor
        raise RuleViolation(
            "E2-09",
            f"{defender} has {state.count_of(defender)} dinosaurs: a species of {floor} or fewer cannot be attacked",
        )
    check_points(state, action.player, 1)


def apply_attack(state: State, action: Attack) -> None:
    state.movement_left -= 1
    state.pending_attack = (action.player, action.source, action.target)


def attack_horns(state: State, player: str) -> int:
    genes = state.players[player].genes
    return genes["horns"] + 2 * genes["large_horn"]


def defence_horns(state: State, player: str) -> int:
    genes = state.players[player].genes
    return genes["horns"] + 2 * genes["bony_plates"]


def attacker_wins(difference: int, face: str) -> bool:
    return face in WINNING_FACES[max(-1, min(2, difference))]


def check_roll(state: State, action: Roll) -> None:
    if state.pending_attack is None:
        raise RuleViolation("E2-09", "no attack is waiting for the combat die")


def apply_roll(state: State, action: Roll, effects: Effects) -> None:
    assert state.pending_attack is not None
    attacker, source, target = state.pending_attack
    defender = state.board[target]
    attack, defence = attack_horns(state, attacker), defence_horns(state, defender)
    won = attacker_wins(attack - defence, action.face)
    if won:
        del state.board[source]
        state.board[target] = attacker
    state.pending_attack = None
    effects.add(
        "combat_resolved", round=state.round, attacker=attacker, defender=defender, source=source, target=target,
        attack_horns=attack, defence_horns=defence, face=action.face, winner=attacker if won else defender,
        removed=target if won else None,
    )  # fmt: skip


def legal_moves(state: State, player: str) -> Iterator[Move | Attack]:
    """Single steps and attacks; longer paths are the same steps in a row."""
    if state.movement_left < 1:
        return
    for space in state.dinosaurs_of(player):
        for there in sorted(state.kit.neighbours[space]):
            holder = state.board.get(there)
            if holder is None:
                yield Move(player, (space, there))
            elif holder != player and can_be_attacked(state, holder):
                yield Attack(player, space, there)
