"""What applying one action produces besides the new state: consequences and warnings, in order."""

from __future__ import annotations

from typing import Any

from evo_ledger.rules.base import Consequence, Warning


class Effects:
    def __init__(self) -> None:
        self.consequences: list[Consequence] = []
        self.warnings: list[Warning] = []

    def add(self, kind: str, **data: Any) -> None:
        self.consequences.append(Consequence(kind, data))

    def warn(self, ruling: str, message: str) -> None:
        self.warnings.append(Warning(ruling, message))
