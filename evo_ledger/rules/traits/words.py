"""What the rules of the trait-card "Evo" derived, as sentences a player would say (`log`, `play`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evo_ledger.rules.words import counted, listed


def describe(kind: str, data: Mapping[str, Any]) -> str:
    return SENTENCES[kind](data)


def food(data: Mapping[str, Any], verb: str, card: str) -> str:
    adapted = f", and {listed(data['adaptations'])} earn a token each" if data["adaptations"] else ""
    grown = (
        f"; an offspring of {data['offspring']} goes face up on the deck" if data.get("offspring")
        else "; with no future generation, a bountiful token more" if data.get("bountiful") else ""
    )  # fmt: skip
    return (
        f"{data['player']} ({data['species']}) {verb} {card} at {data['location']} with {listed(data['cards'])}: "
        f"{counted(data['tokens'], 'survival token')} on it{adapted}{grown}."
    )


def generation_ended(data: Mapping[str, Any]) -> str:
    lost = f"{counted(data['lost'], 'card')} to the Lost Genome"
    if data.get("millennium_over"):
        return f"{data['player']}'s generation ends, {lost}: no generation left this millennium."
    taken = f", takes {listed(data['offspring'])} face up" if data["offspring"] else ""
    return f"{data['player']}'s generation ends, {lost}{taken} and draws {data['draws']}."


def scored(data: Mapping[str, Any]) -> str:
    return (
        f"Millennium {data['millennium']}: {data['player']} ({data['species']}) scores "
        f"{counted(data['tokens'], 'token')} and a bonus of {data['bonus']}: {counted(data['total'], 'point')}."
    )


def genome_target(data: Mapping[str, Any]) -> str:
    if not data["cards"]:
        return f"{data['player']}'s Future Genome meets its target of {data['target']} exactly."
    change = "adds" if data["points"] < 0 else "returns"
    return (
        f"{data['player']}'s Future Genome {change} {listed(data['cards'])} to reach {data['target']}: "
        f"{data['points']:+d} points, {counted(data['total'], 'point')}."
    )


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "millennium_begun": lambda d: (
        f"Millennium {d['millennium']} begins with {d['start']}; "
        + ", ".join(f"{player} plays {species}" for player, species in d["plays"].items())
        + "."
    ),
    "hunted": lambda d: food(d, "hunts", d["fauna"]),
    "foraged": lambda d: food(d, "forages", d["flora"]),
    "migrated": lambda d: (
        f"{d['player']}'s journey: {d['card']} goes face up on the deck, the other card is lost, "
        f"and the population moves from {d['source']} to {d['target']}."
    ),
    "generation_ended": generation_ended,
    "extinct": lambda d: (
        f"{d['card']} at {d['location']} goes extinct with {d['tokens']} tokens, above "
        f"{d['limit']}: its tokens go back unscored."
    ),
    "thriving": lambda d: (
        f"At {d['location']}, {listed(d['cards'])} thrive unchallenged: "
        + (", ".join(f"{species} loses {n}" for species, n in d["losses"].items()) or "nobody has a token to lose")
        + "."
    ),
    "scored": scored,
    "genome_target": genome_target,
    "adaptation_dropped": lambda d: (
        f"Natural selection drops {d['adaptation']} from {d['species']}, used {counted(d['tokens'], 'time')}."
    ),
    "deck_rebuilt": lambda d: f"The {d['deck']} deck is empty: its {d['cards']} discards are shuffled into a new one.",
    "game_ended": lambda d: (
        "The game ends after the fourth millennium. Standings: "
        + ", ".join(f"{s['rank']} {s['player']} with {counted(s['score'][0], 'point')}" for s in d["standings"])
        + "."
    ),
}
