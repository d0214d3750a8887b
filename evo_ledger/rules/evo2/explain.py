"""Why the rules decided as they did: a combat [E2-09], a survival phase [E2-12], an auction [E2-07] and a climate
reveal [E2-04], as data and in words, from the states before the game's actions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from evo_ledger.rules.base import Consequence, Explanation, RuleViolation, Step
from evo_ledger.rules.evo2 import auction, climate, survival
from evo_ledger.rules.evo2.actions import Action, Attack, Bid, Overridden, RevealClimate, Roll
from evo_ledger.rules.evo2.movement import WINNING_FACES
from evo_ledger.rules.evo2.state import ATTACK_ROLL, Phase, State

Evo2Step = Step[State, Action]
FACES = ("horn", "horn=", "horn+", "horn++")
ODDS_ROWS = {-1: "-1 or less", 0: "0", 1: "+1", 2: "+2 or more"}
# How each gene adds to an attack or a defence [E2-09].
ATTACK_GENES = {"horns": 1, "large_horn": 2}
DEFENCE_GENES = {"horns": 1, "bony_plates": 2}


def explain(
    steps: Sequence[Evo2Step], at: int, survival_start: Callable[[Evo2Step], State | None]
) -> Explanation | None:
    """The combat, survival phase, auction or climate reveal `steps[at]` belongs to; `survival_start` gives the
    state as the survival phase began inside a step, or None if it did not begin there."""
    step = steps[at]
    action = _plain(step.action)
    if isinstance(action, Attack) and at + 1 < len(steps):
        return explain(steps, at + 1, survival_start)
    if isinstance(action, Roll) and step.before.pending is not None and step.before.pending.kind == ATTACK_ROLL:
        return replace(combat(step), span=(at - 1, at))
    if isinstance(action, Bid) or _kinds(step) & {"bid_outbid", "auction_settled"}:
        return auction_of(steps, at)
    if isinstance(action, RevealClimate):
        return climate_reveal(step)
    return survival_of(steps, at, survival_start)


def _plain(action: Action) -> Action:
    return action.action if isinstance(action, Overridden) else action


def _kinds(step: Evo2Step) -> set[str]:
    return {consequence.kind for consequence in step.consequences}


def _derived(step: Evo2Step, kind: str) -> list[Consequence]:
    return [consequence for consequence in step.consequences if consequence.kind == kind]


def horns(state: State, player: str, genes: dict[str, int], modifier: str) -> dict[str, Any]:
    """A side's horns, each source apart: its genes, then the cards played for it this round."""
    owned = state.players[player].genes
    sources: list[dict[str, Any]] = [
        {"source": gene, "count": owned[gene], "value": owned[gene] * weight}
        for gene, weight in genes.items()
        if owned[gene]
    ]
    sources += [{"source": f"card {m.card}", "count": 1, "value": m.value} for m in state.active(modifier, player)]
    return {"player": player, "horns": sum(source["value"] for source in sources), "sources": sources}


def combat(step: Evo2Step) -> Explanation:
    state, pending = step.before, step.before.pending
    assert pending is not None and pending.source is not None and isinstance(step.action, Roll)
    defender = state.board[pending.target]
    attack = horns(state, pending.player, ATTACK_GENES, "attack")
    defence = horns(state, defender, DEFENCE_GENES, "defence")
    difference = attack["horns"] - defence["horns"]
    row = max(-1, min(2, difference))
    winning = [face for face in FACES if face in WINNING_FACES[row]]
    [resolved] = _derived(step, "combat_resolved")
    face, winner = step.action.face, resolved.data["winner"]
    data = {
        "round": state.round,
        "attacker": pending.player,
        "defender": defender,
        "source": pending.source,
        "target": pending.target,
        "attack": attack,
        "defence": defence,
        "difference": difference,
        "odds_row": ODDS_ROWS[row],
        "winning_faces": winning,
        "face": face,
        "winner": winner,
        "removed": resolved.data["removed"],
        "escape_from": resolved.data["escape_from"],
    }
    words = (
        f"{pending.player} attacks {defender}'s dinosaur on {pending.target} from {pending.source} "
        f"in round {state.round} [E2-09].",
        f"{pending.player}'s horns: {_sum_words(attack)}; {defender}'s: {_sum_words(defence)}.",
        f"The difference is {difference:+d}: the odds table's row {ODDS_ROWS[row]!r}, where the attacker wins on "
        f"{', '.join(winning)}.",
        f"The die shows {face}: {winner} wins{_combat_end(data)}.",
    )
    return Explanation("combat", data, words)


def _sum_words(side: dict[str, Any]) -> str:
    parts = [f"{source['source']} {source['value']}" for source in side["sources"]]
    return f"{side['horns']} ({', '.join(parts) or 'none'})"


def _combat_end(data: dict[str, Any]) -> str:
    if data["removed"]:
        return f"; the dinosaur on {data['removed']} is removed and the attacker moves in"
    if data["escape_from"]:
        return f"; the chameleon on {data['escape_from']} escapes [E2-10]"
    return "; the defender holds"


def survival_of(
    steps: Sequence[Evo2Step], at: int, survival_start: Callable[[Evo2Step], State | None]
) -> Explanation | None:
    """The survival phase the step is in or begins, from its first state to the last dinosaur that went."""
    first = at
    while first > 0 and steps[first].before.phase == Phase.SURVIVAL:
        first -= 1
    start = survival_start(steps[first])
    if start is None:
        return None
    perished: dict[str, dict[str, Any]] = {}
    for step in steps[first:]:
        for consequence in _derived(step, "dinosaurs_perished"):
            perished[consequence.data["player"]] = dict(consequence.data)
        if _derived(step, "mp_awarded"):
            break
    return survival_phase(start, perished)


def keep_sources(state: State, player: str) -> dict[str, list[str]]:
    """What lets a player keep dinosaurs in each zone the climate threatens [E2-12, E2-15]."""
    owned = state.players[player].genes
    sources: dict[str, list[str]] = {"hot": [], "cold": [], "deadly": []}
    for zone, gene, saving in (("hot", "thermo", "survive_hot"), ("cold", "fur", "survive_cold")):
        if owned[gene]:
            sources[zone].append(f"{gene} {owned[gene]}")
        sources[zone] += [f"card {m.card} {m.value:+d}" for m in state.active(gene)]
        sources[zone] += [f"card {m.card}: all are saved" for m in state.active(saving, player)]
    if owned["cave_dweller"]:
        sources["deadly"].append("cave_dweller 1")
    return sources


def survival_phase(start: State, perished: dict[str, dict[str, Any]]) -> Explanation:
    zones = start.kit.zones[start.climate_position]
    players, words = [], [f"The survival phase of round {start.round} [E2-12], in initiative order:"]
    for name in start.order:
        owed = survival.due(start, name)
        own = sorted(space for space, owner in start.board.items() if owner == name)
        gone = perished.get(name, {})
        player = {
            "player": name,
            "dinosaurs": {zone: [s for s in own if zones[s] == zone] for zone in ("ideal", *survival.AT_RISK)},
            "keeps": {zone: _kept(owed.keep[zone]) for zone in survival.AT_RISK},
            "keep_sources": keep_sources(start, name),
            "floor": start.players[name].floor,
            "must_lose": owed.count,
            "ways": owed.choices(),
            "lost": sorted(gone.get("spaces", [])),
            "chosen_by_player": bool(gone.get("chosen", False)),
        }
        players.append(player)
        words.append(_survival_words(player))
    zone_counts = {zone: sum(1 for s in zones if zones[s] == zone) for zone in ("ideal", *survival.AT_RISK)}
    data = {"round": start.round, "climate_position": start.climate_position, "zones": zone_counts, "players": players}
    return Explanation("survival", data, tuple(words))


def _kept(count: int) -> int | str:
    return "all" if count >= survival.ALL else count


def _survival_words(player: dict[str, Any]) -> str:
    dinosaurs, keeps = player["dinosaurs"], player["keeps"]
    at_risk = [
        f"{len(dinosaurs[zone])} in {zone} (keeps {keeps[zone]})" for zone in survival.AT_RISK if dinosaurs[zone]
    ]
    where = "; ".join(at_risk) or "none in danger"
    if not player["must_lose"]:
        return f"  {player['player']}: {where}: loses none (floor {player['floor']})."
    how = "chose" if player["chosen_by_player"] else "had no choice, losing"
    return (
        f"  {player['player']}: {where}: must lose {player['must_lose']} (floor {player['floor']}, "
        f"{player['ways']} way{'s' if player['ways'] != 1 else ''}); {how} {', '.join(player['lost'])}."
    )


def auction_of(steps: Sequence[Evo2Step], at: int) -> Explanation:
    """The auction of the step's round: each bid in order, the outbids, the settlement [E2-07]."""
    round_number = steps[at].before.round
    bids, settled, vials = [], None, {}
    for step in steps:
        action = _plain(step.action)
        if step.before.round != round_number or not isinstance(action, Bid):
            continue
        column = auction.resolve_column(step.before, action.target)
        outbid = [dict(c.data) for c in _derived(step, "bid_outbid")]
        bids.append(
            {
                "player": action.player,
                "amount": action.amount,
                "column": column,
                "item": auction.column_item(step.before, column),
                "forced_rebid": step.before.outbid is not None,
                "outbid": outbid[0]["player"] if outbid else None,
            }
        )
        for result in _derived(step, "auction_settled"):
            settled = result.data["results"]
            vials = {name: p.genes["vial"] for name, p in step.before.players.items()}
    settlement = [
        {**result, "discount": result["bid"] - result["paid"], "vials": vials[result["player"]]}
        for result in settled or []
    ]
    data = {"round": round_number, "bids": bids, "settled": settled is not None, "settlement": settlement}
    return Explanation("auction", data, tuple(_auction_words(data)))


def _auction_words(data: dict[str, Any]) -> list[str]:
    words = [f"The auction of round {data['round']} [E2-07]:"]
    for bid in data["bids"]:
        forced = " (outbid, bidding again at once)" if bid["forced_rebid"] else ""
        outbids = f", outbidding {bid['outbid']}" if bid["outbid"] else ""
        words.append(
            f"  {bid['player']} bids {bid['amount']} on column {bid['column']} ({bid['item']}){forced}{outbids}."
        )
    for paid in data["settlement"]:
        discount = f" less {paid['discount']} for {paid['vials']} vials" if paid["discount"] else ""
        words.append(f"  {paid['player']} takes {paid['item']} for {paid['paid']} MP: the bid {paid['bid']}{discount}.")
    if not data["settled"]:
        words.append("  The auction is not settled yet.")
    return words


def climate_reveal(step: Evo2Step) -> Explanation:
    """The token revealed, beside what the pile's composition and the round allowed [E2-04]."""
    state = step.before
    assert isinstance(step.action, RevealClimate)
    pile = state.kit.climate.tokens
    left = {token: held - state.revealed.get(token, 0) for token, held in sorted(pile.items())}
    possible = sorted(token for token, count in left.items() if count and _can_come_up(state, token))
    window = climate.meteorite_rounds(state)
    changed = _derived(step, "climate_changed")
    data = {
        "round": state.round,
        "token": step.action.token,
        "left_before": left,
        "possible": possible,
        "meteorite_rounds": [window.start, window.stop - 1],
        "position_before": state.climate_position,
        "position_after": changed[0].data["position"] if changed else state.climate_position,
    }
    words = (
        f"Round {state.round} reveals {step.action.token!r} [E2-04].",
        f"The pile held {', '.join(f'{n} {t}' for t, n in left.items() if n)}; the meteorite lies among the last "
        f"tokens, so it can come up in rounds {window.start} to {window.stop - 1}.",
        f"This round could reveal {', '.join(possible)}.",
        f"The climate moves from position {data['position_before']} to {data['position_after']}."
        if changed
        else "The meteorite ends the game.",
    )
    return Explanation("climate", data, words)


def _can_come_up(state: State, token: str) -> bool:
    try:
        climate.check_token(state, token, state.round)
    except RuleViolation:
        return False
    return True
