"""What the event cards in force change in the rules' counts: horns in a fight, movement points, the reach of a
birth, the survival limits and the step of an outbid [E1-09, E1-26, E1-27]."""

from __future__ import annotations

from evo_ledger.rules.evo1.state import State

NO_FIGHTING = "no_fighting"
PEACE_TREATY = "peace_treaty"
DEFENCE_HORNS = "defence_horns"
ATTACK_HORNS = "attack_horns"
STAMPEDE = "stampede"
DISTANT_BIRTHS = "distant_births"
BIRTH_ATTACK = "birth_attack"
NO_BIRTHS = "no_births"
LESS_PARASOL = "less_parasol"
LESS_FUR = "less_fur"
COLD_SURVIVAL = "cold_survival"
HEAT_SURVIVAL = "heat_survival"
LOSS_PENALTY = "loss_penalty"
OUTBID_PLUS3 = "outbid_plus3"

CARD_HORNS = 2
BIRTH_ATTACK_HORN = 1
DISTANT_REACH = 3
OUTBID_STEP = 3


def attack_horns(state: State, player: str, birth: bool = False) -> int:
    """The attacker's horns: its genes, +2 under its `attack_horns`, +1 attacking with a birth [E1-09, E1-28];
    an Autosaur's birth fights as if its dinosaur moved in, with no +1 [AS-08]."""
    horns = state.gene(player, "horn")
    if state.modifiers and state.in_force(ATTACK_HORNS, player):
        horns += CARD_HORNS
    return horns + (BIRTH_ATTACK_HORN if birth and player not in state.autosaurs else 0)


def defence_horns(state: State, player: str) -> int:
    horns = state.gene(player, "horn")
    if state.modifiers and state.in_force(DEFENCE_HORNS, player):
        horns += CARD_HORNS
    return horns


def fighting_forbidden(state: State, attacker: str, defender: str) -> str | None:
    """Why a card in force forbids `attacker` to attack `defender`, births included; None when none does."""
    if not state.modifiers:
        return None
    banned = state.in_force(NO_FIGHTING)
    if banned is not None:
        return f"{banned.player} played no_fighting: no attack by anyone this turn"
    for treaty in state.modifiers:
        if treaty.card == PEACE_TREATY and {treaty.player, treaty.value} == {attacker, defender}:
            return f"{attacker} and {defender} are at peace this turn ({treaty.player}'s peace_treaty)"
    return None


def movement_points(state: State, player: str) -> int:
    """Feet, or the dinosaurs the seat had on the board when it played `stampede` [E1-08]."""
    stampede = state.in_force(STAMPEDE, player) if state.modifiers else None
    return int(stampede.value) if stampede is not None else state.gene(player, "foot")


def birth_reach(state: State, player: str) -> int:
    return DISTANT_REACH if state.modifiers and state.in_force(DISTANT_BIRTHS, player) else 1


def births_banned(state: State) -> bool:
    return bool(state.modifiers) and state.in_force(NO_BIRTHS) is not None


def may_birth_attack(state: State, player: str) -> bool:
    return bool(state.modifiers) and state.in_force(BIRTH_ATTACK, player) is not None


def survival_limits(state: State, player: str) -> dict[str, int]:
    """How many of the species' dinosaurs the hot and cold zones keep: its parasols and fur, one fewer under
    `less_parasol` and `less_fur` (never below 0), every one under its own `heat_survival` or `cold_survival`
    [E1-11, E1-27]."""
    limits = {"hot": parasols(state, player), "cold": state.gene(player, "fur")}
    if not state.modifiers:
        return limits
    if state.in_force(LESS_FUR):
        limits["cold"] = max(0, limits["cold"] - 1)
    everyone = state.kit.dinosaurs_per_player
    if state.in_force(HEAT_SURVIVAL, player):
        limits["hot"] = everyone
    if state.in_force(COLD_SURVIVAL, player):
        limits["cold"] = everyone
    return limits


def parasols(state: State, player: str) -> int:
    count = state.gene(player, "parasol")
    if state.modifiers and state.in_force(LESS_PARASOL):
        count = max(0, count - 1)
    return count


def outbid_step(state: State, holder: str) -> int:
    """What a bid must exceed the standing one by: 1, or 3 over a seat that played `outbid_plus3` [E1-16]."""
    return OUTBID_STEP if state.modifiers and state.in_force(OUTBID_PLUS3, holder) else 1
