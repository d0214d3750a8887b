"""The answers that read a game's whole log: audits and exports.

An audit is kept by the server, under the game it audits, what that rests on (`AuditBasis`: its stored head and,
with the seal key, the checkpoints), the question asked (how far, which receipt's head) and what its reader may
see (`Sight`): it is given again only to a reader who sees the same, never to one who may see less, and for at
most `AUDIT_KEPT_SECONDS`, so that an event edited in place in the database behind the server's back is caught
again within that time. A reader without a token (the public) may ask for at most
`ApiSettings.whole_log_reads_per_minute` audits and exports a minute from one address; an audit given again from
what the server keeps does not count. Beyond that, 429 `too_many_whole_log_reads` with `Retry-After`.

Whoever asks, the server makes at most `ApiSettings.whole_log_reads_at_once` audits and exports at once (None: no
cap), so that they never take every thread the other endpoints are served by: a token is no way around it, as
anyone may create or import a long game and hold its recorder token. Only the admin is not capped. One more is
refused at once, without waiting for a slot, with 429 `whole_log_reads_busy` and `Retry-After: 1`. A slot is held
while the log is read and the answer made, and given back however that ends, before the answer is sent: a client
slow to take it, or gone, holds none. An audit given again from what the server keeps takes none."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from fastapi import Request

from api import schemas
from api.deps import Reader
from api.errors import ApiError
from evo_ledger.app.ledger import AuditBasis
from evo_ledger.app.readers import Sight

AUDITS_KEPT = 64
AUDIT_KEPT_SECONDS = 60.0
ADDRESSES_KEPT = 10_000
TOO_MANY = "too_many_whole_log_reads"
BUSY = "whole_log_reads_busy"
BUSY_RETRY_AFTER_SECONDS = 1
TOO_MANY_ANSWER: dict[int | str, dict[str, Any]] = {
    429: {
        "model": schemas.Problem,
        "description": f"a reader without a token asked for more audits and exports than it may from its address "
        f"(`{TOO_MANY}`), or the server is making as many audits and exports at once as it may (`{BUSY}`)",
    }
}

Clock = Callable[[], float]


@dataclass(frozen=True)
class AuditAsked:
    """An audit as it is asked for: of which game, on what basis, how far, with which receipt's head, and what its
    reader may see."""

    game_id: UUID
    basis: AuditBasis
    up_to: int | None
    expect_head: str | None
    sight: Sight


@dataclass(frozen=True)
class KeptAudit:
    """An audit's answer as it is sent: its canonical bytes and their hash."""

    body: bytes
    report_hash: str


class AuditCache:
    """The audits made most recently, at most `AUDITS_KEPT`, each for `AUDIT_KEPT_SECONDS`."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self._kept: OrderedDict[AuditAsked, tuple[float, KeptAudit]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, asked: AuditAsked) -> KeptAudit | None:
        with self._lock:
            found = self._kept.get(asked)
            if found is None:
                return None
            made, audit = found
            if self.clock() - made >= AUDIT_KEPT_SECONDS:
                del self._kept[asked]
                return None
            self._kept.move_to_end(asked)
            return audit

    def keep(self, asked: AuditAsked, audit: KeptAudit) -> None:
        with self._lock:
            self._kept[asked] = (self.clock(), audit)
            self._kept.move_to_end(asked)
            while len(self._kept) > AUDITS_KEPT:
                self._kept.popitem(last=False)


class AddressLimit:
    """At most `per_minute` requests a minute from each address (None: no limit), as many at once, then one more
    each time a minute's share of it has passed. Each address is kept as the moment its requests would be back on
    schedule; at most `ADDRESSES_KEPT` of them, those seen least recently dropped first."""

    def __init__(self, per_minute: int | None, clock: Clock = time.monotonic) -> None:
        if per_minute is not None and per_minute < 1:
            raise ValueError(f"whole_log_reads_per_minute: at least 1 (None: no limit), not {per_minute}")
        self.per_minute = per_minute
        self.clock = clock
        self._due: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def wait_for(self, address: str) -> float:
        """Counts a request from the address and answers 0, or, beyond the limit, counts none and answers how many
        seconds until one more is taken."""
        if self.per_minute is None:
            return 0.0
        interval = 60.0 / self.per_minute
        allowance = (self.per_minute - 1) * interval  # how far ahead of now an address's schedule may run
        with self._lock:
            now = self.clock()
            due = max(self._due.pop(address, now), now)
            over = due - now - allowance
            self._due[address] = due if over > 0 else due + interval
            while len(self._due) > ADDRESSES_KEPT:
                self._due.popitem(last=False)
            return max(over, 0.0)


class ReadsAtOnce:
    """At most `at_once` whole-log reads at a time across the server (None: no cap), each slot taken without
    waiting for one."""

    def __init__(self, at_once: int | None) -> None:
        if at_once is not None and at_once < 1:
            raise ValueError(f"whole_log_reads_at_once: at least 1 (None: no cap), not {at_once}")
        self.at_once = at_once
        self._slots = threading.BoundedSemaphore(at_once) if at_once is not None else None

    @contextmanager
    def slot(self, what: str) -> Iterator[None]:
        """A slot held for one read for an audit or an export (`what`), or 429 `whole_log_reads_busy` with
        `Retry-After` if every slot is held."""
        if self._slots is None:
            yield
            return
        if not self._slots.acquire(blocking=False):
            message = (
                f"{what}: the server makes at most {self.at_once} audits and exports at once "
                "(`whole_log_reads_at_once`), whoever asks but the admin: ask again in a moment"
            )
            raise ApiError(429, BUSY, message, headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)})
        try:
            yield
        finally:
            self._slots.release()


def address_of(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def count_whole_log_read(request: Request, reader: Reader, what: str) -> None:
    """Counts an audit or an export (`what`) a reader without a token asks for against its address: 429
    `too_many_whole_log_reads` with `Retry-After` beyond the limit."""
    if not reader.anonymous:
        return
    limit: AddressLimit = request.app.state.whole_log_reads
    waited = limit.wait_for(address_of(request))
    if waited > 0:
        message = (
            f"{what}: a reader without a token may ask for {limit.per_minute} audits and exports a minute from one "
            "address; the tokens of a game's recorders and seats, and the admin's, are not limited"
        )
        raise ApiError(429, TOO_MANY, message, headers={"Retry-After": str(max(1, math.ceil(waited)))})


@contextmanager
def whole_log_read(request: Request, reader: Reader, what: str) -> Iterator[None]:
    """Held while an audit or an export (`what`) reads the game's whole log for the reader: one of the server's
    slots for reads at once (the admin takes none), then the read counted against the address of a reader without
    a token (`count_whole_log_read`). A read refused for want of a slot is not counted."""
    if reader.admin:
        yield
        return
    reads: ReadsAtOnce = request.app.state.whole_log_reads_at_once
    with reads.slot(what):
        count_whole_log_read(request, reader, what)
        yield
