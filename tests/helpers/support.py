"""Helpers shared by the tests: start a game, play actions in notation, shape a position directly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.game import aggregate as game_module
from evo_ledger.rules.base import OptionValue, RuleViolation, Step, Transition
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset
from evo_ledger.rules.evo2.state import State
from evo_ledger.rules.kits import load_kit

RULES = Evo2Ruleset()
ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """The environment for a Python process a test starts: this checkout importable, with the toy ruleset."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "toy_dist")])}


PLAYERS = ("ann", "ben", "cat")
# Round 1 to its movement phase: cat (card), ben (legs), ann (eggs) move in that order.
ROUND_ONE_AUCTION = (
    "order ann ben cat",
    "climate cw",
    "draw legs",
    "draw eggs",
    "ann bid 2 eggs",
    "ben bid 1 legs",
    "cat bid 0 card",
)

# Round 1, cat to move: cat's C2 is next to ann's C3, whose other neighbours are B2, B3, C4, D2 and D3.
CAT_NEXT_TO_ANN = {"C2": "cat", "B1": "cat", "C3": "ann", "D2": "ann", "D3": "ann", "G1": "ben", "G2": "ben"}


def new_game(
    kit: str = "standin-e2-3p", players: Iterable[str] = PLAYERS, options: Mapping[str, OptionValue] | None = None
) -> State:
    return RULES.setup(load_kit(kit), tuple(players), options or {})


def step(state: State, line: str) -> Transition[State]:
    return RULES.apply(state, RULES.parse_action(line))


def play(state: State, *lines: str) -> State:
    for line in lines:
        state = step(state, line).state
    return state


def kinds(transition: Transition[State]) -> list[str]:
    return [c.kind for c in transition.consequences]


def refused(state: State, line: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        step(state, line)
    return caught.value


def movement(board: Mapping[str, str]) -> State:
    """Round 1's movement phase (climate position 1), cat to move with 2 points, then ben, then ann."""
    state = play(new_game(), *ROUND_ONE_AUCTION)
    state.board = dict(board)
    return state


def first_birth_turn(board: Mapping[str, str] | None = None) -> State:
    """Round 1's birth phase: cat births first, then ben, then ann twice (she won eggs)."""
    state = play(new_game(), *ROUND_ONE_AUCTION, "cat pass", "ben pass", "ann pass")
    if board is not None:
        state.board = dict(board)
    return state


def last_birth_turn(board: Mapping[str, str]) -> State:
    """Round 1 just before ann's second-pass birth; passing it starts the survival phase."""
    state = play(first_birth_turn(), "cat pass", "ben pass", "ann pass")
    state.board = dict(board)
    return state


def selfplay_output(*args: str) -> str:
    """What `evo-ledger selfplay ARGS` prints, run as a command."""
    done = subprocess.run(
        [sys.executable, "-m", "evo_ledger", "selfplay", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def steps_of(rules: Any, state: Any, *lines: str) -> list[Step[Any, Any]]:
    """The steps `lines` make from `state`: each with the state before it and what the rules derived."""
    steps = []
    for line in lines:
        action = rules.parse_action(line)
        transition = rules.apply(state, action)
        steps.append(Step(state, action, transition.consequences))
        state = transition.state
    return steps


EVO_LEDGER = Path(sys.executable).parent / "evo-ledger"


@dataclass
class Served:
    """A server in a process of its own: its base URL and process, and what it logged once stopped."""

    base: str
    process: subprocess.Popen[str]
    logged: str = ""


@contextmanager
def serve_process(options: Sequence[str], env: Mapping[str, str], cwd: Path | None = None) -> Iterator[Served]:
    """`evo-ledger serve` with `options` in a process of its own, on a free port, waited for until `/health`
    answers. Stopped with Ctrl-C afterwards."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    command = [str(EVO_LEDGER), "serve", "--port", str(port), *options]
    process = subprocess.Popen(
        command, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    served = Served(f"http://127.0.0.1:{port}", process)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{served.base}/health", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
                time.sleep(0.1)
        yield served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        served.logged = process.communicate(timeout=30)[1]


class Counted:
    """Counts the calls of an object's method, put in its place (`Counted(ledger.queries, "game")`)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.count = 0
        self.method = getattr(owner, name)
        setattr(owner, name, self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        return self.method(*args, **kwargs)


def game_whose_seats_share_a_player(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> str:
    """A game whose first two seats are one player, as stored before such games were refused, then its order of
    play and climate: the read tables key the order's rows by player, and cannot apply it (event 3)."""
    with monkeypatch.context() as unchecked:
        unchecked.setattr(game_module, "check_distinct_players", lambda seats: None)
        receipt = ledger.commands.create_game("evo2", "standin-e2-3p", [("ann", "same"), ("ben", "same"), "cat"])
    ledger.commands.record(receipt.game_id, ["order ann ben cat", "climate cw"])
    return str(receipt.game_id)


def log_position(ledger: Ledger, game_id: str, version: int) -> int:
    """The position in the global log of the game's event `version`."""
    notifications = ledger.store.recorder.select_notifications(start=1, limit=100_000)
    [position] = [n.id for n in notifications if (str(n.originator_id), n.originator_version) == (game_id, version)]
    return position
