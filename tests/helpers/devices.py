"""A phone shared at the table: the server's app with the token each request to it carried, and what a page of the
site finds kept in the browser (every cache of Cache Storage, localStorage, sessionStorage, IndexedDB, and the
browser's own HTTP cache for the game's reads)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from api import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.servers import serving


class Heard:
    """The app, with each HTTP request it is sent: its method and path, and the token it carried ("" for none); its
    state is the app's (its settings among it)."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.state = app.state
        self.requests: list[tuple[str, str]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            authorization = dict(scope["headers"]).get(b"authorization", b"").decode()
            self.requests.append((f"{scope['method']} {scope['path']}", authorization.removeprefix("Bearer ")))
        await self.app(scope, receive, send)

    def tokens_since(self, heard: int) -> list[tuple[str, str]]:
        """The requests that carried a token, of those heard after the first `heard`."""
        return [request for request in self.requests[heard:] if request[1]]


@contextmanager
def heard_server(database: str) -> Iterator[tuple[str, Heard]]:
    """A server on `database` that hears every request (`Heard`): its base URL and the app."""
    heard = Heard(create_app(ApiSettings(store=Settings(database), stream_poll_seconds=0.5)))
    with serving(heard) as base:
        yield base, heard


def hidden_setup(server: str, game: str, recorder: dict[str, str]) -> list[str]:
    """The actions of the game's setup (`GET .../setup`, the recorder's) that a reader without a token is not
    shown: a card drawn into a hand, as it was drawn."""
    setup = httpx.get(f"{server}/v1/games/{game}/setup", headers=recorder).json()
    shown = {event["text"] for event in httpx.get(f"{server}/v1/games/{game}/events").json()["events"]}
    hidden = [action for action in setup["actions"] if action not in shown]
    assert hidden, "the game holds hidden facts"
    return hidden


# Where the page finds any of `secrets` kept in the browser: each item of localStorage and sessionStorage, each
# answer of every cache of Cache Storage (its address and its text), each record of every IndexedDB database, and
# the answer to each of `asked` the browser's HTTP cache holds.
FOUND_ON_DEVICE = """async ([secrets, asked]) => {
    const found = [];
    const look = (where, text) => { for (const secret of secrets) if (text.includes(secret)) found.push(where); };
    for (const [name, storage] of [["localStorage", localStorage], ["sessionStorage", sessionStorage]]) {
        for (let index = 0; index < storage.length; index += 1) {
            const key = storage.key(index);
            look(`${name} ${key}`, `${key} ${storage.getItem(key)}`);
        }
    }
    for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
            const answer = await cache.match(request); // none where the worker dropped it meanwhile
            look(`${name} ${request.url}`, `${request.url} ${answer ? await answer.text() : ""}`);
        }
    }
    const answered = (request) => new Promise((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
    });
    for (const { name } of await indexedDB.databases()) {
        const database = await answered(indexedDB.open(name));
        for (const store of database.objectStoreNames) {
            const records = await answered(database.transaction(store).objectStore(store).getAll());
            look(`${name} ${store}`, JSON.stringify(records));
        }
        database.close();
    }
    for (const address of asked) {
        const cached = await fetch(address, { cache: "only-if-cached", mode: "same-origin" }).catch(() => null);
        if (cached && cached.ok) look(`the HTTP cache ${address}`, await cached.text());
    }
    return found;
}"""


def found_on_device(page: Any, game: str, secrets: list[str]) -> list[str]:
    """Where a page of the site finds any of `secrets` kept in the browser (`FOUND_ON_DEVICE`), the HTTP cache asked
    for the game's setup, view and legal actions."""
    asked = [f"/v1/games/{game}{path}" for path in ("/setup", "/view", "/legal")]
    found: list[str] = page.evaluate(FOUND_ON_DEVICE, [secrets, asked])
    return found


# Whether a cache of the site keeps an answer of a game's setup (sealed or not).
SETUP_KEPT = """async () => {
    for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        if ((await cache.keys()).some((request) => new URL(request.url).pathname.endsWith("/setup"))) return true;
    }
    return false;
}"""
