"""The survival phase [E2-12]: the climate takes its due; where several dinosaurs could go, the owner chooses."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations, product
from math import comb, prod

from evo_ledger.rules.base import RuleViolation, passing
from evo_ledger.rules.evo2.actions import Remove
from evo_ledger.rules.evo2.state import PlayerState, State

AT_RISK = ("hot", "cold", "deadly")


@dataclass
class Due:
    """What the climate takes from one player: `count` dinosaurs, at most `excess[zone]` from each zone, the
    dinosaurs there beyond those its `keep` saves. Never changed once made; not frozen, since a frozen dataclass
    is slower to make and every player's is reckoned at every survival phase (pays for: bench.rules_speed
    check+apply)."""

    player: str
    at_risk: Mapping[str, tuple[str, ...]]
    keep: Mapping[str, int]
    count: int
    excess: Mapping[str, int]

    def _splits(self) -> Iterator[tuple[tuple[int, ...], int]]:
        """Each way to share `count` among the zones, with the number of dinosaur sets it allows."""
        excess = self.excess
        sizes, limits = [len(self.at_risk[z]) for z in AT_RISK], [excess[z] for z in AT_RISK]
        for taken in product(*(range(limit + 1) for limit in limits)):
            if sum(taken) == self.count:
                yield taken, comb(sizes[0], taken[0]) * comb(sizes[1], taken[1]) * comb(sizes[2], taken[2])

    def choices(self) -> int:
        """How many different sets of dinosaurs would satisfy the climate."""
        if self.count == 0:
            return 1
        excess = self.excess
        if self.count == sum(excess.values()):  # the floor does not bind: each zone gives exactly its excess
            return prod(comb(len(self.at_risk[zone]), excess[zone]) for zone in AT_RISK)
        return sum(ways for _, ways in self._splits())

    def forced(self) -> tuple[str, ...]:
        """The one removal there is when `choices()` is 1: each zone gives all its dinosaurs or none."""
        ((taken, _),) = [split for split in self._splits() if split[1]]
        return tuple(space for zone, n in zip(AT_RISK, taken, strict=True) if n for space in self.at_risk[zone])


ALL = 99


def keeps(state: State, player: PlayerState) -> dict[str, int]:
    """Thermoregulation keeps one a layer in a hot zone, fur one in a cold zone, cave dweller one in a deadly zone;
    cards change the layers of every species, or save all of one player's in a zone [E2-12, E2-15]."""
    thermo, fur = player.genes.get("thermo", 0), player.genes.get("fur", 0)
    if state.modifiers:
        thermo = max(0, thermo + sum(m.value for m in state.active("thermo")))
        fur = max(0, fur + sum(m.value for m in state.active("fur")))
        if state.active("survive_hot", player.name):
            thermo = ALL
        if state.active("survive_cold", player.name):
            fur = ALL
    return {"hot": thermo, "cold": fur, "deadly": 1 if player.has("cave_dweller") else 0}


def due(state: State, name: str) -> Due:
    player = state.players[name]
    zones = state.kit.zones[state.climate_position]
    by_zone: dict[str, list[str]] = {"ideal": [], "hot": [], "cold": [], "deadly": []}
    own = 0
    for space, owner in state.board.items():
        if owner == name:
            by_zone[zones[space]].append(space)
            own += 1
    keep = keeps(state, player)
    at_risk: dict[str, tuple[str, ...]] = {}
    excess: dict[str, int] = {}
    for zone in AT_RISK:
        spaces = at_risk[zone] = tuple(by_zone[zone])
        beyond = len(spaces) - keep[zone]
        excess[zone] = beyond if beyond > 0 else 0
    demanded, above_floor = excess["hot"] + excess["cold"] + excess["deadly"], own - player.floor
    return Due(name, at_risk, keep, demanded if demanded < above_floor else max(0, above_floor), excess)


def check_remove(state: State, action: Remove) -> None:
    if not state.to_choose or action.player != state.to_choose[0]:
        waiting = state.to_choose[0] if state.to_choose else "nobody"
        raise RuleViolation("E2-12", f"the survival choice in initiative order is {waiting}'s, not {action.player}'s")
    owed = due(state, action.player)
    if len(set(action.spaces)) != len(action.spaces) or len(action.spaces) != owed.count:
        raise RuleViolation(
            "E2-12",
            f"the climate takes {owed.count} of {action.player}'s dinosaurs: name {owed.count} different spaces",
        )
    for zone in AT_RISK:
        named = [s for s in action.spaces if s in owed.at_risk[zone]]
        if len(named) > owed.excess[zone]:
            raise RuleViolation(
                "E2-12",
                f"{action.player} keeps {owed.keep[zone]} in {zone} zones and has {len(owed.at_risk[zone])} there: "
                f"at most {owed.excess[zone]} may go from them, not {len(named)}",
            )
    safe = [s for s in action.spaces if not any(s in spaces for spaces in owed.at_risk.values())]
    if safe:
        raise RuleViolation(
            "E2-12", f"{safe[0]} is not one of {action.player}'s dinosaurs in a zone the climate threatens"
        )


def remove_all(state: State, spaces: tuple[str, ...]) -> None:
    board = state.own_board()
    for space in spaces:
        del board[space]


def legal_removals(state: State, player: str) -> Iterator[Remove]:
    owed = due(state, player)
    candidates = [s for zone in AT_RISK for s in owed.at_risk[zone]]
    yield from passing(check_remove, state, (Remove(player, chosen) for chosen in combinations(candidates, owed.count)))
