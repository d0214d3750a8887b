"""Appends over HTTP against `evo-ledger serve`, on SQLite and PostgreSQL, beside what bounds them in the same run.

    python -m bench.api_speed [--seconds 5] [--postgres postgresql://postgres@127.0.0.1:5432/test]

For each database, in one run:
- in-process appends: one action per save through `Ledger.record`, events/s (no HTTP);
- appends over HTTP with 1, 8 and 32 concurrent clients, each recording its own game, one action a request:
  events/s, p50 and p99 latency, errors;
- the HTTP ceiling: the same requests to a do-nothing endpoint of the same shape (bench/http_ceiling.py) that
  reads its request as the append does, in the service's own app served as `evo-ledger serve` serves it (on a
  store of its own), with 32 clients; the appends with 32 clients, that ceiling and, for comparison, the same
  endpoint alone in a bare FastAPI app take turns for five rounds, so that all meet the same moments of this
  shared machine, and the median round's ratios are given; then, for comparison too, the bare app's endpoint
  with its parameters declared to FastAPI;
- the append's own reading of its request (`api.fast_paths`) against the same append declared to FastAPI, on the
  ceiling's server, 32 clients, in turns for five rounds: the ratio of their requests/s, kept at `KEPT_ABOVE`;
- the state at a random event over HTTP, p50 and p99.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from api.fast_paths import FAST_PATHS, KEPT_ABOVE
from bench.http_ceiling import DECLARED, DECLARED_APPEND, NOTHING
from bench.ledger_speed import postgres_database
from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings

GAME = [line.text for line in parse_game(Path("replays/hand-3p-first-game.evo").read_text()).actions]
NEW_GAME = {"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
ROUNDS = 5
APPEND = "/v1/games/{game_id}/actions"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def served(command: list[str], port: int, env: dict[str, str]) -> Iterator[str]:
    process = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/openapi.json", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{command} did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def in_process_rate(database: str, seconds: float) -> float:
    with Ledger(Settings(database)) as ledger:
        events, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            receipt = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
            first = receipt.version
            for line in GAME:
                receipt = ledger.commands.record(receipt.game_id, line, expected_version=receipt.version)
                if time.perf_counter() - started >= seconds:
                    break
            events += receipt.version - first
        return events / (time.perf_counter() - started)


class Connection:
    """One kept-alive HTTP/1.1 connection, written and read by hand: a load generator light enough to leave the
    machine's cores to the server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, base: str) -> Connection:
        host, port = base.removeprefix("http://").split(":")
        return cls(*await asyncio.open_connection(host, int(port)))

    async def post(self, path: str, body: dict[str, Any], token: str | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        head = f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n{auth}"
        self.writer.write(f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data)
        answer_head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, _, headers = answer_head.partition(b"\r\n")
        length = 0
        for line in headers.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        answer = await self.reader.readexactly(length)
        return int(status_line.split()[1]), json.loads(answer) if answer else None

    def close(self) -> None:
        self.writer.close()


async def client_loop(
    base: str, deadline: float, latencies: list[float], counts: list[int], append: str = APPEND
) -> None:
    """One recorder on its own connection: a game of its own, one action a request (to `append`), a new game when
    one ends."""
    connection = await Connection.open(base)
    try:
        while time.perf_counter() < deadline:
            _, created = await connection.post("/v1/games", NEW_GAME)
            game, version, token = created["game_id"], created["version"], created["recorder_token"]
            for line in GAME:
                if time.perf_counter() >= deadline:
                    return
                started = time.perf_counter()
                status, answer = await connection.post(
                    append.format(game_id=game), {"actions": [line], "expected_version": version}, token
                )
                latencies.append(time.perf_counter() - started)
                if status != 200:
                    counts[1] += 1
                    break
                counts[0] += answer["version"] - version
                version = answer["version"]
    finally:
        connection.close()


async def ceiling_loop(
    base: str, deadline: float, latencies: list[float], counts: list[int], path: str = "/v1/games/g/actions"
) -> None:
    """The same append request, again and again, to the do-nothing endpoint."""
    connection = await Connection.open(base)
    try:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            status, _ = await connection.post(path, {"actions": [GAME[0]], "expected_version": 1})
            latencies.append(time.perf_counter() - started)
            counts[0 if status == 200 else 1] += 1
    finally:
        connection.close()


Loop = Callable[[str, float, list[float], list[int]], Awaitable[None]]


async def load(loop: Loop, base: str, clients: int, seconds: float) -> tuple[float, float, float, float, int]:
    """`clients` loops at once for `seconds`: what they counted a second, requests a second, p50 and p99 latency
    in milliseconds, errors."""
    latencies: list[float] = []
    counts = [0, 0]
    started = time.perf_counter()
    await asyncio.gather(*(loop(base, started + seconds, latencies, counts) for _ in range(clients)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    rates = counts[0] / elapsed, len(latencies) / elapsed
    return *rates, percentile(latencies, 0.5), percentile(latencies, 0.99), counts[1]


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))] * 1000


def state_latency(base: str, samples: int) -> tuple[float, float]:
    with httpx.Client(timeout=30) as client:
        games = client.get(f"{base}/v1/games").json()["games"]
        longest = max(games, key=lambda g: g["version"])
        rng = random.Random(1)
        latencies = []
        for _ in range(samples):
            at = rng.randint(1, longest["version"])
            started = time.perf_counter()
            client.get(f"{base}/v1/games/{longest['game_id']}/state", params={"at": at}).raise_for_status()
            latencies.append(time.perf_counter() - started)
    latencies.sort()
    return statistics.median(latencies) * 1000, percentile(latencies, 0.99)


def run(label: str, database: str, seconds: float) -> None:
    print(f"\n{label}", flush=True)
    print(f"  in-process appends          {in_process_rate(database, seconds):8,.0f} events/s")
    port, ceiling_port, bare_port = free_port(), free_port(), free_port()
    serve = [sys.executable, "-m", "evo_ledger", "serve", "--port", str(port), "--database", database]
    serve += ["--log-level", "warning"]  # as the bare app below: no line a request
    bare = [sys.executable, "-m", "uvicorn", "bench.http_ceiling:app", "--port", str(bare_port)]
    with (
        tempfile.TemporaryDirectory() as unused,
        served(serve, port, {}) as base,
        served(ceiling_command(ceiling_port, unused), ceiling_port, {}) as ceiling_base,
        served([*bare, "--log-level", "warning"], bare_port, {}) as bare_base,
    ):
        for clients in (1, 8):
            print_appends(clients, asyncio.run(load(client_loop, base, clients, seconds)))
        nothing_loop = partial(ceiling_loop, path=NOTHING.format(game_id="g"))
        measured = [
            (
                asyncio.run(load(client_loop, base, 32, seconds)),
                asyncio.run(load(nothing_loop, ceiling_base, 32, seconds))[1],
                asyncio.run(load(ceiling_loop, bare_base, 32, seconds))[1],
            )
            for _ in range(ROUNDS)
        ]
        middle = sorted(range(ROUNDS), key=lambda index: measured[index][0][1] / measured[index][1])[ROUNDS // 2]
        print_appends(32, measured[middle][0])
        appended = [rates[0][1] for rates in measured]
        for name, ceilings in (
            ("in the service's app", [rates[1] for rates in measured]),
            ("in a bare FastAPI app", [rates[2] for rates in measured]),
        ):
            ratios = [append / ceiling for append, ceiling in zip(appended, ceilings, strict=True)]
            print(f"  do-nothing ceiling {name:22} {statistics.median(ceilings):8,.0f} requests/s")
            print(
                f"    appends against it        {statistics.median(ratios):8.2f}x"
                f" (rounds: {', '.join(f'{ratio:.2f}' for ratio in ratios)})"
            )
        declared_loop = partial(ceiling_loop, path=DECLARED.format(game_id="g"))
        declared = asyncio.run(load(declared_loop, bare_base, 32, seconds))[1]
        print(f"  declared to FastAPI, 32     {declared:8,.0f} requests/s (FastAPI reading the request, to compare)")
        print_fast_path(ceiling_base, seconds)
        p50, p99 = state_latency(base, 200)
        print(f"  state at a random event     p50 {p50:.1f} ms  p99 {p99:.1f} ms")


def print_fast_path(base: str, seconds: float) -> None:
    """The append reading its request by hand against the same append declared to FastAPI, on the ceiling's server
    (a store of its own), 32 clients, in turns for five rounds."""
    [fast_path] = FAST_PATHS
    declared_loop = partial(client_loop, append=DECLARED_APPEND)
    rounds = [
        (asyncio.run(load(client_loop, base, 32, seconds))[1], asyncio.run(load(declared_loop, base, 32, seconds))[1])
        for _ in range(ROUNDS)
    ]
    ratios = [own / declared for own, declared in rounds]
    kept = "kept" if statistics.median(ratios) >= KEPT_ABOVE else f"under {KEPT_ABOVE:.2f}x: not kept"
    print(f"  {fast_path.name}: {fast_path.pays_for}")
    print(f"    stands in for {fast_path.replaces}")
    print(
        f"    {statistics.median(ratios):.2f}x ({kept}; rounds: {', '.join(f'{ratio:.2f}' for ratio in ratios)})"
        f", {statistics.median(own for own, _ in rounds):,.0f} against"
        f" {statistics.median(declared for _, declared in rounds):,.0f} requests/s"
    )


def ceiling_command(port: int, folder: str) -> list[str]:
    """The service's app with the do-nothing endpoint, on a SQLite store of its own (its read tables' process would
    otherwise follow the appends being measured), written only by the fast path's rounds, after the ceiling's."""
    database = str(Path(folder) / "ceiling.sqlite")
    return [sys.executable, "-m", "bench.http_ceiling", "--port", str(port), "--database", database]


def print_appends(clients: int, measured: tuple[float, float, float, float, int]) -> None:
    events, requests, p50, p99, errors = measured
    print(
        f"  HTTP, {clients:2} clients           {events:8,.0f} events/s ({requests:,.0f} requests/s)"
        f"  p50 {p50:.1f} ms  p99 {p99:.1f} ms  errors {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="how long each measurement runs")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = "appends at 32 clients, 0.5x the service's do-nothing ceiling and 1,500 events/s (SQLite)."
    reporting("api", "HTTP API", ".venv/bin/python -m bench.api_speed", targets, lambda: measure_all(args), args.report)


def measure_all(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run("SQLite (WAL, synchronous=FULL)", str(Path(folder) / "api.sqlite"), args.seconds)
    try:
        with postgres_database(args.postgres) as url:
            run("PostgreSQL", url, args.seconds)
    except Exception as error:
        print(f"\nPostgreSQL left out: {str(error).strip().splitlines()[0]}")


if __name__ == "__main__":
    main()
