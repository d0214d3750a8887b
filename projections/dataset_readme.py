"""The README written into the dataset's folder (`projections.dataset`): how to read the files, what a reader of
them is shown and what not, how a later run adds to them, and every file and column with its type and meaning, made
from the files' own schemas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from evo_ledger.rules import rulesets
from evo_ledger.rules.contract import reading as reading_of
from projections.dataset_files import (
    EVENT_SCHEMA,
    EVENTS,
    PARTITION_KEYS,
    PEOPLE_FILE,
    PERSON_SEATS_FILE,
    SINGLE_FILES,
    STANDINGS_FILE,
    dataset_tables,
    partitioned,
    table_schema,
)
from projections.schema import ruleset_specs

SEAT_NAME = (
    "the seat's name as the service shows it: its player's handle, or the seat's label (`anon` and eight letters "
    "or digits) where that player was erased"
)
COMMON = {
    "game_id": "the game's id (a UUID)",
    "event": "the version, within its game's log, of the event the row was made from",
    "action": "the version of the action the row followed from (the same as `event` for a row made from an action)",
    "round": "the round the fact belongs to",
    "undone": "true once that action was undone or corrected: statistics leave such rows out",
    "player_id": "the stable id the seat's player sat under (the same in every game; `person_seats` names its person)",
    "person_id": "a person's id (`people`): a stable id no record claims, or the id a person was registered under",
    "name": SEAT_NAME,
    "ruleset": "the ruleset, from the partition's folder (`ruleset=...`)",
    "month": "the month (UTC, `YYYY-MM`) the game's first event was stored in, from the partition's folder",
}
MEANINGS: dict[str, dict[str, str]] = {
    EVENTS: {
        "event": "the event's number in its game's log, from 1",
        "kind": "what kind of event it is (`ActionRecorded`, `Started`...)",
        "topic": "the event's stored topic, stable across versions",
        "timestamp": "when it was stored",
        "text": "the sentence the game's log gives it",
        "fields": "its fields as JSON, as `GET /v1/games/{id}/events` gives them to a reader without a token: an "
        "action hidden from every reader shows only whose it is, and hashes the chain could try it from are null",
        "hidden": "an action whose content is hidden from every reader still",
    },
    "read_games": {
        "ruleset_version": "the ruleset's version the game was played under",
        "kit": "the kit the game pinned",
        "kit_hash": "the kit's content hash",
        "started_at": "when the game started (ISO 8601, UTC)",
        "ended_at": "when it ended (ISO 8601, UTC; null while it goes on)",
        "ended_position": "the position in the log of the event that ended it (null while it goes on)",
        "players": "how many players",
        "generated": "a game the service generated from a committed seed",
        "access_id": "the id of the game's access record (null until it has one)",
        "recorder": "the first 12 hex digits of the recorder token's SHA-256 (null: no token)",
        "broadcast_delay": "how many minutes behind the table readers without a token followed it while it went on",
        "withdrawn": "withdrawn by its recorder or the admin (a test game, an abandoned one): the ratings and every "
        "statistic of the service leave it out, and so should a query over these files",
        "withdrawn_reason": "why, as the withdrawal said (null while the game is not withdrawn)",
        "status": "`ongoing` or `over`",
        "rounds": "the round the game is in (or ended in)",
        "events": "events in its log",
        "actions": "actions recorded (corrections included)",
        "actions_undone": "actions undone or replaced since",
        "memory": "JSON: what the ruleset's reading keeps of the game for the facts that follow",
    },
    "read_game_players": {"seat": "the seat, from 1 in the order of play the game was set up with"},
    "read_results": {
        "rank": "the player's place once the game is over (1 wins; a shared place is each player's)",
        "score": "the ruleset's first score",
        "scores": "the whole score as a result line writes it (`19/4`)",
    },
    "read_turn_order": {"place": "the player's place in the order of play the event set (1 plays first)"},
    "read_ratings": {
        "game": "the ruleset's rated games counted from 1, in the order they ended",
        "name": "the person's name as the ratings give it (a seat's handle, or its label once erased)",
        "place": "the person's place in that game",
        "mu": "the Weng-Lin (OpenSkill) rating's mean after the game",
        "sigma": "its standard deviation",
        "ordinal": "mu - 3 sigma",
    },
    "read_ratings_now": {
        "game_id": "the game the latest rating follows",
        "game": "that game's number among the ruleset's rated games",
        "mu": "the person's latest rating's mean",
        "sigma": "its standard deviation",
    },
    "read_competitions": {
        "competition_id": "the competition's id",
        "kind": "`night` (a club night), `season` (a league season) or `tournament`",
        "name": "its name",
        "season": "its season's label (null: none)",
        "scoring": "`places` (the `points` each place gives) or `scores` (the games' own scores summed)",
        "points": "JSON list: the points each place gives, from first",
        "created_at": "when it was opened (ISO 8601, UTC)",
    },
    "read_competition_games": {
        "competition_id": "the competition (`read_competitions`)",
        "round": "the round the organiser gave the game (null: none)",
        "table_name": "the table the organiser gave it (null: none)",
    },
    PEOPLE_FILE: {
        "name": "their name as the service shows it: their record's, else the handle they last sat under; null for "
        "a person whose personal data was erased (never the name they had), and for one no name is known of",
        "erased": "their personal data was erased",
        "recorded": "they have a record of their own (false: a stable id no record claims, a person of its own)",
        "games": "the games every reader sees that they sat at, by any of their stable ids (withdrawn games aside)",
    },
    PERSON_SEATS_FILE: {"player_id": "a stable id the person holds (their own among them)"},
    STANDINGS_FILE: {
        "competition_id": "the competition (`read_competitions`)",
        "place": "the person's place (shared by rows equal in points, wins, score and games)",
        "name": "the person's name as the standings give it (their record's, else the seat's; a label once erased)",
        "games": "the competition's finished games they played",
        "wins": "first places, shared ones too",
        "points": "the points the competition's scoring gave them",
        "score": "the sum of the games' own scores",
    },
}
ABOUT = {
    EVENTS: "one row per event of every game in the dataset, as a reader without a token is given it",
    "read_games": "one row per game (a private game is in none of the files, so every row's `private` is false)",
    "read_game_players": "one row per seat of each game",
    "read_results": "each player's result, once the game is over",
    "read_turn_order": "each order of play a game sets, a row a player",
    "read_ratings": "each person's rating after each rated game, in the partition of that game",
    "read_ratings_now": "each person's latest rating in each ruleset, in the partition of the game it follows",
    "read_competitions": "the competitions: club nights, league seasons, tournaments",
    "read_competition_games": "the games of each competition, in the partition of each game",
    PEOPLE_FILE: "the people, as the people's list of the service shows them to every reader",
    PERSON_SEATS_FILE: "each stable id shown and the person who holds it",
    STANDINGS_FILE: "each competition's standings, a row per person, counted from its finished games",
}
DOCUMENTED = "the read tables' documentation (evo-ledger's `docs/projections.md`, under the table's name)"
RULESET_COLUMN = f"a fact of the ruleset's own reading: {DOCUMENTED} says what it means"
TABLE_COLUMN = f"as {DOCUMENTED} says"

INTRODUCTION = """# The evo-ledger dataset

The games of one evo-ledger, as every reader of the service may see them, written by `evo-ledger dataset` for
analysis in any engine that reads Parquet (DuckDB, Polars, pandas, Spark). `manifest.json` says how far the log
was read and which files the dataset holds.

{position}

## Reading it

Files of rows that have a game are partitioned hive-style by the game's ruleset and the month (UTC) its first event
was stored in: `events/ruleset=evo2/month=2026-11/part-00001.parquet`. The ruleset and the month are read from the
folders' names (`ruleset`, `month`), not from the files. A table of rows without a game is a single file.

```
-- DuckDB
SELECT * FROM read_parquet('events/*/*/*.parquet', hive_partitioning = true);
# Polars
pl.scan_parquet("events/**/*.parquet", hive_partitioning=True)
# pandas (through pyarrow)
pandas.read_parquet("events")
# Spark
spark.read.parquet("events")
```

A season is a range of months: `WHERE month BETWEEN '2026-01' AND '2026-06'`, or a year: `left(month, 4)`.

## What it shows

- Every game a reader without a token sees whole: a private game is left out, and so is a game broadcast with a
  delay while it goes on (it comes in once it ends). A withdrawn game is in, and `read_games.withdrawn` says so.
- Each event as the service gives it to such a reader: an action hidden from every reader (a card drawn, a peek)
  shows only whose it is, until the rules reveal it or the game ends.
- Seats are named as the service shows them: by their players' handles, or by their labels (`anon` and eight
  letters or digits) where a player was erased. An erased person is in `people` with no name.
- The read tables' rows are those counted for every reader, as their CSV (`GET /v1/tables/{{table}}.csv`) gives
  them; their columns mean what the read tables' documentation says, table by table.

## Adding to it

`evo-ledger dataset DIR --since` adds what the log holds since the last run: the new events of each game as a new
part in its partition (`part-` and the run's number). A partition whose earlier rows no longer stand as written (a
hidden action revealed, a game made private), or a part of which is missing, is written again whole, and an erasure
since the last run writes every file again. The read tables, the people and the competitions change in place: every
run writes them again whole. `--replace` writes the whole dataset again. A table with no rows has no files.

One run at a time writes here (it holds `.dataset.lock`). It writes its files into the hidden folder
`.dataset.unfinished`, which no reading of a table's files reaches, then moves them into their places, writes
`manifest.json` and removes the files it no longer names: only in that moment at its end may a reading find files of
two runs side by side (a part beside the one it replaces: rows twice), so read the files when no run is writing
them. A run removes nothing but the dataset's own files (parts in the tables' folders, and the files its manifest
named): keep files of your own elsewhere in the folder, out of the tables' folders.
"""


def readme(position: str) -> str:
    """The README, with the line saying how far the log was read."""
    sections = [INTRODUCTION.format(position=position), "## Files\n", *file_sections()]
    return "\n".join(sections)


def file_sections() -> Iterator[str]:
    yield section(f"{EVENTS}/ruleset=RULESET/month=YYYY-MM/part-NNNNN.parquet", EVENTS, EVENT_SCHEMA, True)
    owners = table_owners()
    for table in dataset_tables():
        where = f"{table.name}/ruleset=RULESET/month=YYYY-MM/part-NNNNN.parquet" if partitioned(table) else None
        about = ABOUT.get(table.name) or f"a table of the {owners.get(table.name, 'ruleset')} ruleset's own facts"
        yield section(where or f"{table.name}.parquet", table.name, table_schema(table), partitioned(table), about)
    for name, schema in SINGLE_FILES.items():
        yield section(f"{name}.parquet", name, schema, False)


def section(path: str, name: str, schema: Any, in_partitions: bool, about: str | None = None) -> str:
    said = about or ABOUT[name]
    lines = [f"### `{path}`", "", f"{said[:1].upper()}{said[1:]}.", "", "| column | type | meaning |", "|---|---|---|"]
    for field in schema:
        null = "" if field.nullable is False else ", or null"
        lines.append(f"| {field.name} | {field.type}{null} | {meaning(name, field.name)} |")
    if in_partitions:
        lines.extend(f"| {key} | string (the folder's) | {COMMON[key]} |" for key in PARTITION_KEYS)
    return "\n".join(lines) + "\n"


def meaning(name: str, column: str) -> str:
    own = MEANINGS.get(name, {}).get(column) or COMMON.get(column)
    if own is not None:
        return own
    spec = ruleset_specs().get(name)
    if spec is None:
        return TABLE_COLUMN
    values = next((found.values for found in spec.columns if found.name == column), ())
    return RULESET_COLUMN + (f" (one of {', '.join(sorted(set(values)))})" if values else "")


def table_owners() -> dict[str, str]:
    """The ruleset each ruleset's own read table is of, by the table's name."""
    return {
        spec.name: name
        for name, ruleset in rulesets().items()
        if (reading := reading_of(ruleset))
        for spec in reading.tables
    }
