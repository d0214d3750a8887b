"""Games whose hidden facts (held cards, draws) are recorded with a value the test may swap, and what a reader
is answered over a stream."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastapi.testclient import TestClient

# Ids, hashes, salts, tokens' digests, recording times, how far the read tables followed the log, and the recorder
# token a new game's answer gives (drawn at random).
SET_ASIDE = re.compile(
    r"\b(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|[0-9a-f]{32}|[0-9a-f]{12}\b"
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?)"
    r'|"(?:log_)?position": ?\d+|"recorder_token": ?"[^"]*"'
)


@dataclass(frozen=True)
class Recorded:
    """A game recorded over HTTP: its id, its last event, and each seat's token."""

    game: str
    version: int
    seats: dict[str, str]


def set_aside(text: str) -> str:
    return SET_ASIDE.sub("#", text)


def streamed(client: TestClient, game: Recorded, headers: dict[str, str], after: int = 0) -> str:
    """The live stream, read from after event `after` until it has sent the game's latest event. (The events
    before are asked of the log from the first: the stream pages them with the log's own function.)"""
    lines = []
    with client.stream("GET", f"/v1/games/{game.game}/stream?after={after}", headers=headers) as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("id: ") and int(line.removeprefix("id: ")) >= game.version:
                break
    return "\n".join(lines)
