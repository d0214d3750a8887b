"""The answers that read a game's whole log, on each database: an audit the server keeps is given again only to a
reader who sees what its reader saw, and a reader without a token asks for a limited number of audits and exports
a minute (429 `too_many_whole_log_reads` with `Retry-After`), an audit given again not counted. The limit's clock
is set by each test: none waits. Whoever asks but the admin, the server makes a limited number of them at once
(429 `whole_log_reads_busy`): the reads are held in flight by the tests, and counted, never timed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from api.app import WHOLE_LOG_READS_AT_ONCE
from api.routes import audits as audits_routes
from api.routes import events as events_routes
from api.whole_log_reads import AuditCache, ReadsAtOnce
from evo_ledger.settings import Settings
from tests.helpers.api import PLAYERS, append, client_for, new_game
from tests.helpers.seats import seated_game
from tests.helpers.servers import ADMIN, WAIT, serving
from tests.helpers.support import ROUND_ONE_AUCTION

# Most sight first, then least: an audit kept for a reader who sees more must not reach one who sees less.
ORDERS = (("recorder", "cat", "ann", "ben", "public"), ("public", "ben", "ann", "cat", "recorder"))


def audited(client: TestClient, game: str, headers: dict[str, str], query: str = "") -> bytes:
    answer = client.get(f"/v1/games/{game}/audit{query}", headers=headers)
    assert answer.status_code == 200, answer.text
    content: bytes = answer.content
    return content


def test_an_audit_kept_for_one_reader_is_given_again_only_to_readers_who_see_the_same(client: TestClient) -> None:
    """Each reader's audit, asked after every other reader's, is the one made for it alone: the recorder's and
    cat's leave nothing out, the other seats' and the public's leave out the card cat drew; the recorder and cat
    reading as the public are given the public's."""
    game, readers = seated_game(client)
    app: Any = client.app
    alone = {}
    for who, headers in readers.items():
        app.state.audits = AuditCache(clock=lambda: 0.0)  # nothing kept: the audit made for this reader alone
        alone[who] = audited(client, game, headers)
    assert sorted(who for who, report in alone.items() if b'"left_out"' not in report) == ["cat", "recorder"]
    for order in ORDERS:
        app.state.audits = AuditCache(clock=lambda: 0.0)
        assert {who: audited(client, game, readers[who]) for who in order} == alone
        assert audited(client, game, readers["recorder"], "?as=public") == alone["public"]
        assert audited(client, game, readers["cat"], "?as=public") == alone["public"]


def test_an_audit_is_made_again_once_the_game_moves_on(client: TestClient) -> None:
    """The audit kept is that of the game's head: an append makes the next one anew."""
    game, recorder = new_game(client)
    client.app.state.audits.clock = lambda: 0.0  # type: ignore[attr-defined]
    for actions in (ROUND_ONE_AUCTION[:2], ROUND_ONE_AUCTION[2:]):
        version = append(client, game, recorder, *actions).json()["version"]
        for _ in range(2):
            assert client.get(f"/v1/games/{game}/audit").json()["head"]["version"] == version


def refused_for_too_many(answer: Any, retry_after: str) -> bool:
    return (answer.status_code, answer.json()["code"], answer.headers.get("Retry-After")) == (
        429,
        "too_many_whole_log_reads",
        retry_after,
    )


def test_a_reader_without_a_token_is_limited_in_audits_and_exports_but_not_in_audits_given_again(
    database: str,
) -> None:
    """Two a minute: the third export is refused, saying when one more is taken; an audit that is not kept yet
    counts, one given again from those kept does not; the recorder is not limited."""
    with client_for(database, whole_log_reads_per_minute=2) as client:
        app: Any = client.app
        now = [0.0]
        app.state.whole_log_reads.clock = lambda: now[0]
        app.state.audits.clock = lambda: 0.0
        game, recorder = new_game(client)
        assert append(client, game, recorder, *ROUND_ONE_AUCTION).status_code == 200
        export, audit = f"/v1/games/{game}/export", f"/v1/games/{game}/audit"
        assert [client.get(export).status_code for _ in range(2)] == [200, 200]
        assert refused_for_too_many(client.get(export), "30")
        assert refused_for_too_many(client.get(audit), "30")
        assert [client.get(path, headers=recorder).status_code for path in (export, audit)] == [200, 200]
        now[0] = 29.0
        assert refused_for_too_many(client.get(audit), "1")
        now[0] = 30.0
        assert [client.get(audit).status_code for _ in range(3)] == [200, 200, 200]
        assert refused_for_too_many(client.get(export), "30")
        assert client.get(export, headers=recorder).status_code == 200


def test_the_schema_documents_the_limits_on_audits_and_exports(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/games/{game_id}/audit", "/v1/games/{game_id}/export"):
        described = paths[path]["get"]["responses"]["429"]["description"]
        assert "too_many_whole_log_reads" in described and "whole_log_reads_busy" in described, path


def test_a_forwarded_address_does_not_buy_another_budget_from_a_real_server(tmp_path: Path) -> None:
    """The server takes a client's address from its connection: a header naming another changes nothing."""
    settings = ApiSettings(store=Settings(str(tmp_path / "limit.sqlite")), whole_log_reads_per_minute=2)
    with serving(create_app(settings)) as base:
        created = httpx.post(f"{base}/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS})
        game = created.json()["game_id"]
        statuses = [
            httpx.get(f"{base}/v1/games/{game}/export", headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
            for n in range(3)
        ]
    assert statuses == [200, 200, 429]


ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}


class ReadFailed(Exception):
    """What a held read raises in place of its answer."""


def never(*_: Any) -> bool:
    return False


class HeldReads:
    """Stands in for a function a route reads a game's whole log with: a call it `holds` tells it has begun, then
    waits until the reads go on, and is made (or raises `ReadFailed` where it `fails`); any other call is made at
    once."""

    def __init__(self, read: Callable[..., Any], holds: Callable[..., bool], fails: Callable[..., bool]) -> None:
        self.read, self.holds, self.fails = read, holds, fails
        self.begun = threading.Semaphore(0)
        self.go_on = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.holds(*args):
            self.begun.release()
            assert self.go_on.wait(WAIT)
            if self.fails(*args):
                raise ReadFailed
        return self.read(*args, **kwargs)

    def wait_begun(self, count: int) -> None:
        assert all(self.begun.acquire(timeout=WAIT) for _ in range(count))


@contextmanager
def held(
    monkeypatch: pytest.MonkeyPatch,
    module: ModuleType,
    name: str,
    holds: Callable[..., bool],
    fails: Callable[..., bool] = never,
) -> Iterator[HeldReads]:
    """The route module's function `name` held (`HeldReads`) for the block, its reads going on when it ends, at the
    latest."""
    reads = HeldReads(getattr(module, name), holds, fails)
    with monkeypatch.context() as patch:
        patch.setattr(module, name, reads)
        try:
            yield reads
        finally:
            reads.go_on.set()


def asked_at_once(client: TestClient, asks: list[tuple[str, dict[str, str]]]) -> Callable[[], list[int | str]]:
    """Each ask (a path and its headers) sent from a thread of its own; answered with a function that waits for
    them all and gives each one's status, or `failed` where the read raised."""
    outcomes: list[int | str] = ["unanswered"] * len(asks)

    def ask(index: int, path: str, headers: dict[str, str]) -> None:
        try:
            outcomes[index] = client.get(path, headers=headers).status_code
        except ReadFailed:
            outcomes[index] = "failed"

    threads = [threading.Thread(target=ask, args=(n, *asked), daemon=True) for n, asked in enumerate(asks)]
    for thread in threads:
        thread.start()

    def finished() -> list[int | str]:
        for thread in threads:
            thread.join(WAIT)
        return outcomes

    return finished


def audited_game(client: TestClient) -> tuple[str, dict[str, str]]:
    """A game with more events than reads are made at once, each audit kept until the test replaces the cache."""
    game, recorder = new_game(client)
    assert append(client, game, recorder, *ROUND_ONE_AUCTION).json()["version"] > WHOLE_LOG_READS_AT_ONCE
    client.app.state.audits = AuditCache(clock=lambda: 0.0)  # type: ignore[attr-defined]
    return game, recorder


def refused_as_busy(answer: Any) -> bool:
    body = answer.json()
    return (answer.status_code, body["code"], answer.headers.get("Retry-After")) == (
        429,
        "whole_log_reads_busy",
        "1",
    ) and f"at most {WHOLE_LOG_READS_AT_ONCE} audits and exports at once (`whole_log_reads_at_once`)" in body["message"]


def not_the_admins(reader: Any, *_: Any) -> bool:
    return not reader.admin


def test_beyond_the_reads_at_once_a_token_is_refused_but_not_the_admin_nor_a_kept_audit(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audits and a bundle, as many as are made at once, held in flight for the recorder: one more audit or export
    is refused at once for the recorder and the public alike; the admin is served, as is an audit the server keeps;
    once the held ones are answered, the next is served."""
    game, recorder = audited_game(client)
    audit, export = f"/v1/games/{game}/audit", f"/v1/games/{game}/export"
    assert client.get(audit, headers=recorder).status_code == 200  # kept from now on
    with (
        held(monkeypatch, audits_routes, "audit_for", not_the_admins) as audits,
        held(monkeypatch, events_routes, "bundle_for", lambda *_: True) as bundles,
    ):
        in_flight = [(f"{audit}?event={n}", recorder) for n in range(1, WHOLE_LOG_READS_AT_ONCE)]
        finished = asked_at_once(client, [*in_flight, (f"{export}?format=bundle", recorder)])
        audits.wait_begun(WHOLE_LOG_READS_AT_ONCE - 1)
        bundles.wait_begun(1)
        one_more = f"{audit}?event={WHOLE_LOG_READS_AT_ONCE}"
        assert refused_as_busy(client.get(one_more, headers=recorder))
        assert refused_as_busy(client.get(export, headers=recorder))
        assert refused_as_busy(client.get(one_more))
        assert client.get(one_more, headers=ADMIN_HEADERS).status_code == 200
        assert client.get(export, headers=ADMIN_HEADERS).status_code == 200
        assert client.get(audit, headers=recorder).status_code == 200
        audits.go_on.set()
        bundles.go_on.set()
        assert finished() == [200] * WHOLE_LOG_READS_AT_ONCE
    assert client.get(one_more, headers=recorder).status_code == 200


def test_every_slot_is_given_back_also_by_a_read_that_failed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reads held in flight, the first of them failing: once they end, as many are in flight again, and one
    more is refused; once those end, the next is served."""
    game, recorder = audited_game(client)
    audit = f"/v1/games/{game}/audit"
    asks = [(f"{audit}?event={n}", recorder) for n in range(1, WHOLE_LOG_READS_AT_ONCE + 1)]
    with held(monkeypatch, audits_routes, "audit_for", not_the_admins, lambda *args: args[3] == 1) as audits:
        finished = asked_at_once(client, asks)
        audits.wait_begun(WHOLE_LOG_READS_AT_ONCE)
        audits.go_on.set()
        assert finished() == ["failed"] + [200] * (WHOLE_LOG_READS_AT_ONCE - 1)
    client.app.state.audits = AuditCache(clock=lambda: 0.0)  # type: ignore[attr-defined]  # nothing kept
    with held(monkeypatch, audits_routes, "audit_for", not_the_admins) as audits:
        finished = asked_at_once(client, asks)
        audits.wait_begun(WHOLE_LOG_READS_AT_ONCE)
        assert refused_as_busy(client.get(audit, headers=recorder))
        audits.go_on.set()
        assert finished() == [200] * WHOLE_LOG_READS_AT_ONCE
    assert client.get(audit, headers=recorder).status_code == 200


def test_the_reads_at_once_are_at_least_one_or_not_capped(tmp_path: Path) -> None:
    store = Settings(str(tmp_path / "cap.sqlite"))
    with pytest.raises(ValueError, match="whole_log_reads_at_once"):
        create_app(ApiSettings(store=store, whole_log_reads_at_once=0))
    uncapped = ReadsAtOnce(None)
    with uncapped.slot("audits"), uncapped.slot("audits"), uncapped.slot("exports"):
        pass
