"""The live streams each client holds open, at most `ApiSettings.streams_per_client` a client: one more is refused
with 429 `too_many_streams` before it starts. A client is the token it reads with, when the game knows that token
(its recorder's, a seat's, the admin's), else the address it comes from: a token the game does not know would let
one caller count as many.

Only the server's event loop opens and ends streams, so the counts take no lock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import Request

from api.deps import Reader
from api.errors import ApiError
from evo_ledger.app.access import token_digest

RETRY_AFTER_SECONDS = 5


class OpenStreams:
    """How many streams each client holds open (a client holding none is not kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: dict[str, int] = {}

    @contextmanager
    def place(self, client: str) -> Iterator[None]:
        """A place for one more of the client's streams while it is open, or 429 `too_many_streams` if it holds
        `limit` already."""
        held = self.held.get(client, 0)
        if held >= self.limit:
            message = f"a client may hold {self.limit} live streams open at once: closing one of them frees a place"
            raise ApiError(429, "too_many_streams", message, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        self.held[client] = held + 1
        try:
            yield
        finally:
            self.release(client)

    def release(self, client: str) -> None:
        left = self.held[client] - 1
        if left:
            self.held[client] = left
        else:
            del self.held[client]


def open_streams(request: Request) -> OpenStreams:
    """The server's count of open streams."""
    found: OpenStreams = request.app.state.open_streams
    return found


def client_of(request: Request, reader: Reader) -> str:
    """Whom a stream is counted against: the token the game knows it by, or the address it comes from."""
    if reader.known_token is not None:
        return f"token {token_digest(reader.known_token)}"
    return f"address {request.client.host if request.client is not None else 'unknown'}"
