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
    Column("projection", String(64), primary_key=True),
    Column("application", String(64), nullable=False),
    Column("notification_id", BigInteger, nullable=False),
)


def _game_id() -> Column[str]:
    return Column("game_id", String(36), primary_key=True)


def _fact(name: str, *columns: Column[Any], key: tuple[str, ...] = ()) -> Table:
    """A table of facts from games' events: the game, the event, its action, the round, and whether undone."""
    keyed = [Column(column, String(64), primary_key=True) for column in key]
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
    Column("ruleset", String(32), nullable=False),
    Column("ruleset_version", String(16), nullable=False),
    Column("kit", String(64), nullable=False),
    Column("kit_hash", String(64), nullable=False),
    Column("started_at", String(40), nullable=False),
    Column("ended_at", String(40)),
    Column("players", Integer, nullable=False),
    Column("generated", Boolean, nullable=False),
    Column("access_id", String(36), index=True),
    Column("recorder", String(16)),
    Column("private", Boolean, nullable=False, default=False),
    Column("status", String(8), nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("events", Integer, nullable=False),
    Column("actions", Integer, nullable=False),
    Column("actions_undone", Integer, nullable=False),
    # Where the game stands, for the facts that follow: the wheel position, the player owed a forced rebid.
    Column("climate_position", Integer),
    Column("rebid_due", String(64)),
)

GAME_PLAYERS = Table(
    "read_game_players",
    metadata,
    _game_id(),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(64), nullable=False, index=True),
    Column("name", String(64), nullable=False),
)

ROUND_STANDINGS = _fact(
    "read_round_standings",
    Column("name", String(64), nullable=False),
    Column("mp", Integer, nullable=False),
    Column("dinosaurs", Integer, nullable=False),
    key=("player_id",),
)

FINAL_STANDINGS = _fact(
    "read_final_standings",
    Column("name", String(64), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("mp", Integer, nullable=False),
    Column("dinosaurs", Integer, nullable=False),
    key=("player_id",),
)

BIDS = _fact(
    "read_bids",
    Column("player_id", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("amount", Integer, nullable=False),
    Column("target", String(32), nullable=False),
    Column("forced", Boolean, nullable=False),
    Column("outbid_player", String(64)),
    Column("outbid_amount", Integer),
)

GENES_OFFERED = _fact(
    "read_genes_offered",
    Column("gene", String(32), nullable=False),
    Column("lab_column", Integer, nullable=False),
)

AUCTION_RESULTS = _fact(
    "read_auction_results",
    Column("name", String(64), nullable=False),
    Column("lab_column", Integer, nullable=False),
    Column("item", String(32)),
    Column("bid", Integer, nullable=False),
    Column("paid", Integer, nullable=False),
    key=("player_id",),
)

COMBATS = _fact(
    "read_combats",
    Column("attacker", String(64), nullable=False),
    Column("defender", String(64), nullable=False),
    Column("attack_horns", Integer, nullable=False),
    Column("defence_horns", Integer, nullable=False),
    Column("difference", Integer, nullable=False),
    Column("face", String(16), nullable=False),
    Column("attacker_won", Boolean, nullable=False),
    Column("expected_win_rate", Float, nullable=False),
    Column("escaped", Boolean, nullable=False),
)

DIE_ROLLS = _fact(
    "read_die_rolls",
    Column("face", String(16), nullable=False),
    Column("purpose", String(16), nullable=False),
    Column("recorder", String(16)),
)

BIRTHS = _fact(
    "read_births",
    Column("player_id", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("space", String(8), nullable=False),
)

SURVIVAL_LOSSES = _fact(
    "read_survival_losses",
    Column("player_id", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("zone", String(16), nullable=False),
    Column("protecting_gene", String(32)),
    Column("protecting_layers", Integer, nullable=False),
    Column("chosen", Boolean, nullable=False),
    key=("space",),
)

CLIMATE = _fact(
    "read_climate",
    Column("token", String(16)),
    Column("card", String(64)),
    Column("position", Integer, nullable=False),
)

FACT_TABLES = (
    ROUND_STANDINGS, FINAL_STANDINGS, BIDS, GENES_OFFERED, AUCTION_RESULTS, COMBATS, DIE_ROLLS, BIRTHS,
    SURVIVAL_LOSSES, CLIMATE,
)  # fmt: skip
READ_TABLES = (GAMES, GAME_PLAYERS, *FACT_TABLES)
