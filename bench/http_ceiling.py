"""The HTTP ceiling for the API benchmark: an app with one endpoint of the append's shape (the same body and
answer, a plain `def` served from the thread pool) that stores nothing. Served by uvicorn like `evo-ledger serve`:

    python -m uvicorn bench.http_ceiling:app --port 8001
"""

from __future__ import annotations

from fastapi import FastAPI

from api import schemas

app = FastAPI()


@app.post("/v1/games/{game_id}/actions", response_model=schemas.Receipt)
def append_nothing(game_id: str, body: schemas.Append) -> schemas.Receipt:
    return schemas.Receipt(game_id=game_id, version=len(body.actions), head_hash="0" * 64)
