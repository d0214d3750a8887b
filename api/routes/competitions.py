"""Competitions: club nights, league seasons and tournaments, opened by the admin, who hands the organiser token to
whoever runs the competition; their games added and taken out by the organiser (the holder of that token) or the
admin; each read with its games and its standings."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from api import schemas
from api.deps import CallerDep, LedgerDep, OrganiserDep, competition_id_of, game_id_of, require_admin
from evo_ledger.app.competitions import MAX_SEASON, Competition, Placement, ShownGame
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import Caller, private_rows_for
from projections import competitions
from projections.store import ReadStore, position_in

router = APIRouter(prefix=schemas.API_PREFIX, tags=["competitions"], responses=schemas.PROBLEMS)
CompetitionId = Annotated[str, Path(description=schemas.COMPETITION_ID)]
OPENED_ANSWERS: dict[int | str, dict[str, Any]] = {
    201: {"description": "the competition, with its organiser token (shown only here)"},
    401: {"model": schemas.Problem, "description": "no bearer token (`token_required`)"},
    403: {"model": schemas.Problem, "description": "the token is not the admin's (`token_refused`)"},
    422: {"model": schemas.Problem, "description": "a field no competition holds, named (`invalid_request`)"},
}
LISTED_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"model": schemas.Problem, "description": "no competition carries the season (`unknown_season`)"},
}
READ_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"model": schemas.Problem, "description": "no competition has the id (`unknown_competition`)"},
}
ADDED_ANSWERS: dict[int | str, dict[str, Any]] = {
    201: {"description": "the game, as the competition now holds it"},
    401: {"model": schemas.Problem, "description": "no bearer token (`token_required`)"},
    403: {"model": schemas.Problem, "description": "neither the organiser's token nor the admin's (`token_refused`)"},
    404: {
        "model": schemas.Problem,
        "description": "no such competition (`unknown_competition`), or no game the caller sees (`unknown_game`)",
    },
    409: {"model": schemas.Problem, "description": "the game is in the competition already (`game_in_competition`)"},
}
TAKEN_OUT_ANSWERS: dict[int | str, dict[str, Any]] = {
    204: {"description": "the game taken out: an event of the competition's record"},
    401: ADDED_ANSWERS[401],
    403: ADDED_ANSWERS[403],
    404: {
        "model": schemas.Problem,
        "description": "no such competition (`unknown_competition`), no game the caller sees (`unknown_game`), or "
        "a game not in the competition (`game_not_in_competition`)",
    },
}


@router.post(
    "/competitions",
    status_code=201,
    response_model=schemas.CompetitionOpened,
    operation_id="open_competition",
    responses=OPENED_ANSWERS,
    dependencies=[Depends(require_admin)],
)
def open_competition(body: schemas.NewCompetition, ledger: LedgerDep) -> schemas.CompetitionOpened:
    """A new competition, opened by the admin alone (the admin's token as the bearer token: 401 `token_required`
    without one, 403 `token_refused` for another): a club `night`, a league `season` or a `tournament`, with its
    scoring. Its name and season label are kept normalised (composed as Unicode's NFC, each run of spaces one
    space, none at either end). The answer carries its organiser token, shown only here, which the admin hands to
    whoever runs the competition: its holder adds the competition's games (`POST
    /v1/competitions/{competition_id}/games`, or `competition` in `POST /v1/games`) and takes them out, and keeps
    the records of the people who played in it."""
    opened = ledger.competitions.open(body.kind, body.name, body.season, body.scoring, body.points)
    return schemas.CompetitionOpened(**fields_of(opened.competition), organiser_token=opened.token)


@router.get(
    "/competitions", response_model=schemas.CompetitionList, operation_id="list_competitions", responses=LISTED_ANSWERS
)
def list_competitions(
    ledger: LedgerDep,
    kind: Annotated[schemas.CompetitionKind | None, Query(description=schemas.KIND)] = None,
    season: Annotated[
        str | None, Query(max_length=MAX_SEASON, description="a season label (its spaces and composition as stored)")
    ] = None,
) -> schemas.CompetitionList:
    """Every competition, in the order they were opened: those of a kind, of a season (read as a label is kept
    when opened: extra spaces and another composition name the same season; 404 `unknown_season` where no
    competition carries it), where asked."""
    listed = ledger.competitions.listed(kind, season)
    return schemas.CompetitionList(competitions=[summary_of(competition) for competition in listed])


@router.get(
    "/competitions/{competition_id}",
    response_model=schemas.Competition,
    operation_id="get_competition",
    responses=READ_ANSWERS,
)
def get_competition(
    competition_id: CompetitionId, request: Request, ledger: LedgerDep, caller: CallerDep
) -> schemas.Competition:
    """A competition: its fields, its games (in the order they were added, each with its round and table and
    whether it is withdrawn; private games to the admin alone) and its standings, from the read tables (as far as
    `position` of `log_position` events): a row per person, over the competition's games that are over and not
    withdrawn (private games' rows for the admin alone), ordered by points, wins, the sum of the games' own scores,
    then fewer games; rows equal in all four share a place (docs/guide.md, "Competitions")."""
    competition = ledger.competitions.competition(competition_id_of(competition_id))
    games = [held_game(shown) for shown in ledger.competitions.games_shown(competition, caller)]
    standings, (position, log_position) = standings_read(request, ledger, competition, caller)
    return schemas.Competition(
        **fields_of(competition),
        games=games,
        standings=[schemas.CompetitionStanding(**row) for row in standings],
        position=position,
        log_position=log_position,
    )


@router.post(
    "/competitions/{competition_id}/games",
    status_code=201,
    response_model=schemas.CompetitionGame,
    operation_id="add_competition_game",
    responses=ADDED_ANSWERS,
)
def add_game(
    competition_id: CompetitionId, body: schemas.CompetitionGame, ledger: LedgerDep, organiser: OrganiserDep
) -> schemas.CompetitionGame:
    """A game added to the competition, in a round and at a table where given, by the competition's organiser token
    (or the admin's) as the bearer token: 401 `token_required` without one, 403 `token_refused` for another. A
    private game is added by the admin alone: to anyone else it is an unknown game. A game is in a competition once
    (409 `game_in_competition`); it may be in several competitions."""
    game = game_id_of(body.game_id)
    placement = Placement(body.round, body.table)
    ledger.competitions.add_game(competition_id_of(competition_id), game, placement, organiser)
    return game_of(str(game), placement)


@router.delete(
    "/competitions/{competition_id}/games/{game_id}",
    status_code=204,
    response_class=Response,
    operation_id="take_out_competition_game",
    responses=TAKEN_OUT_ANSWERS,
)
def take_out_game(
    competition_id: CompetitionId,
    game_id: Annotated[str, Path(description="the game's whole id (a UUID)")],
    ledger: LedgerDep,
    organiser: OrganiserDep,
) -> Response:
    """A game taken out of the competition by its organiser token (or the admin's) as the bearer token (401
    `token_required` without one, 403 `token_refused` for another): an event of the competition's record; it may
    be added again."""
    ledger.competitions.take_out(competition_id_of(competition_id), game_id_of(game_id), organiser)
    return Response(status_code=204)


def summary_of(competition: Competition) -> schemas.CompetitionSummary:
    return schemas.CompetitionSummary(**fields_of(competition))


def fields_of(competition: Competition) -> dict[str, Any]:
    """A competition's own fields, as every answer about it gives them."""
    return {
        "competition_id": str(competition.id),
        "kind": competition.kind,
        "name": competition.name,
        "season": competition.season,
        "scoring": competition.scoring.method,
        "points": list(competition.scoring.points),
        "created_at": competition.created_on.isoformat(),
    }


def game_of(game_id: str, placed: Placement) -> schemas.CompetitionGame:
    return schemas.CompetitionGame(game_id=game_id, round=placed.round, table=placed.table)


def held_game(shown: ShownGame) -> schemas.CompetitionGameHeld:
    placed = shown.placement
    return schemas.CompetitionGameHeld(
        game_id=shown.game_id, round=placed.round, table=placed.table, withdrawn=shown.withdrawn
    )


def standings_read(
    request: Request, ledger: Ledger, competition: Competition, caller: Caller
) -> tuple[list[dict[str, Any]], tuple[int, int]]:
    """The competition's standings as the caller is counted them, and how far the read tables and the log reach,
    read in one transaction."""
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        rows = competitions.standings(
            connection,
            str(competition.id),
            competition.scoring,
            private_rows_for(caller),
            ledger.store.personal.render,
        )
        position = position_in(connection)
    log_position = ledger.store.recorder.max_notification_id() or 0
    return rows, (position, log_position)
