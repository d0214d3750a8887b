"""Every read of the read tables: what the API and the CSV export serve.

Statistics leave out what was undone (undone rolls are counted apart), withdrawn games and, unless asked for,
private games and games broadcast with a delay while they go on (`counted_games`). A table's CSV keeps the rows of
withdrawn games: `read_games` says which they are.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Select, Subquery, Table, and_, case, false, func, select

from evo_ledger.rules import get_ruleset
from evo_ledger.rules.base import GameReport, GameRows, Measure, Statistic
from evo_ledger.rules.contract import reading as reading_of
from projections.people import people_shown, results_by_person
from projections.schema import (
    GAME_PLAYERS,
    GAMES,
    PEOPLE,
    PUBLIC_GAMES,
    Scope,
    column_values,
    counted_games,
    die_tables,
    shown_to_public,
    tables,
)
from projections.stats import die_fit

Row = dict[str, Any]
BOOKKEEPING = frozenset({"game_id", "action", "undone"})
RESULTS_ALONE: GameReport = {"final": GameRows("read_results", ("rank", "name"))}
"""The standings of a game whose ruleset's reading names none: its results, once it is over."""


class NoSuchReport(LookupError):
    """A report on one game its ruleset does not give (a game of a ruleset without auctions has no auctions)."""

    code = "no_such_report"


def report_parts(ruleset: str, report: str) -> GameReport:
    """The parts of a report on a game of the ruleset, as its reading names them."""
    reading = reading_of(get_ruleset(ruleset))
    reports = reading.reports if reading is not None else {}
    parts = reports.get(report, RESULTS_ALONE if report == "standings" else None)
    if parts is None:
        raise NoSuchReport(f"a game of {ruleset} has no {report}: its rules give none")
    return parts


def game_report(
    connection: Connection,
    game_id: str,
    ruleset: str,
    report: str,
    as_of: AsOf | None = None,
    shown: Callable[[str], str] = str,
) -> Row:
    """A report on one game (REPORTS: its standings, its auctions): each part the game's rows that stand, or that
    stood `as_of` an event, in its order, names as they are `shown` (a seat's label as its handle)."""
    answer: Row = {"game_id": game_id, "ruleset": ruleset}
    for name, part in report_parts(ruleset, report).items():
        table = tables()[part.table]
        columns = [column for column in table.columns if column.name not in BOOKKEEPING]
        rows = _rows(
            connection,
            select(*columns)
            .where(table.c.game_id == game_id, _standing(table, as_of))
            .order_by(*(table.c[column] for column in part.order)),
        )
        answer[name] = by_names_shown(rows, part.order, shown) if "name" in part.order else rows
    return answer


def by_names_shown(rows: list[Row], order: Sequence[str], shown: Callable[[str], str]) -> list[Row]:
    """The rows in `order`, each name in it as it is shown."""
    names = shown("\n".join(row["name"] for row in rows)).split("\n") if rows else []
    keyed = [({**row, "name": named}, row) for named, row in zip(names, rows, strict=True)]
    return [row for _, row in sorted(keyed, key=lambda pair: tuple(pair[0][column] for column in order))]


@dataclass(frozen=True)
class AsOf:
    """A game's rows as they stood after its event `event`, when the actions `undone` were its undone ones."""

    event: int
    undone: frozenset[int]


def _standing(table: Table, as_of: AsOf | None) -> Any:
    """The rows that stand: not undone; or, `as_of` an event, those written by then and not undone by then (a
    table of a game's facts only: the others hold what stands now)."""
    if as_of is None:
        return ~table.c.undone
    if "event" not in table.c:
        return false()
    return and_(table.c.event <= as_of.event, ~table.c.action.in_(sorted(as_of.undone)))


def _rows(connection: Connection, query: Select[Any]) -> list[Row]:
    return [dict(row) for row in connection.execute(query).mappings()]


def visible_rows(table: Table, include_private: bool) -> Any:
    """Rows of games that are public (or any, with `include_private`); of the people's and competitions' own
    tables, every row but the stable ids that sat only at games not shown."""
    if include_private:
        return True
    public = select(GAMES.c.game_id).where(shown_to_public())
    if "game_id" in table.c:
        return table.c.game_id.in_(public)
    if "player_id" in table.c:
        return table.c.player_id.in_(select(GAME_PLAYERS.c.player_id).where(GAME_PLAYERS.c.game_id.in_(public)))
    if table is PEOPLE:
        return people_shown(public)
    return True


def _counted(table: Table, scope: Scope) -> Any:
    """Rows of the games the statistics count (`counted_games`)."""
    return table.c.game_id.in_(select(GAMES.c.game_id).where(counted_games(scope)))


def _effective(table: Table, scope: Scope) -> Any:
    """Rows that stand, of the games the statistics count."""
    return and_(~table.c.undone, _counted(table, scope))


def latest_name(table: Subquery, scope: Scope) -> Any:
    """The name a person (a row of the query over `table` that groups by ruleset and person) is known by at their
    latest game of the ruleset the statistics count: their record's, else the name they sat under there."""
    latest, games = table.alias("latest"), GAMES.alias("latest_games")
    counted = select(GAMES.c.game_id).where(counted_games(scope)).correlate(None)
    return (
        select(latest.c.person_name)
        .join(games, games.c.game_id == latest.c.game_id)
        .where(
            latest.c.person_id == table.c.person_id,
            games.c.ruleset == GAMES.c.ruleset,
            ~latest.c.undone,
            latest.c.game_id.in_(counted),
        )
        .order_by(games.c.started_at.desc(), games.c.game_id.desc())
        .limit(1)
        .correlate(table, GAMES)
        .scalar_subquery()
    )


def player_records(connection: Connection, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per ruleset and person (`results_by_person`: a stable id no record claims is its own person) over the games
    they finished: games, wins (shared first places count), and the mean and best score (the ruleset's first
    tie-breaker: MP, points)."""
    table = results_by_person()
    return _rows(
        connection,
        select(
            GAMES.c.ruleset,
            table.c.person_id,
            func.min(table.c.player_id).label("player_id"),
            latest_name(table, scope).label("name"),
            func.count().label("games"),
            func.sum(case((table.c.rank == 1, 1), else_=0)).label("wins"),
            func.avg(table.c.score).label("mean_score"),
            func.max(table.c.score).label("best_score"),
        )
        .join(GAMES, GAMES.c.game_id == table.c.game_id)
        .where(~table.c.undone, counted_games(scope))
        .group_by(GAMES.c.ruleset, table.c.person_id)
        .order_by(GAMES.c.ruleset, func.count().desc(), table.c.person_id),
    )


def die_faces(
    connection: Connection,
    ruleset: str,
    game_id: str | None = None,
    recorder: str | None = None,
    scope: Scope = PUBLIC_GAMES,
) -> Row:
    """The ruleset's die's faces (of one game, one recorder's games, or all) by what the roll was for, the rolls
    later undone apart, and the fit against a fair die of the rolls that stand, in all and for each purpose."""
    spec = die_tables()[ruleset]
    table, faces = tables()[spec.name], dict(Counter(column_values(spec.name, "face")))
    conditions = [_counted(table, scope)]
    if game_id is not None:
        conditions.append(table.c.game_id == game_id)
    if recorder is not None:
        conditions.append(table.c.recorder == recorder)
    counts: dict[str, dict[str, int]] = {}
    for purpose, undone, face, count in connection.execute(
        select(table.c.purpose, table.c.undone, table.c.face, func.count())
        .where(*conditions)
        .group_by(table.c.purpose, table.c.undone, table.c.face)
    ):
        kind = "undone" if undone else purpose
        counts.setdefault(kind, dict.fromkeys(faces, 0))[str(face)] = count
    by_purpose = {kind: observed for kind, observed in sorted(counts.items()) if kind != "undone"}
    standing = Counter[str]()
    for observed in by_purpose.values():
        standing.update(observed)
    return {
        "ruleset": ruleset,
        "die": spec.die,
        "table": spec.name,
        "game_id": game_id,
        "recorder": recorder,
        "faces": faces,
        "by_purpose": by_purpose,
        "undone": counts.get("undone", dict.fromkeys(faces, 0)),
        "fit": fit_row(standing, faces),
        "fit_by_purpose": {kind: fit_row(observed, faces) for kind, observed in by_purpose.items()},
    }


def fit_row(observed: Mapping[str, int], faces: Mapping[str, int]) -> Row:
    fit = die_fit(observed, faces)
    return {
        "rolls": fit.rolls,
        "observed": fit.observed,
        "expected": fit.expected,
        "chi_square": fit.statistic,
        "degrees_of_freedom": fit.degrees_of_freedom,
        "p_value": fit.p_value,
        "verdict": fit.verdict,
        "flagged": fit.flagged,
    }


def game_summaries(connection: Connection, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per game the statistics count (`counted_games`): its ruleset, players, status and length (rounds, effective
    actions, events)."""
    return _rows(
        connection,
        select(
            GAMES.c.game_id,
            GAMES.c.ruleset,
            GAMES.c.players,
            GAMES.c.status,
            GAMES.c.started_at,
            GAMES.c.ended_at,
            GAMES.c.rounds,
            GAMES.c.events,
            (GAMES.c.actions - GAMES.c.actions_undone).label("actions"),
        )
        .where(counted_games(scope))
        .order_by(GAMES.c.started_at, GAMES.c.game_id),
    )


def ruleset_statistic(connection: Connection, statistic: Statistic, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """A ruleset's own statistic (its reading's `statistics`): the rows that stand of its table, grouped and
    measured as it says."""
    table = tables()[statistic.table]
    groups = [table.c[name] for name in statistic.by]
    measures = [_measured(table, measure).label(name) for name, measure in statistic.measures.items()]
    query = select(*groups, *measures).where(_effective(table, scope)).group_by(*groups).order_by(*groups)
    return [{name: _plain(value) for name, value in row.items()} for row in _rows(connection, query)]


def _measured(table: Table, measure: Measure) -> Any:
    if measure.kind == "count":
        return func.count()
    column = table.c[str(measure.column)]
    if measure.kind == "count_true":
        return func.sum(case((column, 1), else_=0))
    aggregates: dict[str, Callable[[Any], Any]] = {"mean": func.avg, "sum": func.sum, "min": func.min, "max": func.max}
    aggregate = aggregates[measure.kind]
    return aggregate(column)


def _plain(value: Any) -> Any:
    """A database's decimal (PostgreSQL's mean) as a float; anything else as it is."""
    return float(value) if isinstance(value, Decimal) else value


def shown_ruleset(connection: Connection, game_id: str, include_private: bool) -> str | None:
    """The ruleset of the game, where the read tables may show its rows (None: they do not know it, or may not
    show it)."""
    query = select(GAMES.c.ruleset).where(GAMES.c.game_id == game_id, visible_rows(GAMES, include_private))
    found: str | None = connection.execute(query).scalar_one_or_none()
    return found


def is_withdrawn(connection: Connection, game_id: str) -> bool:
    """Whether the read tables hold the game as withdrawn (its rows count in no statistic)."""
    query = select(GAMES.c.withdrawn).where(GAMES.c.game_id == game_id)
    return bool(connection.execute(query).scalar_one_or_none())


def recorder_shown(connection: Connection, recorder: str, include_private: bool) -> bool:
    """Whether the read tables may show a game that recorder recorded (as dashboards name it)."""
    query = select(GAMES.c.game_id).where(GAMES.c.recorder == recorder, visible_rows(GAMES, include_private)).limit(1)
    return connection.execute(query).first() is not None


# A text cell a spreadsheet program would read as a formula starts with one of these; it is written after a quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_value(value: Any) -> Any:
    """Booleans as `true`/`false`, as SQL and JSON write them; text that would start a formula after a `'`, as
    spreadsheet programs expect; anything else as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def table_csv(connection: Connection, name: str, include_private: bool = False) -> Iterator[str]:
    """A read table as CSV (a header, then its rows in key order), in chunks."""
    table = tables()[name]
    columns: Sequence[str] = [column.name for column in table.columns]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    query = select(table).where(visible_rows(table, include_private)).order_by(*table.primary_key.columns)
    for row in connection.execute(query):
        writer.writerow([csv_value(value) for value in row])
        if buffer.tell() > 64_000:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def game_statuses(connection: Connection) -> list[tuple[str, str]]:
    """Each game the read tables know, and whether it is `ongoing` or `over`."""
    return [(row.game_id, row.status) for row in connection.execute(select(GAMES.c.game_id, GAMES.c.status))]
