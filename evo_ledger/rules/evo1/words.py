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
    card = data.get("card")
    if card is None:
        cause = f"{data['roller']} rolls {data['face']} for the climate"
    elif "face" in data:
        cause = f"{spoken(card)} names {data['face']} for the climate"
    else:
        cause = f"{spoken(card)} turns the climate"
    ideal = "ideal this turn" if card != "mirror_climate" else "before the roll"
    return f"{cause[:1].upper()}{cause[1:]}: the marker {moved} {data['colour']}, {ideal}."


def combat_resolved(data: Mapping[str, Any]) -> str:
    source = "with a baby" if data.get("birth") else f"from {data['source']}"
    cards = ""
    if "attacker_genes" in data:
        cards = f" (cards in force: {data['attacker_genes']} and {data['defender_genes']} by their genes)"
    attack = (
        f"{data['attacker']} attacks {data['defender']} on {data['target']} {source}, "
        f"{counted(data['attacker_horns'], 'horn')} against {data['defender_horns']}{cards}, and rolls "
        f"{data['face']} (1 to {data['wins_on']} wins): "
    )
    if data["winner"] == data["attacker"]:
        return (
            attack + f"{data['attacker']} wins and {'the baby takes the space' if data.get('birth') else 'moves in'}."
        )
    if data.get("birth"):
        return attack + f"{data['defender']} holds, and the baby stays in {data['attacker']}'s reserve."
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
    fossils = data.get("fossils")
    if not fossils:
        return f"The game ends in turn {data['turn']} ({data['reason']}). Standings: {places(rows)}."
    scored = ", ".join(
        f"{rank} {player} with {points} points and {counted(count, 'dinosaur')}" for rank, player, points, count in rows
    )
    played = ", ".join(f"{player} {counted(count, 'fossil')}" for player, count in fossils.items())
    return f"The game ends in turn {data['turn']} ({data['reason']}); fossils played: {played}. Standings: {scored}."


def card_played(data: Mapping[str, Any]) -> str:
    effect = CARD_EFFECTS[data["card"]](data)
    return f"{data['player']} plays {spoken(data['card'])}: {effect}."


def heat_stroke_rolled(data: Mapping[str, Any]) -> str:
    total = data["face"] + data["parasols"]
    verdict = "it dies" if data["died"] else "it survives"
    return (
        f"Heat stroke on {data['space']}: {data['player']} rolls {data['face']}, with "
        f"{counted(data['parasols'], 'parasol')} that makes {total} (4 or less dies): {verdict}."
    )


def mp_lost(data: Mapping[str, Any]) -> str:
    losses = ", ".join(f"{player} -{count} ({data['totals'][player]})" for player, count in data["losses"].items())
    return f"{data['by']}'s loss penalty, 1 MP a dinosaur lost: {losses or 'nobody lost one'}."


CARD_EFFECTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "heat_stroke": lambda d: f"a heat stroke die for each of the {counted(d['dinosaurs'], 'dinosaur')} on the board",
    "cull_enemy": lambda d: f"{d['owner']}'s dinosaur on {d['space']} goes to its reserve",
    "climate_double_shift": lambda d: "no climate roll this turn, the marker moves two positions clockwise",
    "choose_climate": lambda d: f"no climate roll this turn, {d['face']} is the climate die's face",
    "mirror_climate": lambda d: (
        "the marker goes to the other position of its colour"
        if d["moved"]
        else "the marker is on a colour the chart has once, so it stays"
    ),
    "no_fighting": lambda d: "no attack by anyone this turn, births included",
    "peace_treaty": lambda d: f"no attack between {d['player']} and {d['with']} this turn, births included",
    "defence_horns": lambda d: f"{d['player']} defends with 2 more horns this turn",
    "attack_horns": lambda d: f"{d['player']} attacks with 2 more horns this turn, births included",
    "stampede": lambda d: f"{d['player']} has {counted(d['points'], 'movement point')} this phase, one a dinosaur",
    "distant_births": lambda d: f"{d['player']}'s babies may go within 3 spaces of an adult this turn",
    "birth_attack": lambda d: f"{d['player']}'s babies may attack enemy spaces in reach this turn, with 1 more horn",
    "baby_swap": lambda d: (
        f"{d['owner']}'s baby on {d['space']} goes to its reserve and {d['player']}'s takes the space"
    ),
    "less_parasol": lambda d: "every species has one parasol fewer this turn",
    "cold_survival": lambda d: f"the cold zone keeps all of {d['player']}'s dinosaurs this turn",
    "less_fur": lambda d: "every species has one fur fewer this turn",
    "loss_penalty": lambda d: "after the MP, every other seat loses 1 MP a dinosaur it lost in this survival",
    "heat_survival": lambda d: f"the hot zone keeps all of {d['player']}'s dinosaurs this turn",
    "outbid_plus3": lambda d: f"outbidding {d['player']} takes 3 more than its bid this phase",
    "missing_link": lambda d: (
        f"{counted(d['genes'], 'gene')} are drawn and {counted(d['passes'], 'pass', 'passes')} open"
    ),
    "mp_voucher_3": lambda d: f"{d['player']}'s payment is 3 MP less ({counted(d['vouchers'], 'voucher')} played)",
    "fossil_2mp": lambda d: f"{d['player']} scores {d['points']} more at the end",
    "card_embargo": lambda d: "no card may be played by anyone until the next turn",
    "seize_initiative": lambda d: (
        f"{d['player']} goes first for the rest of the turn"
        + (f" ({listed(d['order'])})" if "order" in d else ", once the order is set")
    ),
    "recover_card": lambda d: f"{spoken(d['recovered'])}, which {d['from']} played, goes to {d['to']}'s hand",
    "no_births": lambda d: "no births of any kind this turn",
}


def autosaur_rolled(data: Mapping[str, Any]) -> str:
    roll = f"{data['player']}, an Autosaur, rolls {data['face']}"
    if "modified" in data:
        roll += f" ({data['modified']} modified)"
    decision = f"bids {data['amount']} on row {data['row']}" if data["row"] else "passes"
    return f"{roll}: its algorithm {decision}, as {data['reason']} ({data['ruling']})."


def autosaur_survived(data: Mapping[str, Any]) -> str:
    parts = []
    if data["deadly"]:
        parts.append(f"{listed(data['deadly'])} in a deadly zone")
    if data["isolated"]:
        parts.append(f"{listed(data['isolated'])} left alone")
    return f"{data['player']}, an Autosaur, loses {' and then '.join(parts)} (AS-10)."


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "autosaur_rolled": autosaur_rolled,
    "autosaur_survived": autosaur_survived,
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
    "card_played": card_played,
    "heat_stroke_rolled": heat_stroke_rolled,
    "mp_lost": mp_lost,
}
