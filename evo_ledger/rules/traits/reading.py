"""The trait-card game's read tables (documented in docs/projections.md) and the rows each event makes. A row's
`round` is the millennium it belongs to."""

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
from evo_ledger.rules.traits import flow

TABLES = (
    ReadTable(
        "read_tr_millennia",
        (
            PLAYER_KEY,
            text("name"),
            text("species"),
            integer("tokens"),
            integer("bonus"),
            integer("genome_cards"),
            integer("genome_points"),
            integer("points"),
        ),
    ),
    ReadTable(
        "read_tr_actions",
        (
            *PLAYER,
            text("species"),
            integer("generation"),
            text("kind"),
            text("target"),
            text("location"),
            integer("cards"),
            integer("tokens"),
        ),
    ),
    ReadTable(
        "read_tr_traits_played",
        (*PLAYER, text("species"), text("kind"), text("trait", key=True), integer("cards")),
    ),
    ReadTable(
        "read_tr_extinctions",
        (text("location"), text("deck"), text("card", key=True), integer("tokens"), integer("threshold")),
    ),
)
FOOD = {"hunted": ("hunt", "fauna"), "foraged": ("forage", "flora")}


class TraitsReading:
    tables: tuple[ReadTable, ...] = TABLES
    reports: Mapping[str, GameReport] = MappingProxyType(
        {
            "standings": {
                "millennia": GameRows("read_tr_millennia", ("round", "event", "name")),
                "extinctions": GameRows("read_tr_extinctions", ("event", "card")),
                "final": GameRows("read_results", ("rank", "name")),
            },
        }
    )
    statistics: Mapping[str, Statistic] = MappingProxyType(
        {
            "actions": Statistic(
                "read_tr_actions",
                ("kind",),
                {
                    "actions": Measure("count"),
                    "mean_cards": Measure("mean", "cards"),
                    "mean_tokens": Measure("mean", "tokens"),
                },
                "hunts, forages and migrations: how many, and the mean cards played and tokens won "
                "[TR-08, TR-09, TR-10]",
            ),
            "traits": Statistic(
                "read_tr_traits_played",
                ("trait",),
                {"plays": Measure("count"), "cards": Measure("sum", "cards")},
                "trait cards played, by trait [TR-08]",
            ),
            "extinctions": Statistic(
                "read_tr_extinctions",
                ("deck",),
                {"extinctions": Measure("count"), "mean_threshold": Measure("mean", "threshold")},
                "cards gone extinct, by deck, and the mean threshold they passed [TR-14]",
            ),
        }
    )
    facts: frozenset[str] = frozenset()
    consequences: frozenset[str] = frozenset(
        {
            "millennium_begun",
            "hunted",
            "foraged",
            "migrated",
            "generation_ended",
            "extinct",
            "scored",
            "genome_target",
            "game_ended",
        }
    )

    def from_action(self, context: ReadContext, action: Any) -> Iterator[ReadItem]:
        return iter(())

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        memory = context.memory
        if kind == "millennium_begun":
            memory["round"], memory["generations"] = data["millennium"], {}
            seats = context.seats
            first = seats.index(data["start"])
            yield ReadOrder(seats[first:] + seats[:first])
        elif kind in FOOD:
            yield from food(context, kind, data)
        elif kind == "migrated":
            yield ReadRow("read_tr_actions", action_row(context, data, "migrate", data["target"], data["source"], 2, 0))
        elif kind == "generation_ended":
            generations = memory.setdefault("generations", {})
            generations[data["player"]] = generations.get(data["player"], 0) + 1
        elif kind == "extinct":
            yield ReadRow(
                "read_tr_extinctions",
                {**{key: data[key] for key in ("location", "deck", "card", "tokens")}, "threshold": data["limit"]},
            )
        elif kind == "scored":
            memory.setdefault("scored", {})[data["player"]] = [data["tokens"], data["bonus"]]
        elif kind == "genome_target":
            tokens, bonus = memory.get("scored", {}).get(data["player"], [0, 0])
            yield ReadRow(
                "read_tr_millennia",
                {
                    **context.player(data["player"]),
                    "species": data["species"],
                    "tokens": tokens,
                    "bonus": bonus,
                    "genome_cards": len(data["cards"]),
                    "genome_points": data["points"],
                    "points": data["total"],
                },
            )
        elif kind == "game_ended":
            standings = tuple(Standing(s["rank"], s["player"], tuple(s["score"])) for s in data["standings"])
            yield ReadResult(Outcome(standings, flow.SCORE_LABELS))

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """The millennium of the latest row that stands; generations are counted again from the next one."""
        rounds = [rows[-1]["round"] for rows in standing.values() if rows]
        return {"round": max(rounds, default=0), "generations": {}}


def action_row(
    context: ReadContext, data: Mapping[str, Any], kind: str, target: str, location: str, cards: int, tokens: int
) -> dict[str, Any]:
    generation = context.memory.get("generations", {}).get(data["player"], 0) + 1
    return {
        **context.player(data["player"]),
        "species": data["species"],
        "generation": generation,
        "kind": kind,
        "target": target,
        "location": location,
        "cards": cards,
        "tokens": tokens,
    }


def food(context: ReadContext, kind: str, data: Mapping[str, Any]) -> Iterator[ReadItem]:
    verb, deck = FOOD[kind]
    yield ReadRow(
        "read_tr_actions",
        action_row(context, data, verb, data[deck], data["location"], len(data["cards"]), data["tokens"]),
    )
    played: dict[str, int] = {}
    for trait in data["cards"]:
        played[trait] = played.get(trait, 0) + 1
    for trait, count in played.items():
        row = {
            **context.player(data["player"]),
            "species": data["species"],
            "kind": verb,
            "trait": trait,
            "cards": count,
        }
        yield ReadRow("read_tr_traits_played", row)
