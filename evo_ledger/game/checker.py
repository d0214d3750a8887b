"""Replays a game file through its ruleset: the first illegal action, the warnings, and the result compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo_ledger.game.notation import ActionLine, GameFile, format_result
from evo_ledger.rules import AnyRuleset, get_ruleset
from evo_ledger.rules.base import Outcome, RuleViolation, SetupError, Standing
from evo_ledger.rules.contract import Kit
from evo_ledger.rules.kits import KitError, load_kit_document


class GameSetupError(ValueError):
    """The header names a kit, players or options that cannot start a game."""


@dataclass(frozen=True)
class LineWarning:
    line: int
    ruling: str
    message: str


@dataclass
class CheckReport:
    ruleset: AnyRuleset
    actions_applied: int = 0
    state: Any = None
    outcome: Outcome | None = None
    refused: tuple[ActionLine, RuleViolation] | None = None
    warnings: list[LineWarning] = field(default_factory=list)
    result_mismatch: str | None = None


def kit_reference(game: GameFile, base: Path | None) -> str:
    """A kit named by a path is looked for beside the game file first (`base`, its folder)."""
    beside = base / game.header.kit if base is not None else None
    return str(beside) if beside is not None and beside.is_file() else game.header.kit


def load_pinned_kit(game: GameFile, base: Path | None = None) -> Kit:
    return load_pinned_kit_document(game, base)[1]


def load_pinned_kit_document(
    game: GameFile, base: Path | None = None, files: bool = True
) -> tuple[dict[str, Any], Kit]:
    """The kit the game file names, as its document and as a kit, refused if it no longer has the pinned hash.
    Without `files`, the file is from outside: its kit is a built-in one, and no file is read."""
    try:
        document, kit = load_kit_document(kit_reference(game, base) if files else game.header.kit, files)
    except KitError as error:
        raise GameSetupError(str(error)) from None
    if game.header.kit_hash and game.header.kit_hash != kit.content_hash:
        raise GameSetupError(
            f"kit {game.header.kit!r} has hash {kit.content_hash}, "
            f"but the game was recorded with {game.header.kit_hash}"
        )
    return document, kit


def start(game: GameFile, base: Path | None = None) -> Any:
    ruleset = get_ruleset(game.header.ruleset, game.header.version)
    try:
        return ruleset.setup(load_pinned_kit(game, base), game.header.players, game.header.options)
    except SetupError as error:
        raise GameSetupError(str(error)) from None


def check_game(game: GameFile, base: Path | None = None) -> CheckReport:
    """Replays `game`; `base` is the folder a kit given by a relative path is looked for in."""
    ruleset = get_ruleset(game.header.ruleset, game.header.version)
    report = CheckReport(ruleset, state=start(game, base))
    for line in game.actions:
        try:
            transition = ruleset.apply(report.state, line.action)
        except RuleViolation as violation:
            report.refused = (line, violation)
            return report
        report.state = transition.state
        report.actions_applied += 1
        report.warnings.extend(LineWarning(line.line, w.ruling, w.message) for w in transition.warnings)
    report.outcome = ruleset.outcome(report.state)
    report.result_mismatch = compare_result(game.result, report.outcome)
    return report


def compare_result(claimed: tuple[Standing, ...] | None, outcome: Outcome | None) -> str | None:
    """Why the file's result line disagrees with the engine, or None when it agrees or there is none."""
    if claimed is None:
        return None
    if outcome is None:
        return "the file has a result line, but the game has not ended"
    if claimed != outcome.standings:
        return f"the engine finds '{format_result(outcome)}'"
    return None
