"""The HTTP ceiling for the API benchmark: an app with one endpoint of the append's shape that stores nothing. It
reads its request as the append does (the bearer token, the JSON body validated by the same model, the game id
from the path) and answers a receipt the same way. Served by uvicorn like `evo-ledger serve`:

    python -m uvicorn bench.http_ceiling:app --port 8001

For comparison only, `DECLARED` is the same endpoint with its parameters declared to FastAPI, which reads them
(as the append did before it read its request itself).
"""

from __future__ import annotations

from fastapi import FastAPI, Request, Response

from api import schemas
from api.deps import TokenDep, json_body, token_of

app = FastAPI()
DECLARED = "/v1/declared/games/{game_id}/actions"


@app.post("/v1/games/{game_id}/actions", response_model=schemas.Receipt)
async def append_nothing(request: Request) -> Response:
    token_of(request.headers.get("authorization"))
    body = await json_body(request, schemas.Append)
    receipt = schemas.Receipt(game_id=request.path_params["game_id"], version=len(body.actions), head_hash="0" * 64)
    return Response(receipt.model_dump_json(), media_type="application/json")


@app.post(DECLARED, response_model=schemas.Receipt)
async def append_nothing_declared(game_id: str, body: schemas.Append, token: TokenDep) -> schemas.Receipt:
    return schemas.Receipt(game_id=game_id, version=len(body.actions), head_hash="0" * 64)
