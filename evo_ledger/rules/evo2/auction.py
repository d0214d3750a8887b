"""The gene auction and the initiative that follows it [E2-07, E2-08]."""

from __future__ import annotations

import re
from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation, passing
from evo_ledger.rules.effects import Effects, new_tuple
from evo_ledger.rules.evo2.actions import BID_CARD, Bid, Slot
from evo_ledger.rules.evo2.state import Marker, State

HIGHEST_BID = 6
CARD_COLUMN = 1
_COLUMN = re.compile(r"col(\d{1,18})")


def bidder(state: State) -> str:
    """An outbid player bids again at once; otherwise the next in the previous round's initiative order."""
    return state.outbid[0] if state.outbid else state.to_bid[0]


def columns(state: State) -> range:
    return range(1, len(state.players) + 1)


def column_item(state: State, column: int) -> str | None:
    return BID_CARD if column == CARD_COLUMN else state.lab[column - 2]


def resolve_column(state: State, target: str) -> int:
    if target == BID_CARD:
        return CARD_COLUMN
    match = _COLUMN.fullmatch(target)
    if match:
        column = int(match.group(1))
        if column not in columns(state):
            raise RuleViolation("E2-07", f"the lab has columns 1 to {len(state.players)}, not {column}")
        return column
    if target in state.lab:
        return state.lab.index(target) + 2
    offered = ", ".join(g for g in state.lab if g) or "no gene"
    raise RuleViolation("E2-07", f"no column of the lab holds {target!r}; it offers {offered} and the event card")


def occupant(state: State, column: int) -> tuple[str, Marker] | None:
    for name, marker in state.markers.items():
        if marker.column == column:
            return name, marker
    return None


def price(state: State, player: str, amount: int) -> int:
    """Alchemical vials won in earlier auctions discount the bid, not below 0 [E2-07]."""
    paid = amount - state.players[player].genes.get("vial", 0)
    return paid if paid > 0 else 0


def check_bid(state: State, action: Bid) -> None:
    expected = bidder(state)
    if action.player != expected:
        why = "was outbid and bids again at once" if state.outbid else "bids next in initiative order"
        raise RuleViolation("E2-07", f"{expected} {why}, not {action.player}")
    if not 0 <= action.amount <= HIGHEST_BID:
        raise RuleViolation("E2-07", f"bids are the printed spaces 0 to {HIGHEST_BID}, not {action.amount}")
    column = resolve_column(state, action.target)
    if state.outbid and column == state.outbid[1]:
        raise RuleViolation(
            "E2-07", f"{action.player} was outbid in column {column} and must bid in a different column"
        )
    held = occupant(state, column)
    if held is not None:
        _check_outbid(column, action.amount, *held)
    if (
        state.options["affordable_bids"]
        and price(state, action.player, action.amount) > state.players[action.player].mp
    ):
        raise RuleViolation(
            "E2-07",
            f"{action.player} would pay {price(state, action.player, action.amount)} MP for a bid of {action.amount} "
            f"but has {state.players[action.player].mp}",
        )


def _check_outbid(column: int, amount: int, holder: str, marker: Marker) -> None:
    if marker.amount >= HIGHEST_BID:
        raise RuleViolation("E2-07", f"{holder}'s bid of {HIGHEST_BID} in column {column} cannot be outbid")
    if amount <= marker.amount:
        raise RuleViolation(
            "E2-07",
            f"column {column} holds {holder}'s bid of {marker.amount}: a bid there must be higher, not {amount}",
        )


def apply_bid(state: State, action: Bid, effects: Effects) -> bool:
    """Returns True once every marker stands alone in its column and the auction is settled."""
    column = resolve_column(state, action.target)
    held = occupant(state, column)
    if state.outbid:
        state.outbid = None
    else:
        state.to_bid = state.to_bid[1:]
    state.markers = {**state.markers, action.player: new_tuple(Marker, (column, action.amount))}
    if held is not None:
        loser, marker = held
        del state.markers[loser]  # the dict just made above, this state's own
        state.outbid = (loser, column)
        effects.add(
            "bid_outbid",
            round=state.round,
            column=column,
            player=loser,
            bid=marker.amount,
            by=action.player,
            by_bid=action.amount,
        )
    if state.outbid or state.to_bid:
        return False
    settle(state, effects)
    return True


def settle(state: State, effects: Effects) -> None:
    """Everyone pays their bid less their vials; column 1 draws an event card, the others take their gene."""
    results = []
    for name, marker in sorted(state.markers.items(), key=lambda item: item[1].column):
        player = state.own_player(name)
        paid = price(state, name, marker.amount)
        item = column_item(state, marker.column)
        results.append({"player": name, "column": marker.column, "item": item, "bid": marker.amount, "paid": paid})
        player.mp -= paid
        if item == BID_CARD:
            player.event_cards += 1
        elif item is not None:
            player.genes[item] = player.genes.get(item, 0) + 1
            state.genes_taken = {**state.genes_taken, item: state.genes_taken.get(item, 0) + 1}
    effects.add("auction_settled", round=state.round, results=results)
    set_initiative(state, effects)


def set_initiative(state: State, effects: Effects) -> None:
    """Markers move above their lab column, then a stable sort puts fewer dinosaurs first [E2-08]."""
    by_column = sorted(state.markers, key=lambda name: state.markers[name].column)
    state.order = tuple(sorted(by_column, key=state.dinosaur_counts().__getitem__))
    state.markers = {}
    effects.add("initiative_set", round=state.round, order=list(state.order))


def slot_chooser(state: State) -> str | None:
    """The holder of adrenaline rush, who picks any place on the track after the sort [E2-08]."""
    return next((name for name in state.order if state.players[name].has("adrenaline_rush")), None)


def check_slot(state: State, action: Slot) -> None:
    chooser = slot_chooser(state)
    if action.player != chooser:
        raise RuleViolation("E2-08", f"only the holder of adrenaline rush picks a place; that is {chooser}")
    if not 1 <= action.place <= len(state.order):
        raise RuleViolation("E2-08", f"the initiative track has places 1 to {len(state.order)}, not {action.place}")


def apply_slot(state: State, action: Slot, effects: Effects) -> None:
    others = [name for name in state.order if name != action.player]
    others.insert(action.place - 1, action.player)
    state.order = tuple(others)
    effects.add("initiative_set", round=state.round, order=list(state.order), chosen_by=action.player)


def legal_bids(state: State) -> Iterator[Bid]:
    player = bidder(state)
    for column in columns(state):
        item = column_item(state, column)
        target = item if item is not None else f"col{column}"
        yield from passing(check_bid, state, (Bid(player, amount, target) for amount in range(HIGHEST_BID + 1)))
