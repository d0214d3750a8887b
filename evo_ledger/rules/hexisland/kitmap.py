"""A text picture of a kit's island: each space as its id and terrain initial, columns offset as on a hex grid."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from evo_ledger.rules.hexisland.kit import Space
from evo_ledger.rules.hexisland.layout import BoardSpace


class HexBoard(Protocol):
    """Any kit whose board is spaces on a hex grid."""

    @property
    def spaces(self) -> Mapping[str, Space]: ...


CELL_WIDTH = 8


def board_spaces(kit: HexBoard, board: Mapping[str, str], starts: Iterable[str]) -> tuple[BoardSpace, ...]:
    """The kit's spaces with their occupants, as a replay viewer draws them."""
    marked = set(starts)
    return tuple(
        BoardSpace(s.id, s.q, s.r, s.terrain, s.coast, s.id in marked, board.get(s.id)) for s in kit.spaces.values()
    )


def render_map(
    kit: HexBoard, labels: Mapping[str, str] | None = None, initials: Mapping[str, str] | None = None
) -> str:
    """One line per half hex row; `labels` adds a short text after a space's id (its occupant, say); `initials`
    gives the letter of a terrain where its first letter would not do."""
    labels, initials = labels or {}, initials or {}
    q_min = min(s.q for s in kit.spaces.values())
    y_min = min(2 * s.r + s.q for s in kit.spaces.values())
    rows: dict[int, dict[int, str]] = {}
    for space in kit.spaces.values():
        mark = "*" if space.coast else " "
        text = f"{space.id}{initials.get(space.terrain, space.terrain[0])}{mark}{labels.get(space.id, '')}"
        rows.setdefault(2 * space.r + space.q - y_min, {})[space.q - q_min] = text
    lines = []
    for y in range(max(rows) + 1):
        cells = rows.get(y, {})
        width = (max(cells) + 1) * CELL_WIDTH if cells else 0
        line = [" "] * width
        for column, text in cells.items():
            start = column * CELL_WIDTH
            line[start : start + CELL_WIDTH] = text.ljust(CELL_WIDTH)[:CELL_WIDTH]
        lines.append("".join(line).rstrip())
    return "\n".join(lines) + "\n"
