"""Every place the API reads a request by hand in place of FastAPI, each named with the benchmark line it pays for.

`python -m bench.api_speed` measures each against FastAPI's own reading of the same request in the same run (the
append with its parameters declared, `bench.http_ceiling.DECLARED_APPEND`) and writes the ratio into
docs/benchmarks.md; one that buys less than `KEPT_ABOVE` on its line is not kept. Only this module reads a
request's body, query or path parameters by hand (`tests/test_api_fast_paths.py` reads the rest of the API for
it). What it reads is refused as FastAPI would refuse it (422 `invalid_request`, naming where), and documented in
the OpenAPI schema all the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from api import schemas
from api.deps import game_id_of, token_of
from api.errors import ApiError
from evo_ledger.store.fast_paths import KEPT_ABOVE, FastPath

Body = TypeVar("Body", bound=BaseModel)
MAX_IDEMPOTENCY_KEY = 200
MAX_PROJECTION_WAIT = 30.0

FAST_PATHS = (
    FastPath(
        "append_reads_its_request",
        "FastAPI reading the append's declared path, headers, query and body",
        "bench.api_speed appends over HTTP, 32 clients, against the same appends declared to FastAPI",
    ),
)

# What the append reads, for its OpenAPI schema.
APPEND_PARAMETERS: list[dict[str, Any]] = [
    {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string", "title": "Game Id"}},
    {
        "name": "authorization",
        "in": "header",
        "required": False,
        "description": "Bearer TOKEN: the game's recorder token",
        "schema": {"type": "string"},
    },
    {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": "a retried request with the same key gets the first answer again",
        "schema": {"type": "string", "maxLength": MAX_IDEMPOTENCY_KEY},
    },
    {
        "name": "wait_for_projections",
        "in": "query",
        "required": False,
        "description": "seconds to wait for the read tables",
        "schema": {"type": "number", "minimum": 0, "maximum": MAX_PROJECTION_WAIT},
    },
]


@dataclass(frozen=True)
class AppendRead:
    """An append's request as read: its game, body, bearer token, idempotency key and wait for the read tables."""

    game_id: UUID
    body: schemas.Append
    token: str | None
    idempotency_key: str | None
    wait_for_projections: float | None


async def read_append(request: Request) -> AppendRead:
    """The append's request read by hand (pays for: the line FAST_PATHS names)."""
    body = await body_or_refusal(request, schemas.Append)  # JSON that does not parse is refused first
    token = token_of(request.headers.get("authorization"))
    if isinstance(body, RequestValidationError):  # a body that is not the model's, after the token, as FastAPI
        raise body
    key = idempotency_key_of(request.headers.get("idempotency-key"))
    wait = projection_wait_of(request)
    return AppendRead(game_id_of(request.path_params["game_id"]), body, token, key, wait)


async def json_body(request: Request, model: type[Body]) -> Body:
    """The request's JSON body read as `model`: refused as a declared body is, with 422 `invalid_request` naming
    where in the body."""
    body = await body_or_refusal(request, model)
    if isinstance(body, RequestValidationError):
        raise body
    return body


async def body_or_refusal(request: Request, model: type[Body]) -> Body | RequestValidationError:
    """The request's JSON body read as `model`, or why it is not one (JSON that does not parse is refused at
    once)."""
    raw = await request.body()
    if not raw:
        return body_error("missing", "Field required")
    if not is_json(request.headers.get("content-type", "")):
        return body_error("not_json", "the body must be JSON, sent with Content-Type: application/json")
    encoding = json.detect_encoding(raw)  # JSON in UTF-16 or 32, or after a byte order mark, as FastAPI reads it
    if encoding != "utf-8":
        raw = raw.decode(encoding, errors="replace").encode("utf-8", errors="surrogatepass")
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        refusal = RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in error.errors()])
        if any(e["type"] == "json_invalid" for e in error.errors()):
            raise refusal from None
        return refusal


def body_error(kind: str, message: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body",), "msg": message, "input": None}])


def is_json(content_type: str) -> bool:
    media_type = content_type.partition(";")[0].strip().lower()
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


def idempotency_key_of(key: str | None) -> str | None:
    if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
        raise ApiError(422, "invalid_request", f"header.Idempotency-Key: at most {MAX_IDEMPOTENCY_KEY} characters")
    return key


def projection_wait_of(request: Request) -> float | None:
    if not request.scope["query_string"]:
        return None
    text = request.query_params.get("wait_for_projections")
    if text is None:
        return None
    try:
        seconds = float(text) if text.isascii() else -1.0  # float() reads digits of every script; a query does not
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_PROJECTION_WAIT:  # also refuses nan
        raise ApiError(
            422, "invalid_request", f"query.wait_for_projections: a number of seconds from 0 to {MAX_PROJECTION_WAIT}"
        )
    return seconds


__all__ = ["FAST_PATHS", "KEPT_ABOVE", "AppendRead", "read_append"]
