"""A schema-driven fuzz run against a real server: schemathesis follows the schema's links (create a game, then
append to it, then read it) with valid tokens, and no answer may be a 5xx or break the schema."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, seed, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import positive_data_acceptance
from schemathesis.specs.openapi.stateful import OpenAPIStateMachine

from evo_ledger.app.stored_kits import is_kit_hash
from evo_ledger.rules.kits import builtin_kit_names, canonical_hash, load_kit_document
from tests.helpers.servers import ADMIN, running_server

# About half the walks from a seed reach an append judged by the rules, and which half depends on the process the
# walk runs in (the tests it ran before): six walks miss it together about once in sixty runs, three once in eight.
ATTEMPTS = 6
# The walk follows the links the schema gives, never links schemathesis infers from answers such as the game list's:
# the list grows with the games the walk has made, so a walk drawn again would follow other links.
SCHEMA_LINKS_ONLY = SchemathesisConfig.from_dict({"phases": {"stateful": {"inference": {"algorithms": []}}}})


@dataclass(frozen=True)
class Walk:
    """A profile's walk: how many sequences of linked calls it draws, from a seed of its own (the two profiles'
    walks differ, so the longer repeats nothing of the shorter: each walk's attempts take the seeds after its
    own)."""

    sequences: int
    seed: int


WALKS = [
    pytest.param(
        Walk(sequences=20, seed=100),
        id="quick",
        marks=pytest.mark.slow(reason="twenty sequences of linked calls to a real server: over 10 s under the suite"),
    ),
    pytest.param(
        Walk(sequences=120, seed=0),
        id="full",
        marks=pytest.mark.slow(reason="a hundred and twenty sequences of linked calls to a real server"),
    ),
]


@pytest.fixture
def base_url(tmp_path: Any) -> Iterator[str]:
    """A server whose read tables stay as they start: the walk follows links out of every answer, and an answer
    that changed with how far the read tables had caught up (a loaded machine) would change the walk."""
    with running_server(str(tmp_path / "fuzz.sqlite"), projections=False) as base:
        yield base


def held_back_for_the_whole_walk(case: Any) -> None:
    """A broadcast's delay the walk sets is a day long: what the list shows a reader without a token then never
    changes with the clock while the walk goes on (which would change the walk). Bodies the API refuses stay."""
    minutes = case.body.get("minutes") if isinstance(case.body, dict) else None
    numeric = isinstance(minutes, int | float) and not isinstance(minutes, bool)
    if case.operation.path.endswith("/broadcast-delay") and numeric and float(minutes or 0) > 0:
        case.body = {**case.body, "minutes": 24 * 60}


BUILT_IN_HASHES = [canonical_hash(load_kit_document(name)[0]) for name in builtin_kit_names()]


def kits_the_server_has(case: Any) -> None:
    """A new game's kit may be named by its hash, and a hash names a kit only where the server has one: a hash the
    walk draws names a built-in kit's (chosen by its digits), so that the games the walk creates are made."""
    kit = case.body.get("kit") if isinstance(case.body, dict) else None
    if case.operation.path == "/v1/games" and isinstance(kit, str) and is_kit_hash(kit):
        case.body = {**case.body, "kit": BUILT_IN_HASHES[int(kit.removeprefix("sha256:"), 16) % len(BUILT_IN_HASHES)]}


@pytest.mark.parametrize("walk", WALKS)
def test_no_sequence_of_linked_calls_gets_a_server_error_or_breaks_the_schema(base_url: str, walk: Walk) -> None:
    """A walk through the API's linked operations, each step a request to a real server with arguments drawn from
    the schema, until the walk has reached the operations that read a game."""
    # The rules reference's two reads, the kits, the people and the competitions link to nothing and take no game:
    # the walk spends its steps on the games.
    schema: BaseSchema = schemathesis.openapi.from_url(f"{base_url}/openapi.json", config=SCHEMA_LINKS_ONLY)
    for operation in NOT_WALKED:
        schema = schema.exclude(operation_id=operation)
    tokens: dict[str, str] = {}
    answers: Counter[tuple[str, int]] = Counter()

    class Calls(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: Any) -> None:
            game = str((case.path_parameters or {}).get("game_id"))
            token = tokens.get(game, ADMIN) if case.operation.path != "/v1/games" else None
            if token is not None:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
            held_back_for_the_whole_walk(case)
            kits_the_server_has(case)

        def validate_response(self, response: Any, case: Any, *args: Any, **kwargs: Any) -> None:
            # A schema-valid action may still be one the rules refuse: 422 is then the right answer.
            case.validate_response(response, excluded_checks=[positive_data_acceptance])

        def after_call(self, response: Any, case: Any) -> None:
            answers[case.operation.definition.raw.get("operationId", "?"), response.status_code] += 1
            body = response.json() if response.status_code == 201 else {}
            if "recorder_token" in body:  # a new game (a co-recorder's or a seat's token records less)
                tokens[body["game_id"]] = body["recorder_token"]

    assert issubclass(Calls, OpenAPIStateMachine)
    # A fixed walk (seeded); a walk that misses a linked operation is followed by another from the next seed, at most
    # ATTEMPTS in all.
    walk_settings = settings(
        max_examples=walk.sequences,
        stateful_step_count=8,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    for attempt in range(ATTEMPTS):
        test = seed(walk.seed + attempt)(Calls).TestCase
        test.settings = walk_settings
        test().runTest()
        missing = not_reached(answers)
        if not missing:
            break
    assert not missing, (missing, answers)


NOT_WALKED = (
    "stream",
    "list_rulings",
    "get_ruling",
    "list_kits",
    "store_kit",
    "get_kit",
    "remove_kit",
    "list_people",
    "get_person",
    "register_person",
    "change_person",
    "merge_person",
    "split_person",
    "open_competition",
    "list_competitions",
    "get_competition",
    "add_competition_game",
    "take_out_competition_game",
)
# The operations a walk must reach without a server error; an append must also reach a game and be judged.
WANTED = {"create_game", "append", "events", "state", "game_summary", "explain", "what_if"}
JUDGED = (200, 409, 422)


def not_reached(answers: Counter[tuple[str, int]]) -> set[str]:
    """What the walks so far have not reached: the operations answered without a server error, and an append
    judged by the rules (200, 409 or 422) rather than refused before them."""
    missing = WANTED - {operation for (operation, status), _ in answers.items() if status < 500}
    judged = any(status in JUDGED for (operation, status) in answers if operation == "append")
    return missing if judged else missing | {"append judged by the rules"}
