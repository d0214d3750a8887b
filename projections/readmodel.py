"""How each event of the log changes the read tables (projections/schema.py).

`ReadModel.handle` takes the events of the global log in order, inside one open transaction; the runner stores
the position reached in the same transaction. What a fact needs from earlier events (the round, the wheel
position, whether a bid is a forced rebid, the genes a player holds) is kept per game in `GameContext`, written
back to `read_games` with the position and read again from the tables after a restart or an undo.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, and_, bindparam, func, select, update

from evo_ledger.access import GameAccess
from evo_ledger.game import Game, topic_of
from evo_ledger.rules import AnyRuleset, get_ruleset, rulesets
from evo_ledger.rules.evo2.actions import Bid, Birth, Overridden, Roll
from evo_ledger.rules.evo2.movement import DIE, WINNING_FACES
from evo_ledger.rules.hexisland.kit import Kit
from projections.schema import (
    AUCTION_RESULTS,
    BIDS,
    BIRTHS,
    CLIMATE,
    COMBATS,
    DIE_ROLLS,
    FACT_TABLES,
    FINAL_STANDINGS,
    GAME_PLAYERS,
    GAMES,
    GENES_OFFERED,
    ROUND_STANDINGS,
    SURVIVAL_LOSSES,
)

# The gene that keeps dinosaurs alive in each zone the climate threatens [E2-12].
PROTECTING_GENE = {"hot": "thermo", "cold": "fur", "deadly": "cave_dweller"}
ACTION_TOPICS = frozenset(
    ruleset.vocabulary.topic(fact) for ruleset in rulesets().values() for fact in ruleset.vocabulary.facts
)
GAME_TOPIC_PREFIX = topic_of("")
PARSED_ACTIONS = frozenset(topic_of(name) for name in ("BidPlaced", "DieRolled", "DinosaurBorn"))
ACCESS_TOPICS = frozenset(
    {GameAccess.Granted.TOPIC, GameAccess.TokenReplaced.TOPIC, GameAccess.PrivacySet.TOPIC}
)  # fmt: skip

# The games' rows, written back in one statement for all the games of a transaction: an UPDATE built for each
# game was half of the read tables' CPU with many games at once.
THE_GAME = "the_game"
GAME_ROW_UPDATE = update(GAMES).where(GAMES.c.game_id == bindparam(THE_GAME))


def expected_win_rate(difference: int) -> float:
    """The share of the die's faces on which an attacker with `difference` more horns wins [E2-09]."""
    winning = WINNING_FACES[max(-1, min(2, difference))]
    return sum(face in winning for face in DIE) / len(DIE)


@dataclass
class GameContext:
    """A game's row in `read_games` (kept up to date in memory), its players by name, and what is read lazily."""

    row: dict[str, Any]
    players: dict[str, str]
    genes: dict[str, Counter[str]] | None = None
    kit: Kit | None = None
    rules: AnyRuleset | None = field(default=None, repr=False)

    @property
    def game_id(self) -> str:
        return str(self.row["game_id"])

    @property
    def round(self) -> int:
        return int(self.row["rounds"])

    def ruleset(self) -> AnyRuleset:
        if self.rules is None:
            self.rules = get_ruleset(self.row["ruleset"], self.row["ruleset_version"])
        return self.rules


class Batch:
    """Rows to insert, kept until `flush` (one statement per table); changes to rows not yet flushed are made
    in memory."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.rows: dict[Table, list[dict[str, Any]]] = {}

    def insert(self, table: Table, row: dict[str, Any]) -> dict[str, Any]:
        self.rows.setdefault(table, []).append(row)
        return row

    def amend(self, table: Table, game_id: str, event: int, **changes: Any) -> None:
        """Change the row of `table` made from the game's `event`, whether it is still here or stored."""
        for row in reversed(self.rows.get(table, ())):
            if row["game_id"] == game_id and row["event"] == event:
                row.update(changes)
                return
        where = and_(table.c.game_id == game_id, table.c.event == event)
        self.connection.execute(update(table).where(where).values(changes))

    def flush(self) -> None:
        write = copy_rows if self.connection.dialect.name == "postgresql" else insert_rows
        for table, rows in self.rows.items():
            if rows:
                write(self.connection, table, rows)
        self.rows = {}


def insert_rows(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Rows given to the driver's `executemany` as tuples: SQLAlchemy's handling of each row's parameters was a
    quarter of the read tables' CPU."""
    names = [column.name for column in table.columns]
    statement = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    connection.exec_driver_sql(statement, [tuple(row[name] for name in names) for row in rows])


def copy_rows(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Rows written by PostgreSQL's COPY, in the connection's transaction: many times faster than INSERTs."""
    names = [column.name for column in table.columns]
    statement = f"COPY {table.name} ({', '.join(names)}) FROM STDIN"
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
        for row in rows:
            copy.write_row([row[name] for name in names])


class ReadModel:
    """The read tables' handlers, one per kind of event."""

    def __init__(self, kit_of_game: Callable[[str], Kit]) -> None:
        self.kit_of_game = kit_of_game
        self.games: dict[str, GameContext] = {}
        self.dirty: set[str] = set()
        self.access: dict[str, str] = {}
        self.handlers: dict[str, Callable[[Batch, GameContext, Any], None]] = {
            topic_of("ActionsUndone"): self._undone,
            topic_of("ActionCorrected"): self._corrected,
            topic_of("GenePlaced"): self._gene_placed,
            topic_of("BidOutbid"): self._outbid,
            topic_of("AuctionSettled"): self._auction_settled,
            topic_of("CombatResolved"): self._combat,
            topic_of("KillerBabyResolved"): self._killer_baby,
            topic_of("DinosaursPerished"): self._perished,
            topic_of("MPAwarded"): self._mp_awarded,
            topic_of("GameEnded"): self._ended,
            topic_of("ClimateChanged"): self._climate,
        }
        self.decoded = frozenset({*self.handlers, *PARSED_ACTIONS, *ACCESS_TOPICS, Game.Started.TOPIC})

    def wants(self, topic: str) -> bool:
        """Whether events of `topic` must be decoded (the others only count towards their game's length)."""
        return topic in self.decoded

    def forget(self) -> None:
        """After a transaction that did not commit: what is in memory is read again from the tables."""
        self.games.clear()
        self.dirty.clear()
        self.access.clear()

    def handle(self, batch: Batch, topic: str, originator: str, version: int, event: Any) -> None:
        """One event of the log, decoded if `wants(topic)` (else None)."""
        if topic == Game.Started.TOPIC:
            self._started(batch, event)
        elif topic in ACCESS_TOPICS:
            self._access(batch, topic, originator, event)
        elif topic.startswith(GAME_TOPIC_PREFIX):
            context = self._context(batch, originator)
            if context is None:
                return
            self._count(context, topic, version)
            handler = self.handlers.get(topic)
            if handler is not None:
                handler(batch, context, event)
            elif topic in PARSED_ACTIONS:
                self._action(batch, context, version, event.notation)

    def finish(self, batch: Batch) -> None:
        """The games' rows as they stand now, written before the position is."""
        batch.flush()
        rows = [{**self.games[game_id].row, THE_GAME: game_id} for game_id in sorted(self.dirty)]
        if rows:
            batch.connection.execute(GAME_ROW_UPDATE, rows)
        self.dirty.clear()

    # The game and its access.

    def _started(self, batch: Batch, event: Any) -> None:
        game_id = str(event.originator_id)
        players = {player["name"]: player["id"] for player in event.players}
        row = {
            "game_id": game_id,
            "ruleset": event.ruleset,
            "ruleset_version": event.version,
            "kit": event.kit,
            "kit_hash": event.kit_hash,
            "started_at": event.timestamp.isoformat(),
            "ended_at": None,
            "players": len(players),
            "generated": event.commitment is not None,
            "access_id": None,
            "recorder": None,
            "private": False,
            "status": "playing",
            "rounds": 0,
            "events": 1,
            "actions": 0,
            "actions_undone": 0,
            "climate_position": None,
            "rebid_due": None,
        }
        batch.insert(GAMES, dict(row))
        for player in event.players:
            batch.insert(
                GAME_PLAYERS,
                {"game_id": game_id, "seat": player["seat"], "player_id": player["id"], "name": player["name"]},
            )
        self.games[game_id] = GameContext(row, players, genes={})

    def _access(self, batch: Batch, topic: str, originator: str, event: Any) -> None:
        if topic == GameAccess.Granted.TOPIC:
            context = self._context(batch, str(event.game_id))
            if context is None:
                return
            context.row["access_id"] = originator
            self.access[originator] = context.game_id
            context.row["recorder"] = recorder_of(event.token_digest)
        else:
            context = self._context_of_access(batch, originator)
            if context is None:
                return
            if topic == GameAccess.TokenReplaced.TOPIC:
                context.row["recorder"] = recorder_of(event.token_digest)
            else:
                context.row["private"] = bool(event.private)
        self.dirty.add(context.game_id)

    def _count(self, context: GameContext, topic: str, version: int) -> None:
        row = context.row
        row["events"] = max(row["events"], version)
        if topic in ACTION_TOPICS or topic == topic_of("ActionCorrected"):
            row["actions"] += 1
        self.dirty.add(context.game_id)

    # Actions.

    def _action(self, batch: Batch, context: GameContext, version: int, notation: str) -> None:
        action = context.ruleset().parse_action(notation)
        if isinstance(action, Overridden):
            action = action.action
        if isinstance(action, Roll):
            batch.insert(DIE_ROLLS, self._fact(context, version, face=action.face, purpose="other",
                                               recorder=context.row["recorder"]))  # fmt: skip
        elif isinstance(action, Bid):
            self._bid(batch, context, version, action)
        elif isinstance(action, Birth):
            batch.insert(BIRTHS, self._fact(context, version, **self._player(context, action.player),
                                            space=action.space))  # fmt: skip

    def _bid(self, batch: Batch, context: GameContext, version: int, bid: Bid) -> None:
        forced = context.row["rebid_due"] == bid.player
        context.row["rebid_due"] = None
        row = self._fact(
            context, version, **self._player(context, bid.player), amount=bid.amount, target=bid.target,
            forced=forced, outbid_player=None, outbid_amount=None,
        )  # fmt: skip
        batch.insert(BIDS, row)

    def _corrected(self, batch: Batch, context: GameContext, event: Any) -> None:
        self._mark_undone(batch, context, [event.replaced])
        self._action(batch, context, event.originator_version, event.notation)

    def _undone(self, batch: Batch, context: GameContext, event: Any) -> None:
        self._mark_undone(batch, context, list(event.versions))

    def _mark_undone(self, batch: Batch, context: GameContext, versions: list[int]) -> None:
        """The facts that followed from these actions are kept, marked undone; what the game's later facts need
        is read again from what is left."""
        batch.flush()
        connection, game_id = batch.connection, context.game_id
        for table in FACT_TABLES:
            connection.execute(
                update(table).where(table.c.game_id == game_id, table.c.action.in_(versions)).values(undone=True)
            )
        context.row["actions_undone"] += len(versions)
        context.genes = None
        context.row.update(restored_context(connection, game_id))

    # Consequences.

    def _gene_placed(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        batch.insert(GENES_OFFERED, self._derived(context, event, gene=data["gene"], lab_column=data["column"]))

    def _outbid(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        batch.amend(BIDS, context.game_id, event.cause, outbid_player=data["player"], outbid_amount=data["bid"])
        context.row["rebid_due"] = data["player"]

    def _auction_settled(self, batch: Batch, context: GameContext, event: Any) -> None:
        genes = self._genes(batch, context)
        for result in event.data["results"]:
            item = result["item"]
            batch.insert(AUCTION_RESULTS, self._derived(
                context, event, **self._player(context, result["player"]), lab_column=result["column"], item=item,
                bid=result["bid"], paid=result["paid"],
            ))  # fmt: skip
            if item is not None:
                genes.setdefault(result["player"], Counter())[item] += 1

    def _combat(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        difference = data["attack_horns"] - data["defence_horns"]
        batch.insert(COMBATS, self._derived(
            context, event, attacker=data["attacker"], defender=data["defender"], attack_horns=data["attack_horns"],
            defence_horns=data["defence_horns"], difference=difference, face=data["face"],
            attacker_won=data["winner"] == data["attacker"], expected_win_rate=expected_win_rate(difference),
            escaped=data.get("escape_from") is not None,
        ))  # fmt: skip
        batch.amend(DIE_ROLLS, context.game_id, event.cause, purpose="combat")

    def _killer_baby(self, batch: Batch, context: GameContext, event: Any) -> None:
        batch.amend(DIE_ROLLS, context.game_id, event.cause, purpose="killer_baby")

    def _perished(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        position = context.row["climate_position"]
        zones = self._kit(context).zones[position] if position is not None else {}
        held = self._genes(batch, context).get(data["player"], Counter())
        for space in data["spaces"]:
            zone = zones.get(space, "unknown")
            gene = PROTECTING_GENE.get(zone)
            batch.insert(SURVIVAL_LOSSES, self._derived(
                context, event, space=space, **self._player(context, data["player"]), zone=zone,
                protecting_gene=gene, protecting_layers=held[gene] if gene else 0, chosen=bool(data["chosen"]),
            ))  # fmt: skip

    def _mp_awarded(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        for name, mp in data["totals"].items():
            batch.insert(ROUND_STANDINGS, self._derived(
                context, event, player_id=context.players[name], name=name, mp=mp, dinosaurs=data["awards"][name]
            ))  # fmt: skip

    def _ended(self, batch: Batch, context: GameContext, event: Any) -> None:
        for standing in event.data["standings"]:
            name = standing["player"]
            batch.insert(FINAL_STANDINGS, self._derived(
                context, event, player_id=context.players[name], name=name, rank=standing["rank"], mp=standing["mp"],
                dinosaurs=standing["dinosaurs"],
            ))  # fmt: skip
        context.row.update(status="over", ended_at=event.timestamp.isoformat())

    def _climate(self, batch: Batch, context: GameContext, event: Any) -> None:
        data = event.data
        batch.insert(CLIMATE, self._derived(
            context, event, token=data.get("token"), card=data.get("card"), position=data["position"]
        ))  # fmt: skip
        context.row["climate_position"] = data["position"]

    # Rows and what they need.

    @staticmethod
    def _fact(context: GameContext, version: int, **columns: Any) -> dict[str, Any]:
        return {"game_id": context.game_id, "event": version, "action": version, "round": context.round,
                **columns, "undone": False}  # fmt: skip

    @staticmethod
    def _derived(context: GameContext, event: Any, **columns: Any) -> dict[str, Any]:
        """A row made from a consequence: its round is the consequence's own, which is also the game's now."""
        round_number = event.data["round"]
        context.row["rounds"] = max(context.round, round_number)
        return {"game_id": context.game_id, "event": event.originator_version, "action": event.cause,
                "round": round_number, **columns, "undone": False}  # fmt: skip

    @staticmethod
    def _player(context: GameContext, name: str) -> dict[str, str]:
        return {"player_id": context.players[name], "name": name}

    def _kit(self, context: GameContext) -> Kit:
        if context.kit is None:
            context.kit = self.kit_of_game(context.game_id)
        return context.kit

    def _genes(self, batch: Batch, context: GameContext) -> dict[str, Counter[str]]:
        if context.genes is None:
            batch.flush()
            context.genes = genes_won(batch.connection, context.game_id)
        return context.genes

    def _context(self, batch: Batch, game_id: str) -> GameContext | None:
        """The game's context, read from the tables if it is not in memory (None: a game started before the
        read tables began, which cannot happen when they follow the log from its start)."""
        context = self.games.get(game_id)
        if context is None:
            batch.flush()
            context = load_context(batch.connection, game_id)
            if context is not None:
                self.games[game_id] = context
        return context

    def _context_of_access(self, batch: Batch, access: str) -> GameContext | None:
        game_id = self.access.get(access)
        if game_id is None:
            batch.flush()
            game_id = batch.connection.execute(
                select(GAMES.c.game_id).where(GAMES.c.access_id == access)
            ).scalar_one_or_none()
            if game_id is None:
                return None
            self.access[access] = game_id
        return self._context(batch, game_id)


def recorder_of(token_digest: str | None) -> str | None:
    """Who recorded a game's rolls, as dashboards name them: the beginning of the recorder token's digest."""
    return token_digest[:12] if token_digest else None


def load_context(connection: Connection, game_id: str) -> GameContext | None:
    row = connection.execute(select(GAMES).where(GAMES.c.game_id == game_id)).mappings().one_or_none()
    if row is None:
        return None
    players = connection.execute(
        select(GAME_PLAYERS.c.name, GAME_PLAYERS.c.player_id).where(GAME_PLAYERS.c.game_id == game_id)
    ).all()
    return GameContext(dict(row), {name: player_id for name, player_id in players})


def genes_won(connection: Connection, game_id: str) -> dict[str, Counter[str]]:
    """The genes (and event cards) each player has won so far, from the auctions not undone."""
    won: dict[str, Counter[str]] = {}
    rows = connection.execute(
        select(AUCTION_RESULTS.c.name, AUCTION_RESULTS.c.item, func.count())
        .where(AUCTION_RESULTS.c.game_id == game_id, ~AUCTION_RESULTS.c.undone, AUCTION_RESULTS.c.item.is_not(None))
        .group_by(AUCTION_RESULTS.c.name, AUCTION_RESULTS.c.item)
    )
    for name, item, count in rows:
        won.setdefault(name, Counter())[item] = count
    return won


def restored_context(connection: Connection, game_id: str) -> dict[str, Any]:
    """What the game's later facts need, from the facts not undone: the round, the wheel position, the player
    owed a forced rebid, and whether the game is over."""
    latest = _latest(connection, CLIMATE, game_id, (CLIMATE.c.round, CLIMATE.c.position))
    last_bid = _latest(connection, BIDS, game_id, (BIDS.c.outbid_player,))
    ended = connection.execute(
        select(func.count()).where(FINAL_STANDINGS.c.game_id == game_id, ~FINAL_STANDINGS.c.undone)
    ).scalar_one()
    round_number, position = latest if latest is not None else (0, None)
    return {
        "rounds": round_number,
        "climate_position": position,
        "rebid_due": last_bid[0] if last_bid is not None else None,
        **({} if ended else {"status": "playing", "ended_at": None}),
    }


def _latest(connection: Connection, table: Table, game_id: str, columns: Iterable[Any]) -> Any:
    return connection.execute(
        select(*columns).where(table.c.game_id == game_id, ~table.c.undone).order_by(table.c.event.desc()).limit(1)
    ).one_or_none()
