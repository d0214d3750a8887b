"""How each event of the log changes the read tables (projections/schema.py).

`ReadModel.handle` takes the events of the global log in order, inside one open transaction; the runner stores
the position reached in the same transaction. The games, their players and results are written here; the rows of
a ruleset's own tables come from its reading (its read models), which keeps what later facts need in the game's
memory, written back to `read_games` with the position and rebuilt from the rows that stand after an undo; a
ruleset without one has its games folded for their result (projections/folded.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Table, and_, bindparam, select, update

from evo_ledger.app.access import GameAccess
from evo_ledger.game.aggregate import Game, topic_of
from evo_ledger.game.notation import format_score
from evo_ledger.rules import AnyRuleset, get_ruleset, rulesets
from evo_ledger.rules.base import ReadAmend, ReadItem, ReadOrder, ReadResult, ReadRow
from evo_ledger.rules.contract import Reading
from projections.folded import FoldedOutcome, reading_for
from projections.ratings import rate_endings, refresh_ratings
from projections.records import READERS as RECORD_READERS
from projections.schema import GAME_PLAYERS, GAMES, RESULTS, TURN_ORDER, fact_tables, tables

ACTION_TOPICS = frozenset(
    ruleset.vocabulary.topic(fact) for ruleset in rulesets().values() for fact in ruleset.vocabulary.facts
)
GAME_TOPIC_PREFIX = topic_of("")
ACCESS_TOPICS = frozenset(
    {
        GameAccess.Granted.TOPIC,
        GameAccess.TokenReplaced.TOPIC,
        GameAccess.PrivacySet.TOPIC,
        GameAccess.BroadcastDelaySet.TOPIC,
        GameAccess.WithdrawalSet.TOPIC,
    }
)
UNDOING_TOPICS = frozenset({Game.ActionsUndone.TOPIC, Game.ActionCorrected.TOPIC})

# The games' rows, written back in one statement for all the games of a transaction, not an UPDATE built for each
# game (pays for: bench.projection_speed catch-up).
THE_GAME = "the_game"
GAME_ROW_UPDATE = update(GAMES).where(GAMES.c.game_id == bindparam(THE_GAME))


@dataclass(frozen=True)
class Read:
    """An event of a ruleset's that its reading reads: an action, or a consequence of the `kind` named."""

    reading: Reading
    kind: str | None = None


def ruleset_topics() -> dict[str, Read]:
    """The topics of the events each installed ruleset's reading reads."""
    found: dict[str, Read] = {}
    for ruleset in rulesets().values():
        reading, vocabulary = reading_for(ruleset), ruleset.vocabulary
        for fact in reading.facts:
            found[vocabulary.topic(fact)] = Read(reading)
        for kind in reading.consequences:
            found[vocabulary.topic(vocabulary.consequences[kind])] = Read(reading, kind=kind)
    return found


@dataclass
class GameContext:
    """A game's row in `read_games` (kept up to date in memory, its memory decoded), its players by name, and
    what is read lazily."""

    row: dict[str, Any]
    players: dict[str, str]
    memory: dict[str, Any]
    kit_of_game: Callable[[str], Any] = field(repr=False)
    options_of_game: Callable[[str], Mapping[str, Any]] = field(repr=False, default=lambda game_id: {})
    rules: AnyRuleset | None = field(default=None, repr=False)
    loaded_kit: Any = field(default=None, repr=False)
    loaded_options: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def game_id(self) -> str:
        return str(self.row["game_id"])

    @property
    def round(self) -> int:
        return int(self.memory.get("round", 0))

    @property
    def recorder(self) -> str | None:
        return self.row["recorder"]  # type: ignore[no-any-return]

    def ruleset(self) -> AnyRuleset:
        if self.rules is None:
            self.rules = get_ruleset(self.row["ruleset"], self.row["ruleset_version"])
        return self.rules

    def player(self, name: str) -> dict[str, str]:
        return {"player_id": self.players[name], "name": name}

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(self.players)

    def kit(self) -> Any:
        if self.loaded_kit is None:
            self.loaded_kit = self.kit_of_game(self.game_id)
        return self.loaded_kit

    def options(self) -> Mapping[str, Any]:
        if self.loaded_options is None:
            self.loaded_options = self.options_of_game(self.game_id)
        return self.loaded_options

    def written_row(self) -> dict[str, Any]:
        """The row as stored, its memory as JSON."""
        self.row["rounds"] = max(self.row["rounds"], self.round)
        return {**self.row, "memory": json.dumps(self.memory, sort_keys=True), THE_GAME: self.game_id}


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
    """Rows given to the driver's `executemany` as tuples, without SQLAlchemy's handling of each row's parameters
    (pays for: bench.projection_speed catch-up, SQLite)."""
    names = [column.name for column in table.columns]
    statement = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    connection.exec_driver_sql(statement, list(map(itemgetter(*names), rows)))


def copy_rows(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Rows written by PostgreSQL's COPY, in the connection's transaction, not by INSERTs (pays for:
    bench.projection_speed catch-up, PostgreSQL)."""
    names = [column.name for column in table.columns]
    statement = f"COPY {table.name} ({', '.join(names)}) FROM STDIN"
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
        for row in rows:
            copy.write_row([row[name] for name in names])


class ReadModel:
    """The read tables' handlers: the games' own, and each ruleset's reading."""

    def __init__(
        self, kit_of_game: Callable[[str], Any], options_of_game: Callable[[str], Mapping[str, Any]] = lambda _: {}
    ) -> None:
        self.kit_of_game = kit_of_game
        self.options_of_game = options_of_game
        self.games: dict[str, GameContext] = {}
        self.dirty: set[str] = set()
        self.access: dict[str, str] = {}
        self.ended: list[str] = []
        self.ratings_remade = False
        self.position = 0
        """The log position of the event being handled (the runner sets it)."""
        self.topics = ruleset_topics()
        self.decoded = frozenset({*self.topics, *UNDOING_TOPICS, *ACCESS_TOPICS, *RECORD_READERS, Game.Started.TOPIC})

    def wants(self, topic: str) -> bool:
        """Whether events of `topic` must be decoded (the others only count towards their game's length)."""
        return topic in self.decoded

    def forget(self) -> None:
        """After a transaction that did not commit: what is in memory is read again from the tables."""
        self.games.clear()
        self.dirty.clear()
        self.access.clear()
        self.ended, self.ratings_remade = [], False

    def handle(self, batch: Batch, topic: str, originator: str, version: int, event: Any) -> None:
        """One event of the log, decoded if `wants(topic)` (else None)."""
        if topic == Game.Started.TOPIC:
            self._started(batch, event)
        elif topic in ACCESS_TOPICS:
            self._access(batch, topic, originator, event)
        elif topic in RECORD_READERS:
            batch.flush()
            self.ratings_remade = RECORD_READERS[topic](batch.connection, event) or self.ratings_remade
        elif topic.startswith(GAME_TOPIC_PREFIX) or topic in self.topics or topic in ACTION_TOPICS:
            context = self._context(batch, originator)
            if context is None:
                return
            self._count(context, topic, version)
            read = self.topics.get(topic)
            if read is not None and read.kind is not None:
                items = read.reading.from_consequence(context, read.kind, event.cause, event.data)
                self._write(batch, context, (version, event.cause, event.timestamp), items)
            elif read is not None:
                self._action(batch, context, event)
            elif topic == Game.ActionsUndone.TOPIC:
                self._mark_undone(batch, context, list(event.versions))
            elif topic == Game.ActionCorrected.TOPIC:
                self._mark_undone(batch, context, [event.replaced])
                self._action(batch, context, event)

    def finish(self, batch: Batch) -> None:
        """The games' rows as they stand now, written before the position is, and the ratings of the games that
        ended (made again from the results when an ending was undone, or a game's privacy or withdrawal changed)."""
        batch.flush()
        rows = [self.games[game_id].written_row() for game_id in sorted(self.dirty)]
        if rows:
            batch.connection.execute(GAME_ROW_UPDATE, rows)
        self.dirty.clear()
        if self.ratings_remade:
            refresh_ratings(batch.connection)
        elif self.ended:
            rate_endings(batch.connection, self.ended)
        self.ended, self.ratings_remade = [], False

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
            "ended_position": None,
            "players": len(players),
            "generated": event.commitment is not None,
            "access_id": None,
            "recorder": None,
            "private": False,
            "broadcast_delay": 0.0,
            "withdrawn": False,
            "withdrawn_reason": None,
            "status": "ongoing",
            "rounds": 0,
            "events": 1,
            "actions": 0,
            "actions_undone": 0,
        }
        batch.insert(GAMES, {**row, "memory": "{}"})
        for player in event.players:
            batch.insert(
                GAME_PLAYERS,
                {"game_id": game_id, "seat": player["seat"], "player_id": player["id"], "name": player["name"]},
            )
        self.games[game_id] = GameContext(row, players, {}, self.kit_of_game, self.options_of_game)

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
            elif topic == GameAccess.BroadcastDelaySet.TOPIC:
                context.row["broadcast_delay"] = float(event.minutes)
            elif topic == GameAccess.WithdrawalSet.TOPIC:
                context.row["withdrawn"] = bool(event.withdrawn)
                context.row["withdrawn_reason"] = str(event.reason) if event.withdrawn else None
                self.ratings_remade = True
            else:
                context.row["private"] = bool(event.private)
                self.ratings_remade = True
        self.dirty.add(context.game_id)

    def _count(self, context: GameContext, topic: str, version: int) -> None:
        row = context.row
        row["events"] = max(row["events"], version)
        if topic in ACTION_TOPICS or topic == Game.ActionCorrected.TOPIC:
            row["actions"] += 1
        self.dirty.add(context.game_id)

    # The rows of the rulesets' readings.

    def _action(self, batch: Batch, context: GameContext, event: Any) -> None:
        rules = context.ruleset()
        reading = reading_for(rules)
        action = rules.parse_action(event.notation)
        if rules.fact_of(action) in reading.facts:
            version = event.originator_version
            where = (version, version, event.timestamp)
            self._write(batch, context, where, reading.from_action(context, action))

    def _write(
        self, batch: Batch, context: GameContext, where: tuple[int, int, datetime], items: Iterable[ReadItem]
    ) -> None:
        """The items a reading gave for an event: `where` is the event's version, its action's, and its time."""
        version, cause, _ = where
        for item in items:
            if isinstance(item, ReadRow):
                batch.insert(tables()[item.table], fact_row(context, version, cause, item.values))
            elif isinstance(item, ReadAmend):
                batch.amend(tables()[item.table], context.game_id, item.event, **item.changes)
            elif isinstance(item, ReadOrder):
                for place, name in enumerate(item.order, 1):
                    batch.insert(
                        TURN_ORDER, fact_row(context, version, cause, {**context.player(name), "place": place})
                    )
            else:
                self._result(batch, context, where, item)

    def _result(self, batch: Batch, context: GameContext, where: tuple[int, int, datetime], result: ReadResult) -> None:
        self.ended.append(context.game_id)
        version, cause, when = where
        for standing in result.outcome.standings:
            values = {
                **context.player(standing.player),
                "rank": standing.rank,
                "score": standing.score[0],
                "scores": format_score(standing.score),
            }
            batch.insert(RESULTS, fact_row(context, version, cause, values))
        context.row.update(status="over", ended_at=when.isoformat(), ended_position=self.position)

    def _mark_undone(self, batch: Batch, context: GameContext, versions: list[int]) -> None:
        """The facts that followed from these actions are kept, marked undone; what the game's later facts need
        is read again from what is left."""
        self.ratings_remade = self.ratings_remade or context.row["status"] == "over"
        batch.flush()
        connection, game_id = batch.connection, context.game_id
        for table in fact_tables():
            connection.execute(
                update(table).where(table.c.game_id == game_id, table.c.action.in_(versions)).values(undone=True)
            )
        context.row["actions_undone"] += len(versions)
        reading = reading_for(context.ruleset())
        if isinstance(reading, FoldedOutcome):
            reading.undone(context, len(versions))
        else:
            own = [tables()[spec.name] for spec in reading.tables]
            context.memory = reading.restored({table.name: standing(connection, table, game_id) for table in own})
        if not standing(connection, RESULTS, game_id):
            context.row.update(status="ongoing", ended_at=None, ended_position=None)

    def _context(self, batch: Batch, game_id: str) -> GameContext | None:
        """The game's context, read from the tables if it is not in memory (None: a game started before the
        read tables began, which cannot happen when they follow the log from its start)."""
        context = self.games.get(game_id)
        if context is None:
            batch.flush()
            context = load_context(batch.connection, game_id, self.kit_of_game, self.options_of_game)
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


def fact_row(context: GameContext, event: int, action: int, values: Mapping[str, Any]) -> dict[str, Any]:
    """A row of a fact table: the game, the event it was made from, that event's action and round, its values."""
    return {
        "game_id": context.game_id,
        "event": event,
        "action": action,
        "round": context.round,
        **values,
        "undone": False,
    }


def recorder_of(token_digest: str | None) -> str | None:
    """Who recorded a game's rolls, as dashboards name them: the beginning of the recorder token's digest."""
    return token_digest[:12] if token_digest else None


def load_context(
    connection: Connection,
    game_id: str,
    kit_of_game: Callable[[str], Any],
    options_of_game: Callable[[str], Mapping[str, Any]],
) -> GameContext | None:
    row = connection.execute(select(GAMES).where(GAMES.c.game_id == game_id)).mappings().one_or_none()
    if row is None:
        return None
    players = connection.execute(
        select(GAME_PLAYERS.c.name, GAME_PLAYERS.c.player_id)
        .where(GAME_PLAYERS.c.game_id == game_id)
        .order_by(GAME_PLAYERS.c.seat)
    ).all()
    stored = dict(row)
    memory = json.loads(stored.pop("memory"))
    players_by_name = {name: player_id for name, player_id in players}
    return GameContext(stored, players_by_name, memory, kit_of_game, options_of_game)


def standing(connection: Connection, table: Table, game_id: str) -> list[dict[str, Any]]:
    """The game's rows of `table` not undone, in event order."""
    where = and_(table.c.game_id == game_id, ~table.c.undone)
    return [dict(row) for row in connection.execute(select(table).where(where).order_by(table.c.event)).mappings()]
