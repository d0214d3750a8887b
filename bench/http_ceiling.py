"""The HTTP ceiling for the API benchmark: an app with one endpoint of the append's shape (the same body and
answer, an `async def` with the bearer token read by the same dependency) that stores nothing. Served by uvicorn
like `evo-ledger serve`:

    python -m uvicorn bench.http_ceiling:app --port 8001
"""

from __future__ import annotations

from fastapi import FastAPI

from api import schemas
from api.deps import TokenDep

app = FastAPI()


@app.post("/v1/games/{game_id}/actions", response_model=schemas.Receipt)
async def append_nothing(game_id: str, body: schemas.Append, token: TokenDep) -> schemas.Receipt:
    return schemas.Receipt(game_id=game_id, version=len(body.actions), head_hash="0" * 64)
