"""Phases 3 to 5 on the board: movement and combat [E1-08, E1-09], births [E1-10] and survival [E1-11]."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import modifiers
from evo_ledger.rules.evo1.actions import Attack, Birth, Move, Remove
from evo_ledger.rules.evo1.state import Combat, State

# The highest face with which the attacker wins, by horn difference (attacker less defender), capped at +2 [E1-09].
WINNING_FACES = {-1: 1, 0: 2, 1: 4, 2: 5}
# The zones where some of a species may stay, with the gene that keeps one there [E1-11].
LIMITED_ZONES = {"hot": "parasol", "cold": "fur"}


def check_space(state: State, space: str) -> None:
    if space not in state.kit.spaces:
        raise RuleViolation(None, f"the board of kit {state.kit.name} has no space {space!r}")


def check_turn(state: State, player: str, doing: str) -> None:
    current = state.current_player
    if current != player:
        raise RuleViolation("E1-04", f"it is {current}'s turn in the {state.phase} phase, not {player}'s to {doing}")


def check_own(state: State, player: str, space: str, ruling: str) -> None:
    check_space(state, space)
    if state.board.get(space) != player:
        raise RuleViolation(ruling, f"{player} has no dinosaur on {space}")


def check_move(state: State, action: Move) -> None:
    check_turn(state, action.player, "move")
    check_own(state, action.player, action.path[0], "E1-08")
    steps = len(action.path) - 1
    if steps > state.movement_left:
        raise RuleViolation(
            "E1-08", f"{action.player} has {points(state.movement_left)} left, and the move takes {steps}"
        )
    for here, there in zip(action.path, action.path[1:], strict=False):
        check_space(state, there)
        if there not in state.kit.neighbours[here]:
            raise RuleViolation("E1-08", f"{there} is not next to {here}: each step goes to an adjacent space")
        owner = state.board.get(there)
        if owner == action.player:
            raise RuleViolation("E1-08", f"{there} holds a dinosaur of {action.player}'s own species")
        if owner is not None:
            raise RuleViolation(
                "E1-08", f"{there} holds {owner}'s dinosaur: entering it is an attack, recorded as 'attack'"
            )


def apply_move(state: State, action: Move) -> None:
    board = state.own_board()
    del board[action.path[0]]
    board[action.path[-1]] = action.player
    state.movement_left -= len(action.path) - 1


def points(count: int) -> str:
    return f"{count} movement point{'' if count == 1 else 's'}"


def horn_difference(state: State, attacker: str, defender: str, birth: bool = False) -> int:
    """Attacker's horns less the defender's, cards in force counted [E1-09]."""
    return modifiers.attack_horns(state, attacker, birth) - modifiers.defence_horns(state, defender)


def check_fight(state: State, attacker: str, defender: str, birth: bool = False) -> None:
    """Whether `attacker` may fight `defender`: no card forbids it, and it is not at -2 horns or worse [E1-09]."""
    forbidden = modifiers.fighting_forbidden(state, attacker, defender)
    if forbidden is not None:
        raise RuleViolation("E1-09", forbidden)
    difference = horn_difference(state, attacker, defender, birth)
    if difference <= -2:
        raise RuleViolation(
            "E1-09",
            f"{attacker} has {-difference} horns fewer than {defender}: an attack at -2 or worse is not allowed",
        )


def may_fight(state: State, attacker: str, defender: str, birth: bool = False) -> bool:
    return (
        modifiers.fighting_forbidden(state, attacker, defender) is None
        and horn_difference(state, attacker, defender, birth) > -2
    )


def check_attack(state: State, action: Attack) -> None:
    check_turn(state, action.player, "attack")
    check_own(state, action.player, action.source, "E1-09")
    check_space(state, action.target)
    if state.movement_left < 1:
        raise RuleViolation("E1-08", f"{action.player} has no movement point left to attack with")
    if action.target not in state.kit.neighbours[action.source]:
        raise RuleViolation("E1-09", f"{action.target} is not next to {action.source}")
    defender = state.board.get(action.target)
    if defender is None:
        raise RuleViolation("E1-09", f"{action.target} is empty: nothing to attack there, record a move")
    if defender == action.player:
        raise RuleViolation("E1-08", f"{action.target} holds a dinosaur of {action.player}'s own species")
    check_fight(state, action.player, defender)


def apply_attack(state: State, action: Attack) -> None:
    state.combat = Combat(action.player, action.source, action.target)


def resolve_combat(state: State, face: int, effects: Effects) -> None:
    """The attacker's die: the losing defender goes to its reserve and the attacker moves in; a losing attacker
    stays. A move's attack costs a movement point either way; a birth's attack spends the egg either way, a lost
    one leaving the baby in reserve [E1-09, E1-28]."""
    combat = state.combat
    assert combat is not None
    defender = state.board[combat.target]
    attacking = modifiers.attack_horns(state, combat.attacker, combat.birth)
    defending = modifiers.defence_horns(state, defender)
    wins_on = WINNING_FACES[min(attacking - defending, 2)]
    won = face <= wins_on
    board = state.own_board() if won else state.board
    if won:
        if combat.source:
            del board[combat.source]
        board[combat.target] = combat.attacker
    if combat.birth and combat.attacker in state.autosaurs:  # a lost fight only fails the space [AS-08]
        state.tried = (*state.tried, combat.target)
        if won:
            state.births_left -= 1
            state.babies, state.born = (*state.babies, combat.target), (*state.born, combat.target)
    elif combat.birth:
        state.births_left -= 1
        if won:
            state.babies, state.born = (*state.babies, combat.target), (*state.born, combat.target)
    else:
        state.movement_left -= 1
    state.combat = None
    genes = {"attacker_genes": state.gene(combat.attacker, "horn"), "defender_genes": state.gene(defender, "horn")}
    effects.add(
        "combat_resolved",
        turn=state.turn,
        attacker=combat.attacker,
        defender=defender,
        source=combat.source,
        target=combat.target,
        attacker_horns=attacking,
        defender_horns=defending,
        wins_on=wins_on,
        face=face,
        winner=combat.attacker if won else defender,
        **({"birth": True} if combat.birth else {}),
        **(genes if (attacking, defending) != tuple(genes.values()) else {}),
    )


def legal_moves(state: State, player: str) -> Iterator[Move | Attack]:
    """Every path of one to `movement_left` steps through empty spaces, and every attack allowed."""
    for source in state.dinosaurs_of(player):
        yield from (Move(player, path) for path in paths_from(state, source, state.movement_left))
        yield from attacks_from(state, player, source)


def legal_attacks(state: State, player: str) -> Iterator[Attack]:
    """Every attack allowed, without the moves."""
    for source in state.dinosaurs_of(player):
        yield from attacks_from(state, player, source)


def attacks_from(state: State, player: str, source: str) -> Iterator[Attack]:
    for target in sorted(state.kit.neighbours[source]):
        defender = state.board.get(target)
        if defender is not None and defender != player and may_fight(state, player, defender):
            yield Attack(player, source, target)


def paths_from(state: State, source: str, steps: int) -> Iterator[tuple[str, ...]]:
    frontier: list[tuple[str, ...]] = [(source,)]
    for _ in range(steps):
        longer = [
            (*path, there)
            for path in frontier
            for there in sorted(state.kit.neighbours[path[-1]])
            if there not in state.board and there not in path
        ]
        yield from longer
        frontier = longer


def birth_parents(state: State, player: str) -> list[str] | None:
    """The spaces a baby must be near: the species' adults; with no adult at the start of the phase, under
    `rebirth_without_adults`, none for the first baby (None: anywhere), then the earlier babies [E1-10, E1-22]."""
    board = state.board
    adults = [space for space in state.adults.get(player, ()) if board.get(space) == player]
    if not adults and not state.adults.get(player) and state.options["rebirth_without_adults"]:
        babies = [space for space in state.babies if board.get(space) == player]
        return babies if babies else None
    return adults


def in_reach(state: State, player: str, parents: list[str]) -> set[str]:
    """The spaces next to a parent, or within 3 of one under `distant_births` [E1-10, E1-26]."""
    reach = modifiers.birth_reach(state, player)
    if reach == 1:
        neighbours = state.kit.neighbours
        return {space for parent in parents for space in neighbours[parent]}
    return {space for parent in parents for space in state.kit.within(parent, reach)}


def reaches(state: State, player: str, space: str, parents: list[str]) -> bool:
    """Whether `space` is in reach of a parent: next to one, or within 3 under `distant_births`."""
    if state.modifiers and modifiers.birth_reach(state, player) > 1:
        return space in in_reach(state, player, parents)
    return not state.kit.neighbours[space].isdisjoint(parents)


def birth_spaces(state: State, player: str) -> set[str]:
    """The empty spaces a baby may be placed on now: none once the seat's eggs (or reserve) are spent."""
    if state.births_left < 1 or modifiers.births_banned(state):
        return set()
    parents = birth_parents(state, player)
    if parents is None:
        return {space for space in state.kit.spaces if space not in state.board}
    return {space for space in in_reach(state, player, parents) if space not in state.board}


def birth_attacks(state: State, player: str) -> set[str]:
    """The enemy spaces a baby may attack under the seat's `birth_attack`: never compulsory [E1-28]."""
    if state.births_left < 1 or not modifiers.may_birth_attack(state, player) or modifiers.births_banned(state):
        return set()
    parents = birth_parents(state, player) or []
    board = state.board
    return {
        space
        for space in in_reach(state, player, parents)
        if board.get(space) not in (None, player) and may_fight(state, player, board[space], birth=True)
    }


def has_birth_space(state: State, player: str) -> bool:
    """Whether a birth remains that the seat can make, into an empty space or by a birth attack [E1-10]."""
    if state.births_left < 1:
        return False
    if state.modifiers:
        return bool(birth_spaces(state, player) or birth_attacks(state, player))
    parents = birth_parents(state, player)
    if parents is None:
        return len(state.board) < len(state.kit.spaces)
    board, neighbours = state.board, state.kit.neighbours
    return any(space not in board for parent in parents for space in neighbours[parent])


def check_births_allowed(state: State) -> None:
    """No birth of any kind while a `no_births` is in force, in whatever phase it is tried: the card forbids the
    action, so the birth is refused under the births' ruling [E1-10, E1-24]."""
    banned = state.in_force(modifiers.NO_BIRTHS) if state.modifiers else None
    if banned is not None:
        raise RuleViolation("E1-10", f"{banned.player} played no_births: the card forbids births this turn")


def check_birth(state: State, action: Birth) -> None:
    check_turn(state, action.player, "place a baby")
    check_space(state, action.space)
    check_births_allowed(state)
    if state.births_left < 1:
        raise RuleViolation("E1-10", f"{action.player} has no egg, or no dinosaur in reserve, left this turn")
    parents = birth_parents(state, action.player)
    if parents is not None and not reaches(state, action.player, action.space, parents):
        if not state.adults.get(action.player) and not state.options["rebirth_without_adults"]:
            raise RuleViolation(
                "E1-22", f"{action.player} had no dinosaur on the board as the births began, so has no births"
            )
        reach = modifiers.birth_reach(state, action.player)
        where = "next to" if reach == 1 else f"within {reach} of"
        raise RuleViolation("E1-10", f"{action.space} is not {where} an adult of {action.player}'s species")
    occupant = state.board.get(action.space)
    if occupant is None:
        return
    if occupant == action.player or not modifiers.may_birth_attack(state, action.player):
        raise RuleViolation("E1-10", f"{action.space} is taken: a baby goes on an empty space")
    check_fight(state, action.player, occupant, birth=True)


def apply_birth(state: State, action: Birth) -> None:
    if action.space in state.board:
        state.combat = Combat(action.player, "", action.space, birth=True)
        return
    state.own_board()[action.space] = action.player
    state.babies = (*state.babies, action.space)
    state.born = (*state.born, action.space)
    state.births_left -= 1
    if state.autosaurs and action.player in state.autosaurs:
        state.tried = (*state.tried, action.space)


class Survival:
    """A species' dinosaurs in each zone, how many its genes keep in the hot and cold zones, and the excess: the
    zones where the owner chooses which go (`choices`: some go, not all), and the dinosaurs that go whatever the
    owner chooses (`forced`: in deadly zones, and in zones its genes keep none of)."""

    __slots__ = ("choices", "forced", "in_zone", "limits", "player")

    def __init__(self, player: str, in_zone: dict[str, list[str]], limits: dict[str, int]) -> None:
        self.player, self.in_zone, self.limits = player, in_zone, limits
        for spaces in in_zone.values():
            spaces.sort()
        self.choices = tuple(zone for zone in LIMITED_ZONES if 0 < limits[zone] < len(in_zone[zone]))
        forced = in_zone["deadly"] + [space for zone in LIMITED_ZONES if not limits[zone] for space in in_zone[zone]]
        self.forced = tuple(sorted(forced))

    def excess(self, zone: str) -> int:
        return max(0, len(self.in_zone[zone]) - self.limits[zone])


def survival_of(state: State, player: str) -> Survival:
    zones = state.kit.zones[state.climate_position]
    in_zone: dict[str, list[str]] = {"ideal": [], "hot": [], "cold": [], "deadly": []}
    for space, owner in state.board.items():
        if owner == player:
            in_zone[zones[space]].append(space)
    return Survival(player, in_zone, limits_of(state, player))


def losing_survivals(state: State, players: Sequence[str]) -> dict[str, Survival]:
    """The survival of each of `players` who loses a dinosaur, from one pass over the board."""
    zones, wanted = state.kit.zones[state.climate_position], set(players)
    in_zone: dict[str, dict[str, list[str]]] = {}
    for space, owner in state.board.items():
        if owner in wanted:
            player_zones = in_zone.get(owner)
            if player_zones is None:
                player_zones = in_zone[owner] = {"ideal": [], "hot": [], "cold": [], "deadly": []}
            player_zones[zones[space]].append(space)
    losing = {}
    for player, found in in_zone.items():
        limits = limits_of(state, player)
        if found["deadly"] or len(found["hot"]) > limits["hot"] or len(found["cold"]) > limits["cold"]:
            losing[player] = Survival(player, found, limits)
    return losing


def limits_of(state: State, player: str) -> dict[str, int]:
    if state.modifiers:
        return modifiers.survival_limits(state, player)
    sheet, bought = state.kit.sheet, state.seats[player].genes
    return {
        "hot": sheet["parasol"] + bought.get("parasol", 0),
        "cold": sheet["fur"] + bought.get("fur", 0),
    }


def check_remove(state: State, action: Remove) -> None:
    check_turn(state, action.player, "choose who survives")
    survival = survival_of(state, action.player)
    if len(set(action.spaces)) != len(action.spaces):
        raise RuleViolation("E1-11", "each dinosaur is listed once")
    for space in action.spaces:
        check_own(state, action.player, space, "E1-11")
        zone = state.zone_of(space)
        if zone not in survival.choices:
            raise RuleViolation("E1-11", f"{space} is in {describe_zone(survival, zone)}: only choices are listed")
    for zone in survival.choices:
        listed = sum(1 for space in action.spaces if state.zone_of(space) == zone)
        if listed != survival.excess(zone):
            raise RuleViolation(
                "E1-11",
                f"{action.player} has {len(survival.in_zone[zone])} dinosaurs in the {zone} zone and its "
                f"{LIMITED_ZONES[zone]} genes keep {survival.limits[zone]}: remove {survival.excess(zone)}, "
                f"not {listed}",
            )


def describe_zone(survival: Survival, zone: str) -> str:
    if zone == "deadly":
        return "a deadly zone, where every dinosaur goes by itself"
    if zone == "ideal":
        return "the ideal zone, where every dinosaur survives"
    if survival.limits[zone] == 0:
        return f"the {zone} zone, which the species' 0 {LIMITED_ZONES[zone]} leave to go by itself"
    return f"the {zone} zone, where all of the species' dinosaurs survive"


def remove_survivors_choice(state: State, survival: Survival, chosen: tuple[str, ...], effects: Effects) -> None:
    """Take off the forced and the chosen dinosaurs; say what each zone held and kept."""
    gone = (*survival.forced, *chosen)
    for space in gone:
        del state.own_board()[space]
    state.lost = {**state.lost, survival.player: state.lost.get(survival.player, 0) + len(gone)}
    effects.add(
        "dinosaurs_perished",
        turn=state.turn,
        player=survival.player,
        spaces=sorted(gone),
        chosen=sorted(chosen),
        zones={zone: len(spaces) for zone, spaces in survival.in_zone.items()},
        limits=dict(survival.limits),
    )


def legal_removals(state: State, player: str) -> Iterator[Remove]:
    survival = survival_of(state, player)
    choices = [combinations(survival.in_zone[zone], survival.excess(zone)) for zone in survival.choices]
    for picked in product(*choices):
        yield Remove(player, tuple(space for group in picked for space in group))
