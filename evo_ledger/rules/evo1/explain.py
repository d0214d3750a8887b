"""Why the rules decided as they did: a combat [E1-09], a survival phase [E1-11], an auction [E1-16, E1-19], a
climate roll [E1-06], a card play [E1-24, E1-26] and a heat stroke, as data and in words, from the game's steps
and what the rules derived from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from evo_ledger.rules.base import Consequence, Explanation, Step
from evo_ledger.rules.evo1 import autosaur, modifiers
from evo_ledger.rules.evo1.actions import Action, Attack, Bid, Birth, DrawGene, Pass, PlayCard, format_action
from evo_ledger.rules.evo1.cards import spec_of, window_words
from evo_ledger.rules.evo1.state import PHASE_NUMBERS, Phase, State
from evo_ledger.rules.evo1.words import CARD_EFFECTS

Evo1Step = Step[State, Action]
Replay = Callable[[State, Action], State]
FACES = range(1, 7)
AUCTION_KINDS = frozenset({"bid_outbid", "auction_settled"})


def explain(steps: Sequence[Evo1Step], at: int, replay: Replay) -> Explanation | None:
    step = steps[at]
    if step.before.autosaurs and is_autosaur_decision(step):
        return autosaur_decision(step)
    if starts_combat(step) and at + 1 < len(steps):
        return explain(steps, at + 1, replay)
    kinds = {consequence.kind for consequence in step.consequences}
    if "heat_stroke_rolled" in kinds or is_heat_stroke(step):
        return heat_stroke(steps, at)
    if isinstance(step.action, PlayCard):
        return card_play(steps, at, replay)
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


def is_autosaur_decision(step: Evo1Step) -> bool:
    """An Autosaur's setup dinosaur, birth, bid or pass, or the roll its bid follows from."""
    player = getattr(step.action, "player", None)
    if player in step.before.autosaurs and isinstance(step.action, Birth | Bid | Pass):
        return not (isinstance(step.action, Pass) and step.before.phase != Phase.EVOLUTION)
    return bool(derived(step, "autosaur_rolled"))


def autosaur_decision(step: Evo1Step) -> Explanation:
    """What the algorithm decided and why: each candidate with its seven keys and the one that left it out, or
    the roll and the rule that made it a bid or a pass [AS-03, AS-06, AS-07, AS-13 to AS-16]."""
    before, action = step.before, step.action
    if isinstance(action, Birth):
        return autosaur_birth(before, action)
    rolled = derived(step, "autosaur_rolled")
    player = rolled[0].data["player"] if rolled else getattr(action, "player", "")
    roll = rolled[0].data["face"] if rolled else before.bid_roll
    decision = autosaur.bid_decision(before, player, roll)
    wanted = f"a bid of {decision.amount} on row {decision.row}" if decision.row else "a pass"
    rows = {row: autosaur.required(before, row) for row in range(1, len(before.rows) + 1)}
    data = {
        "player": player,
        "roll": roll,
        "modified": decision.modified,
        "required": rows,
        "row": decision.row,
        "amount": decision.amount,
        "ruling": decision.ruling,
        "reason": decision.reason,
        "recorded": None if rolled else format_action(action),
    }
    words = [
        f"{player}, an Autosaur, rolled {roll}"
        + (f", {decision.modified} modified [AS-14]" if decision.modified is not None else "")
        + f"; the rows need {', '.join(f'row {row}: {need}' for row, need in rows.items())}.",
        f"Its algorithm makes {wanted}: {decision.reason} [{decision.ruling}].",
    ]
    if not rolled:
        words.append(
            f"Recorded: {format_action(action)}"
            + ("." if data["recorded"] == algorithm_text(player, decision) else ", a deviation [AS-18].")
        )
    return Explanation("autosaur", data, tuple(words))


def algorithm_text(player: str, decision: autosaur.BidDecision) -> str:
    return format_action(Bid(player, decision.amount, f"row{decision.row}") if decision.row else Pass(player))


def autosaur_birth(before: State, action: Birth) -> Explanation:
    setup = before.phase == Phase.SETUP
    if setup:
        keys = {
            space: autosaur.preference_keys(before, action.player, space)
            for space in autosaur.setup_spaces(before, action.player)
        }
    else:
        keys = {space: before.step_keys[space] for space in autosaur.open_spaces(before)}
    ranking = autosaur.rank_by_keys(keys)
    dropped = ranking.dropped
    what = "its second dinosaur at the setup [AS-03]" if setup else f"a baby in step {before.birth_step} [AS-06]"
    words = [f"{action.player}, an Autosaur, placed {what}; its candidates, by AS-07's keys:"]
    for space in ranking.order:
        out = dropped.get(space)
        words.append(f"{space}: " + (f"out on key {out}: {autosaur.PREFERENCES[out - 1]}." if out else "best."))
    followed = action.space in ranking.best
    if not followed:
        verdict = ", a deviation [AS-18]."
    elif len(ranking.best) > 1:
        verdict = ", one of an open tie: the recorder's choice stands [AS-07]."
    else:
        verdict = "."
    words.append(f"Recorded: {action.space}{verdict}")
    candidates = [{"space": space, "keys": list(keys[space]), "out_on": dropped.get(space)} for space in ranking.order]
    data = {
        "player": action.player,
        "decision": "setup" if setup else "birth",
        "step": "" if setup else before.birth_step,
        "candidates": candidates,
        "best": list(ranking.best),
        "chosen": action.space,
        "followed": followed,
    }
    return Explanation("autosaur", data, tuple(words))


def starts_combat(step: Evo1Step) -> bool:
    """An attack, or a birth on an enemy's space: the next step rolls its die."""
    action = step.action
    return isinstance(action, Attack) or (isinstance(action, Birth) and action.space in step.before.board)


def is_heat_stroke(step: Evo1Step) -> bool:
    return isinstance(step.action, PlayCard) and step.action.card == "heat_stroke"


def state_after(steps: Sequence[Evo1Step], at: int, replay: Replay) -> State:
    return steps[at + 1].before if at + 1 < len(steps) else replay(steps[at].before, steps[at].action)


def derived(step: Evo1Step, kind: str) -> list[Consequence]:
    return [consequence for consequence in step.consequences if consequence.kind == kind]


def combat(steps: Sequence[Evo1Step], at: int) -> Explanation:
    [resolved] = derived(steps[at], "combat_resolved")
    data = dict(resolved.data)
    difference = data["attacker_horns"] - data["defender_horns"]
    winning = [face for face in FACES if face <= data["wins_on"]]
    data["difference"] = difference
    data["winning_faces"] = winning
    birth = bool(data.get("birth"))
    data["cards"] = combat_cards(steps[at].before, data["attacker"], data["defender"], birth)
    won = data["winner"] == data["attacker"]
    source = "with a baby [E1-28]" if birth else f"from {data['source']}"
    words = [
        f"{data['attacker']} attacked {data['target']} {source}: {data['attacker_horns']} horns against "
        f"{data['defender']}'s {data['defender_horns']}, a difference of {difference:+d} [E1-09].",
    ]
    words += [
        f"{card['player']}'s {card['card']} gave {card['to']} {card['horns']:+d} "
        f"horn{'s' if abs(card['horns']) > 1 else ''} {card['when']}."
        for card in data["cards"]
    ]
    words += [
        f"At {min(difference, 2):+d}{' or more' if difference >= 2 else ''} the attacker wins on "
        f"{faces_text(winning)}, and loses on {faces_text([f for f in FACES if f not in winning])}.",
        f"The die showed {data['face']}: " + combat_verdict(data, won, birth),
        "The baby's egg was spent either way." if birth else "The attack cost a movement point either way.",
    ]
    start = at - 1 if at > 0 and starts_combat(steps[at - 1]) else at
    return Explanation("combat", data, tuple(words), span=(start, at))


def combat_verdict(data: dict[str, Any], won: bool, birth: bool) -> str:
    attacker, defender = data["attacker"], data["defender"]
    if won:
        moved = "the baby took the space" if birth else "the attacker moved in"
        return f"{attacker} won, {defender}'s dinosaur went to its reserve and {moved}."
    if birth:
        return f"{defender} held, and {attacker}'s baby stayed in reserve."
    return f"{defender} held, and {attacker}'s dinosaur stayed on {data['source']}."


def combat_cards(state: State, attacker: str, defender: str, birth: bool) -> list[dict[str, Any]]:
    """The horns the cards in force gave the fight [E1-09, E1-28]."""
    found = []
    for modifier in state.modifiers:
        if modifier.card == modifiers.ATTACK_HORNS and modifier.player == attacker:
            found.append({"card": modifier.card, "player": attacker, "to": attacker, "horns": 2, "when": "attacking"})
        if modifier.card == modifiers.DEFENCE_HORNS and modifier.player == defender:
            found.append({"card": modifier.card, "player": defender, "to": defender, "horns": 2, "when": "defending"})
        if modifier.card == modifiers.BIRTH_ATTACK and modifier.player == attacker and birth:
            found.append({"card": modifier.card, "player": attacker, "to": attacker, "horns": 1, "when": "as a baby"})
    return found


def card_play(steps: Sequence[Evo1Step], at: int, replay: Replay) -> Explanation:
    """The play's window and why it was open, what it named, and what it changed [E1-24, E1-26]."""
    step = steps[at]
    action = step.action
    assert isinstance(action, PlayCard)
    before, after = step.before, state_after(steps, at, replay)
    spec = spec_of(before, action.card)
    [played] = derived(step, "card_played")
    phase = PHASE_NUMBERS.get(before.phase)
    where = f"turn {before.turn}, phase {phase} ({before.phase})" if phase else f"turn {before.turn}, {before.phase}"
    data: dict[str, Any] = {
        "card": action.card,
        "player": action.player,
        "targets": list(action.targets),
        "window": spec.window,
        "turn": before.turn,
        "phase": before.phase,
        "climate": spec.climate,
        "changes": changes(before, after),
    }
    words = [
        f"{action.player} played {action.card} in {where}: its window is "
        f"{window_text(spec.window)} [E1-24], and no embargo stood [E1-29].",
    ]
    if action.targets:
        words.append(f"It named {' '.join(action.targets)}{target_condition(before, action)} [E1-26].")
    if spec.climate:
        words.append("It was this turn's one climate card [E1-25].")
    words.append(f"Its effect: {CARD_EFFECTS[action.card](played.data)} [E1-26].")
    words += change_words(data["changes"])
    return Explanation("card", data, tuple(words))


def window_text(window: str) -> str:
    if window == "response":
        return "the very next action after another card's play"
    if window == "end":
        return "the end window, after the impact and before the result"
    if window == "any":
        return "any time from turn 3"
    return window_words(window)


def target_condition(state: State, action: PlayCard) -> str:
    """The counted condition of the target, as it stood when played [E1-27]."""
    owner = state.board.get(action.targets[0])
    if action.card in ("cull_enemy", "baby_swap") and owner is not None:
        return f", a dinosaur of {owner}, who had {state.count_of(owner)} on the board [E1-27]"
    return ""


def changes(before: State, after: State) -> dict[str, Any]:
    """What the play changed: the board, the climate, the MP, the order, the hands and the modifiers in force."""
    found: dict[str, Any] = {}
    gone = sorted(space for space, owner in before.board.items() if after.board.get(space) != owner)
    placed = sorted(space for space, owner in after.board.items() if before.board.get(space) != owner)
    if gone or placed:
        found["board"] = {"left": {s: before.board[s] for s in gone}, "placed": {s: after.board[s] for s in placed}}
    if after.climate_position != before.climate_position:
        found["climate"] = [before.kit.chart[before.climate_position], after.kit.chart[after.climate_position]]
    mp = {p: after.seats[p].mp - seat.mp for p, seat in before.seats.items() if after.seats[p].mp != seat.mp}
    if mp:
        found["mp"] = mp
    if after.order != before.order and before.order:
        found["order"] = list(after.order)
    new = [list(modifier) for modifier in after.modifiers if modifier not in before.modifiers]
    if new:
        found["modifiers"] = new
    if after.phase != before.phase:
        found["phase"] = [before.phase, after.phase]
    return found


def change_words(found: dict[str, Any]) -> list[str]:
    words = []
    if "board" in found:
        left = ", ".join(f"{owner}'s dinosaur left {space}" for space, owner in found["board"]["left"].items())
        placed = ", ".join(f"{owner}'s took {space}" for space, owner in found["board"]["placed"].items())
        words.append(f"On the board: {'; '.join(part for part in (left, placed) if part)}.")
    if "climate" in found:
        words.append(f"The climate went from {found['climate'][0]} to {found['climate'][1]}.")
    if "order" in found:
        words.append(f"The order became {', '.join(found['order'])}.")
    if "modifiers" in found:
        words.append("In force to the end of the turn: " + ", ".join(card for card, *_ in found["modifiers"]) + ".")
    if "phase" in found:
        words.append(f"The {found['phase'][0]} phase ended: the {found['phase'][1]} phase began.")
    return words


def heat_stroke(steps: Sequence[Evo1Step], at: int) -> Explanation | None:
    """The play and its dice: each dinosaur dies at 4 or less, its species' parasols added [E1-26]."""
    first = at
    while first > 0 and not is_heat_stroke(steps[first]):
        first -= 1
    rolls = []
    last = first
    for index in range(first + 1, len(steps)):
        found = derived(steps[index], "heat_stroke_rolled")
        if not found:
            break
        rolls += [dict(c.data) for c in found]
        last = index
    action = steps[first].action
    assert isinstance(action, PlayCard)
    data = {"player": action.player, "turn": steps[first].before.turn, "rolls": rolls}
    words = [
        f"{action.player} played heat_stroke in the climate phase [E1-24]: a die for each dinosaur on the board, "
        "which dies when the die and its species' parasols come to 4 or less [E1-26]."
    ]
    words += [
        f"{roll['player']}'s dinosaur on {roll['space']}: {roll['face']} + {roll['parasols']} = "
        f"{roll['face'] + roll['parasols']}, {'it died' if roll['died'] else 'it survived'}."
        for roll in rolls
    ]
    return Explanation("heat stroke", data, tuple(words), span=(first, last))


def faces_text(faces: Sequence[int]) -> str:
    if not faces:
        return "no face"
    return str(faces[0]) if len(faces) == 1 else f"{faces[0]}-{faces[-1]}"


def climate(step: Evo1Step) -> Explanation:
    [changed] = derived(step, "climate_changed")
    data = dict(changed.data)
    chart = step.before.kit.chart
    face = data.get("face", 0)
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
