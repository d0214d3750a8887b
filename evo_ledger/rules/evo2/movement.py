"""The movement phase and combat [E2-09, E2-10]: steps, wings, flippers, attacks, chameleon skin.

Movement points are counted as RULINGS [E2-02] says; card modifiers [E2-15] forbid fights or add horns.
"""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation, passing
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo2.actions import Attack, Escape, Fly, Move, Roll, Swim
from evo_ledger.rules.evo2.state import ATTACK_ROLL, ESCAPE, Pending, State, player_to_act

# Faces of the combat die; the attacker wins on the faces listed for its horn difference [E2-09].
DIE = ("horn", "horn=", "horn+", "horn+", "horn++", "x")
WINNING_FACES = {
    -1: frozenset({"horn"}),
    0: frozenset({"horn", "horn="}),
    1: frozenset({"horn", "horn=", "horn+"}),
    2: frozenset({"horn", "horn=", "horn+", "horn++"}),
}
WINGS_DISTANCE = 2


def check_space(state: State, space: str) -> None:
    if space not in state.kit.spaces:
        raise RuleViolation(None, f"there is no space {space!r} on the island of kit {state.kit.name}")


def check_own(state: State, player: str, space: str, ruling: str = "E2-10") -> None:
    check_space(state, space)
    if state.board.get(space) != player:
        holder = state.board.get(space)
        what = f"{holder}'s dinosaur" if holder else "no dinosaur"
        raise RuleViolation(ruling, f"{space} holds {what}, not one of {player}'s")


def check_empty(state: State, space: str, why: str) -> None:
    """The space, one of the island's, is empty."""
    if space in state.board:
        raise RuleViolation("E2-10", f"{space} is occupied by {state.board[space]}'s dinosaur: {why}")


def check_turn(state: State, player: str) -> None:
    current = player_to_act(state)
    if player != current:
        raise RuleViolation("E2-08", f"it is {current}'s turn in the {state.phase} phase, not {player}'s")


def check_points(state: State, player: str, needed: int) -> None:
    if needed > state.movement_left:
        raise RuleViolation(
            "E2-02",
            f"{player} has {state.movement_left} movement point(s) left this phase and needs {needed} "
            f"(movement points = legs, {state.players[player].legs})",
            waivable=True,
        )


def movement_points(state: State, player: str) -> int:
    """Legs (+2 with strong thighs) [E2-02], unless a card sets the count for the round [E2-15]."""
    set_by_card = state.active("movement", player) if state.modifiers else None
    return set_by_card[-1].value if set_by_card else state.players[player].movement_points


def spend(state: State, points: int) -> None:
    left = state.movement_left - points
    state.movement_left = left if left > 0 else 0


def check_move(state: State, action: Move) -> None:
    check_turn(state, action.player)
    check_own(state, action.player, action.path[0])
    for here, there in zip(action.path, action.path[1:], strict=False):
        check_space(state, there)
        if there not in state.kit.neighbours[here]:
            raise RuleViolation("E2-10", f"{there} is not next to {here}: a step moves to an adjacent space")
        check_empty(state, there, "no moving through or onto an occupied space except to attack an enemy")
    if len(set(action.path)) != len(action.path):
        raise RuleViolation("E2-10", "a path may not pass the same space twice")
    check_points(state, action.player, len(action.path) - 1)


def apply_move(state: State, action: Move) -> None:
    relocate(state, action.path[0], action.path[-1])
    spend(state, len(action.path) - 1)


def relocate(state: State, source: str, target: str) -> None:
    board = state.own_board()
    board[target] = board.pop(source)


def check_special(state: State, player: str, gene: str, source: str, target: str) -> None:
    """What wings and flippers share: the holder's own turn, once per movement phase, an empty target, 1 point."""
    check_turn(state, player)
    if not state.players[player].has(gene):
        raise RuleViolation("E2-10", f"{player} does not have {gene}")
    if gene in state.specials_used:
        raise RuleViolation("E2-10", f"{gene} may be used once per movement phase, and {player} has used them")
    check_own(state, player, source)
    check_space(state, target)
    check_empty(state, target, f"{gene} move a dinosaur to an empty space")
    check_points(state, player, 1)


def check_fly(state: State, action: Fly) -> None:
    check_special(state, action.player, "wings", action.source, action.target)
    distance = state.kit.distance(action.source, action.target)
    if distance != WINGS_DISTANCE:
        raise RuleViolation("E2-10", f"wings carry a dinosaur 2 spaces, and {action.target} is {distance} away")


def check_swim(state: State, action: Swim) -> None:
    check_special(state, action.player, "flippers", action.source, action.target)
    for space in (action.source, action.target):
        if not state.kit.spaces[space].coast:
            raise RuleViolation("E2-10", f"flippers go from coast to coast, and {space} does not border the sea")


def apply_special(state: State, gene: str, source: str, target: str) -> None:
    relocate(state, source, target)
    spend(state, 1)
    state.specials_used = state.specials_used | {gene}


def can_be_attacked(state: State, player: str) -> bool:
    """Two or fewer dinosaurs cannot be attacked; with regeneration, three neither [E2-09]."""
    return state.count_of(player) > state.players[player].floor


def check_protected(state: State, defender: str, ruling: str, what: str) -> None:
    if not can_be_attacked(state, defender):
        floor = state.players[defender].floor
        raise RuleViolation(
            ruling,
            f"{defender} has {state.count_of(defender)} dinosaurs: a species of {floor} or fewer cannot be {what}",
            waivable=True,
        )


def check_truce(state: State, attacker: str, defender: str) -> None:
    """Cards that forbid fighting this phase or round [E2-15]."""
    for modifier in state.active("no_attacks"):
        raise RuleViolation("E2-15", f"{modifier.player}'s card {modifier.card} forbids fighting")
    for modifier in state.active("peace"):
        if {modifier.player, modifier.other} == {attacker, defender}:
            raise RuleViolation(
                "E2-15", f"{modifier.player}'s card {modifier.card} made peace between {attacker} and {defender}"
            )


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
    check_truce(state, action.player, defender)
    check_protected(state, defender, "E2-09", "attacked")
    check_points(state, action.player, 1)


def apply_attack(state: State, action: Attack) -> None:
    spend(state, 1)
    state.pending = Pending(ATTACK_ROLL, action.player, action.source, action.target)


def attack_horns(state: State, player: str) -> int:
    genes = state.players[player].genes
    return genes.get("horns", 0) + 2 * genes.get("large_horn", 0) + card_horns(state, "attack", player)


def defence_horns(state: State, player: str) -> int:
    genes = state.players[player].genes
    return genes.get("horns", 0) + 2 * genes.get("bony_plates", 0) + card_horns(state, "defence", player)


def card_horns(state: State, kind: str, player: str) -> int:
    """What the player's cards in force add to its horns in a fight [E2-15]."""
    return sum(m.value for m in state.active(kind, player)) if state.modifiers else 0


def attacker_wins(difference: int, face: str) -> bool:
    return face in WINNING_FACES[max(-1, min(2, difference))]


def escape_spaces(state: State, source: str, target: str) -> list[str]:
    """Chameleon skin: empty spaces next to the losing defender, but not the one the attacker came from [E2-10]."""
    return sorted(s for s in state.kit.neighbours[target] if s != source and s not in state.board)


def apply_attack_roll(state: State, action: Roll, effects: Effects) -> None:
    pending = state.pending
    assert pending is not None and pending.source is not None
    attacker, source, target = pending.player, pending.source, pending.target
    defender = state.board[target]
    attack, defence = attack_horns(state, attacker), defence_horns(state, defender)
    won = attacker_wins(attack - defence, action.face)
    state.pending = None
    escapes = escape_spaces(state, source, target) if won and state.players[defender].has("chameleon_skin") else []
    if escapes:
        state.pending = Pending(ESCAPE, defender, source, target)
    elif won:
        del state.own_board()[target]
        relocate(state, source, target)
    effects.add(
        "combat_resolved",
        round=state.round,
        attacker=attacker,
        defender=defender,
        source=source,
        target=target,
        attack_horns=attack,
        defence_horns=defence,
        face=action.face,
        winner=attacker if won else defender,
        removed=target if won and not escapes else None,
        escape_from=target if escapes else None,
    )


def check_escape(state: State, action: Escape) -> None:
    pending = state.pending
    assert pending is not None and pending.source is not None
    if action.player != pending.player:
        raise RuleViolation(
            "E2-10", f"{pending.player}'s chameleon escapes from {pending.target}, not {action.player}'s"
        )
    allowed = escape_spaces(state, pending.source, pending.target)
    if action.target not in allowed:
        raise RuleViolation(
            "E2-10",
            f"a chameleon escapes to an empty space next to {pending.target}, not the attacker's {pending.source}: "
            f"{', '.join(allowed)}",
        )


def apply_escape(state: State, action: Escape, effects: Effects) -> None:
    pending = state.pending
    assert pending is not None and pending.source is not None
    relocate(state, pending.target, action.target)
    relocate(state, pending.source, pending.target)
    state.pending = None
    effects.add(
        "chameleon_escaped", round=state.round, player=action.player, source=pending.target, target=action.target
    )


def legal_moves(state: State, player: str) -> Iterator[Move | Attack | Fly | Swim]:
    """Single steps, attacks, and the wing and flipper moves; longer paths are the same steps in a row."""
    if state.movement_left < 1:
        return
    fights = not state.active("no_attacks")
    for space in state.dinosaurs_of(player):
        for there in sorted(state.kit.neighbours[space]):
            holder = state.board.get(there)
            if holder is None:
                yield Move(player, (space, there))
            elif holder != player and fights:
                yield from passing(check_attack, state, [Attack(player, space, there)])
        yield from special_moves(state, player, space)


def special_moves(state: State, player: str, space: str) -> Iterator[Fly | Swim]:
    """The wing and flipper moves from `space` the player's genes allow this phase, the points left not counted."""
    genes = state.players[player]
    if genes.has("wings") and "wings" not in state.specials_used:
        for target in sorted(state.kit.spaces):
            if target not in state.board and state.kit.distance(space, target) == WINGS_DISTANCE:
                yield Fly(player, space, target)
    if genes.has("flippers") and "flippers" not in state.specials_used and state.kit.spaces[space].coast:
        for target in sorted(state.kit.spaces):
            if target != space and target not in state.board and state.kit.spaces[target].coast:
                yield Swim(player, space, target)
