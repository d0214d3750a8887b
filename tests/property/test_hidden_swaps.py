"""A hidden fact swapped for another value the kit allows changes nothing a reader who may not see it is answered.

For seeded self-played games (evo1's cards dealt and drawn, the trait-card game's draws and migrations) and evo2's
hand-made ones (its bots hold no card: a card drawn, a sixth-sense peek), hidden actions are swapped for others that
keep the game legal: of each kind of hidden action, SWAPS_PER_KIND spread evenly over the game, from its first to its
last (every one, where a game has no more). Both games are cut where the action is revealed or where the swap makes an
action illegal. Each pair
is recorded over HTTP, one game in each of two servers, with a token per seat. The public and every seat but the
hidden action's own are asked every route that quotes the game: summary, state, view, events, the stream (from the
event before the hidden action), export, legal, choices, audit, standings and auctions at the cut; state, view,
audit and explanation at the hidden action, halfway to the cut and at the cut; what-ifs just before the hidden
action (its branch replays it) and just after (dropped, replaced by an illegal action, by a public action the rules
allowed there, and by plays of the cards the player drew). Once both servers hold every pair, their read tables as
CSV and every statistic are compared too. The answers are the same, byte for byte, once ids, hashes, salts and
recording times are set aside (and, for tables and statistics, the order of rows, which follows the games' ids)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from uuid import UUID

import msgpack
import pytest
from fastapi.testclient import TestClient

from evo_ledger.app.readers import PUBLIC, legal_for
from evo_ledger.app.selfplay import play_game
from evo_ledger.game.aggregate import Game
from evo_ledger.game.checker import check_game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.contract import hidden_information
from evo_ledger.rules.kits import load_kit
from projections.runner import wait_until
from projections.schema import read_tables
from tests.helpers.api import client_for
from tests.helpers.hidden import Recorded, seats_in_order, set_aside, streamed
from tests.helpers.servers import ADMIN
from tests.helpers.shown import shown, shown_value
from tests.helpers.support import ROUND_ONE_AUCTION

SEEDS = (3,)
SWAPS_PER_KIND = 4
PLAYERS = {"evo1": 3, "traits": 2}  # the trait-card game's draws are many: two hands of them
MAX_BATCH = 200
TRAITS = ("agility", "endurance", "size", "speed", "strength", "toughness")
PEEK_ROUND = (
    "order ann ben cat",
    "climate cw",
    "draw sixth_sense",
    "draw eggs",
    "ann bid 2 sixth_sense",
    "ben bid 1 eggs",
    "cat bid 0 card",
    "ann peek acw",
    "cat pass",
    "ann pass",
    "ben pass",
    "cat pass",
    "ann pass",
    "ben pass",
    "ben pass",
)
STATISTICS = (
    "players",
    "ratings",
    "seats",
    "first-places",
    "lengths",
    "scores",
    "profiles",
    "rulesets",
    "dice",
    "games",
    "calibration",
    "seat-advantage",
    "batch-ratings",
    "skill",
)


@dataclass(frozen=True)
class Swap:
    """A hidden action swapped: the game as recorded and as swapped, both cut at the same action; the hidden
    action's place among the actions, its player, and its event once recorded (an action's consequences are events
    of their own, so the two differ)."""

    recorded: list[str]
    swapped: list[str]
    index: int
    owner: str
    event: int = 0

    def recorded_at(self, client: TestClient, game: str) -> Swap:
        """The swap, with the event that recorded its hidden action in `game`."""
        ledger = client.app.state.ledger  # type: ignore[attr-defined]
        events = ledger.queries.game_events(UUID(game))
        facts = [event.originator_version for event in events if isinstance(event, Game.ActionRecorded)]
        return replace(self, event=facts[self.index])


def hand_made() -> list[tuple[str, list[str]]]:
    """evo2's games with hidden facts, as a header and actions."""
    header = "ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat"
    return [(header, [*ROUND_ONE_AUCTION, "cat drew Heatwave", "cat pass"]), (header, list(PEEK_ROUND))]


def self_played(ruleset: str, seed: int) -> tuple[str, list[str]]:
    lines = [line for line in play_game(PLAYERS[ruleset], seed, "sensible", ruleset).text().splitlines() if line]
    body = [line for line in lines if not line.startswith(("#", "result"))]
    return "\n".join(body[:3]), body[3:]


def alternatives(ruleset: str, header: str, line: str) -> list[str]:
    """Other values of the hidden action `line` that its kit allows."""
    words = line.split()
    if ruleset == "traits":  # a draw of several cards: one of them another trait
        drawn = words[2:]
        others = {
            " ".join([*words[:2], *sorted([*drawn[:at], other, *drawn[at + 1 :]])])
            for at in range(len(drawn))
            for other in TRAITS
            if other != drawn[at]
        }
        return sorted(others)
    if "peek" in words:
        return [" ".join([*words[:-1], token]) for token in ("zero", "cw2", "meteorite") if token != words[-1]]
    if ruleset == "evo2":
        return [" ".join([*words[:-1], card]) for card in ("Ambush", "Drought") if card != words[-1]]
    kit = load_kit(header.splitlines()[1].split()[1])
    return [" ".join([*words[:-1], card]) for card in kit.card_ids if card != words[-1]]


def swaps(ruleset: str, header: str, actions: list[str]) -> Iterator[Swap]:
    """Every hidden action that another value the kit allows can take the place of, swapped for the first such
    value: the games cut where the action is revealed (or before the game's last action, which ends it), or where
    the swap makes an action illegal."""
    rules = get_ruleset(ruleset)
    hidden = hidden_information(rules)
    parsed = [rules.parse_action(line) for line in actions]
    for index, action in enumerate(parsed):
        owner = hidden.visible_only_to(action)
        if owner is None:
            continue
        revealed = next(
            (later for later in range(index + 1, len(parsed)) if hidden.reveals(action, parsed[later])), None
        )
        end = len(parsed) - 1 if revealed is None else revealed  # an ended game shows every hidden fact
        for other in alternatives(ruleset, header, actions[index]):
            swapped = [*actions[:index], other, *actions[index + 1 : end]]
            cut = legal_prefix(header, swapped)
            if cut > index:
                yield Swap(actions[:cut], swapped[:cut], index, owner)
                break


def spread(ruleset: str, found: list[Swap]) -> list[Swap]:
    """Of each kind of hidden action swapped, SWAPS_PER_KIND spread evenly over the game: those nearest to evenly
    spaced events from the kind's first to its last, in the game's order."""
    rules = get_ruleset(ruleset)
    kinds: dict[str, list[Swap]] = {}
    for swap in found:
        kinds.setdefault(type(rules.parse_action(swap.recorded[swap.event - 2])).__name__, []).append(swap)
    chosen: list[Swap] = []
    for of_kind in kinds.values():
        first, last = of_kind[0].event, of_kind[-1].event
        for at in range(min(SWAPS_PER_KIND, len(of_kind))):
            target = first + (last - first) * at / max(1, SWAPS_PER_KIND - 1)
            left = [swap for swap in of_kind if swap not in chosen]
            chosen.append(min(left, key=lambda swap: abs(swap.event - target)))
    return sorted(chosen, key=lambda swap: swap.event)


def legal_prefix(header: str, actions: list[str]) -> int:
    """How many of the actions the rules allow, from the first."""
    report = check_game(parse_game(header + "\n" + "\n".join(actions) + "\n"))
    return report.actions_applied


def recorded(client: TestClient, header: str, actions: list[str]) -> Recorded:
    """The game created with a token per seat, and its actions appended by its recorder; the answer to the last
    append waits until the read tables include it."""
    lines = header.splitlines()
    setup = {
        "ruleset": lines[0].split()[1],
        "kit": lines[1].split()[1],
        "players": [{"name": name} for name in lines[2].split()[1:]],
        "seat_tokens": True,
    }
    created = client.post("/v1/games", json=setup)
    assert created.status_code == 201, created.text
    body = created.json()
    game, recorder = body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}
    version = body["version"]
    for start in range(0, len(actions), MAX_BATCH):
        last = start + MAX_BATCH >= len(actions)
        answer = client.post(
            f"/v1/games/{game}/actions" + ("?wait_for_projections=30" if last else ""),
            json={"actions": actions[start : start + MAX_BATCH]},
            headers=recorder,
        )
        assert answer.status_code == 200, answer.text
        assert not last or answer.headers["Evo-Projections"] == "caught-up"
        version = answer.json()["version"]
    return Recorded(game, version, body["seat_tokens"])


def replacements(client: TestClient, game: str, event: int) -> list[str]:
    """A public action the rules allowed in the place of the event, as the public may know it (the seats named by
    their handles, as `/legal` answers it)."""
    if event < 2:
        return []
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return [shown(ledger, move) for move in legal_for(PUBLIC, ledger.queries.game(UUID(game), version=event - 1))[:1]]


def probes(swap: Swap) -> list[str]:
    """Replacements that would try the hidden facts: a play of each card the owner drew, as recorded."""
    drew = f"{swap.owner} drew "
    return sorted({f"{swap.owner} play {line.split()[-1]}" for line in swap.recorded if line.startswith(drew)})


def questions(swap: Swap, version: int, public_moves: dict[int, list[str]]) -> dict[str, str]:
    """Every route that quotes the game, by a name for the answer: at the cut, and about the events around the
    hidden action."""
    hidden, after = swap.event, swap.event + 1
    asked = {
        "summary": "",
        "state": "/state",
        "view": "/view",
        "events": "/events?limit=1000",
        "export": "/export",
        "bundle": "/export?format=bundle",
        "legal": "/legal",
        "choices": "/choices",
        "choices forced": "/choices?forced=true",
        f"choices {swap.owner} play": f"/choices?words={swap.owner}%20play",
        "audit": "/audit",
        "standings": "/standings",
        "auctions": "/auctions",
        f"state {hidden}": f"/state?at={hidden}",
        f"view {hidden}": f"/view?at={hidden}",
        f"explain {hidden}": f"/events/{hidden}/explanation",
        f"drop {hidden}": f"/events/{hidden}/what-if?drop=true",
    }
    for move in public_moves.get(hidden - 1, []):  # its branch replays the hidden action
        asked[f"{move} {hidden - 1}"] = f"/events/{hidden - 1}/what-if?replace={move.replace(' ', '%20')}"
    if after <= version:
        asked |= {
            f"explain {after}": f"/events/{after}/explanation",
            f"drop {after}": f"/events/{after}/what-if?drop=true",
            f"illegal {after}": f"/events/{after}/what-if?replace=zz%20nothing",
        }
        for move in [*public_moves.get(after, []), *probes(swap)]:
            asked[f"{move} {after}"] = f"/events/{after}/what-if?replace={move.replace(' ', '%20')}"
    return asked


def answers(client: TestClient, game: Recorded, swap: Swap, public_moves: dict[int, list[str]]) -> dict[str, str]:
    """What the public and each seat but the hidden action's own are answered."""
    readers: dict[str, dict[str, str]] = {"public": {}} | {
        seat: {"Authorization": f"Bearer {token}"} for seat, token in game.seats.items() if seat != swap.owner
    }
    told = {}
    for reader, headers in readers.items():
        told[f"{reader} stream"] = set_aside(streamed(client, game, headers, swap.event - 1))
        for name, path in questions(swap, game.version, public_moves).items():
            got = client.get(f"/v1/games/{game.game}{path}", headers=headers)
            body = got.text if got.headers.get("content-type") != "application/msgpack" else bundle_text(client, got)
            body = seats_in_order(body, got.headers.get("content-type"), game.seats)
            told[f"{reader} {name}"] = f"{got.status_code} {set_aside(body)}"
    return told


def bundle_text(client: TestClient, answer: Any) -> str:
    """A bundle with each stored event decoded, as text: its ids, hashes, salts and times can then be set aside
    (in the packed bytes they are runs of hex that `set_aside` cannot tell from the rest). A bundle is the stored
    form: the seats' labels in it, drawn at random by each server, are read as the handles they stand for."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    transcoder = ledger.store.mapper.transcoder
    bundle = msgpack.unpackb(answer.content)
    bundle["events"] = [[topic, version, transcoder.decode(state)] for topic, version, state in bundle["events"]]
    return json.dumps(shown_value(ledger, json.loads(json.dumps(bundle, default=str))), sort_keys=True)


def unordered(text: str) -> list[str]:
    """A table's lines, or a statistic's rows, with ids set aside, in an order that does not follow the ids."""
    try:
        found = json.loads(text)
    except ValueError:
        return sorted(set_aside(line) for line in text.splitlines())
    rows = found.get("rows") if isinstance(found, dict) else None
    if rows is None:
        return [set_aside(json.dumps(found, sort_keys=True))]
    rest = {key: value for key, value in found.items() if key != "rows"}
    return [set_aside(json.dumps(rest, sort_keys=True)), *sorted(set_aside(json.dumps(row)) for row in rows)]


def read_side(client: TestClient, ruleset: str, seats: set[str]) -> dict[str, list[str]]:
    """Every read table as CSV, every statistic of the ruleset and those of every ruleset, once the read tables
    have followed the whole log; `seats` the players' handles."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    assert wait_until(client.app.state.read_store, ledger.store.recorder.max_notification_id() or 0, 120)  # type: ignore[attr-defined]
    admin = {"Authorization": f"Bearer {ADMIN}"}
    paths = {table.name: (f"/v1/tables/{table.name}.csv", admin) for table in read_tables()}
    paths |= {name: (f"/v1/statistics/{name}?ruleset={ruleset}", {}) for name in STATISTICS}
    own = client.get(f"/v1/rulesets/{ruleset}/statistics").json()["statistics"]
    paths |= {s["name"]: (f"/v1/rulesets/{ruleset}/statistics/{s['name']}", {}) for s in own}
    answers = {name: client.get(path, headers=headers) for name, (path, headers) in paths.items()}
    return {
        name: unordered(seats_in_order(got.text, got.headers.get("content-type"), seats))
        for name, got in answers.items()
    }


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient]]:
    """Two servers: one holds the games as recorded, the other the same games with a hidden fact swapped; the public
    asks them for as many audits and exports as the swaps take."""
    unlimited = {"whole_log_reads_per_minute": None}
    with (
        client_for(str(tmp_path / "recorded.sqlite"), **unlimited) as first,
        client_for(str(tmp_path / "swapped.sqlite"), **unlimited) as second,
    ):
        yield first, second


# The quick profile swaps the hidden facts of the hand-made evo2 games; the full one those of whole self-played
# games too.
SELF_PLAYED = pytest.mark.slow(reason="a whole self-played game's hidden facts swapped, thousands of requests")
GAMES = [
    pytest.param("evo2", None, id="evo2-hand-made"),
    *(pytest.param(r, s, id=f"{r}-{s}", marks=SELF_PLAYED) for r in ("evo1", "traits") for s in SEEDS),
]


@pytest.mark.parametrize(("ruleset", "seed"), GAMES)
def test_a_swapped_hidden_fact_changes_no_answer_a_reader_who_may_not_see_it_gets(
    servers: tuple[TestClient, TestClient], ruleset: str, seed: int | None
) -> None:
    """Hidden actions from a whole game's first to its last are swapped in turn, and
    each pair is recorded in both servers and put to every reader through each route and the stream, thousands of
    requests a game."""
    games = hand_made() if seed is None else [self_played(ruleset, seed)]
    first, second = servers
    compared = 0
    for header, actions in games:
        for found in spread(ruleset, list(swaps(ruleset, header, actions))):
            pair = (recorded(first, header, found.recorded), recorded(second, header, found.swapped))
            swap = found.recorded_at(first, pair[0].game)
            assert found.recorded_at(second, pair[1].game) == swap
            moves = {event: replacements(first, pair[0].game, event) for event in (swap.event - 1, swap.event + 1)}
            told = [answers(client, game, swap, moves) for client, game in zip(servers, pair, strict=True)]
            differing = [name for name in told[0] if told[0][name] != told[1][name]]
            assert not differing, {name: (told[0][name][-600:], told[1][name][-600:]) for name in differing}
            compared += 1
    seats = {name for header, _ in games for name in header.splitlines()[2].split()[1:]}
    tables = [read_side(client, ruleset, seats) for client in servers]
    differing = [name for name in tables[0] if tables[0][name] != tables[1][name]]
    assert not differing, {name: (tables[0][name][-5:], tables[1][name][-5:]) for name in differing}
    rules = get_ruleset(ruleset)
    hidden = [
        action
        for _, actions in games
        for action in map(rules.parse_action, actions)
        if hidden_information(rules).visible_only_to(action) is not None
    ]
    kinds = {type(action).__name__ for action in hidden}
    assert compared >= min(len(hidden), len(kinds) * SWAPS_PER_KIND * 3 // 4), (compared, len(hidden), kinds)
