"""A half-sent request holds no connection: a real server, with short deadlines, cuts off a head sent a byte a
second, answers a body sent a byte a second with 408 `body_timeout`, and closes a connection that sends nothing;
a request sent whole is answered as ever."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit
from uuid import uuid4

import httpx
import pytest

from api import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.servers import ADMIN, serving

HEAD_SECONDS, BODY_SECONDS = 2.0, 2.0
SLACK = 1.5  # a timer on a busy machine fires late, and the last byte is a second apart at most
HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a byte a second\r\nAccept: */*\r\n\r\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    database = Path(tmp_path_factory.mktemp("deadlines")) / "ledger.sqlite"
    settings = ApiSettings(
        store=Settings(str(database)),
        admin_token=ADMIN,
        follow_projections=False,
        writer_process=False,
        head_seconds=HEAD_SECONDS,
        body_seconds=BODY_SECONDS,
    )
    with serving(create_app(settings)) as base:
        address = urlsplit(base)
        assert address.hostname is not None and address.port is not None
        yield address.hostname, address.port


def trickled(connection: socket.socket, data: bytes) -> tuple[float, bytes]:
    """`data` sent a byte a second until the server answers or closes the connection: the seconds it took, from the
    first byte, and what the server answered."""
    started, answer = time.monotonic(), b""
    for byte in data:
        try:
            connection.sendall(bytes([byte]))
        except OSError:  # closed meanwhile
            break
        received, closed = read_for(connection, 1.0)
        answer += received
        if answer or closed:
            break
    return time.monotonic() - started, answer


def read_for(connection: socket.socket, seconds: float) -> tuple[bytes, bool]:
    """What the server sends within `seconds`, and whether it closed the connection."""
    received, deadline = b"", time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        connection.settimeout(left)
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return received, True
        if not chunk:
            return received, True
        received += chunk
    return received, False


def test_a_head_sent_a_byte_a_second_is_cut_off_within_the_head_deadline(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as connection:
        took, answer = trickled(connection, HEAD)
    assert answer == b"", "cut off, unanswered"
    assert took < HEAD_SECONDS + SLACK < len(HEAD), f"cut off after {took:.1f} s"


def test_a_connection_that_sends_nothing_is_closed_within_the_head_deadline(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as connection:
        started = time.monotonic()
        answer, closed = read_for(connection, HEAD_SECONDS + SLACK)
    assert closed and answer == b"", f"open after {time.monotonic() - started:.1f} s"


def test_an_upgrade_asked_for_does_not_lift_the_deadline_from_the_heads_after_it(server: tuple[str, int]) -> None:
    upgrade = HEAD.replace(b"Accept: */*\r\n", b"Accept: */*\r\nConnection: Upgrade\r\nUpgrade: foo\r\n")
    with socket.create_connection(server) as connection:
        connection.sendall(upgrade)
        answered, _ = read_for(connection, 1.0)
        took, _ = trickled(connection, HEAD)
    assert answered.startswith(b"HTTP/1.1 200"), answered[:40]
    assert took < HEAD_SECONDS + SLACK < len(HEAD), f"open {took:.1f} s after the upgrade was asked for"


def test_a_body_sent_a_byte_a_second_is_answered_408_within_the_body_deadline(server: tuple[str, int]) -> None:
    body = json.dumps({"actions": ["order ann ben cat"]}).encode()
    head = (
        f"POST /v1/games/{uuid4()}/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(server) as connection:
        connection.sendall(head)
        took, answer = trickled(connection, body)
        rest_of_it, closed = read_for(connection, SLACK)
    status, _, rest = (answer + rest_of_it).partition(b"\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout", answer
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "body_timeout"
    assert took < BODY_SECONDS + SLACK, f"answered after {took:.1f} s"
    assert closed, "the connection is closed after the answer"


def test_a_request_sent_whole_is_answered_as_ever(server: tuple[str, int]) -> None:
    host, port = server
    with httpx.Client(base_url=f"http://{host}:{port}") as http:
        assert http.get("/health").status_code == 200
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
        assert created.status_code == 201, created.text
