"""Games whose hidden facts (held cards, draws) are recorded with a value the test may swap, and what a reader
is answered over a stream."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

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


def seats_in_order(text: str, content_type: str | None, seats: Collection[str]) -> str:
    """An answer in JSON, or a table in CSV, that holds a JSON object keyed by seats (each of its keys a seat's
    handle), with each such object's seats in order: a report is canonical JSON over the stored form, and a read
    table's JSON cell is written from the stored form too, whose keys are the seats' labels, drawn at random by each
    server; so their seats come in the order of their labels. Any other answer as it is."""
    kind = (content_type or "").partition(";")[0].strip()
    if kind not in ("application/json", "text/csv"):
        return text
    keyed_by_seats = [False]

    def ordered(item: Any) -> Any:
        if isinstance(item, dict):
            by_seat = bool(item) and set(item) <= set(seats)
            keyed_by_seats[0] |= by_seat
            pairs = sorted(item.items()) if by_seat else item.items()
            return {key: ordered(found) for key, found in pairs}
        if isinstance(item, list):
            return [ordered(found) for found in item]
        return item

    if kind == "application/json":
        try:
            value = ordered(json.loads(text))
        except ValueError:
            return text
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")) if keyed_by_seats[0] else text
    rows = [[json_cell(cell, ordered) for cell in row] for row in csv.reader(io.StringIO(text))]
    if not keyed_by_seats[0]:
        return text
    written = io.StringIO()
    csv.writer(written, lineterminator="\n").writerows(rows)
    return written.getvalue()


def json_cell(cell: str, ordered: Callable[[Any], Any]) -> str:
    """A table's cell, an object in JSON in it written again by `ordered`."""
    if not cell.startswith("{"):
        return cell
    try:
        value = json.loads(cell)
    except ValueError:
        return cell
    return json.dumps(ordered(value))


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
