"""Writes the stand-in kit of the trait-card game "Evo" into evo_ledger/rules/traits/kits/.

The source (rules document 003) names every component but prints no card face: the fauna's symbols and the
adaptations' texts are unknown [TR-02]. This kit fills them with stand-ins, flagged `stand_in: true`: each fauna
asks for 1 to 3 cards of its type's primary trait and 1 or 2 of another; each adaptation has a made-up name and,
for 42 of the 60, an effect the ledger checks (a card of one trait standing for another, a symbol left unpaid,
an extra survival token); the other 18 have none, so their use is recorded and not rule-checked [TR-12].
docs/kits.md says how to enter a real deck. Run `python tools/make_traits_kit.py` after changing this file; a
test checks the file matches.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

KITS_DIR = Path(__file__).resolve().parent.parent / "evo_ledger" / "rules" / "traits" / "kits"
TRAITS = ["size", "strength", "speed", "toughness", "endurance", "agility"]
LOCATIONS = ["lake", "mountain", "field", "swamp", "desert", "forest"]
FAUNA = ["grazer", "brawler", "sprinter", "defender", "evader", "darter"]
FLORA = ["tree", "nut", "grass", "root", "fungus", "berry"]
SPECIES = ["circle", "square", "triangle", "hexagon"]
FAUNA_PER_TYPE, FLORA_PER_TYPE = 6, 3


def fauna() -> list[dict[str, Any]]:
    cards = []
    for index, (kind, primary) in enumerate(zip(FAUNA, TRAITS, strict=True)):
        for number in range(FAUNA_PER_TYPE):
            other = TRAITS[(index + 1 + number) % len(TRAITS)]
            symbols = [primary] * (1 + number % 3) + [other] * (1 + number // 3)
            cards.append({"id": f"{kind}-{number + 1}", "type": kind, "primary": primary, "symbols": symbols})
    return cards


def flora() -> list[dict[str, Any]]:
    return [
        {"id": f"{kind}-{number + 1}", "type": kind, "primary": primary}
        for kind, primary in zip(FLORA, TRAITS, strict=True)
        for number in range(FLORA_PER_TYPE)
    ]


def adaptations() -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    for index, trait in enumerate(TRAITS):
        for step in (1, 2, 3):
            stand_in = TRAITS[(index + step) % len(TRAITS)]
            cards.append(
                {
                    "id": f"{stand_in}-for-{trait}",
                    "name": f"{stand_in.title()} for {trait.title()}",
                    "effect": {"swap": [stand_in, trait]},
                }
            )
        for number in (1, 2):
            cards.append({"id": f"lean-{trait}-{number}", "name": f"Lean {trait.title()}", "effect": {"waive": trait}})
        for number in (1, 2):
            cards.append(
                {"id": f"bountiful-{trait}-{number}", "name": f"Bountiful {trait.title()}", "effect": {"token": 1}}
            )
        for number in (1, 2, 3):
            cards.append({"id": f"uncharted-{trait}-{number}", "name": f"Uncharted {trait.title()}", "effect": None})
    return cards


def make_kit() -> dict[str, Any]:
    return {
        "format": 1,
        "ruleset": "traits",
        "name": "standin-traits",
        "stand_in": True,
        "note": "Stand-in faces: the source prints no fauna symbols and no adaptation text. See docs/kits.md.",
        "players": {"min": 2, "max": 4},
        "traits": TRAITS,
        "trait_cards": 20,
        "locations": [{"id": place, "primary": trait} for place, trait in zip(LOCATIONS, TRAITS, strict=True)],
        "fauna": fauna(),
        "flora": flora(),
        "adaptations": adaptations(),
        "species": SPECIES,
        "components": {
            "population": 6,
            "start_population": 3,
            "survival_tokens": 24,
            "hand": 6,
            "deck_per_trait": 2,
            "start_adaptations": 2,
        },
        "genome_targets": [24, 30, 36, 42],
        "bonus": [{"from": 0, "points": 0}, {"from": 6, "points": 3}, {"from": 11, "points": 7}],
    }


def render(kit: dict[str, Any]) -> str:
    return json.dumps(kit, indent=1) + "\n"


def main() -> int:
    KITS_DIR.mkdir(parents=True, exist_ok=True)
    (KITS_DIR / "standin-traits.json").write_text(render(make_kit()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
