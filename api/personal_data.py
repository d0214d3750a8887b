"""Personal data as every answer shows it: each answer in text (JSON, an event stream, a page, CSV, plain text)
leaves with its seats' labels turned into the handles they stand for and sealed text opened, as they stand when it
is sent (evo_ledger.app.personal.Personal.render): after an erasure, every route answers with the label and
`[erased]`, by construction. A binary answer is the stored form itself (a bundle, a page of events in msgpack) and
is left as it is. A report (an audit, an explanation, a what-if) is shown so too, while its hash (`report_hash`,
`X-Report-Hash`) is over the report as the log gives it, seats by label: the same before an erasure and after.

Sealed text is opened in answers that succeed alone: a refusal may quote what the request said, and opens nothing.
A request that holds sealed text anywhere (its path, its query, its headers, its body as its bytes and as the JSON,
msgpack or text the routes read them as) is refused (422 `sealed_text_given`), as is one with two Content-Types:
sealed text enters the log only as the ledger seals what a person typed, or inside a bundle of its own game
(evo_ledger.app.transfer), so that no answer opens a text it was not stored with. A body cut off by its client is
handed to no route."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import unquote_plus

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import errors
from evo_ledger.app.personal import ESCAPES, SEALED_MARK, Escape, Personal, holds_sealed_text
from evo_ledger.game.codec import CodecError, unpack_input
from evo_ledger.game.labels import LABEL_PREFIX

MARKS = (LABEL_PREFIX.encode(), LABEL_PREFIX.capitalize().encode(), SEALED_MARK.encode())
BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})
BUNDLE = "application/msgpack"
log = logging.getLogger(__name__)


def escape_for(headers: list[tuple[bytes, bytes]]) -> Escape | None:
    """How opened text is made safe in an answer with these headers; None: the answer is left as it is."""
    media = media_type(headers)
    if media.startswith("application/") and media.endswith("+json"):
        media = "application/json"
    return ESCAPES.get(media)


def media_type(headers: list[tuple[bytes, bytes]]) -> str:
    found = dict((name.lower(), value) for name, value in headers)
    return found.get(b"content-type", b"").partition(b";")[0].strip().lower().decode("latin-1")


class PersonalDataShown:
    """Every answer in text shown with the personal data it quotes as it now stands, for the ledger the app opened
    (none before it has: the app answers nothing then); every request holding sealed text refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        ledger = getattr(getattr(scope.get("app"), "state", None), "ledger", None)
        if scope["type"] != "http" or ledger is None:
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        if sealed_in_address(scope) or any(sealed_in_header(value) for _, value in headers):
            await refuse(send, "its address or its headers")
            return
        if sum(name.lower() == b"content-type" for name, _ in headers) > 1:
            await answer(send, errors.problem(400, "invalid_request", "header.Content-Type: given more than once"))
            return
        if scope.get("method") not in BODILESS:
            try:
                body = await whole_body(receive)
            except HTTPException as error:  # a body that came too slowly
                await answer(send, errors.http_problem(error))
                return
            if body is None:  # the client went away before its body had come whole
                return
            if sealed_in_body(body, media_type(headers), scope.get("path", "")):
                await refuse(send, "its body")
                return
            receive = replaying(body, receive)
        if scope.get("method") == "HEAD":
            await self.app(scope, receive, send)
            return
        personal: Personal = ledger.store.personal
        await self.app(scope, receive, Shown(personal, send).send)


def sealed_in_address(scope: Scope) -> bool:
    query = unquote_plus(scope.get("query_string", b"").decode("latin-1"))
    return SEALED_MARK in scope.get("path", "") or SEALED_MARK in query


def sealed_in_header(value: bytes) -> bool:
    return any(SEALED_MARK in text for text in (value.decode("latin-1"), unquote_plus(value.decode("latin-1"))))


def sealed_in_body(body: bytes, media: str, path: str) -> bool:
    """Whether the body holds sealed text, in its bytes or as what it is read as. A bundle imported is checked by
    the import itself: it may hold its own game's sealed text."""
    if media == BUNDLE and path.endswith("/import"):
        return False
    return SEALED_MARK.encode() in body or holds_sealed_text(read_body(body))


def read_body(body: bytes) -> list[Any]:
    """The body in every way a route may read it: as msgpack, as JSON (strictly, and as the append's own reading
    does, its bytes decoded with what cannot be replaced), and as text in each encoding JSON allows."""
    texts = [body.decode(encoding, errors="replace") for encoding in ("utf-8", "utf-16", "utf-32")]
    readings: list[Any] = list(texts)
    readers: list[Callable[[], Any]] = [
        partial(unpack_input, body),
        partial(json.loads, body),
        partial(json.loads, body.decode(json.detect_encoding(body), errors="replace")),
    ]
    for read in readers:
        try:
            readings.append(read())
        except (ValueError, CodecError, RecursionError):  # the app refuses what it cannot read, as it reads it
            continue
    return readings


async def whole_body(receive: Receive) -> bytes | None:
    """The request's body, whole; None if its client went away before it had come whole."""
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


def replaying(body: bytes, receive: Receive) -> Receive:
    """The body, read once already, given to the app again; then what follows it (a client gone)."""
    given = False

    async def received() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return received


async def refuse(send: Send, where: str) -> None:
    message = f"the request holds sealed text ({SEALED_MARK}…) in {where}: the ledger seals what is typed itself"
    await answer(send, errors.problem(422, "sealed_text_given", message))


async def answer(send: Send, response: Any) -> None:
    await send({"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


class Shown:
    """One answer's messages on their way out. A whole answer's head is held until its body is shown, so that its
    length is that of what is sent; an answer sent in parts (a stream, with no length) has its head sent at once."""

    def __init__(self, personal: Personal, send: Send) -> None:
        self.personal, self.out = personal, send
        self.head: Message | None = None
        self.escape: Escape | None = None
        self.opening = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = message.get("headers", [])
            self.escape = escape_for(headers)
            self.opening = message.get("status", 500) < 400
            if self.escape is None or not any(name.lower() == b"content-length" for name, _ in headers):
                await self.out(message)
            else:
                self.head = message
            return
        if message["type"] != "http.response.body" or self.escape is None:
            await self.out(message)
            return
        body = await self.shown(message.get("body", b""), self.escape)
        if self.head is not None:
            await self.out(with_length(self.head, None if message.get("more_body", False) else len(body)))
            self.head = None
        await self.out({**message, "body": body})

    async def shown(self, body: bytes, escape: Escape) -> bytes:
        if not any(mark in body for mark in MARKS):
            return body
        try:
            text = body.decode()
        except UnicodeDecodeError:
            return body
        try:
            shown: str = await anyio.to_thread.run_sync(self.personal.render, text, escape, self.opening)
        except Exception:  # the store gone (a server stopping): labels and sealed text are no one's names
            log.warning("an answer is sent with its seats' labels: the store could not be read", exc_info=True)
            return body
        return shown.encode()


def with_length(head: Message, length: int | None) -> Message:
    """The answer's head with the length of its body (none for one sent in parts)."""
    headers = [(name, value) for name, value in head.get("headers", []) if name.lower() != b"content-length"]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {**head, "headers": headers}
