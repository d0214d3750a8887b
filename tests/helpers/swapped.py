"""One game recorded in two servers, the same but for one hidden value, and what each server answers a reader who
may not see that value, put side by side: each answer's status, headers and body, ids, hashes, salts, recording
times and a new game's token set aside and nothing else (a length, a header, an order differs as it would between
two answers).

The readers: the public and each seat but the hidden action's own while the game is live; then, once the recorder
delays the broadcast and the server's clock stands where the hidden action is shown and the next one is not, a
spectator."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack
from fastapi.testclient import TestClient
from httpx import Response

from evo_ledger.app.readers import HIDDEN
from tests.helpers.api import PLAYERS, client_for
from tests.helpers.broadcast import DELAY, caught_up, delay, stored_at, watch_at
from tests.helpers.hidden import seats_in_order, set_aside
from tests.helpers.shown import shown_value
from tests.helpers.tokens import bearer

RULESET = "evo2"
KIT = "standin-e2-3p"
PUBLIC = "public"
DELAYED = "delayed broadcast"
MSGPACK = "application/msgpack"
GAME_FILE = {"Content-Type": "text/plain"}
SEATS = tuple(seat["name"] for seat in PLAYERS)
STABLE_PLAYERS = [{"id": f"{seat['name']}@club", **seat} for seat in PLAYERS]
"""The players, each with a stable id given: a seat's own is drawn at random by each server, and the read tables'
rows come in the order of their stable ids."""


@dataclass(frozen=True)
class Swap:
    """A hidden action recorded as `hidden[0]` in one server and as `hidden[1]` in the other, after `before`; the
    actions `after` it are appended alone, so that a broadcast's delay can show the hidden action and hold them
    back. `owner` is the one seat that sees it."""

    name: str
    before: tuple[str, ...]
    hidden: tuple[str, str]
    after: tuple[str, ...]
    owner: str

    @property
    def readers(self) -> tuple[str, ...]:
        """Who may not see the hidden action while the game is live: the public and the other seats."""
        return (PUBLIC, *(seat["name"] for seat in PLAYERS if seat["name"] != self.owner))


@dataclass(frozen=True)
class Question:
    """A request: its method, its path (`{game_id}` stands for the game's id) and its JSON body, if it has one, or
    the game file it sends as text (`game_file`), if it sends one."""

    method: str
    path: str
    body: dict[str, Any] | None = None
    game_file: str | None = None


@dataclass(frozen=True)
class Events:
    """Where the hidden action stands in the game: the last action before it (a branch from there replays it), its
    own event (the last the first append stored), and the game's last event."""

    replayed: int
    hidden: int
    last: int


@dataclass
class Held:
    """One server's game: its client, id, recorder's headers, each seat's headers, and its events."""

    client: TestClient
    game: str
    recorder: dict[str, str]
    seats: dict[str, dict[str, str]]
    events: Events

    def headers(self, reader: str) -> dict[str, str]:
        return self.seats.get(reader, {})


@dataclass
class Compared:
    """What was asked of both servers, by reader, as (reader, method, the first server's path without its query),
    and each answer that differs, by reader and request, as (the first server's, the second's)."""

    asked: set[tuple[str, str, str]] = field(default_factory=set)
    differing: dict[str, tuple[str, str]] = field(default_factory=dict)


def recorded(client: TestClient, swap: Swap, hidden: str) -> Held:
    """The game created with a token per seat, its seats let record their own actions, and its actions appended by
    its recorder: those up to the hidden action in one append, those after it in another, whose answer waits until
    the read tables include it. An action's event is told by its notation, which derived events lack."""
    created = client.post("/v1/games", json={"kit": KIT, "players": STABLE_PLAYERS, "seat_tokens": True})
    assert created.status_code == 201, created.text
    body = created.json()
    game, recorder = body["game_id"], bearer(body["recorder_token"])
    allowed = client.put(f"/v1/games/{game}/seats-record", json={"allowed": True}, headers=recorder)
    assert allowed.status_code == 200, allowed.text
    versions = []
    for actions, query in (([*swap.before, hidden], ""), (list(swap.after), "?wait_for_projections=30")):
        answer = client.post(f"/v1/games/{game}/actions{query}", json={"actions": actions}, headers=recorder)
        assert answer.status_code == 200, answer.text
        versions.append(answer.json()["version"])
    seats = {seat: bearer(token) for seat, token in body["seat_tokens"].items()}
    stored = client.get(f"/v1/games/{game}/events?limit=1000", headers=recorder).json()["events"]
    earlier = [event["number"] for event in stored if "notation" in event["fields"] and event["number"] < versions[0]]
    return Held(client, game, recorder, seats, Events(earlier[-1], *versions))


def hidden_as_recorded(held: Held) -> str:
    """The hidden action's event as the recorder reads it, the hidden value in it."""
    after = held.events.hidden - 1
    answer = held.client.get(f"/v1/games/{held.game}/events?after={after}&limit=1", headers=held.recorder)
    assert answer.status_code == 200, answer.text
    return set_aside(answer.text)


def imported_copy(held: Held) -> str:
    """The game moved in as a game file from another server: its recorder's export imported, as a new game whose id
    is that of the file's content; the copy's id."""
    exported = held.client.get(f"/v1/games/{held.game}/export", headers=held.recorder)
    assert exported.status_code == 200, exported.text
    answer = held.client.post("/v1/games/import", content=exported.text, headers=GAME_FILE)
    assert answer.status_code == 201, answer.text
    copy: str = answer.json()["game_id"]
    return copy


def guessed_files(held: Held, game: str, swap: Swap) -> list[str]:
    """The game file a reader without a token is given of `game`, with each of the swap's hidden values in the
    place of the hidden action it shows only whose it is."""
    public = held.client.get(f"/v1/games/{game}/export")
    assert public.status_code == 200, public.text
    in_place = f"# {HIDDEN}: an action of {swap.owner}"
    assert public.text.count(in_place) == 1, public.text
    return [public.text.replace(in_place, guess) for guess in swap.hidden]


def delayed(held: Held, shown: int) -> None:
    """The game broadcast with a delay, the server's clock set where the spectator sees events up to `shown`."""
    answer = delay(held.client, held.game, held.recorder, DELAY)
    assert answer.status_code == 200, answer.text
    moment = stored_at(held.client, held.game, held.recorder, shown + 1) - timedelta(microseconds=1)
    watch_at(held.client, moment + timedelta(minutes=DELAY))
    caught_up(held.client)


def answer_text(client: TestClient, answer: Response) -> str:
    """An answer as compared: its status, its headers in order, and its body (a bundle's stored events decoded,
    so that their ids, hashes, salts and times can be set aside; objects keyed by seats with their seats in order),
    all set aside."""
    headers = "\n".join(f"{name}: {value}" for name, value in answer.headers.multi_items())
    kind = answer.headers.get("content-type")
    body = bundle_text(client, answer.content) if kind == MSGPACK else seats_in_order(answer.text, kind, SEATS)
    return set_aside(f"{answer.status_code}\n{headers}\n\n{body}")


def bundle_text(client: TestClient, content: bytes) -> str:
    """A bundle with its stored events decoded. A bundle is the stored form: the seats' labels in it, drawn at
    random by each server, are read as the handles they stand for."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    transcoder = ledger.store.mapper.transcoder
    bundle = msgpack.unpackb(content)
    bundle["events"] = [[topic, version, transcoder.decode(state)] for topic, version, state in bundle["events"]]
    return json.dumps(shown_value(ledger, json.loads(json.dumps(bundle, default=str))), sort_keys=True)


def streamed(held: Held, path: str, headers: dict[str, str], last: int) -> str:
    """The stream as compared: its status and headers, and its lines until it has sent event `last`."""
    with held.client.stream("GET", path, headers=headers) as stream:
        lines = [str(stream.status_code), *(f"{name}: {value}" for name, value in stream.headers.multi_items()), ""]
        if stream.status_code != 200:
            return set_aside("\n".join([*lines, stream.read().decode()]))
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("id: ") and int(line.removeprefix("id: ")) >= last:
                break
    return set_aside("\n".join(lines))


def told(held: Held, reader: str, question: Question, last: int) -> str:
    """What the server answers the reader, `last` being the last event it may see."""
    path, headers = question.path.replace("{game_id}", held.game), held.headers(reader)
    if question.method == "GET" and urlsplit(path).path.endswith("/stream"):
        return streamed(held, path, headers, last)
    if question.game_file is not None:
        sent = {**headers, **GAME_FILE}
        answer = held.client.request(question.method, path, content=question.game_file, headers=sent)
    else:
        answer = held.client.request(question.method, path, json=question.body, headers=headers)
    return answer_text(held.client, answer)


def put_side_by_side(
    pair: tuple[Held, Held], reader: str, questions: list[Question], last: int, compared: Compared
) -> None:
    """Each question asked of both servers as the reader: the request kept as asked, a differing answer kept."""
    for question in questions:
        first, second = (told(held, reader, question, last) for held in pair)
        path = urlsplit(question.path.replace("{game_id}", pair[0].game)).path
        compared.asked.add((reader, question.method, path))
        if first != second:
            body = "" if question.body is None else f" {json.dumps(question.body)}"
            if question.game_file is not None:
                body = f" a game file, sha256 {hashlib.sha256(question.game_file.encode()).hexdigest()[:12]}"
            compared.differing[f"{reader}: {question.method} {question.path}{body}"] = (first, second)


def servers(folder: Path) -> tuple[TestClient, TestClient]:
    """Two servers, each on a database of its own, that answer as many audits and exports as they are asked."""
    unlimited = {"whole_log_reads_per_minute": None}
    return (
        client_for(str(folder / "recorded.sqlite"), **unlimited),
        client_for(str(folder / "swapped.sqlite"), **unlimited),
    )
