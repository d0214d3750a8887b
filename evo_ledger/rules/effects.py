"""What applying one action produces besides the new state, for the rulesets that build it up as they go:
consequences and warnings, in order."""

from __future__ import annotations

from typing import Any

from evo_ledger.rules.base import Consequence, Warning

new_tuple = tuple.__new__  # a named tuple made without its constructor's argument handling: every action's cost


class Effects:
    __slots__ = ("consequences", "warnings")

    def __init__(self) -> None:
        self.consequences: list[Consequence] = []
        self.warnings: list[Warning] = []

    def add(self, kind: str, **data: Any) -> None:
        self.consequences.append(new_tuple(Consequence, (kind, data)))

    def warn(self, ruling: str, message: str, kind: str = "") -> None:
        self.warnings.append(Warning(ruling, message, kind))

    def entering(self, phase: str, state: Any) -> None:
        """Told as a phase begins, before anything of it happens (see `PhaseWatcher`)."""


class PhaseWatcher(Effects):
    """Effects that keep a copy of the state as each phase begins: what an explanation starts from."""

    def __init__(self) -> None:
        super().__init__()
        self.began: dict[str, Any] = {}

    def entering(self, phase: str, state: Any) -> None:
        self.began[phase] = state.copy()
