"""The trait-card game's rules, a hand-made game's actions and a game played to a given step."""

from __future__ import annotations

from typing import Any

from evo_ledger.rules.kits import load_kit
from evo_ledger.rules.traits.ruleset import TraitsRuleset
from evo_ledger.rules.traits.state import State
from tests.helpers.support import ROOT

RULES = TraitsRuleset()
KIT = load_kit("standin-traits")
HAND_GAME = (ROOT / "replays" / "traits-hand-2p.evo").read_text()
ACTIONS = [
    line
    for line in HAND_GAME.splitlines()
    if line and not line.startswith(("#", "ruleset", "kit", "players", "result"))
]


def play(lines: list[str], options: dict[str, Any] | None = None, kit: Any = KIT) -> State:
    state: State = RULES.setup(kit, ["ann", "ben"], options or {})
    for line in lines:
        state = RULES.apply(state, RULES.parse_action(line)).state
    return state


def until(text: str, occurrence: int = 1) -> list[str]:
    """The hand-worked game's actions before the `occurrence`-th line `text`."""
    seen = 0
    for index, line in enumerate(ACTIONS):
        if line == text:
            seen += 1
            if seen == occurrence:
                return ACTIONS[:index]
    raise KeyError(text)
