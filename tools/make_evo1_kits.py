"""Writes the stand-in kits for Evo 1st edition into evo_ledger/rules/evo1/kits/.

The 1st edition's board is two reversible half-boards, each with a small and a large side [E1-01]: 3 players
play on the two small sides, 4 on a small and a large side (either pairing), 5 on the two large sides. No
digital map of the real halves is public, so these follow what is known: a hex grid, beaches all round the
coast, plains, hills and mountains inland, and as many starred beaches as players, spread over both halves.
The stars are shared out so that every pairing has one per player (small 1 and 2, large 2 and 3). The chart,
the meteor track and the event cards are kit data [E1-06, E1-13, E1-26]. Every kit says `stand_in: true`.
Run `python tools/make_evo1_kits.py` after changing this file; a test checks the files match.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tools.make_standin_kits import DIRECTIONS, names

KITS_DIR = Path(__file__).resolve().parent.parent / "evo_ledger" / "rules" / "evo1" / "kits"
TERRAINS = ["yellow", "green", "brown", "grey"]
# Each half-board's side: its width and height in hex columns and rows, and its starred beaches as
# (column, row) within the side, on the edge that faces the sea wherever the side lies.
SIDES: dict[str, tuple[int, int, list[tuple[int, int]]]] = {
    "half-1-small": (4, 6, [(0, 2)]),
    "half-1-large": (5, 7, [(0, 1), (2, 6)]),
    "half-2-small": (4, 6, [(3, 1), (1, 5)]),
    "half-2-large": (5, 7, [(4, 1), (4, 5), (1, 0)]),
}
KITS = {
    "standin-e1-3p": (3, ("half-1-small", "half-2-small")),
    "standin-e1-4p": (4, ("half-1-small", "half-2-large")),
    "standin-e1-4p-alt": (4, ("half-1-large", "half-2-small")),
    "standin-e1-5p": (5, ("half-1-large", "half-2-large")),
}
CHART = ["yellow", "green", "brown", "grey", "brown", "green"]
# Stand-in meteor track [E1-13]: spaces 0 to 12, a die number on 9, 10 and 11, the last space the impact.
METEOR_SPACES = [None] * 9 + [2, 3, 4, None]
METEOR_START = {"3": 0, "4": 1, "5": 2}
GENES = {"tail": 6, "foot": 12, "horn": 8, "egg": 8, "fur": 8, "parasol": 8, "mutant": 6, "card": 6}
SHEET = {"tail": 1, "foot": 1, "horn": 0, "egg": 1, "fur": 1, "parasol": 1, "mutant": 0}
# The 26 event cards [E1-26]: id, the line of the rulebook that gives its text, its window, whether it changes
# the climate.
CARDS = [
    ("heat_stroke", 237, "during(2)", False),
    ("cull_enemy", 240, "during(2)", False),
    ("climate_double_shift", 243, "start(2)", True),
    ("choose_climate", 246, "start(2)", True),
    ("mirror_climate", 249, "start(2)", True),
    ("no_fighting", 252, "start(3)", False),
    ("peace_treaty", 255, "start(3)", False),
    ("defence_horns", 258, "start(3)", False),
    ("attack_horns", 261, "start(3)", False),
    ("stampede", 264, "start(3)", False),
    ("distant_births", 267, "during(4)", False),
    ("birth_attack", 270, "during(4)", False),
    ("baby_swap", 273, "during(4)", False),
    ("less_parasol", 276, "during(5)", False),
    ("cold_survival", 279, "during(5)", False),
    ("less_fur", 282, "during(5)", False),
    ("loss_penalty", 285, "during(5)", False),
    ("heat_survival", 288, "during(5)", False),
    ("outbid_plus3", 291, "during(6)", False),
    ("missing_link", 294, "during(6)", False),
    ("mp_voucher_3", 297, "during(6)", False),
    ("fossil_2mp", 300, "end", False),
    ("card_embargo", 303, "any", False),
    ("seize_initiative", 306, "start(any)", False),
    ("recover_card", 309, "response", False),
    ("no_births", 312, "start(4)", False),
]


def side_cells(width: int, height: int, first_column: int) -> list[tuple[int, int]]:
    """A side's cells in axial coordinates: `width` columns from `first_column`, `height` rows, offset as the
    columns of a flat-topped hex grid are."""
    return [(q, row - (q - (q & 1)) // 2) for q in range(first_column, first_column + width) for row in range(height)]


def depths(cells: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """How many steps each cell lies from the sea: 0 on the coast."""
    depth = {c: 0 for c in cells if any((c[0] + dq, c[1] + dr) not in cells for dq, dr in DIRECTIONS)}
    frontier = list(depth)
    while frontier:
        following = []
        for q, r in frontier:
            for dq, dr in DIRECTIONS:
                cell = (q + dq, r + dr)
                if cell in cells and cell not in depth:
                    depth[cell] = depth[(q, r)] + 1
                    following.append(cell)
        frontier = following
    return depth


def terrain(cell: tuple[int, int], depth: int) -> str:
    """Beaches on the coast, then plains, hills and mountains inland, a share of each band mixed with the next."""
    mixed = (cell[0] * 3 + cell[1]) % 3 == 0
    if depth == 0:
        return "yellow"
    if depth == 1:
        return "brown" if mixed else "green"
    if depth == 2:
        return "brown" if mixed else "grey"
    return "grey"


def make_kit(name: str) -> dict[str, Any]:
    players, (left, right) = KITS[name]
    left_width = SIDES[left][0]
    halves = {left: side_cells(*SIDES[left][:2], 0), right: side_cells(*SIDES[right][:2], left_width)}
    cells = {cell for side in halves.values() for cell in side}
    depth, label = depths(cells), names(sorted(cells))
    half_of = {cell: side for side, side_list in halves.items() for cell in side_list}
    stars = [
        label[halves[side][column * SIDES[side][1] + row]] for side in (left, right) for column, row in SIDES[side][2]
    ]
    spaces = [
        {"id": label[c], "q": c[0], "r": c[1], "terrain": terrain(c, depth[c]), "half": half_of[c]}
        for c in sorted(cells, key=lambda c: (c[0], label[c]))
    ]
    return {
        "format": 1,
        "ruleset": "evo1",
        "name": name,
        "stand_in": True,
        "note": "Stand-in board: the real half-boards are not digitised. See docs/kits.md to digitise them.",
        "players": players,
        "terrains": TERRAINS,
        "halves": [left, right],
        "spaces": spaces,
        "start_beaches": stars,
        "climate_chart": {"positions": CHART, "start": 0},
        "meteor_track": {"spaces": METEOR_SPACES, "start": METEOR_START},
        "genes": GENES,
        "sheet": SHEET,
        "components": {"dinosaurs_per_player": 10, "start_mp": 10, "hand": 3},
        "event_cards": [
            {"id": card, "text_line": line, "window": window, "climate": climate}
            for card, line, window, climate in CARDS
        ],
    }


def render(kit: dict[str, Any]) -> str:
    return json.dumps(kit, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    for name in KITS:
        (KITS_DIR / f"{name}.json").write_text(render(make_kit(name)), encoding="utf-8")
        print(f"wrote {name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
