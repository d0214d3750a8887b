"""The read tables over HTTP: standings, auction histories, statistics, and every table as CSV.

They follow the log a moment behind it; each answer says the position in the log it includes. Whether private
games' rows count for the caller is the readers' to say (`private_rows_for`: for the admin alone), as is a game
whose rows do not count for it told unknown (`check_rows_shown`), and a game's own reports are cut as its reader
may see the game (`rows_as_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy import Connection

from api import schemas
from api.deps import CallerDep, LedgerDep, Reader, ReaderDep, competition_id_of, known_ruleset
from api.errors import ApiError
from api.statistics_kept import KeptStatistics, StatisticsBusy
from evo_ledger.app.competitions import MAX_SEASON
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import check_rows_shown, private_rows_for, rows_as_of
from evo_ledger.rules import rulesets
from evo_ledger.rules.base import Statistic
from evo_ledger.rules.contract import reading as reading_of
from projections import outcomes, queries, ratings, strengths
from projections.schema import Scope, die_tables, tables
from projections.store import ReadStore, position_in

router = APIRouter(prefix=schemas.API_PREFIX, tags=["statistics"], responses=schemas.PROBLEMS)
T = TypeVar("T")
RETRY_SOON = {"Retry-After": "5"}
FITTED: dict[int | str, dict[str, Any]] = {
    429: {"description": "as many statistics that fit the players' strengths are being made as may be"}
}


def read(request: Request, query: Callable[[Connection], T]) -> tuple[T, dict[str, int]]:
    """The query's answer and the positions, read in one transaction (`ReadStore.at_once`)."""
    store: ReadStore = request.app.state.read_store
    with store.at_once() as connection:
        answer = query(connection)
        position = position_in(connection)
    return answer, positions(request, position)


def positions(request: Request, position: int) -> dict[str, int]:
    """The read tables' `position` an answer was made at, and the log's now."""
    log_position = request.app.state.ledger.store.recorder.max_notification_id() or 0  # None: an empty log
    return {"position": position, "log_position": log_position}


def fitted(
    request: Request, question: Hashable, scope: Scope, ruleset: str, fit: Callable[[list[strengths.Game]], T]
) -> tuple[T, dict[str, int]]:
    """A statistic that fits the players' strengths to the ruleset's games the scope counts, kept once made
    (`KeptStatistics`): the answer, and the positions; 429 `statistics_busy` where others are being made."""
    store: ReadStore = request.app.state.read_store

    def made() -> tuple[T, int]:
        games, fresh = read(request, visible_games(scope, ruleset))
        return fit(games), fresh["position"]

    kept: KeptStatistics = request.app.state.statistics
    try:
        answer, position = kept.answer((question, ruleset, scope), store.position, made)
    except StatisticsBusy as busy:
        raise ApiError(429, "statistics_busy", f"{busy}: ask again in a moment", headers=RETRY_SOON) from None
    return answer, positions(request, position)


def rows(request: Request, query: Callable[[Connection], list[dict[str, Any]]]) -> dict[str, Any]:
    answer, fresh = read(request, query)
    return {"rows": answer, **fresh}


def scope_of(
    ledger: LedgerDep,
    caller: CallerDep,
    competition: Annotated[
        str | None, Query(max_length=64, description="count the games of this competition alone (its id)")
    ] = None,
    season: Annotated[
        str | None,
        Query(max_length=MAX_SEASON, description="count the games of this season's competitions alone (its label)"),
    ] = None,
) -> Scope:
    """The games a statistic counts for the caller (private games' rows as the readers say), narrowed to a
    competition's or a season's where asked (the label read as a competition's is kept: extra spaces and another
    composition name the same season): 404 `unknown_competition` or `unknown_season` for one none names."""
    competition_id = None
    if competition is not None:
        competition_id = str(ledger.competitions.competition(competition_id_of(competition)).id)
    label = None if season is None else ledger.competitions.season(season)
    return Scope(private_rows_for(caller), competition_id, label)


ScopeDep = Annotated[Scope, Depends(scope_of)]


@router.get("/projections", response_model=schemas.Fresh, operation_id="projections_position")
def projections_position(request: Request) -> dict[str, int]:
    """How far the read tables have followed the log: `position` of `log_position` events."""
    return read(request, position_in)[1]


@router.get("/games/{game_id}/standings", response_model=schemas.GameReport, operation_id="standings")
def standings(reader: ReaderDep, request: Request, ledger: LedgerDep) -> dict[str, Any]:
    """The game's standings as its ruleset's read tables give them: each player's after each round (evo2: MP and
    dinosaurs), turn (evo1: MP and dinosaurs) or millennium (traits: points, tokens, genome; and each
    extinction), and `final`, the ranks once the game is over (every ruleset's results where its reading names no
    table of its own)."""
    return game_report(request, ledger, reader, "standings")


@router.get(
    "/games/{game_id}/auctions",
    response_model=schemas.GameReport,
    operation_id="auction_history",
    responses={404: {"model": schemas.Problem, "description": "no such game, or its ruleset holds no auction"}},
)
def auction_history(reader: ReaderDep, request: Request, ledger: LedgerDep) -> dict[str, Any]:
    """Every bid in order (evo2: forced rebids and whom each bid outbid; evo1: each bid and whom it outbid), and
    what each auction settled (evo2: the price after the vials' discount, the gene or card won; evo1: the row and
    gene won, the price after the mutant discount, the vouchers spent, and each pass). A game of a ruleset
    without auctions answers 404 `no_auctions`."""
    return game_report(request, ledger, reader, "auctions")


def game_report(request: Request, ledger: Ledger, reader: Reader, report: str) -> dict[str, Any]:
    """A report from the read tables, as the reader may see the game: a broadcast's delay holds back the rows
    written after the last event it shows, and the undos that came after it."""
    game_id = str(reader.game_id)
    [setup] = ledger.queries.game_events(reader.game_id, up_to=1)
    try:
        queries.report_parts(setup.ruleset, report)
    except queries.NoSuchReport as error:
        raise ApiError(404, f"no_{report}", str(error)) from None
    cut = rows_as_of(reader, ledger)
    shown = ledger.store.personal.render
    if cut is None:
        answer, fresh = read(request, lambda c: queries.game_report(c, game_id, setup.ruleset, report, shown=shown))
        return {**answer, **fresh}
    as_of = queries.AsOf(*cut)
    answer, _ = read(request, lambda c: queries.game_report(c, game_id, setup.ruleset, report, as_of, shown))
    return {**answer, "position": None, "log_position": None}


@router.get("/statistics/players", response_model=schemas.Rows[schemas.PlayerRecord], operation_id="player_records")
def player_records(request: Request, scope: ScopeDep) -> dict[str, Any]:
    """Per ruleset and player, by stable id, over the games they finished: games, wins, and the mean and best
    score (the ruleset's first tie-breaker: MP, points)."""
    return rows(request, lambda c: queries.player_records(c, scope))


def ruleset_query(
    ruleset: Annotated[str, Query(description="the ruleset whose games are counted, such as evo1")],
) -> str:
    return known_ruleset(ruleset)


RulesetQuery = Annotated[str, Depends(ruleset_query)]


@router.get("/statistics/ratings", response_model=schemas.Rows[schemas.Rating], operation_id="ratings")
def player_ratings(request: Request, ruleset: RulesetQuery, scope: ScopeDep) -> dict[str, Any]:
    """Each player's Weng-Lin (Plackett-Luce) rating in the ruleset, the highest ordinal (mu - 3 sigma) first, from
    every finished game that is neither private nor withdrawn; the history game by game is the table read_ratings
    (and its CSV). With `competition` or `season`, the ratings are made from zero from those games alone, in the
    order they ended."""
    if scope.competition is None and scope.season is None:
        return rows(request, lambda c: ratings.standings(c, ruleset))
    return rows(request, lambda c: ratings.scoped_standings(c, ruleset, scope))


@router.get("/statistics/seats", response_model=schemas.Rows[schemas.SeatWins], operation_id="seat_wins")
def seat_wins(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Per number of players and seat, over the ruleset's finished games: the win rate (a shared first place is a
    win) and its Wilson 95% interval."""
    return rows(request, lambda c: outcomes.seat_wins(c, ruleset, scope))


@router.get(
    "/statistics/first-places", response_model=schemas.Rows[schemas.FirstPlaceWins], operation_id="first_place_wins"
)
def first_place_wins(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Per number of players and place in the order of play each game opened with (evo2's initiative draw,
    evo1's first initiative, the traits start player and those to their left), over the ruleset's finished games:
    the win rate and its Wilson 95% interval."""
    return rows(request, lambda c: outcomes.first_place_wins(c, ruleset, scope))


@router.get("/statistics/lengths", response_model=schemas.Rows[schemas.GameLength], operation_id="game_lengths")
def game_lengths(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Per number of players and kit, over the ruleset's finished games: how many rounds and events they ran."""
    return rows(request, lambda c: outcomes.game_lengths(c, ruleset, scope))


@router.get("/statistics/scores", response_model=schemas.Rows[schemas.ScoreMargin], operation_id="score_margins")
def score_margins(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Per number of players, over the ruleset's finished games: the winning and mean scores, and the margin (the
    winner's score less the runner-up's)."""
    return rows(request, lambda c: outcomes.score_margins(c, ruleset, scope))


@router.get("/statistics/profiles", response_model=schemas.Rows[schemas.Profile], operation_id="player_profiles")
def player_profiles(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Per player, over the ruleset's finished games: games, wins, mean place, and its rating's ordinal after each
    rated game, in order, with the numbers of those games among the ruleset's rated games. With `competition` or
    `season`, the ratings are those made from zero from those games alone (as `/v1/statistics/ratings` makes them
    so scoped), and the games are numbered among them."""
    return rows(request, lambda c: outcomes.profiles(c, ruleset, scope))


def visible_games(scope: Scope, ruleset: str) -> Callable[[Connection], list[strengths.Game]]:
    return lambda connection: strengths.finished_games(connection, ruleset, scope)


@router.get(
    "/statistics/calibration", responses=FITTED, response_model=schemas.Calibration, operation_id="rating_calibration"
)
def rating_calibration(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """How well the incremental ratings predicted each finished game before it was played (OpenSkill's win
    chances): the log loss and Brier score of all games and of the later half, beside a prediction without skill,
    and the reliability curve (the predictions in tenths against the share of them that won)."""
    calibration, fresh = fitted(request, "calibration", scope, ruleset, strengths.calibration)
    return {"ruleset": ruleset, **calibration, **fresh}


@router.get(
    "/statistics/seat-advantage", responses=FITTED, response_model=schemas.SeatAdvantage, operation_id="seat_advantage"
)
def seat_advantage(
    request: Request,
    scope: ScopeDep,
    ruleset: RulesetQuery,
    by: Annotated[
        Literal["seat", "place"], Query(description="the seat at the table, or the place in the opening order")
    ] = "seat",
) -> dict[str, Any]:
    """What a seat (or a place in the order of play a game opened with) is worth once the players' strengths are
    accounted for: Plackett-Luce with both fitted together, per number of players and seat, the effect against the
    first seat and the chance of winning at a table of equally strong players, each with its 95% interval, beside
    the raw win rate."""
    advantage, fresh = fitted(request, ("seat-advantage", by), scope, ruleset, partial(strengths.seat_advantage, by=by))
    return {"ruleset": ruleset, **advantage, **fresh}


@router.get(
    "/statistics/batch-ratings",
    responses=FITTED,
    response_model=schemas.Rows[schemas.BatchRating],
    operation_id="batch_ratings",
)
def batch_ratings(request: Request, scope: ScopeDep, ruleset: RulesetQuery) -> dict[str, Any]:
    """Each player's strength fitted to the ruleset's whole history at once, the same whatever the games' order (for
    a club's season), as an OpenSkill mu and sigma beside the incremental rating of the same games and the
    difference; the highest batch ordinal (mu - 3 sigma) first."""
    rated, fresh = fitted(request, "batch-ratings", scope, ruleset, strengths.batch_ratings)
    return {"rows": rated, **fresh}


@router.get("/statistics/skill", responses=FITTED, response_model=schemas.Skill, operation_id="skill_and_luck")
def skill_and_luck(
    request: Request,
    scope: ScopeDep,
    ruleset: RulesetQuery,
    min_games: Annotated[int, Query(ge=1, le=10_000, description="the games a player needs to be counted")] = 5,
) -> dict[str, Any]:
    """How much skill decides the ruleset's results, after Duersch, Lambrecht and Oechssler (2020): the spread of
    the players' fitted strengths against the same games with results drawn at random and with a share of them
    decided by the strengths of the ruleset's sensible and random bots (measured in a seeded set of their games);
    the skill share is the share of bots' games at which the benchmark is as spread as the real games."""
    gap = strengths.bot_gap(ruleset)
    measured = partial(strengths.skill, gap=gap, min_games=min_games)
    skill, fresh = fitted(request, ("skill", min_games), scope, ruleset, measured)
    return {"ruleset": ruleset, **skill, **fresh}


@router.get("/statistics/rulesets", response_model=schemas.Rows[schemas.RulesetCount], operation_id="ruleset_counts")
def ruleset_counts(request: Request, scope: ScopeDep) -> dict[str, Any]:
    """Per ruleset: the games recorded, those finished, and the different players who sat at them."""
    return rows(request, lambda c: outcomes.ruleset_counts(c, scope))


@router.get("/statistics/dice", response_model=schemas.DieFaces, operation_id="die_faces")
def die_faces(
    request: Request,
    caller: CallerDep,
    scope: ScopeDep,
    ruleset: Annotated[str, Query(description="the ruleset whose die is counted")],
    game_id: Annotated[str | None, Query(description="one game's rolls")] = None,
    recorder: Annotated[str | None, Query(max_length=16, description="one recorder's rolls")] = None,
) -> dict[str, Any]:
    """The ruleset's die's faces by what they were rolled for (evo2: combat, killer babies; evo1: initiative,
    climate, meteor, combat, heat stroke), rolls undone apart, and a chi-square test against a fair die of the rolls
    that stand, in all and for each purpose ("not enough data" when a face is expected fewer than 5 times); the
    rolls of withdrawn games are left out. A game or a recorder the read tables do not show is refused with 404
    `unknown_game` or `unknown_recorder`, a game of another ruleset with 422 `wrong_ruleset`, and a withdrawn game
    with 409 `withdrawn_game`."""
    known_ruleset(ruleset)
    if ruleset not in die_tables():
        with_dice = ", ".join(die_tables())
        raise ApiError(404, "no_dice", f"ruleset: {ruleset[:80]} rolls no die; the rulesets with dice are {with_dice}")
    private_rows = private_rows_for(caller)
    if game_id is not None:
        check_game_shown(request, game_id, ruleset, private_rows)
    if recorder is not None:
        check_recorder_shown(request, recorder, private_rows)
    answer, fresh = read(request, lambda c: queries.die_faces(c, ruleset, game_id, recorder, scope))
    return {**answer, **fresh}


def check_game_shown(request: Request, game_id: str, ruleset: str, private_rows: bool) -> None:
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        shown = check_rows_shown(game_id, queries.shown_ruleset(connection, game_id, private_rows))
        withdrawn = queries.is_withdrawn(connection, game_id)
    if shown != ruleset:
        raise ApiError(422, "wrong_ruleset", f"game_id: game {game_id} is a game of {shown}, not of {ruleset}")
    if withdrawn:
        raise ApiError(409, "withdrawn_game", f"game_id: game {game_id} is withdrawn: its rolls count in no statistic")


def check_recorder_shown(request: Request, recorder: str, private_rows: bool) -> None:
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        shown = queries.recorder_shown(connection, recorder, private_rows)
    if not shown:
        raise ApiError(404, "unknown_recorder", f"recorder: the read tables hold no game recorded by {recorder!r}")


@router.get("/statistics/games", response_model=schemas.Rows[schemas.GameSummary], operation_id="game_statistics")
def game_statistics(request: Request, scope: ScopeDep) -> dict[str, Any]:
    """Per game (withdrawn ones left out): its ruleset, players, status, and length in rounds, effective actions and
    events."""
    return rows(request, lambda c: queries.game_summaries(c, scope))


def statistics_of(ruleset: str) -> Mapping[str, Statistic]:
    """The ruleset's own statistics (404 `unknown_ruleset` for a ruleset not installed)."""
    reading = reading_of(rulesets()[known_ruleset(ruleset)])
    return reading.statistics if reading is not None else {}


@router.get(
    "/rulesets/{ruleset}/statistics", response_model=schemas.RulesetStatistics, operation_id="ruleset_statistics"
)
def ruleset_statistics(ruleset: str) -> dict[str, Any]:
    """The ruleset's own statistics, each with what it means (those every ruleset has are under /statistics)."""
    found = statistics_of(ruleset)
    return {"ruleset": ruleset, "statistics": [{"name": n, "means": s.means} for n, s in found.items()]}


@router.get(
    "/rulesets/{ruleset}/statistics/{name}", response_model=schemas.RulesetStatistic, operation_id="ruleset_statistic"
)
def ruleset_statistic(ruleset: str, name: str, request: Request, scope: ScopeDep) -> dict[str, Any]:
    """One of the ruleset's own statistics over its games (private ones for the admin only): evo2's `genes`,
    `genes-offered`, `combats` and `survival`; evo1's `autosaurs`, `cards`, `combats` and `genes`; the trait-card game's
    `actions`, `traits` and `extinctions`."""
    found = statistics_of(ruleset)
    statistic = found.get(name)
    if statistic is None:
        known = ", ".join(found) or "none"
        raise ApiError(
            404, "unknown_statistic", f"{ruleset[:80]} has no statistic {name[:80]!r}; its statistics: {known}"
        )
    answer = rows(request, lambda c: queries.ruleset_statistic(c, statistic, scope))
    return {"ruleset": ruleset, "statistic": name, "means": statistic.means, **answer}


@router.get(
    "/tables/{table}.csv",
    operation_id="table_csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "the table, a header line then its rows"}},
)
def table_csv(
    request: Request,
    caller: CallerDep,
    table: Annotated[str, Path(description="a read table's name, as in the documented schema")],
) -> StreamingResponse:
    """A read table as CSV, rows in key order (rows of private games for the admin only)."""
    if table not in tables():
        raise ApiError(404, "unknown_table", f"no read table {table!r}: the tables are {', '.join(tables())}")
    store: ReadStore = request.app.state.read_store
    private_rows = private_rows_for(caller)

    def chunks() -> Iterator[str]:
        with store.engine.connect() as connection:
            yield from queries.table_csv(connection, table, private_rows)

    headers = {"Content-Disposition": f'attachment; filename="{table}.csv"'}
    return StreamingResponse(chunks(), media_type="text/csv", headers=headers)
