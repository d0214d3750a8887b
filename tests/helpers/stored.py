"""The stored games kept as fixtures, in every format version the ledger reads."""

from __future__ import annotations

from uuid import UUID

from tests.helpers.support import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "stored"
NAMES = ("table", "peek", "hand", "generated")


def game_id_of(name: str) -> UUID:
    first_comment = next(line for line in (FIXTURES / f"{name}.evo").read_text().splitlines() if "# game " in line)
    return UUID(first_comment.rsplit(" ", 1)[1])
