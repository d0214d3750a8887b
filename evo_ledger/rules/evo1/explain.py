"""Why the rules decided as they did: a combat [E1-09], a survival phase [E1-11], an auction [E1-16, E1-19] and a
climate roll [E1-06], as data and in words, from the game's steps and what the rules derived from them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evo_ledger.rules.base import Consequence, Explanation, Step
from evo_ledger.rules.evo1.actions import Action, Attack, Bid, DrawGene
from evo_ledger.rules.evo1.state import Phase, State

Evo1Step = Step[State, Action]
FACES = range(1, 7)
AUCTION_KINDS = frozenset({"bid_outbid", "auction_settled"})


def explain(steps: Sequence[Evo1Step], at: int) -> Explanation | None:
    step = steps[at]
    if isinstance(step.action, Attack) and at + 1 < len(steps):
        return explain(steps, at + 1)
    kinds = {consequence.kind for consequence in step.consequences}
    if "combat_resolved" in kinds:
        return combat(steps, at)
    if "climate_changed" in kinds:
        return climate(step)
    if "initiative_set" in kinds or step.before.phase == Phase.INITIATIVE:
        return initiative(steps, at)
    if "dinosaurs_perished" in kinds or "mp_awarded" in kinds:
        return survival(steps, at)
    if isinstance(step.action, Bid | DrawGene) or kinds & AUCTION_KINDS:
        return auction(steps, at)
    return None


def derived(step: Evo1Step, kind: str) -> list[Consequence]:
    return [consequence for consequence in step.consequences if consequence.kind == kind]


def combat(steps: Sequence[Evo1Step], at: int) -> Explanation:
    [resolved] = derived(steps[at], "combat_resolved")
    data = dict(resolved.data)
    difference = data["attacker_horns"] - data["defender_horns"]
    winning = [face for face in FACES if face <= data["wins_on"]]
    data["difference"] = difference
    data["winning_faces"] = winning
    won = data["winner"] == data["attacker"]
    words = (
        f"{data['attacker']} attacked {data['target']} from {data['source']}: {data['attacker_horns']} horns against "
        f"{data['defender']}'s {data['defender_horns']}, a difference of {difference:+d} [E1-09].",
        f"At {min(difference, 2):+d}{' or more' if difference >= 2 else ''} the attacker wins on "
        f"{faces_text(winning)}, and loses on {faces_text([f for f in FACES if f not in winning])}.",
        f"The die showed {data['face']}: "
        + (
            f"{data['attacker']} won, {data['defender']}'s dinosaur went to its reserve and the attacker moved in."
            if won
            else f"{data['defender']} held, and {data['attacker']}'s dinosaur stayed on {data['source']}."
        ),
        "The attack cost a movement point either way.",
    )
    start = at - 1 if at > 0 and isinstance(steps[at - 1].action, Attack) else at
    return Explanation("combat", data, words, span=(start, at))


def faces_text(faces: Sequence[int]) -> str:
    if not faces:
        return "no face"
    return str(faces[0]) if len(faces) == 1 else f"{faces[0]}-{faces[-1]}"


def climate(step: Evo1Step) -> Explanation:
    [changed] = derived(step, "climate_changed")
    data = dict(changed.data)
    chart = step.before.kit.chart
    face = data["face"]
    motion = {1: "one position anticlockwise", 2: "nowhere"}.get(face, "one position clockwise")
    data["chart"] = list(chart)
    words = (
        f"{data['roller']} rolled the climate die: {face} moves the marker {motion} [E1-06].",
        f"It went from position {data['previous']} ({chart[data['previous']]}) to {data['position']} "
        f"({data['colour']}): {data['colour']} spaces are ideal this turn [E1-07].",
    )
    return Explanation("climate", data, words)


def initiative(steps: Sequence[Evo1Step], at: int) -> Explanation | None:
    """The order of the turn: tails, then dinosaurs, then the rolls of the seats still tied [E1-05]."""
    found = next(
        ((index, c) for index in turn_steps(steps, at) if index >= at for c in derived(steps[index], "initiative_set")),
        None,
    )
    if found is None:
        return None
    index, settled = found
    data = dict(settled.data)
    tails = ", ".join(f"{player} {tail}" for player, tail in data["tails"].items())
    dinosaurs = ", ".join(f"{player} {count}" for player, count in data["dinosaurs"].items())
    words = [
        f"Turn {data['turn']}'s order [E1-05]: the longest tail first ({tails}), then fewer dinosaurs on the board "
        f"({dinosaurs}), then the lowest roll among the seats still tied."
    ]
    rolls = "; ".join(f"{player} rolled {', then '.join(map(str, faces))}" for player, faces in data["rolls"].items())
    if rolls:
        words.append(f"Rolls: {rolls} (equal rolls roll again).")
    words.append(f"The order: {', '.join(data['order'])}.")
    rolled = [i for i in turn_steps(steps, at) if i <= index and steps[i].before.phase == Phase.INITIATIVE]
    return Explanation("initiative", data, tuple(words), span=(rolled[0], index) if rolled else None)


def turn_steps(steps: Sequence[Evo1Step], at: int) -> range:
    """The steps of the turn `steps[at]` belongs to."""
    turn = steps[at].before.turn
    first = at
    while first > 0 and steps[first - 1].before.turn == turn:
        first -= 1
    last = at
    while last + 1 < len(steps) and steps[last + 1].before.turn == turn:
        last += 1
    return range(first, last + 1)


def survival(steps: Sequence[Evo1Step], at: int) -> Explanation:
    found = [(index, c) for index in turn_steps(steps, at) for c in steps[index].consequences]
    perished = [c.data for _, c in found if c.kind == "dinosaurs_perished"]
    awarded = [c.data for _, c in found if c.kind == "mp_awarded"]
    indices = [index for index, c in found if c.kind in ("dinosaurs_perished", "mp_awarded")]
    data: dict[str, Any] = {"turn": steps[at].before.turn, "losses": perished}
    words = [
        "In the survival phase each species lost its dinosaurs in deadly zones, and those beyond its fur in "
        "the cold zone and beyond its parasols in the hot zone [E1-11]."
    ]
    for loss in perished:
        zones, limits = loss["zones"], loss["limits"]
        chosen = f"; {loss['player']} chose {', '.join(loss['chosen'])}" if loss["chosen"] else ""
        words.append(
            f"{loss['player']}: {zones['hot']} in the hot zone (parasols keep {limits['hot']}), {zones['cold']} in "
            f"the cold zone (fur keeps {limits['cold']}), {zones['deadly']} in deadly zones: lost "
            f"{', '.join(loss['spaces'])}{chosen}."
        )
    if awarded:
        data["awards"] = awarded[0]["awards"]
        gains = ", ".join(f"{player} +{mp}" for player, mp in awarded[0]["awards"].items())
        words.append(f"Each surviving dinosaur earned 1 MP [E1-12]: {gains}.")
    span = (min(indices), max(indices)) if indices else None
    return Explanation("survival", data, tuple(words), span=span)


def auction(steps: Sequence[Evo1Step], at: int) -> Explanation | None:
    turn_range = turn_steps(steps, at)
    bids = [
        {"player": action.player, "amount": action.amount, "target": action.target}
        for action in (steps[i].action for i in turn_range)
        if isinstance(action, Bid)
    ]
    outbids = [c.data for i in turn_range for c in derived(steps[i], "bid_outbid")]
    settled = [c.data for i in turn_range for c in derived(steps[i], "auction_settled")]
    if not bids:
        return None
    data: dict[str, Any] = {"turn": steps[at].before.turn, "bids": bids, "outbids": outbids}
    words = [
        "Each seat bid in initiative order; an outbid seat bid again at once, higher in the same row or elsewhere, "
        "and bids have no cap [E1-16]."
    ]
    words += [
        f"{o['by']} bid {o['bid']} on row {o['row']} ({o['gene']}) over {o['player']}'s {o['amount']}." for o in outbids
    ]
    if settled:
        data["rows"] = settled[0]["rows"]
        for row in settled[0]["rows"]:
            discount = row["bid"] - row["paid"]
            saving = f", {discount} off for mutants bought before" if discount else ""
            words.append(
                f"{row['player']} won row {row['row']} ({row['gene']}) at {row['bid']} and paid {row['paid']}"
                f"{saving} [E1-19]."
            )
        words += [f"{player} passed and got nothing [E1-18]." for player in settled[0]["passed"]]
    bid_steps = [i for i in turn_range if isinstance(steps[i].action, Bid)]
    return Explanation("auction", data, tuple(words), span=(bid_steps[0], bid_steps[-1]))
