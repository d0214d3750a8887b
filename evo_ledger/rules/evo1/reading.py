"""Evo 1st edition's read tables (documented in docs/projections.md) and the rows each event makes. A row's
`round` is the turn it belongs to."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from evo_ledger.rules.base import PLAYER_COLUMNS as PLAYER
from evo_ledger.rules.base import (
    PLAYER_KEY,
    GameReport,
    GameRows,
    Measure,
    Outcome,
    ReadAmend,
    ReadColumn,
    ReadContext,
    ReadItem,
    ReadOrder,
    ReadResult,
    ReadRow,
    ReadTable,
    Standing,
    Statistic,
)
from evo_ledger.rules.base import integer_column as integer
from evo_ledger.rules.base import text_column as text
from evo_ledger.rules.evo1 import flow
from evo_ledger.rules.evo1.actions import Bid, PlayCard, Roll
from evo_ledger.rules.evo1.autosaur import autosaurs_of
from evo_ledger.rules.evo1.board import WINNING_FACES

# What a die face decides; a roll is an initiative roll unless what the rules derived from it says otherwise.
PURPOSES = {
    "climate_changed": "climate",
    "combat_resolved": "combat",
    "meteor_rolled": "meteor",
    "heat_stroke_rolled": "heat stroke",
    "autosaur_rolled": "autosaur bid",
}
D6 = ("1", "2", "3", "4", "5", "6")
TABLES = (
    ReadTable(
        "read_e1_final",
        (
            PLAYER_KEY,
            text("name"),
            integer("rank"),
            integer("score"),
            integer("dinosaurs"),
            ReadColumn("autosaur", "boolean"),
            ReadColumn("won", "boolean"),
        ),
    ),
    ReadTable("read_e1_turn_standings", (PLAYER_KEY, text("name"), integer("mp"), integer("dinosaurs"))),
    ReadTable(
        "read_e1_bids",
        (
            *PLAYER,
            integer("amount"),
            text("target"),
            text("outbid_player", nullable=True),
            integer("outbid_amount", True),
        ),
    ),
    ReadTable(
        "read_e1_auction_results",
        (
            PLAYER_KEY,
            text("name"),
            integer("row", nullable=True),
            text("gene", nullable=True),
            integer("bid"),
            integer("paid"),
            integer("vouchers"),
            ReadColumn("passed", "boolean"),
        ),
    ),
    ReadTable(
        "read_e1_cards_played",
        (*PLAYER, text("card"), text("targets"), text("timing"), text("recovered", nullable=True)),
    ),
    ReadTable(
        "read_e1_combats",
        (
            text("attacker"),
            text("defender"),
            integer("attacker_horns"),
            integer("defender_horns"),
            integer("difference"),
            integer("face"),
            ReadColumn("attacker_won", "boolean"),
            ReadColumn("expected_win_rate", "real"),
        ),
    ),
    ReadTable(
        "read_e1_die_rolls",
        (ReadColumn("face", "integer", values=D6), text("purpose"), text("recorder", nullable=True)),
        die="d6",
    ),
)


def expected_win_rate(difference: int) -> float:
    """The share of a d6's faces on which an attacker with `difference` more horns wins [E1-09]."""
    return WINNING_FACES[min(difference, 2)] / 6


class Evo1Reading:
    tables: tuple[ReadTable, ...] = TABLES
    reports: Mapping[str, GameReport] = MappingProxyType(
        {
            "standings": {
                "turns": GameRows("read_e1_turn_standings", ("round", "event", "name")),
                "final": GameRows("read_results", ("rank", "name")),
            },
            "auctions": {
                "bids": GameRows("read_e1_bids", ("event",)),
                "results": GameRows("read_e1_auction_results", ("event", "name")),
            },
        }
    )
    statistics: Mapping[str, Statistic] = MappingProxyType(
        {
            "cards": Statistic(
                "read_e1_cards_played",
                ("card", "timing"),
                {"played": Measure("count")},
                "event cards played, by card and by when in the turn [E1-23]",
            ),
            "combats": Statistic(
                "read_e1_combats",
                ("difference",),
                {
                    "combats": Measure("count"),
                    "attacker_wins": Measure("count_true", "attacker_won"),
                    "expected_win_rate": Measure("max", "expected_win_rate"),
                },
                "combats by the attacker's horn difference: the attacker's wins against the rate the d6 gives [E1-09]",
            ),
            "autosaurs": Statistic(
                "read_e1_final",
                ("autosaur",),
                {
                    "seats": Measure("count"),
                    "wins": Measure("count_true", "won"),
                    "mean_rank": Measure("mean", "rank"),
                    "mean_score": Measure("mean", "score"),
                },
                "finished seats, those the Autosaur rules run (true) and those players run (false): "
                "how many, their wins, mean place and mean score [AS-01]",
            ),
            "genes": Statistic(
                "read_e1_auction_results",
                ("gene",),
                {
                    "won": Measure("count"),
                    "mean_price": Measure("mean", "paid"),
                    "vouchers": Measure("sum", "vouchers"),
                },
                "per gene won at auction (none: a pass): times, the mean price after the mutant discount, "
                "and the vouchers spent [E1-19]",
            ),
        }
    )
    facts: frozenset[str] = frozenset({"BidPlaced", "DieRolled", "EventCardPlayed"})
    consequences: frozenset[str] = frozenset(
        {
            "initiative_set",
            "climate_changed",
            "combat_resolved",
            "meteor_rolled",
            "bid_outbid",
            "auction_settled",
            "mp_awarded",
            "game_ended",
            "card_played",
            "heat_stroke_rolled",
            "autosaur_rolled",
        }
    )

    def from_action(self, context: ReadContext, action: Any) -> Iterator[ReadItem]:
        if isinstance(action, Roll):
            yield ReadRow(
                "read_e1_die_rolls", {"face": action.face, "purpose": "initiative", "recorder": context.recorder}
            )
        elif isinstance(action, Bid):
            yield ReadRow(
                "read_e1_bids",
                {
                    **context.player(action.player),
                    "amount": action.amount,
                    "target": action.target,
                    "outbid_player": None,
                    "outbid_amount": None,
                },
            )
        elif isinstance(action, PlayCard):
            window = next(card.window for card in context.kit().cards if card.id == action.card)
            yield ReadRow(
                "read_e1_cards_played",
                {
                    **context.player(action.player),
                    "card": action.card,
                    "targets": " ".join(action.targets),
                    "timing": window,
                    "recovered": None,
                },
            )

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        context.memory["round"] = max(context.memory.get("round", 0), data["turn"])
        turn = {"round": data["turn"]}
        if kind in PURPOSES:
            yield ReadAmend("read_e1_die_rolls", cause, {"purpose": PURPOSES[kind]})
        if kind == "initiative_set":
            yield ReadOrder(tuple(data["order"]))
        elif kind == "combat_resolved":
            difference = data["attacker_horns"] - data["defender_horns"]
            yield ReadRow(
                "read_e1_combats",
                {
                    **turn,
                    "attacker": data["attacker"],
                    "defender": data["defender"],
                    "attacker_horns": data["attacker_horns"],
                    "defender_horns": data["defender_horns"],
                    "difference": difference,
                    "face": data["face"],
                    "attacker_won": data["winner"] == data["attacker"],
                    "expected_win_rate": expected_win_rate(difference),
                },
            )
        elif kind == "card_played" and "recovered" in data:
            yield ReadAmend("read_e1_cards_played", cause, {"recovered": data["recovered"]})
        elif kind == "bid_outbid":
            yield ReadAmend("read_e1_bids", cause, {"outbid_player": data["player"], "outbid_amount": data["amount"]})
        elif kind == "auction_settled":
            yield from self._settled(context, turn, data)
        elif kind == "mp_awarded":
            for name, mp in data["totals"].items():
                row = {**turn, **context.player(name), "mp": mp, "dinosaurs": data["awards"][name]}
                yield ReadRow("read_e1_turn_standings", row)
        elif kind == "game_ended":
            standings = tuple(Standing(s["rank"], s["player"], tuple(s["score"])) for s in data["standings"])
            yield ReadResult(Outcome(standings, flow.SCORE_LABELS))
            autosaurs = set(autosaurs_of(context.options().get("autosaurs")))
            for standing in standings:
                score, dinosaurs = standing.score[0], standing.score[-1]
                yield ReadRow(
                    "read_e1_final",
                    {
                        **turn,
                        **context.player(standing.player),
                        "rank": standing.rank,
                        "score": score,
                        "dinosaurs": dinosaurs,
                        "autosaur": standing.player in autosaurs,
                        "won": standing.rank == 1,
                    },
                )

    def _settled(self, context: ReadContext, turn: dict[str, Any], data: Mapping[str, Any]) -> Iterator[ReadItem]:
        for row in data["rows"]:
            yield ReadRow(
                "read_e1_auction_results",
                {
                    **turn,
                    **context.player(row["player"]),
                    "row": row["row"],
                    "gene": row["gene"],
                    "bid": row["bid"],
                    "paid": row["paid"],
                    "vouchers": row.get("vouchers", 0),
                    "passed": False,
                },
            )
        for player in data["passed"]:
            yield ReadRow(
                "read_e1_auction_results",
                {
                    **turn,
                    **context.player(player),
                    "row": None,
                    "gene": None,
                    "bid": 0,
                    "paid": 0,
                    "vouchers": 0,
                    "passed": True,
                },
            )

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """The turn of the latest row that stands."""
        rounds = [rows[-1]["round"] for rows in standing.values() if rows]
        return {"round": max(rounds, default=0)}
