"""A hidden fact swapped for another value the kit allows changes nothing a reader who may not see it is answered.

For seeded self-played games (evo1's cards dealt and drawn, the trait-card game's draws) and evo2's hand-made
ones (its bots hold no card: a card drawn, a sixth-sense peek), each hidden action is swapped for another that
keeps the game legal, and both games are cut where the action is revealed or where the swap makes an action
illegal. The public is asked every route that quotes the game: summary, state, view, events, the stream, export,
legal, audit, standings and auctions; explanations and what-ifs of the last events, dropped, replaced by an
illegal action and by plays of the cards the player drew; what-ifs spread over the game, each replaced by public
actions the rules allowed there, with the state, the view and the audit at each of those events; and every read
table's rows as CSV, once the read tables have followed both games. Each other seat is asked its log, legal
actions and branches through `evo_ledger.readers`. The answers are the same, byte for byte, once ids, hashes,
salts and recording times are set aside."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from evo_ledger.checker import check_game
from evo_ledger.notation import parse_game
from evo_ledger.readers import Seen, branch_for, legal_for, visibility
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.kits import load_kit
from evo_ledger.selfplay import play_game
from projections.runner import wait_until
from projections.schema import READ_TABLES
from tests.e2e.test_api import ADMIN, client_for
from tests.support import ROUND_ONE_AUCTION

SEEDS = (3, 7, 11)
SWAPS_PER_GAME = 2
LAST_EVENTS_ASKED = 6
SPREAD_EVENTS = 8
REPLACEMENTS = 3
TRAITS = ("agility", "endurance", "size", "speed", "strength", "toughness")
PEEK_ROUND = ("order ann ben cat", "climate cw", "draw sixth_sense", "draw eggs", "ann bid 2 sixth_sense",
              "ben bid 1 eggs", "cat bid 0 card", "ann peek acw", "cat pass", "ann pass", "ben pass", "cat pass",
              "ann pass", "ben pass", "ben pass")  # fmt: skip
# Ids, hashes, salts, a recorder token's digest, recording times, and how far the read tables followed the log.
SET_ASIDE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|[0-9a-f]{32}|\b[0-9a-f]{12}\b"
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?"
    r'|"(?:log_)?position":\d+'
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(str(tmp_path / "swaps.sqlite")) as test_client:
        yield test_client


def hand_made(ruleset: str) -> list[tuple[str, list[str]]]:
    """evo2's games with hidden facts, as a header and actions."""
    header = "ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat"
    return [(header, [*ROUND_ONE_AUCTION, "cat drew Heatwave", "cat pass"]), (header, list(PEEK_ROUND))]


def self_played(ruleset: str, seed: int) -> tuple[str, list[str]]:
    lines = [line for line in play_game(3, seed, "sensible", ruleset).text().splitlines() if line]
    body = [line for line in lines if not line.startswith(("#", "result"))]
    return "\n".join(body[:3]), body[3:]


def alternatives(ruleset: str, header: str, line: str) -> list[str]:
    """Other values of the hidden action `line` that its kit allows."""
    words = line.split()
    if ruleset == "traits":
        return [" ".join([*words[:2], other, *words[3:]]) for other in TRAITS if other != words[2]]
    if "peek" in words:
        return [" ".join([*words[:-1], token]) for token in ("zero", "cw2", "meteorite") if token != words[-1]]
    if ruleset == "evo2":
        return [" ".join([*words[:-1], card]) for card in ("Ambush", "Drought") if card != words[-1]]
    kit = load_kit(header.splitlines()[1].split()[1])
    return [" ".join([*words[:-1], card]) for card in kit.card_ids if card != words[-1]]


def swaps(ruleset: str, header: str, actions: list[str]) -> Iterator[tuple[list[str], list[str], str]]:
    """Each hidden action's game, as recorded and as swapped, cut where the action is revealed, or where the swap
    makes an action illegal; and the hidden action's player."""
    rules = get_ruleset(ruleset)
    parsed = [rules.parse_action(line) for line in actions]
    found = 0
    for index, action in enumerate(parsed):
        owner = rules.visible_only_to(action)
        if owner is None or found == SWAPS_PER_GAME:
            continue
        revealed = next(
            (later for later in range(index + 1, len(parsed)) if rules.reveals(action, parsed[later])), None
        )
        end = len(parsed) if revealed is None else revealed
        for other in alternatives(ruleset, header, actions[index]):
            swapped = [*actions[:index], other, *actions[index + 1 : end]]
            cut = legal_prefix(header, swapped)
            if cut > index:
                found += 1
                yield actions[:cut], swapped[:cut], owner
                break


def legal_prefix(header: str, actions: list[str]) -> int:
    """How many of the actions the rules allow, from the first."""
    report = check_game(parse_game(header + "\n" + "\n".join(actions) + "\n"))
    return report.actions_applied


def set_aside(text: str) -> str:
    return SET_ASIDE.sub("#", text)


def probes(recorded: list[str], owner: str) -> list[str]:
    """Replacements that would try the hidden facts: a play of each card the owner drew, as recorded."""
    return sorted({f"{owner} play {line.split()[-1]}" for line in recorded if line.startswith(f"{owner} drew ")})


def branches(client: TestClient, game: str, version: int) -> dict[int, list[str]]:
    """Events spread over the game, each with a few public actions the rules allowed in its place: what-ifs whose
    branches replay the hidden actions after them."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    rules = ledger.game(UUID(game)).rules
    asked: dict[int, list[str]] = {}
    for event in range(2, version + 1, max(1, version // SPREAD_EVENTS)):
        state = ledger.game(UUID(game), version=event - 1).state
        public = (action for action in rules.legal_actions(state) if rules.visible_only_to(action) is None)
        asked[event] = [rules.format_action(action) for action, _ in zip(public, range(REPLACEMENTS), strict=False)]
    return asked


def public_answers(
    client: TestClient, game: str, version: int, tried: list[str], spread: dict[int, list[str]]
) -> dict[str, str]:
    base = f"/v1/games/{game}"
    paths = {
        "summary": base,
        "state": f"{base}/state",
        "view": f"{base}/view?at={version}",
        "events": f"{base}/events?limit=1000",
        "export": f"{base}/export",
        "legal": f"{base}/legal",
        "audit": f"{base}/audit",
        "standings": f"{base}/standings",
        "auctions": f"{base}/auctions",
    }
    for event in range(max(2, version - LAST_EVENTS_ASKED), version + 1):
        paths[f"explain {event}"] = f"{base}/events/{event}/explanation"
        paths[f"drop {event}"] = f"{base}/events/{event}/what-if?drop=true"
        paths[f"illegal {event}"] = f"{base}/events/{event}/what-if?replace=zz%20nothing"
        for probe in tried:
            paths[f"{probe} {event}"] = f"{base}/events/{event}/what-if?replace={probe.replace(' ', '%20')}"
    for event, replacements in spread.items():
        paths[f"state {event}"] = f"{base}/state?at={event}"
        paths[f"view {event}"] = f"{base}/view?at={event}"
        paths[f"audit {event}"] = f"{base}/audit?event={event}"
        paths[f"drop {event}"] = f"{base}/events/{event}/what-if?drop=true"
        for replacement in replacements:
            paths[f"{replacement} {event}"] = f"{base}/events/{event}/what-if?replace={replacement.replace(' ', '%20')}"
    answers = {"stream": set_aside(streamed(client, game, version))}
    for name, path in paths.items():
        got = client.get(path)
        answers[name] = f"{got.status_code} {set_aside(got.text)}"
    return answers


def streamed(client: TestClient, game: str, version: int) -> str:
    """The live stream, read from the start until it has sent the game's latest event."""
    lines = []
    with client.stream("GET", f"/v1/games/{game}/stream") as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("id: ") and int(line.removeprefix("id: ")) >= version:
                break
    return "\n".join(lines)


def table_rows(client: TestClient, games: list[str]) -> list[dict[str, str]]:
    """Each game's rows of every read table, as CSV, once the read tables have followed the log."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    assert wait_until(client.app.state.read_store, ledger.recorder.max_notification_id() or 0, 60)  # type: ignore[attr-defined]
    rows: list[dict[str, str]] = [{} for _ in games]
    for table in READ_TABLES:
        text = client.get(f"/v1/tables/{table.name}.csv", headers={"Authorization": f"Bearer {ADMIN}"}).text
        for index, game in enumerate(games):
            rows[index][table.name] = set_aside("\n".join(line for line in text.splitlines() if game in line))
    return rows


def seat_answers(client: TestClient, game: str, seats: list[str], owner: str) -> dict[str, str]:
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    played = ledger.game(UUID(game))
    answers = {}
    for seat in seats:
        if seat == owner:
            continue
        reader = Seen(seat=seat)
        seen = visibility(reader, ledger, played)
        answers[f"{seat} hidden"] = repr(sorted((event, who) for event, (who, _) in seen.hidden.items()))
        answers[f"{seat} legal"] = repr(legal_for(reader, played))
        for event in range(max(2, played.version - LAST_EVENTS_ASKED), played.version + 1):
            if event not in seen.hidden:
                answers[f"{seat} drop {event}"] = _branch(reader, ledger, played, event)
    return answers


def _branch(reader: Any, ledger: Any, game: Any, event: int) -> str:
    try:
        return set_aside(branch_for(reader, ledger, game, event, None).canonical.decode())
    except Exception as error:
        return set_aside(f"{type(error).__name__}: {error}")


def imported(client: TestClient, header: str, actions: list[str]) -> tuple[str, int]:
    text = header + "\n" + "\n".join(actions) + "\n"
    answer = client.post(
        "/v1/games/import", content=text, headers={"Content-Type": "text/plain", "Authorization": f"Bearer {ADMIN}"}
    )
    if answer.status_code == 409:  # the same cut of the recorded game, for another hidden action: asked again
        game = SET_ASIDE.search(answer.json()["message"])
        assert game is not None
        return game.group(), client.get(f"/v1/games/{game.group()}").json()["version"]
    assert answer.status_code == 201, answer.text
    return answer.json()["game_id"], answer.json()["version"]


GAMES = [("evo2", None), *((ruleset, seed) for ruleset in ("evo1", "traits") for seed in SEEDS)]


@pytest.mark.parametrize(("ruleset", "seed"), GAMES, ids=[f"{r}-{s}" for r, s in GAMES])
def test_a_swapped_hidden_fact_changes_no_answer_a_reader_who_may_not_see_it_gets(
    client: TestClient, ruleset: str, seed: int | None
) -> None:
    games = hand_made(ruleset) if seed is None else [self_played(ruleset, seed)]
    compared = 0
    for header, actions in games:
        seats = header.splitlines()[2].split()[1:]
        for recorded, swapped, owner in swaps(ruleset, header, actions):
            tried = probes(recorded, owner)
            stored = [imported(client, header, version_of) for version_of in (recorded, swapped)]
            tables = table_rows(client, [game for game, _ in stored])  # the read tables followed both games
            spread = branches(client, *stored[0])
            answers = [
                {
                    **public_answers(client, game, version, tried, spread),
                    **seat_answers(client, game, seats, owner),
                    **rows,
                }
                for (game, version), rows in zip(stored, tables, strict=True)
            ]
            differing = [name for name in answers[0] if answers[0][name] != answers[1][name]]
            assert not differing, {name: (answers[0][name][-600:], answers[1][name][-600:]) for name in differing}
            compared += 1
    assert compared >= 1
