"""The read tables: a stable interface for dashboards that read SQL directly (documented in docs/projections.md).

Every row comes from the log. `event` is the version, within its game, of the event a row was made from, and
`action` that of the action it followed from (the same for a row made from an action); `undone` turns true when
that action is undone or corrected, so a row is never deleted and statistics can count undone facts apart.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Boolean, Column, Float, Integer, MetaData, String, Table

metadata = MetaData()

POSITIONS = Table(
    "read_positions",
    metadata,
    Column("projection", String(), primary_key=True),
    Column("application", String(), nullable=False),
    Column("notification_id", BigInteger, nullable=False),
)


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
    Column("players", Integer, nullable=False),
    Column("generated", Boolean, nullable=False),
    Column("access_id", String(36), index=True),
    Column("recorder", String()),
    Column("private", Boolean, nullable=False, default=False),
    Column("status", String(), nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("events", Integer, nullable=False),
    Column("actions", Integer, nullable=False),
    Column("actions_undone", Integer, nullable=False),
    # Where the game stands, for the facts that follow: the wheel position, the player owed a forced rebid.
    Column("climate_position", Integer),
    Column("rebid_due", String()),
)

GAME_PLAYERS = Table(
    "read_game_players",
    metadata,
    _game_id(),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(), nullable=False, index=True),
    Column("name", String(), nullable=False),
)

ROUND_STANDINGS = _fact(
    "read_round_standings",
    Column("name", String(), nullable=False),
    Column("mp", Integer, nullable=False),
    Column("dinosaurs", Integer, nullable=False),
    key=("player_id",),
)

FINAL_STANDINGS = _fact(
    "read_final_standings",
    Column("name", String(), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("mp", Integer, nullable=False),
    Column("dinosaurs", Integer, nullable=False),
    key=("player_id",),
)

BIDS = _fact(
    "read_bids",
    Column("player_id", String(), nullable=False),
    Column("name", String(), nullable=False),
    Column("amount", Integer, nullable=False),
    Column("target", String(), nullable=False),
    Column("forced", Boolean, nullable=False),
    Column("outbid_player", String()),
    Column("outbid_amount", Integer),
)

GENES_OFFERED = _fact(
    "read_genes_offered",
    Column("gene", String(), nullable=False),
    Column("lab_column", Integer, nullable=False),
)

AUCTION_RESULTS = _fact(
    "read_auction_results",
    Column("name", String(), nullable=False),
    Column("lab_column", Integer, nullable=False),
    Column("item", String()),
    Column("bid", Integer, nullable=False),
    Column("paid", Integer, nullable=False),
    key=("player_id",),
)

COMBATS = _fact(
    "read_combats",
    Column("attacker", String(), nullable=False),
    Column("defender", String(), nullable=False),
    Column("attack_horns", Integer, nullable=False),
    Column("defence_horns", Integer, nullable=False),
    Column("difference", Integer, nullable=False),
    Column("face", String(), nullable=False),
    Column("attacker_won", Boolean, nullable=False),
    Column("expected_win_rate", Float, nullable=False),
    Column("escaped", Boolean, nullable=False),
)

DIE_ROLLS = _fact(
    "read_die_rolls",
    Column("face", String(), nullable=False),
    Column("purpose", String(), nullable=False),
    Column("recorder", String()),
)

BIRTHS = _fact(
    "read_births",
    Column("player_id", String(), nullable=False),
    Column("name", String(), nullable=False),
    Column("space", String(), nullable=False),
)

SURVIVAL_LOSSES = _fact(
    "read_survival_losses",
    Column("player_id", String(), nullable=False),
    Column("name", String(), nullable=False),
    Column("zone", String(), nullable=False),
    Column("protecting_gene", String()),
    Column("protecting_layers", Integer, nullable=False),
    Column("chosen", Boolean, nullable=False),
    key=("space",),
)

CLIMATE = _fact(
    "read_climate",
    Column("token", String()),
    Column("card", String()),
    Column("position", Integer, nullable=False),
)

FACT_TABLES = (
    ROUND_STANDINGS, FINAL_STANDINGS, BIDS, GENES_OFFERED, AUCTION_RESULTS, COMBATS, DIE_ROLLS, BIRTHS,
    SURVIVAL_LOSSES, CLIMATE,
)  # fmt: skip
READ_TABLES = (GAMES, GAME_PLAYERS, *FACT_TABLES)
