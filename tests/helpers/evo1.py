"""Small Evo 1st edition deals in notation for the rules' tests, and a game's lines as the rules print them."""

from __future__ import annotations

from tests.helpers.support import ROOT

TINY = ROOT / "tests" / "rulings" / "tiny-e1-3p.json"
DEAL = """
ann drew heat_stroke
ann drew cull_enemy
ann drew climate_double_shift
ben drew choose_climate
ben drew mirror_climate
ben drew no_fighting
cat drew peace_treaty
cat drew defence_horns
cat drew attack_horns
start ann A1 ben D1 cat D3
"""


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines() if line.strip()]
