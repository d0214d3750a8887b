"""The rows of the dataset's files (`projections.dataset`): each game's events as a reader without a token is
given them, the read tables' rows counted for a caller who is not the admin, the people as the people's list shows
them to such a caller, and each competition's standings. Every text in them is shown as the service shows it to its
readers (`Personal.render`: a seat's label as the handle it stands for, or as itself once erased; sealed text
opened, or `[erased]`).

What a reader may see is the readers' to say (`evo_ledger.app.readers`); nothing here narrows a row by hand. A game
is in the dataset where every reader sees it whole: not private, and not broadcast with a delay while it goes on
(the condition under which the read tables' rows of a game count for every caller, `shown_to_public`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic
from sqlalchemy import Connection, Table, select

from evo_ledger.app.access import HiddenGame
from evo_ledger.app.competitions import Scoring
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.people import PersonState
from evo_ledger.app.personal import as_json_text
from evo_ledger.app.readers import (
    Caller,
    NotYetBroadcast,
    Reader,
    SeatsOf,
    events_for,
    games_told,
    held_back_to,
    latest_for,
    latest_name,
    person_shown,
    private_rows_for,
    reader_for,
    seats_told,
)
from evo_ledger.game.aggregate import Game
from evo_ledger.game.labels import is_label
from projections.competitions import standings
from projections.people import games_of, seats_of
from projections.queries import visible_rows
from projections.schema import COMPETITIONS, GAMES

Row = dict[str, Any]
Clock = Callable[[], datetime]
EVERY_READER = Caller()
"""Who the dataset is made for: a caller without a token (nor the admin's), as any reader of the service."""
RENDERED_AT_ONCE = 2000
"""How many texts are shown in one look at the personal data kept beside the log."""


@dataclass(frozen=True, order=True)
class Partition:
    """Where the rows of a game go: its ruleset, and the month (UTC, `YYYY-MM`) its first event was stored in."""

    ruleset: str
    month: str

    @property
    def folder(self) -> str:
        """The partition's folder, as hive-style partitioning names it."""
        return f"ruleset={self.ruleset}/month={self.month}"

    @classmethod
    def of(cls, ruleset: str, started: datetime | str) -> Partition:
        moment = datetime.fromisoformat(started) if isinstance(started, str) else started
        return cls(ruleset, moment.astimezone(UTC).strftime("%Y-%m"))


def shown_texts(ledger: Ledger, values: Sequence[Any]) -> list[Any]:
    """The values (strings, numbers, lists and maps of them, None) with every string in them as the service shows
    it to its readers, in a look at the personal data for every RENDERED_AT_ONCE values."""
    shown: list[Any] = []
    for start in range(0, len(values), RENDERED_AT_ONCE):
        text = json.dumps(list(values[start : start + RENDERED_AT_ONCE]), default=plain_value, ensure_ascii=False)
        shown.extend(json.loads(ledger.store.personal.render(text, as_json_text)))
    return shown


def plain_value(value: Any) -> Any:
    """A value of an event's fields that JSON has no word for, in plain terms: ids and times as text, bytes as hex,
    sets as sorted lists."""
    if isinstance(value, UUID | datetime):
        return str(value) if isinstance(value, UUID) else value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"an event's field holds a {type(value).__name__}, which the dataset cannot write")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=plain_value)


@dataclass(frozen=True)
class GameEvents:
    """A game's events as every reader is given them, each a row of the events' files, and where they go."""

    game_id: str
    partition: Partition
    rows: list[Row]

    def digest(self, events: int) -> str:
        """What the first `events` rows hold, as a digest: the same rows, the same digest."""
        hashed = hashlib.sha256()
        for row in self.rows[:events]:
            hashed.update(canonical_json(row).encode())
            hashed.update(b"\n")
        return hashed.hexdigest()[:32]


def public_reader(ledger: Ledger, game_id: UUID, clock: Clock) -> tuple[Reader, Game] | None:
    """A reader without a token, and the game as it sees it, where it sees the game whole: None for a private game
    and for one broadcast with a delay while it goes on."""
    try:
        reader = reader_for(ledger, game_id, None, EVERY_READER.admin, clock)
        game = latest_for(reader, ledger)
    except (HiddenGame, NotYetBroadcast):
        return None
    return None if held_back_to(reader, ledger, game) is not None else (reader, game)


def game_events(ledger: Ledger, game_id: UUID, clock: Clock) -> GameEvents | None:
    """The game's events as a reader without a token is given them (`events_for`), their texts as the service
    shows them; None where that reader does not see the game whole (`public_reader`)."""
    seen = public_reader(ledger, game_id, clock)
    if seen is None:
        return None
    reader, game = seen
    events = events_for(reader, ledger, game, 0, max(game.version, 1))
    texts = shown_texts(ledger, [[shown.text, shown.fields] for shown in events])
    rows = [
        {
            "game_id": str(game_id),
            "event": shown.event.originator_version,
            "kind": type(shown.event).__name__,
            "topic": get_topic(type(shown.event)),
            "timestamp": shown.event.timestamp,
            "text": text,
            "fields": canonical_json(fields),
            "hidden": shown.hidden,
        }
        for shown, (text, fields) in zip(events, texts, strict=True)
    ]
    return GameEvents(str(game_id), Partition.of(game.ruleset_name, game.created_on), rows)


def partitions(connection: Connection) -> dict[str, Partition]:
    """The partition of every game the read tables hold, by its id."""
    query = select(GAMES.c.game_id, GAMES.c.ruleset, GAMES.c.started_at)
    return {game_id: Partition.of(ruleset, started) for game_id, ruleset, started in connection.execute(query)}


def table_rows(ledger: Ledger, connection: Connection, table: Table) -> Iterator[list[Row]]:
    """The rows of a read table counted for every reader (as its CSV is given to a caller who is not the admin), in
    key order, a page at a time, their texts as the service shows them."""
    query = (
        select(table)
        .where(visible_rows(table, private_rows_for(EVERY_READER)))
        .order_by(*table.primary_key.columns)
        .execution_options(yield_per=RENDERED_AT_ONCE)
    )
    texts = [column.name for column in table.columns if column.type.python_type is str]
    for page in connection.execute(query).mappings().partitions():
        yield with_texts_shown(ledger, [dict(row) for row in page], texts)


def with_texts_shown(ledger: Ledger, rows: list[Row], columns: Sequence[str]) -> list[Row]:
    """The rows with the text of each of `columns` as the service shows it."""
    shown = shown_texts(ledger, [[row[column] for column in columns] for row in rows])
    return [row | dict(zip(columns, texts, strict=True)) for row, texts in zip(rows, shown, strict=True)]


@dataclass(frozen=True)
class People:
    """The people as every reader is shown them (`people`), and the stable ids each holds (`seats`)."""

    people: list[Row]
    seats: list[Row]


def people(ledger: Ledger, connection: Connection) -> People:
    """Every person the people's list shows a caller without a token: each record not merged away, and each stable
    id such a caller is told of that no record claims, a person of its own; with the stable ids it is told of. An
    erased person has no name."""
    seats = seats_of(connection)
    records = ledger.people.records()
    claimed = {seat_id for record in records for seat_id in record.seat_ids}
    standing = [PersonState.of(record) for record in records if record.merged_into is None]
    own = [
        PersonState(seat_id, None, (seat_id,), recorded=False)
        for seat_id, held in sorted(seats.items())
        if seat_id not in claimed and seats_told(EVERY_READER, held) is not None
    ]
    shown = [state for state in [*standing, *own] if person_shown(EVERY_READER, held_by(seats, state))]
    rows = [person_row(connection, seats, state) for state in sorted(shown, key=lambda state: state.person_id)]
    names = shown_texts(ledger, [row["name"] for row in rows])
    found = [row | {"name": shown_name(row, name)} for row, name in zip(rows, names, strict=True)]
    linked = [{"player_id": seat_id, "person_id": row["person_id"]} for row in found for seat_id in row.pop("seats")]
    return People(found, sorted(linked, key=lambda row: row["player_id"]))


def shown_name(row: Row, name: str | None) -> str | None:
    """A person's name as shown: none for one erased, nor where it is a seat's label (whose handle was erased)."""
    return None if row["erased"] or name is None or is_label(name) else name


def held_by(seats: dict[str, SeatsOf], state: PersonState) -> list[SeatsOf]:
    return [seats.get(seat_id, SeatsOf()) for seat_id in sorted({*state.seat_ids, state.person_id})]


def person_row(connection: Connection, seats: dict[str, SeatsOf], state: PersonState) -> Row:
    """A person's row, with the stable ids every reader is told of (those seated at a game it is told of, and those
    never seated), at how many games they sat, and their name as stored (`seats`, `name`: to be shown)."""
    told = [
        seat_id
        for seat_id in state.seat_ids
        if not seats.get(seat_id, SeatsOf()).in_use or seats_told(EVERY_READER, seats[seat_id]) is not None
    ]
    seated = [held for seat_id in told if (held := seats_told(EVERY_READER, seats.get(seat_id, SeatsOf())))]
    games = games_told(EVERY_READER, games_of(connection, told)) if len(seated) > 1 else sum(s.games for s in seated)
    return {
        "person_id": state.person_id,
        "name": state.name if state.name is not None else seated_name(seats, state),
        "erased": state.erased,
        "recorded": state.recorded,
        "games": games,
        "seats": told,
    }


def seated_name(seats: dict[str, SeatsOf], state: PersonState) -> str | None:
    """The name a person without one of their record's last sat under: at their own stable id, else at the others."""
    own = latest_name(EVERY_READER, [seats.get(state.person_id, SeatsOf())])
    return own or latest_name(EVERY_READER, [seats.get(seat_id, SeatsOf()) for seat_id in state.seat_ids])


def competition_standings(ledger: Ledger, connection: Connection) -> list[Row]:
    """Each competition's standings as every reader is given them (`projections.competitions.standings`), a row per
    person and competition, the competitions in the order of their ids."""
    rows: list[Row] = []
    query = select(COMPETITIONS.c.competition_id, COMPETITIONS.c.scoring, COMPETITIONS.c.points)
    for competition_id, method, points in connection.execute(query.order_by(COMPETITIONS.c.competition_id)):
        scoring = Scoring(method, tuple(json.loads(points)))
        shown = ledger.store.personal.render
        counted = standings(connection, competition_id, scoring, private_rows_for(EVERY_READER), shown)
        rows.extend({"competition_id": competition_id, **row} for row in counted)
    return with_texts_shown(ledger, rows, ["name"])


def rows_by_partition(rows: Iterable[Row], partition_of: dict[str, Partition]) -> dict[Partition, list[Row]]:
    """The rows grouped by the partition of their game."""
    grouped: dict[Partition, list[Row]] = {}
    for row in rows:
        grouped.setdefault(partition_of[row["game_id"]], []).append(row)
    return grouped
