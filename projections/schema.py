"""The read tables: a stable interface for dashboards that read SQL directly (documented in docs/projections.md).

Every row comes from the log. `event` is the version, within its game, of the event a row was made from, and
`action` that of the action it followed from (the same for a row made from an action); `undone` turns true when
that action is undone or corrected, so a row is never deleted and statistics can count undone facts apart.

The games, their players and their results are every ruleset's; each ruleset adds the tables its reading
declares (its read models: `ReadModels.reading`), built here from their plain descriptions.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ColumnElement,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    or_,
    select,
)

from evo_ledger.rules import rulesets
from evo_ledger.rules.base import ReadColumn, ReadTable
from evo_ledger.rules.contract import reading as reading_of

metadata = MetaData()
COLUMN_TYPES: dict[str, Any] = {"text": String, "integer": Integer, "real": Float, "boolean": Boolean}

POSITIONS = Table(
    "read_positions",
    metadata,
    Column("projection", String(), primary_key=True),
    Column("application", String(), nullable=False),
    Column("notification_id", BigInteger, nullable=False),
)

SET_ASIDE = Table(
    "read_set_aside",
    metadata,
    Column("position", BigInteger, primary_key=True),
    Column("game_id", String(36), nullable=False),
    Column("event", Integer, nullable=False),
    Column("error", String(), nullable=False),
)
"""The events of the log the tables could not apply, each set aside in the transaction that moved the position past
it: its position in the log, its game (for an event of a game's access, the access's id), its version there, and
the type of the error (its message, which may quote what a game keeps hidden, is only logged)."""


def _game_id() -> Column[str]:
    return Column("game_id", String(36), primary_key=True)


def _fact(name: str, *columns: Column[Any], key: tuple[str, ...] = ()) -> Table:
    """A table of facts from games' events: the game, the event, its action, the round, and whether undone."""
    keyed = [Column(column, String(), primary_key=True) for column in key]
    return Table(
        name,
        metadata,
        _game_id(),
        Column("event", Integer, primary_key=True),
        *keyed,
        Column("action", Integer, nullable=False),
        Column("round", Integer, nullable=False),
        *columns,
        Column("undone", Boolean, nullable=False, default=False),
    )


def _column(spec: ReadColumn) -> Column[Any]:
    return Column(spec.name, COLUMN_TYPES[spec.kind](), nullable=spec.nullable)


def ruleset_table(spec: ReadTable) -> Table:
    """A table a ruleset's reading declares, with the columns every fact table has."""
    key = tuple(column.name for column in spec.columns if column.key)
    columns = [_column(column) for column in spec.columns if not column.key]
    return _fact(spec.name, *columns, key=key)


GAMES = Table(
    "read_games",
    metadata,
    _game_id(),
    Column("ruleset", String(), nullable=False),
    Column("ruleset_version", String(), nullable=False),
    Column("kit", String(), nullable=False),
    Column("kit_hash", String(), nullable=False),
    Column("started_at", String(), nullable=False),
    Column("ended_at", String()),
    Column("ended_position", BigInteger),
    # The position in the log of the event that ended the game: games are rated in that order.
    Column("players", Integer, nullable=False),
    Column("generated", Boolean, nullable=False),
    Column("access_id", String(36), index=True),
    Column("recorder", String()),
    Column("private", Boolean, nullable=False, default=False),
    # How many minutes behind the table readers without a token follow the game until it ends (0: live).
    Column("broadcast_delay", Float, nullable=False, default=0),
    # A game withdrawn by its recorder or the admin (a test game, an abandoned one): kept in the log and in
    # audits, left out of standings, ratings and statistics, and out of lists unless asked for.
    Column("withdrawn", Boolean, nullable=False, default=False),
    Column("withdrawn_reason", String()),
    Column("status", String(), nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("events", Integer, nullable=False),
    Column("actions", Integer, nullable=False),
    Column("actions_undone", Integer, nullable=False),
    # What the ruleset's reading keeps of the game for the facts that follow, as JSON.
    Column("memory", Text(), nullable=False),
)


def shown_to_public() -> ColumnElement[bool]:
    """The games whose rows every reader gets: not private, and not broadcast with a delay while they go on (a
    table's rows are as the game stands now, which such a game's public may not see yet)."""
    return and_(~GAMES.c.private, or_(GAMES.c.broadcast_delay == 0, GAMES.c.status != "ongoing"))


@dataclass(frozen=True)
class Scope:
    """The games a statistic counts: whether private games' rows count (`include_private`, as the readers say for
    the caller), and, where given, only the games of one competition (by its id) or of the competitions of one
    season (by its label)."""

    include_private: bool = False
    competition: str | None = None
    season: str | None = None


PUBLIC_GAMES = Scope()
"""Every game shown to the public, of any competition or none."""


def counted_games(scope: Scope) -> ColumnElement[bool]:
    """The games every statistic counts (the one condition they share): those not withdrawn, and of them only those
    shown to the public (`shown_to_public`) unless private games' rows count, and only the scope's competition's or
    season's, where it names one."""
    conditions: list[ColumnElement[bool]] = [GAMES.c.withdrawn.is_(False)]
    if not scope.include_private:
        conditions.append(shown_to_public())
    if scope.competition is not None:
        entered = COMPETITION_GAMES.c.competition_id == scope.competition
        conditions.append(GAMES.c.game_id.in_(select(COMPETITION_GAMES.c.game_id).where(entered)))
    if scope.season is not None:
        in_season = (
            select(COMPETITION_GAMES.c.game_id)
            .join(COMPETITIONS, COMPETITIONS.c.competition_id == COMPETITION_GAMES.c.competition_id)
            .where(COMPETITIONS.c.season == scope.season)
        )
        conditions.append(GAMES.c.game_id.in_(in_season))
    return and_(*conditions)


GAME_PLAYERS = Table(
    "read_game_players",
    metadata,
    _game_id(),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(), nullable=False, index=True),
    Column("name", String(), nullable=False),
)

RESULTS = _fact(
    "read_results",
    Column("name", String(), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("scores", String(), nullable=False),
    key=("player_id",),
)

TURN_ORDER = _fact(
    "read_turn_order",
    Column("name", String(), nullable=False),
    Column("place", Integer, nullable=False),
    key=("player_id",),
)
"""Each order of play a game sets, a row a player: `place` 1 plays first in `round`. A game's first rows that
stand are the order it opened with (a ruleset's reading says which events set an order)."""

RATINGS = Table(
    "read_ratings",
    metadata,
    Column("ruleset", String(), primary_key=True),
    _game_id(),
    Column("person_id", String(), primary_key=True),
    Column("player_id", String(), nullable=False),
    Column("game", Integer, nullable=False),
    Column("name", String(), nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
)
"""Each person's rating after each rated game (projections/ratings.py), and the stable id (`player_id`) they sat
under in it: `game` counts the ruleset's rated games from 1, in the order they ended; `ordinal` is mu - 3 sigma."""
Index("read_ratings_by_game", RATINGS.c.ruleset, RATINGS.c.game)

RATINGS_NOW = Table(
    "read_ratings_now",
    metadata,
    Column("ruleset", String(), primary_key=True),
    Column("person_id", String(), primary_key=True),
    Column("player_id", String(), nullable=False),
    Column("game_id", String(36), nullable=False),
    Column("game", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)
"""Each person's latest rating in each ruleset, and the game it follows (its id and number): where the next
ending's rating starts."""

PEOPLE = Table(
    "read_people",
    metadata,
    Column("person_id", String(), primary_key=True),
    Column("name", String()),
    Column("merged_into", String()),
)
"""The people with a record of their own (projections/people.py): each one named (null until a keeper names them:
they are named as their stable ids last sat), renamed, merged into another (`merged_into`) or split. A stable id no
person's record claims is a person of its own, whose id is that stable id and whose name is the one it last sat
under."""

PERSON_SEATS = Table(
    "read_person_seats",
    metadata,
    Column("player_id", String(), primary_key=True),
    Column("person_id", String(), nullable=False, index=True),
)
"""The stable ids linked to a person other than their own: a stable id without a row here is its own person."""

COMPETITIONS = Table(
    "read_competitions",
    metadata,
    Column("competition_id", String(36), primary_key=True),
    Column("kind", String(), nullable=False),
    Column("name", String(), nullable=False),
    Column("season", String()),
    Column("scoring", String(), nullable=False),
    Column("points", String(), nullable=False),
    Column("created_at", String(), nullable=False),
)
"""Club nights, league seasons and tournaments (projections/competitions.py): the scoring their standings use
(`places` with the `points` each place gives, as a JSON list, or the games' own `scores`)."""

COMPETITION_GAMES = Table(
    "read_competition_games",
    metadata,
    Column("competition_id", String(36), primary_key=True),
    _game_id(),
    Column("round", Integer),
    Column("table_name", String()),
)
"""The games of each competition, with the round and the table the organiser gave each."""


RECORD_TABLES = (PEOPLE, PERSON_SEATS, COMPETITIONS, COMPETITION_GAMES)
"""The tables of the records kept beside the games: people and competitions."""


@cache
def ruleset_specs() -> dict[str, ReadTable]:
    """The tables the installed rulesets' readings declare, by name (the rulesets are loaded when first asked)."""
    return {
        spec.name: spec
        for ruleset in rulesets().values()
        if (reading := reading_of(ruleset))
        for spec in reading.tables
    }


_MAKING_TABLES = threading.Lock()


def ruleset_tables() -> dict[str, Table]:
    """The rulesets' read tables, made once, whichever thread asks first (and so added to `metadata`, which
    refuses a table made twice)."""
    with _MAKING_TABLES:
        return made_ruleset_tables()


@cache
def made_ruleset_tables() -> dict[str, Table]:
    return {name: ruleset_table(spec) for name, spec in ruleset_specs().items()}


def fact_tables() -> tuple[Table, ...]:
    """The tables of facts read from the games' events: every ruleset's, its results and turn order."""
    return (RESULTS, TURN_ORDER, *ruleset_tables().values())


def read_tables() -> tuple[Table, ...]:
    """Every read table the projections write."""
    return (GAMES, GAME_PLAYERS, *fact_tables(), RATINGS, RATINGS_NOW, *RECORD_TABLES)


@cache
def tables() -> dict[str, Table]:
    """Every read table, by name."""
    return {table.name: table for table in read_tables()}


@cache
def die_tables() -> dict[str, ReadTable]:
    """Each ruleset's table of die rolls, by the ruleset's name (a ruleset that rolls no die has none)."""
    return {
        name: spec
        for name, ruleset in rulesets().items()
        if (reading := reading_of(ruleset))
        for spec in reading.tables
        if spec.die is not None
    }


def column_values(table: str, column: str) -> tuple[str, ...]:
    """The values a ruleset's column takes, as its reading declares them."""
    return next(spec.values for spec in ruleset_specs()[table].columns if spec.name == column)
