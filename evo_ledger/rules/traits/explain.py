"""Why the rules of the trait-card "Evo" decided as they did at a millennium's end: extinction [TR-14], thriving
competitors [TR-15], scoring [TR-16], a genome's target [TR-17] and natural selection [TR-18], as data and in
words, from what the rules derived."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evo_ledger.rules.base import Explanation, Step
from evo_ledger.rules.traits.actions import Action
from evo_ledger.rules.traits.state import State
from evo_ledger.rules.words import counted, listed

TraitsStep = Step[State, Action]


def explain(steps: Sequence[TraitsStep], at: int) -> Explanation | None:
    found: dict[str, list[Mapping[str, Any]]] = {}
    for consequence in steps[at].consequences:
        found.setdefault(consequence.kind, []).append(consequence.data)
    if "scored" in found:
        return millennium(steps[at].before, found)
    if "genome_target" in found:
        return genome_target(found["genome_target"])
    if "adaptation_dropped" in found:
        return natural_selection(found["adaptation_dropped"])
    if "extinct" in found:
        return extinction(found["extinct"])
    return None


def extinction_words(extinct: Mapping[str, Any]) -> str:
    held = ", ".join(f"{species} {n}" for species, n in extinct["by_species"].items())
    return (
        f"{extinct['card']} at {extinct['location']} held {extinct['tokens']} tokens ({held}), more than 5 + the "
        f"millennium = {extinct['limit']}: it went extinct and its tokens went back unscored [TR-14]."
    )


def extinction(extinct: list[Mapping[str, Any]]) -> Explanation:
    words = tuple(extinction_words(data) for data in extinct)
    return Explanation("extinction", {"extinct": [dict(data) for data in extinct]}, words)


def thriving_words(thriving: Mapping[str, Any]) -> str:
    tolls = ", ".join(
        f"{species} {thriving['before'][species]} - {lost} = {thriving['before'][species] - lost}"
        for species, lost in thriving["losses"].items()
    )
    return (
        f"At {thriving['location']}, {listed(thriving['cards'])} held no token, so "
        f"{counted(len(thriving['cards']), 'competitor')} thrived: each species there lost one a card, down to none "
        f"({tolls or 'no species had a token there'}) [TR-15]."
    )


def millennium(state: State, found: Mapping[str, list[Mapping[str, Any]]]) -> Explanation:
    """The millennium's end up to the scoring: what went extinct, what thrived, and each player's score."""
    scored = found["scored"]
    words = [extinction_words(data) for data in found.get("extinct", [])]
    words += [thriving_words(data) for data in found.get("thriving", [])]
    for data in scored:
        where = ", ".join(f"{n} at {place}" for place, n in data["locations"].items()) or "no token left"
        words.append(
            f"{data['player']} ({data['species']}): {where}, {counted(data['tokens'], 'token')} and a bonus of "
            f"{data['bonus']} (0 for 0-5 tokens, 3 for 6-10, 7 for 11 or more): {data['tokens'] + data['bonus']} "
            f"points, {data['total']} in all [TR-16]."
        )
    data = {
        "millennium": scored[0]["millennium"],
        "extinct": [dict(d) for d in found.get("extinct", [])],
        "thriving": [dict(d) for d in found.get("thriving", [])],
        "scores": [dict(d) for d in scored],
    }
    return Explanation("millennium", data, tuple(words))


def genome_target(targets: list[Mapping[str, Any]]) -> Explanation:
    words = []
    for data in targets:
        held = data["target"] + data["points"]  # a top-up's points are negative, a cull's positive
        if not data["cards"]:
            words.append(f"{data['player']}'s Future Genome held {data['target']} cards, its target: nothing changes.")
            continue
        cards = listed(data["cards"])
        change = (
            f"{counted(len(data['cards']), 'random supply card')} ({cards}) joined it, 1 point less each"
            if data["points"] < 0
            else f"{counted(len(data['cards']), 'random card')} ({cards}) went back, 1 point more each"
        )
        words.append(
            f"{data['player']}'s Future Genome held {held} cards against the target of {data['target']} for "
            f"millennium {data['millennium']}: {change}; {data['points']:+d}, {data['total']} points [TR-17]."
        )
    return Explanation("genome target", {"targets": [dict(d) for d in targets]}, tuple(words))


def natural_selection(dropped: list[Mapping[str, Any]]) -> Explanation:
    words = []
    for data in dropped:
        fewest = min(data["held"].values())
        tied = [name for name, tokens in data["held"].items() if tokens == fewest]
        held = ", ".join(f"{name} {tokens}" for name, tokens in data["held"].items())
        pick = f", a random pick among {listed(tied)}" if len(tied) > 1 else ""
        words.append(
            f"{data['species']}'s adaptations held {held} tokens: {data['adaptation']} had the fewest{pick}, and "
            "natural selection dropped it; every adaptation's tokens went back [TR-18]."
        )
    return Explanation("natural selection", {"dropped": [dict(d) for d in dropped]}, tuple(words))
