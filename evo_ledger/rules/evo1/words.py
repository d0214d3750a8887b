"""What the rules of Evo 1st edition derived, as sentences a player would say (`log`, `play`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evo_ledger.rules.words import counted, gains, listed, places, spoken


def describe(kind: str, data: Mapping[str, Any]) -> str:
    return SENTENCES[kind](data)


def initiative_set(data: Mapping[str, Any]) -> str:
    rolls = "; ".join(f"{player} rolled {', then '.join(map(str, faces))}" for player, faces in data["rolls"].items())
    return f"Turn {data['turn']}'s order: {listed(data['order'])}" + (f" ({rolls})." if rolls else ".")


def climate_changed(data: Mapping[str, Any]) -> str:
    moved = "stays on" if data["position"] == data["previous"] else "moves to"
    return (
        f"{data['roller']} rolls {data['face']} for the climate: the marker {moved} {data['colour']}, ideal this turn."
    )


def combat_resolved(data: Mapping[str, Any]) -> str:
    attack = (
        f"{data['attacker']} attacks {data['defender']} on {data['target']} from {data['source']}, "
        f"{counted(data['attacker_horns'], 'horn')} against {data['defender_horns']}, and rolls {data['face']} "
        f"(1 to {data['wins_on']} wins): "
    )
    if data["winner"] == data["attacker"]:
        return attack + f"{data['attacker']} wins and moves in."
    return attack + f"{data['defender']} holds, and {data['attacker']} stays on {data['source']}."


def dinosaurs_perished(data: Mapping[str, Any]) -> str:
    chosen = f", {data['player']} choosing {listed(data['chosen'])}" if data["chosen"] else ""
    return f"The climate takes {data['player']}'s dinosaurs on {listed(data['spaces'])}{chosen}."


def mp_awarded(data: Mapping[str, Any]) -> str:
    return f"Mutation points, 1 a dinosaur: {gains(data['awards'], data['totals'])}."


def meteor_advanced(data: Mapping[str, Any]) -> str:
    number = data.get("number")
    marked = f", marked {number}: the first player rolls for it" if number else ""
    return f"The meteor moves to space {data['space']}{marked}."


def meteor_rolled(data: Mapping[str, Any]) -> str:
    verdict = "it strikes" if data["impact"] else "it misses"
    return (
        f"The meteor die shows {data['face']} on space {data['space']} ({data['number']} or less strikes): {verdict}."
    )


def bid_outbid(data: Mapping[str, Any]) -> str:
    return (
        f"{data['by']} bids {data['bid']} on row {data['row']} ({spoken(data['gene'])}) over {data['player']}'s "
        f"{data['amount']}; {data['player']} bids again."
    )


def auction_settled(data: Mapping[str, Any]) -> str:
    rows = "; ".join(
        f"{row['player']} takes the {spoken(row['gene'])} for {row['bid']}, paying {row['paid']}"
        for row in data["rows"]
    )
    passed = f"; {listed(data['passed'])} passed" if data["passed"] else ""
    return f"The auction is settled: {rows}{passed}."


def auction_skipped(data: Mapping[str, Any]) -> str:
    return f"No auction in turn {data['turn']}: {data['reason']}."


def game_ended(data: Mapping[str, Any]) -> str:
    rows = [(s["rank"], s["player"], *s["score"]) for s in data["standings"]]
    return f"The game ends in turn {data['turn']} ({data['reason']}). Standings: {places(rows)}."


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "initiative_set": initiative_set,
    "climate_changed": climate_changed,
    "combat_resolved": combat_resolved,
    "dinosaurs_perished": dinosaurs_perished,
    "mp_awarded": mp_awarded,
    "meteor_advanced": meteor_advanced,
    "meteor_rolled": meteor_rolled,
    "auction_skipped": auction_skipped,
    "bid_outbid": bid_outbid,
    "auction_settled": auction_settled,
    "game_ended": game_ended,
}
