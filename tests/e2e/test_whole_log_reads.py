"""The answers that read a game's whole log, on each database: an audit the server keeps is given again only to a
reader who sees what its reader saw, and a reader without a token asks for a limited number of audits and exports
a minute (429 `too_many_whole_log_reads` with `Retry-After`), an audit given again not counted. The limit's clock
is set by each test: none waits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from api.whole_log_reads import AuditCache
from evo_ledger.settings import Settings
from tests.helpers.api import PLAYERS, append, client_for, new_game
from tests.helpers.seats import seated_game
from tests.helpers.servers import serving
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


def test_the_schema_documents_the_limit_on_audits_and_exports(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/games/{game_id}/audit", "/v1/games/{game_id}/export"):
        assert "429" in paths[path]["get"]["responses"], path


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
