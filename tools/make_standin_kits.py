"""Writes the stand-in kits for Evo 2nd edition, 2 to 5 players, into evo_ledger/rules/evo2/kits/.

No digital map of the real islands is public. These islands follow what is known: a hex grid, beaches on the
coast, plains, hills and mountains towards the centre, two start marks per player on the coast. Every kit says
`stand_in: true`. Run `python tools/make_standin_kits.py` after changing this file; a test checks the files match.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

KITS_DIR = Path(__file__).resolve().parent.parent / "evo_ledger" / "rules" / "evo2" / "kits"
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
TERRAINS = ["yellow", "green", "brown", "white"]
UNIQUE_GENES = [
    "bony_plates",
    "large_horn",
    "thick_shell",
    "flippers",
    "wings",
    "regeneration",
    "killer_babies",
    "sixth_sense",
    "cave_dweller",
    "adrenaline_rush",
    "strong_thighs",
    "chameleon_skin",
]
# The E1 six-position cycle (RULINGS E2-05 stand-in): the ideal colour per position; the next warmer colour is
# hot, the next colder cold, the rest deadly.
IDEAL_CYCLE = ["yellow", "green", "brown", "white", "brown", "green"]
# Island radius and whether the six corners are cut, per player count.
SHAPES = {2: (2, False), 3: (3, True), 4: (3, False), 5: (4, True)}


def hex_distance(q: int, r: int) -> int:
    return (abs(q) + abs(r) + abs(q + r)) // 2


def ring(radius: int) -> list[tuple[int, int]]:
    """The cells at `radius` from the centre, walked once around in order."""
    q, r = DIRECTIONS[4][0] * radius, DIRECTIONS[4][1] * radius
    cells = []
    for dq, dr in DIRECTIONS:
        for _ in range(radius):
            cells.append((q, r))
            q, r = q + dq, r + dr
    return cells


def is_corner(q: int, r: int, radius: int) -> bool:
    return (q, r) in {(dq * radius, dr * radius) for dq, dr in DIRECTIONS}


def island(radius: int, cut_corners: bool) -> list[tuple[int, int]]:
    cells = [
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if hex_distance(q, r) <= radius and not (cut_corners and is_corner(q, r, radius))
    ]
    return sorted(cells)


def terrain(q: int, r: int, radius: int, coastal: bool) -> str:
    """Beaches on the coast, then bands of plains, hills and mountains inland, a third of each band mixed."""
    if coastal:
        return "yellow"
    depth = radius - hex_distance(q, r)
    distance = hex_distance(q, r)
    mixed = distance > 0 and ring(distance).index((q, r)) % 3 == 2
    if depth == 1:
        return "brown" if mixed else "green"
    if depth == 2 and distance > 0:
        return "white" if mixed else "brown"
    return "white"


def names(cells: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Column letter from left to right, then the cell's place in its column from the top."""
    q_min = min(q for q, _ in cells)
    result = {}
    for q in sorted({q for q, _ in cells}):
        column = sorted(r for cq, r in cells if cq == q)
        for index, r in enumerate(column):
            result[(q, r)] = f"{chr(ord('A') + q - q_min)}{index + 1}"
    return result


def climate_positions() -> list[dict[str, str]]:
    positions = []
    for ideal in IDEAL_CYCLE:
        index = TERRAINS.index(ideal)
        zones = dict.fromkeys(TERRAINS, "deadly")
        zones[ideal] = "ideal"
        if index > 0:
            zones[TERRAINS[index - 1]] = "hot"
        if index < len(TERRAINS) - 1:
            zones[TERRAINS[index + 1]] = "cold"
        positions.append(zones)
    return positions


def start_marks(
    players: int, radius: int, cells: set[tuple[int, int]], label: dict[tuple[int, int], str]
) -> dict[str, list[str]]:
    coast_walk = [cell for cell in ring(radius) if cell in cells]
    step = len(coast_walk) / players
    marks = {}
    for seat in range(players):
        first = int(seat * step)
        marks[str(seat + 1)] = [label[coast_walk[first]], label[coast_walk[first + 1]]]
    return marks


def make_kit(players: int) -> dict[str, Any]:
    radius, cut = SHAPES[players]
    cells = island(radius, cut)
    cell_set = set(cells)
    label = names(cells)
    spaces = []
    for q, r in sorted(cells, key=lambda c: label[c]):
        coastal = any((q + dq, r + dr) not in cell_set for dq, dr in DIRECTIONS)
        spaces.append(
            {"id": label[(q, r)], "q": q, "r": r, "terrain": terrain(q, r, radius, coastal), "coast": coastal}
        )
    return {
        "format": 1,
        "name": f"standin-e2-{players}p",
        "edition": "evo2",
        "stand_in": True,
        "note": "Stand-in island: the real board is not digitised. See docs/kits.md to digitise it.",
        "players": players,
        "terrains": TERRAINS,
        "islands": 1,
        "spaces": spaces,
        "start_marks": start_marks(players, radius, cell_set, label),
        "climate": {
            "start": 0,
            "positions": climate_positions(),
            "tokens": {"meteorite": 1, "cw": 8, "cw2": 1, "zero": 1, "acw": 2},
            "removed_unseen": 1,
            "meteorite_among_last": 3,
        },
        "genes": {
            "normal": {"legs": 6, "horns": 6, "thermo": 6, "fur": 6, "eggs": 6, "vial": 6},
            "unique": UNIQUE_GENES,
            "unique_in_bag": 8,
        },
        "components": {"dinosaurs_per_player": 8, "event_cards": 15},
    }


def render(kit: dict[str, Any]) -> str:
    return json.dumps(kit, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    for players in SHAPES:
        path = KITS_DIR / f"standin-e2-{players}p.json"
        path.write_text(render(make_kit(players)), encoding="utf-8")
        print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
