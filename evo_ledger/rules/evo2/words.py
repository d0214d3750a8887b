"""What the rules of Evo 2nd edition derived, as sentences a player would say (`log`, `play`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evo_ledger.rules.words import counted, gains, listed, places, spoken

ZONES = ("ideal", "hot", "cold", "deadly")


def describe(kind: str, data: Mapping[str, Any]) -> str:
    return SENTENCES[kind](data)


def initiative_set(data: Mapping[str, Any]) -> str:
    """The order drawn before round 1 comes with round 0: it is round 1's."""
    chosen = f", {data['chosen_by']} having taken a place with adrenaline rush" if data.get("chosen_by") else ""
    return f"Initiative for round {max(data['round'], 1)}: {listed(data['order'])}{chosen}."


def climate_changed(data: Mapping[str, Any]) -> str:
    cause = f"The {spoken(data['token'])} token" if data.get("token") else f"{data['card']}"
    zones = data["zones"]
    named = [f"{listed(t for t in zones if zones[t] == zone)} {zone}" for zone in ZONES if zone in zones.values()]
    return f"{cause} turns the climate wheel to position {data['position']}: {', '.join(named)}."


def lab_left_unfilled(data: Mapping[str, Any]) -> str:
    return f"The bag cannot fill the lab: {counted(data['empty_columns'], 'column')} stay empty."


def gene_set_aside(data: Mapping[str, Any]) -> str:
    return f"The lab holds {spoken(data['gene'])} already: this one is set aside and another drawn."


def gene_placed(data: Mapping[str, Any]) -> str:
    return f"Column {data['column']} of the lab gets {spoken(data['gene'])}."


def genes_returned_to_bag(data: Mapping[str, Any]) -> str:
    return f"The genes set aside go back into the bag: {listed(data['genes'])}."


def bid_outbid(data: Mapping[str, Any]) -> str:
    return (
        f"{data['by']} bids {data['by_bid']} on column {data['column']} over {data['player']}'s {data['bid']}; "
        f"{data['player']} bids again."
    )


def auction_settled(data: Mapping[str, Any]) -> str:
    return f"The auction is settled: {'; '.join(map(auction_result, data['results']))}."


def auction_result(result: Mapping[str, Any]) -> str:
    item = result["item"]
    if item is None:
        return f"{result['player']} wins nothing in the empty column {result['column']}"
    taken = "the event card" if item == "card" else spoken(item)
    return f"{result['player']} takes {taken} (column {result['column']}) for {result['bid']}, paying {result['paid']}"


def combat_resolved(data: Mapping[str, Any]) -> str:
    attack = (
        f"{data['attacker']} attacks {data['defender']} on {data['target']} from {data['source']}, "
        f"{counted(data['attack_horns'], 'horn')} against {data['defence_horns']}, and rolls {data['face']}: "
    )
    if data["winner"] != data["attacker"]:
        return attack + f"{data['defender']} holds, and {data['attacker']} stays on {data['source']}."
    if data.get("escape_from"):
        return attack + f"{data['attacker']} wins, and {data['defender']}'s chameleon must escape."
    return attack + f"{data['attacker']} wins and moves in."


def chameleon_escaped(data: Mapping[str, Any]) -> str:
    return f"{data['player']}'s chameleon escapes from {data['source']} to {data['target']}."


def killer_baby_resolved(data: Mapping[str, Any]) -> str:
    outcome = f"{data['player']} wins" if data["winner"] == data["player"] else f"{data['victim']} holds; the baby dies"
    return (
        f"{data['player']}'s killer baby attacks {data['victim']} on {data['target']}, rolls {data['face']}: {outcome}."
    )


def dinosaurs_perished(data: Mapping[str, Any]) -> str:
    chosen = f", as {data['player']} chose" if data["chosen"] else ""
    return f"The climate takes {data['player']}'s dinosaurs on {listed(data['spaces'])}{chosen}."


def mp_awarded(data: Mapping[str, Any]) -> str:
    return f"Mutation points for round {data['round']}, 1 a dinosaur: {gains(data['awards'], data['totals'])}."


def game_ended(data: Mapping[str, Any]) -> str:
    rows = [(s["rank"], s["player"], s["mp"], s["dinosaurs"]) for s in data["standings"]]
    return f"The meteorite ends the game in round {data['round']}. Standings: {places(rows)}."


def card_played(data: Mapping[str, Any]) -> str:
    effects = f": {listed(data['effects'])}" if data["effects"] else ""
    checked = "" if data["checked"] else " (recorded as told: the kit does not define the card)"
    return f"{data['player']} plays {data['card']}{effects}{checked}."


def dinosaur_removed(data: Mapping[str, Any]) -> str:
    return f"{data['card']} removes {data['player']}'s dinosaur on {data['space']}."


def rule_overridden(data: Mapping[str, Any]) -> str:
    return f"{data['card']} lets {data['player']}'s '{data['action']}' stand."


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "initiative_set": initiative_set,
    "climate_changed": climate_changed,
    "lab_left_unfilled": lab_left_unfilled,
    "gene_set_aside": gene_set_aside,
    "gene_placed": gene_placed,
    "genes_returned_to_bag": genes_returned_to_bag,
    "bid_outbid": bid_outbid,
    "auction_settled": auction_settled,
    "combat_resolved": combat_resolved,
    "chameleon_escaped": chameleon_escaped,
    "killer_baby_resolved": killer_baby_resolved,
    "dinosaurs_perished": dinosaurs_perished,
    "mp_awarded": mp_awarded,
    "game_ended": game_ended,
    "card_played": card_played,
    "dinosaur_removed": dinosaur_removed,
    "rule_overridden": rule_overridden,
}
