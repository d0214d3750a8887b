"""Evo 2nd edition's read tables (documented in docs/projections.md) and the rows each event makes.

What a later fact needs from earlier ones is kept in the game's memory: the round, the climate wheel's position
(for the survival zones), the player owed a forced rebid, and the genes (and event cards) each player has won.
"""

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
from evo_ledger.rules.evo2 import flow
from evo_ledger.rules.evo2.actions import Bid, Birth, Overridden, Roll
from evo_ledger.rules.evo2.movement import DIE, WINNING_FACES

# The gene that keeps dinosaurs alive in each zone the climate threatens [E2-12].
PROTECTING_GENE = {"hot": "thermo", "cold": "fur", "deadly": "cave_dweller"}


def boolean(name: str) -> ReadColumn:
    return ReadColumn(name, "boolean")


TABLES = (
    ReadTable("read_round_standings", (PLAYER_KEY, text("name"), integer("mp"), integer("dinosaurs"))),
    ReadTable("read_final_standings", (PLAYER_KEY, text("name"), integer("rank"), integer("mp"), integer("dinosaurs"))),
    ReadTable(
        "read_bids",
        (
            *PLAYER,
            integer("amount"),
            text("target"),
            boolean("forced"),
            text("outbid_player", nullable=True),
            integer("outbid_amount", nullable=True),
        ),
    ),
    ReadTable("read_genes_offered", (text("gene"), integer("lab_column"))),
    ReadTable(
        "read_auction_results",
        (
            PLAYER_KEY,
            text("name"),
            integer("lab_column"),
            text("item", nullable=True),
            integer("bid"),
            integer("paid"),
        ),
    ),
    ReadTable(
        "read_combats",
        (
            text("attacker"),
            text("defender"),
            integer("attack_horns"),
            integer("defence_horns"),
            integer("difference"),
            text("face"),
            boolean("attacker_won"),
            ReadColumn("expected_win_rate", "real"),
            boolean("escaped"),
        ),
    ),
    ReadTable(
        "read_die_rolls",
        (ReadColumn("face", "text", values=tuple(DIE)), text("purpose"), text("recorder", nullable=True)),
        die="horn die",
    ),
    ReadTable("read_births", (*PLAYER, text("space"))),
    ReadTable(
        "read_survival_losses",
        (
            text("space", key=True),
            *PLAYER,
            text("zone"),
            text("protecting_gene", nullable=True),
            integer("protecting_layers"),
            boolean("chosen"),
        ),
    ),
    ReadTable("read_climate", (text("token", nullable=True), text("card", nullable=True), integer("position"))),
)


def expected_win_rate(difference: int) -> float:
    """The share of the die's faces on which an attacker with `difference` more horns wins [E2-09]."""
    winning = WINNING_FACES[max(-1, min(2, difference))]
    return sum(face in winning for face in DIE) / len(DIE)


class Evo2Reading:
    tables: tuple[ReadTable, ...] = TABLES
    reports: Mapping[str, GameReport] = MappingProxyType(
        {
            "standings": {
                "rounds": GameRows("read_round_standings", ("round", "event", "name")),
                "final": GameRows("read_final_standings", ("rank", "name")),
            },
            "auctions": {
                "bids": GameRows("read_bids", ("event",)),
                "results": GameRows("read_auction_results", ("event", "lab_column")),
            },
        }
    )
    statistics: Mapping[str, Statistic] = MappingProxyType(
        {
            "genes": Statistic(
                "read_auction_results",
                ("item",),
                {"won": Measure("count"), "mean_price": Measure("mean", "paid")},
                "per gene (and the event card, `card`) won in the lab: times won and the mean price paid "
                "after the vials' discount [E2-07]",
            ),
            "genes-offered": Statistic(
                "read_genes_offered",
                ("gene",),
                {"offered": Measure("count")},
                "per gene: times offered in the lab [E2-06]",
            ),
            "combats": Statistic(
                "read_combats",
                ("difference",),
                {
                    "combats": Measure("count"),
                    "attacker_wins": Measure("count_true", "attacker_won"),
                    "expected_win_rate": Measure("max", "expected_win_rate"),
                },
                "combats by the attacker's horn difference: the attacker's wins against the rate the "
                "horn die gives [E2-09]",
            ),
            "survival": Statistic(
                "read_survival_losses",
                ("zone", "protecting_gene", "protecting_layers"),
                {"losses": Measure("count"), "chosen": Measure("count_true", "chosen")},
                "dinosaurs lost to the climate by zone and by the layers held of the gene that protects there [E2-12]",
            ),
        }
    )
    facts: frozenset[str] = frozenset({"BidPlaced", "DieRolled", "DinosaurBorn"})
    consequences: frozenset[str] = frozenset(
        {
            "gene_placed",
            "bid_outbid",
            "auction_settled",
            "combat_resolved",
            "killer_baby_resolved",
            "dinosaurs_perished",
            "mp_awarded",
            "game_ended",
            "climate_changed",
            "initiative_set",
        }
    )

    def from_action(self, context: ReadContext, action: Any) -> Iterator[ReadItem]:
        if isinstance(action, Overridden):
            action = action.action
        if isinstance(action, Roll):
            yield ReadRow("read_die_rolls", {"face": action.face, "purpose": "other", "recorder": context.recorder})
        elif isinstance(action, Bid):
            forced = context.memory.get("rebid_due") == action.player
            context.memory["rebid_due"] = None
            yield ReadRow(
                "read_bids",
                {
                    **context.player(action.player),
                    "amount": action.amount,
                    "target": action.target,
                    "forced": forced,
                    "outbid_player": None,
                    "outbid_amount": None,
                },
            )
        elif isinstance(action, Birth):
            yield ReadRow("read_births", {**context.player(action.player), "space": action.space})

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        memory = context.memory
        memory["round"] = max(memory.get("round", 0), data["round"])
        derived = {"round": data["round"]}
        if kind == "gene_placed":
            yield ReadRow("read_genes_offered", {**derived, "gene": data["gene"], "lab_column": data["column"]})
        elif kind == "bid_outbid":
            yield ReadAmend("read_bids", cause, {"outbid_player": data["player"], "outbid_amount": data["bid"]})
            memory["rebid_due"] = data["player"]
        elif kind == "auction_settled":
            yield from self._auction_settled(context, derived, data)
        elif kind == "combat_resolved":
            yield ReadRow("read_combats", {**derived, **combat_columns(data)})
            yield ReadAmend("read_die_rolls", cause, {"purpose": "combat"})
        elif kind == "killer_baby_resolved":
            yield ReadAmend("read_die_rolls", cause, {"purpose": "killer_baby"})
        elif kind == "dinosaurs_perished":
            yield from self._perished(context, derived, data)
        elif kind == "mp_awarded":
            for name, mp in data["totals"].items():
                row = {**derived, **context.player(name), "mp": mp, "dinosaurs": data["awards"][name]}
                yield ReadRow("read_round_standings", row)
        elif kind == "game_ended":
            yield from self._ended(context, derived, data)
        elif kind == "initiative_set":
            yield ReadOrder(tuple(data["order"]))
        elif kind == "climate_changed":
            yield ReadRow(
                "read_climate",
                {**derived, "token": data.get("token"), "card": data.get("card"), "position": data["position"]},
            )
            memory["climate_position"] = data["position"]

    def _auction_settled(
        self, context: ReadContext, derived: dict[str, Any], data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        genes: dict[str, dict[str, int]] = context.memory.setdefault("genes", {})
        for result in data["results"]:
            item = result["item"]
            yield ReadRow(
                "read_auction_results",
                {
                    **derived,
                    **context.player(result["player"]),
                    "lab_column": result["column"],
                    "item": item,
                    "bid": result["bid"],
                    "paid": result["paid"],
                },
            )
            if item is not None:
                held = genes.setdefault(result["player"], {})
                held[item] = held.get(item, 0) + 1

    def _perished(self, context: ReadContext, derived: dict[str, Any], data: Mapping[str, Any]) -> Iterator[ReadItem]:
        position = context.memory.get("climate_position")
        zones = context.kit().zones[position] if position is not None else {}
        held = context.memory.get("genes", {}).get(data["player"], {})
        for space in data["spaces"]:
            zone = zones.get(space, "unknown")
            gene = PROTECTING_GENE.get(zone)
            yield ReadRow(
                "read_survival_losses",
                {
                    **derived,
                    "space": space,
                    **context.player(data["player"]),
                    "zone": zone,
                    "protecting_gene": gene,
                    "protecting_layers": held.get(gene, 0) if gene else 0,
                    "chosen": bool(data["chosen"]),
                },
            )

    def _ended(self, context: ReadContext, derived: dict[str, Any], data: Mapping[str, Any]) -> Iterator[ReadItem]:
        standings = []
        for standing in data["standings"]:
            name = standing["player"]
            yield ReadRow(
                "read_final_standings",
                {
                    **derived,
                    **context.player(name),
                    "rank": standing["rank"],
                    "mp": standing["mp"],
                    "dinosaurs": standing["dinosaurs"],
                },
            )
            standings.append(Standing(standing["rank"], name, (standing["mp"], standing["dinosaurs"])))
        yield ReadResult(Outcome(tuple(standings), flow.SCORE_LABELS))

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """The round and wheel position of the latest climate change, the player the latest bid outbid, and the
        genes won in the auctions that stand."""
        climate = standing.get("read_climate", ())
        bids = standing.get("read_bids", ())
        genes: dict[str, dict[str, int]] = {}
        for result in standing.get("read_auction_results", ()):
            if result["item"] is not None:
                held = genes.setdefault(result["name"], {})
                held[result["item"]] = held.get(result["item"], 0) + 1
        return {
            "round": climate[-1]["round"] if climate else 0,
            "climate_position": climate[-1]["position"] if climate else None,
            "rebid_due": bids[-1]["outbid_player"] if bids else None,
            "genes": genes,
        }


def combat_columns(data: Mapping[str, Any]) -> dict[str, Any]:
    difference = data["attack_horns"] - data["defence_horns"]
    return {
        "attacker": data["attacker"],
        "defender": data["defender"],
        "attack_horns": data["attack_horns"],
        "defence_horns": data["defence_horns"],
        "difference": difference,
        "face": data["face"],
        "attacker_won": data["winner"] == data["attacker"],
        "expected_win_rate": expected_win_rate(difference),
        "escaped": data.get("escape_from") is not None,
    }
