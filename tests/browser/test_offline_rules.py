"""The installed rulesets in the browser: the recording page's rules worker (Pyodide, from the package's own copy,
and the rulesets from `/rules.zip`, found by their entry points) answers self-played games of every ruleset, and
actions tried out of place among them, exactly as the rules on the server do: the same refusals with their rulings
and messages, the same consequences, the same state after each action (`evo_ledger.rules.judge`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from evo_ledger.app.selfplay import play_game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.judge import judged_json
from evo_ledger.rules.kits import load_kit_document

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

# Seeded games of each ruleset: evo2, evo1, evo1 with Autosaurs at two seats, the trait-card game; mixed bots.
GAMES_EACH = 50
SETUPS = {
    "evo2": ("evo2", 3, {}),
    "evo1": ("evo1", 3, {}),
    "autosaurs": ("evo1", 4, {"autosaurs": 2}),
    "traits": ("traits", 2, {}),
}
# Every this many actions, an action from later in the game and one that is not notation are tried first.
PROBED_EVERY = 7

JUDGED_IN_THE_BROWSER = """async (requests) => {
    const worker = new Worker("/rules-worker.js");
    const answers = [];
    for (const [id, request] of requests.entries()) {
        const answer = await new Promise((resolve) => {
            worker.onmessage = (message) => resolve(message.data);
            worker.postMessage({ id, request });
        });
        if (answer.error) throw new Error(answer.error);
        answers.push(answer.answer);
    }
    worker.terminate();
    return answers;
}"""


def request_for(name: str, seed: int) -> str:
    ruleset, players, marked = SETUPS[name]
    bot = "sensible" if seed % 2 else "random"
    game = parse_game(play_game(players, seed, bot, ruleset, None, (), marked).text())
    document, _ = load_kit_document(game.header.kit)
    actions = [line.text for line in game.actions]
    probes = {
        str(index): [actions[min(index + 3, len(actions) - 1)], f"{actions[index]} at once"]
        for index in range(0, len(actions), PROBED_EVERY)
    }
    setup = {
        "ruleset": game.header.ruleset,
        "version": game.header.version,
        "kit": document,
        "players": list(game.header.players),
        "options": dict(game.header.options),
    }
    return json.dumps({"setup": setup, "actions": actions, "probes": probes})


@pytest.fixture
def origin(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/")
    yield page
    context.close()


def test_offline_rules_in_the_browser_answer_every_ruleset_as_the_server_does(origin: Any) -> None:
    """Long by design: Pyodide starts once (a few seconds), then judges fifty whole self-played games of each ruleset
    with their probes, two hundred in all, each compared with the same games judged here."""
    requests = [request_for(name, seed) for name in SETUPS for seed in range(GAMES_EACH)]
    answers = origin.evaluate(JUDGED_IN_THE_BROWSER, requests)
    for request, answer in zip(requests, answers, strict=True):
        on_the_server = json.loads(judged_json(request))
        in_the_browser = json.loads(answer)
        assert in_the_browser == on_the_server
    refusals = [
        probe
        for answer in answers
        for probes in json.loads(answer)["probes"].values()
        for probe in probes
        if "ruling" in probe
    ]
    assert any(probe["ruling"] for probe in refusals)  # the refusals compared include the rules' own
    assert all(len(json.loads(answer)["actions"]) > 50 for answer in answers)  # whole games, not a first refusal
