"""The HTTP ceilings for the API benchmark: a do-nothing endpoint of the append's shape that stores nothing. It
reads its request as the append does (the bearer token, the JSON body validated by the same model, the game id
from the path) and answers a receipt the same way.

The ceiling of the target is that endpoint served the same way as the append: in the service's own app (its
middleware, its routers and error handlers, its writing and read tables' processes, idle here), tried before the
service's routes, so that finding it costs no more than finding the append, and run as `evo-ledger serve` runs
the app:

    python -m bench.http_ceiling --port 8001 --database ceiling.sqlite

The service's app also serves, at `DECLARED_APPEND`, the real append with its parameters declared to FastAPI,
which reads them: the appends are measured there against the append's own reading of its request
(`api.fast_paths`), on this server's store.

For comparison, `app` is the same endpoint alone in a bare FastAPI app, and `DECLARED` the same again with its
parameters declared to FastAPI, which reads them:

    python -m uvicorn bench.http_ceiling:app --port 8002
"""

from __future__ import annotations

import argparse
from typing import Annotated

from fastapi import APIRouter, FastAPI, Header, Query, Request, Response

from api import ApiSettings, create_app, schemas
from api.deps import TokenDep, game_id_of, token_of
from api.fast_paths import MAX_IDEMPOTENCY_KEY, MAX_PROJECTION_WAIT, AppendRead, json_body
from api.routes.games import record_append
from evo_ledger.cli.main import run_server
from evo_ledger.settings import Settings

NOTHING = "/v1/nothing/games/{game_id}/actions"
DECLARED = "/v1/declared/games/{game_id}/actions"
DECLARED_APPEND = "/v1/declared-append/games/{game_id}/actions"


async def append_nothing(request: Request) -> Response:
    token_of(request.headers.get("authorization"))
    body = await json_body(request, schemas.Append)
    receipt = schemas.Receipt(game_id=request.path_params["game_id"], version=len(body.actions), head_hash="0" * 64)
    return Response(receipt.model_dump_json(), media_type="application/json")


async def append_nothing_declared(game_id: str, body: schemas.Append, token: TokenDep) -> schemas.Receipt:
    return schemas.Receipt(game_id=game_id, version=len(body.actions), head_hash="0" * 64)


async def append_declared(
    request: Request,
    game_id: str,
    body: schemas.Append,
    token: TokenDep,
    idempotency_key: Annotated[str | None, Header(max_length=MAX_IDEMPOTENCY_KEY)] = None,
    wait_for_projections: Annotated[float | None, Query(ge=0, le=MAX_PROJECTION_WAIT)] = None,
) -> Response:
    """The service's append with its parameters declared to FastAPI, which reads them: what the append's own
    reading of its request (`api.fast_paths`) is measured against."""
    read = AppendRead(game_id_of(game_id), body, token, idempotency_key, wait_for_projections)
    return await record_append(request, read)


app = FastAPI()
app.post("/v1/games/{game_id}/actions", response_model=schemas.Receipt)(append_nothing)
app.post(DECLARED, response_model=schemas.Receipt)(append_nothing_declared)


def service_app(database: str) -> FastAPI:
    """The service's app, with the do-nothing endpoint at NOTHING and the append declared to FastAPI at
    DECLARED_APPEND tried before every other route."""
    service = create_app(ApiSettings(store=Settings.for_database(database)))
    added = APIRouter()
    added.post(NOTHING, response_model=schemas.Receipt)(append_nothing)
    added.post(DECLARED_APPEND, response_model=schemas.Receipt)(append_declared)
    service.include_router(added)
    for _ in added.routes:
        service.router.routes.insert(0, service.router.routes.pop())
    return service


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True, help="the service's database (the declared appends write it)")
    args = parser.parse_args()
    run_server(service_app(args.database), "127.0.0.1", args.port)


if __name__ == "__main__":
    main()
