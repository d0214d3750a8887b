"""A newcomer's ruleset, the contract's core and nothing more, written into a package of its own and installed by its
entry point alone: a game of it is recorded, refused where its rules say so (nothing stored), shown, exported,
checked, audited and served to the viewer, with no capability and no edit anywhere else."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.helpers.support import EVO_LEDGER, child_env, serve_process

# Nim: players take one to three stones in turn from the kit's pile; whoever takes the last one wins.
NIM = """
from dataclasses import dataclass, replace

from evo_ledger.rules.base import Consequence, Outcome, RuleViolation, SetupError, Standing, StateView, Transition
from evo_ledger.rules.base import Vocabulary
from evo_ledger.rules.kits import plain_kit
from evo_ledger.rules.structured import ActionForm
from evo_ledger.rules.text import Words


@dataclass(frozen=True)
class Take:
    player: str
    stones: int


@dataclass(frozen=True)
class State:
    kit: object
    players: tuple
    left: int
    turns: int = 0

    @property
    def current(self):
        return self.players[self.turns % len(self.players)]


def parse_action(text):
    words = Words(text)
    player = words.take("a player's name")
    words.choice(("take",), "take")
    action = Take(player, words.integer("a number of stones"))
    words.end()
    return action


def format_action(action):
    return f"{action.player} take {action.stones}"


FORM = ActionForm(Take, parse_action, format_action)


class NimRuleset:
    name, version, options = "nim", "1", ()
    vocabulary = Vocabulary("nim-ledger:nim", ("StonesTaken",), {"pile_emptied": "PileEmptied"})
    parse_action, format_action = staticmethod(parse_action), staticmethod(format_action)
    action_from_data, action_data = staticmethod(FORM.read), staticmethod(FORM.write)

    def parse_kit(self, document, label):
        return plain_kit(document, label, counts=("stones",))

    def setup(self, kit, players, options):
        if len(players) != kit.players or options:
            raise SetupError(f"kit {kit.name!r} seats {kit.players} players and takes no options")
        return State(kit, tuple(players), kit.values["stones"])

    def legal(self, state, action):
        if state.left == 0:
            raise RuleViolation("NIM-3", "the pile is empty: the game is over")
        if action.player != state.current:
            raise RuleViolation("NIM-1", f"it is {state.current}'s turn, not {action.player}'s")
        if not 1 <= action.stones <= min(3, state.left):
            raise RuleViolation("NIM-2", f"take 1 to {min(3, state.left)} stones, not {action.stones}")

    def apply(self, state, action):
        self.legal(state, action)
        after = replace(state, left=state.left - action.stones, turns=state.turns + (state.left > action.stones))
        emptied = (Consequence("pile_emptied", {"player": action.player}),) if after.left == 0 else ()
        return Transition(after, emptied)

    def legal_actions(self, state):
        return iter([Take(state.current, n) for n in range(1, min(3, state.left) + 1)])

    def outcome(self, state):
        return self.standings(state) if state.left == 0 else None

    def standings(self, state):
        won = state.current if state.left == 0 else None
        ranks = [Standing(1 if player == won else 2 if won else 1, player, (int(player == won),))
                 for player in state.players]
        return Outcome(tuple(sorted(ranks, key=lambda standing: standing.rank)), ("won",))

    def fact_of(self, action):
        return "StonesTaken"

    def snapshot_state(self, state):
        return {"players": list(state.players), "left": state.left, "turns": state.turns}

    def restore_state(self, kit, data):
        return State(kit, tuple(data["players"]), data["left"], data["turns"])

    def view(self, state):
        step = f"{state.current} to take" if state.left else ""
        return StateView(f"{state.left} stones left" + (f", {step}" if step else ""), state.players, {},
                         round=1 + state.turns // 2, phase="play" if state.left else "over", step=step)

    def describe(self, kind, data):
        return f"{data['player']} takes the last stone."
"""
KIT = {"ruleset": "nim", "name": "nim-7", "stand_in": False, "players": 2, "stones": 7}
GAME = ["ann take 3", "ben take 2", "ann take 2"]


def install(root: Path) -> dict[str, str]:
    """The package and its distribution's entry point, importable from `root`: the environment that sees it."""
    package = root / "nim_ledger"
    (package / "kits").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ruleset.py").write_text(NIM)
    (package / "kits" / "nim-7.json").write_text(json.dumps(KIT))
    dist = root / "nim_ledger-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: nim-ledger\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[evo_ledger.rulesets]\nnim = nim_ledger.ruleset:NimRuleset\n")
    env = child_env()
    return env | {"PYTHONPATH": f"{root}:{env['PYTHONPATH']}", "EVO_LEDGER_DATABASE": str(root / "nim.sqlite")}


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EVO_LEDGER), *args], check=False, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_new_rulesets_core_alone_records_checks_exports_audits_and_views_a_game(tmp_path: Path) -> None:
    """Long by design: the ruleset is found by its entry point only when a process starts, so every step is a
    command line run in a process of its own, and the viewer's answers come from a server started for them.

    Slow: a ruleset installed in a folder of its own, driven by the command line and a server, each a process."""
    env = install(tmp_path)
    assert cli(env, "kit", "nim-7").returncode == 0
    game = cli(env, "new", "--kit", "nim-7", "--players", "ann", "ben").stdout.split()[1]
    refused = cli(env, "record", game, "ann take 4")
    assert refused.returncode != 0 and "[NIM-2] take 1 to 3 stones, not 4" in refused.stderr, refused
    recorded = cli(env, "record", game, *GAME)
    assert recorded.returncode == 0, recorded.stderr
    shown = cli(env, "show", game)
    assert "0 stones left" in shown.stdout and "ann" in shown.stdout, shown
    assert "ann takes the last stone." in cli(env, "log", game).stdout
    exported = cli(env, "export", game, "--output", str(tmp_path / "nim.evo"))
    assert exported.returncode == 0, exported.stderr
    text = (tmp_path / "nim.evo").read_text()
    assert "ruleset nim 1" in text and "result 1 ann 1, 2 ben 0" in text, text
    assert cli(env, "check", str(tmp_path / "nim.evo")).returncode == 0
    audit = cli(env, "audit", game, "--json")
    assert audit.returncode == 0 and json.loads(audit.stdout)["verdict"] == "clean", audit
    with serve_process([], env) as served:
        view = httpx.get(f"{served.base}/v1/games/{game}/view").json()
        assert view["layout"] is None and view["result"][0]["player"] == "ann", view
        assert (view["round"], view["phase"], view["step"]) == (2, "over", "")
        assert httpx.get(f"{served.base}/games/{game}").status_code == 200
        legal = httpx.get(f"{served.base}/v1/games/{game}/legal").json()
        assert legal["actions"] == [], legal
