"""Games as text files: a header, one action per line, the record's revisions (actions undone, the latest
corrected, notes, whether a finished game's hidden facts are kept hidden), comments, and an optional `result` line
(docs/notation/README.md).

Actions are read by the game's ruleset; this module knows the file's shape and reports every error with its
line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo_ledger.rules import AnyRuleset, UnknownRuleset, get_ruleset, seat_options
from evo_ledger.rules.base import OptionValue, Outcome, Standing
from evo_ledger.rules.text import NotationError

HEADER_KEYS = ("ruleset", "kit", "players", "option")
# Lines that revise the record rather than act in the game; no player may bear their names.
REVISION_KEYS = ("undo", "correct", "note", "hidden")
# Whether, once the game is over, its hidden facts are kept from readers who could not see them, or shown to all.
HIDDEN_KEPT, HIDDEN_SHOWN = "hidden kept", "hidden shown"
_UNDO = re.compile(r"undo\s+(\d{1,9})\s+\((.+)\)")
_CORRECT = re.compile(r"correct\s+(.+?)\s+\((.+)\)")
_NOTE = re.compile(r"note\s+(\d{1,18})\s+(.+)")
_RESULT_ENTRY = re.compile(r"(\d{1,18})\s+([a-z][a-z0-9_]*)\s+(-?\d{1,18}(?:/-?\d{1,18})*)")
_OPTION = re.compile(r"([a-z][a-z0-9_]*)=(\S+)")


class GameFileError(ValueError):
    """A game file that cannot be read: `line` and `column` are 1-based."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.message = message


class NotTextGameFile(ValueError):
    """A file given as a game file that is not UTF-8 text (a bundle, a picture, anything binary)."""


def read_game_text(path: Path) -> str:
    """A game file's text, or NotTextGameFile."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise NotTextGameFile(f"not a text game file: byte {error.start:,} is not UTF-8 text") from None


@dataclass(frozen=True)
class Header:
    ruleset: str
    version: str
    kit: str
    kit_hash: str | None
    players: tuple[str, ...]
    options: Mapping[str, OptionValue] = field(default_factory=dict)


@dataclass(frozen=True)
class ActionLine:
    line: int
    text: str
    action: Any


@dataclass(frozen=True)
class Revision:
    """A line that revises the record: `undo` the latest `count` actions, `correct` the latest to `action`,
    `note` about event `count`, or say whether the game's `hidden` facts are `kept` from readers who could not see
    them once it is over, or `shown` to all (the default); `text` is the reason, the note, or `kept` or `shown`."""

    line: int
    kind: str
    text: str
    count: int = 0
    action: ActionLine | None = None


@dataclass(frozen=True)
class GameFile:
    """`actions` are the effective ones, as the revisions leave them; `entries` are every action and revision
    line in the file's order."""

    header: Header
    actions: tuple[ActionLine, ...]
    result: tuple[Standing, ...] | None = None
    result_line: int | None = None
    entries: tuple[ActionLine | Revision, ...] = ()

    @property
    def revisions(self) -> tuple[Revision, ...]:
        return tuple(entry for entry in self.entries if isinstance(entry, Revision))


@dataclass
class _Lines:
    """The file's meaningful lines: (line number, column of the first character, text without the comment)."""

    rows: list[tuple[int, int, str]]

    @classmethod
    def of(cls, text: str) -> _Lines:
        rows = []
        for number, raw in enumerate(text.splitlines(), start=1):
            content = raw.split("#", 1)[0].rstrip()
            stripped = content.lstrip()
            if stripped:
                rows.append((number, len(content) - len(stripped) + 1, stripped))
        return cls(rows)


def parse_game(text: str) -> GameFile:
    rows = _Lines.of(text).rows
    header_values: dict[str, list[tuple[int, int, str]]] = {key: [] for key in HEADER_KEYS}
    index = 0
    seat_lines = seat_options()
    header_values.update({name: [] for name in seat_lines})
    while index < len(rows) and rows[index][2].split()[0] in header_values:
        number, column, content = rows[index]
        header_values[content.split()[0]].append((number, column, content))
        index += 1
    header = _parse_header(header_values, rows[0][0] if rows else 1)
    ruleset = _ruleset_of(header, header_values)
    _check_player_names(header, header_values)
    actions: list[ActionLine] = []
    entries: list[ActionLine | Revision] = []
    result: tuple[Standing, ...] | None = None
    result_line = None
    for number, column, content in rows[index:]:
        if result_line is not None:
            raise GameFileError(number, column, "nothing may follow the result line")
        first_word = content.split(maxsplit=1)[0]
        if first_word == "result":
            result, result_line = _parse_result(number, column, content), number
        elif first_word in header_values:
            raise GameFileError(number, column, f"the header line {first_word!r} must come before the first action")
        elif first_word in REVISION_KEYS:
            revision = _parse_revision(ruleset, number, column, content)
            _revise(actions, revision, column)
            entries.append(revision)
        else:
            action = ActionLine(number, content, _parse_action(ruleset, number, column, content))
            actions.append(action)
            entries.append(action)
    return GameFile(header, tuple(actions), result, result_line, tuple(entries))


def _check_player_names(header: Header, values: dict[str, list[tuple[int, int, str]]]) -> None:
    taken = sorted(set(header.players) & set(REVISION_KEYS))
    if taken:
        number, column, _ = values["players"][0]
        raise GameFileError(number, column, f"{taken[0]!r} cannot be a player's name: it begins a revision line")


def _parse_revision(ruleset: AnyRuleset, number: int, column: int, content: str) -> Revision:
    kind = content.split(maxsplit=1)[0]
    if kind == "hidden":
        if " ".join(content.split()) not in (HIDDEN_KEPT, HIDDEN_SHOWN):
            raise GameFileError(
                number,
                column,
                f"expected '{HIDDEN_KEPT}' (once the game is over, its hidden facts are kept from readers who could "
                f"not see them) or '{HIDDEN_SHOWN}' (shown to every reader)",
            )
        return Revision(number, kind, content.split()[1])
    if kind == "undo":
        undo = _UNDO.fullmatch(content)
        if undo is None:
            raise GameFileError(
                number, column, "expected 'undo COUNT (REASON)', for example 'undo 1 (misread the die)'"
            )
        return Revision(number, kind, undo.group(2), count=int(undo.group(1)))
    if kind == "note":
        note = _NOTE.fullmatch(content)
        if note is None:
            raise GameFileError(number, column, "expected 'note EVENT TEXT', for example 'note 12 a disputed roll'")
        return Revision(number, kind, note.group(2), count=int(note.group(1)))
    correct = _CORRECT.fullmatch(content)
    if correct is None:
        raise GameFileError(
            number, column, "expected 'correct ACTION (REASON)', for example 'correct roll 3 (it was 3)'"
        )
    action_column = column + correct.start(1)
    text = correct.group(1)
    return Revision(
        number,
        kind,
        correct.group(2),
        action=ActionLine(number, text, _parse_action(ruleset, number, action_column, text)),
    )


def _revise(actions: list[ActionLine], revision: Revision, column: int) -> None:
    """The effective actions, as the revision leaves them."""
    if revision.kind == "undo":
        if not 1 <= revision.count <= len(actions):
            raise GameFileError(
                revision.line, column, f"{len(actions)} actions stand, so {revision.count} cannot be undone"
            )
        del actions[len(actions) - revision.count :]
    elif revision.kind == "correct":
        if not actions or revision.action is None:
            raise GameFileError(revision.line, column, "no action stands to be corrected")
        actions[-1] = revision.action


def _parse_action(ruleset: AnyRuleset, number: int, column: int, content: str) -> Any:
    try:
        return ruleset.parse_action(content)
    except NotationError as error:
        raise GameFileError(
            number, column + error.column - 1, f"expected {error.expected}, found {error.found}"
        ) from None


def _single(values: dict[str, list[tuple[int, int, str]]], key: str, first_line: int) -> tuple[int, int, list[str]]:
    found = values[key]
    if not found:
        raise GameFileError(first_line, 1, f"expected a {key!r} line in the header before the first action")
    if len(found) > 1:
        raise GameFileError(found[1][0], found[1][1], f"the header has more than one {key!r} line")
    number, column, content = found[0]
    return number, column, content.split()[1:]


def _parse_header(values: dict[str, list[tuple[int, int, str]]], first_line: int) -> Header:
    number, column, words = _single(values, "ruleset", first_line)
    if len(words) != 2:
        raise GameFileError(number, column, "expected 'ruleset NAME VERSION', for example 'ruleset evo2 1'")
    ruleset, version = words
    number, column, words = _single(values, "kit", first_line)
    if len(words) not in (1, 2) or (len(words) == 2 and not words[1].startswith("sha256:")):
        raise GameFileError(number, column, "expected 'kit NAME-OR-PATH [sha256:HASH]'")
    kit, kit_hash = words[0], words[1] if len(words) == 2 else None
    number, column, words = _single(values, "players", first_line)
    if not words:
        raise GameFileError(number, column, "expected 'players NAME NAME ...' in seat order")
    options = dict(_parse_option(n, c, content) for n, c, content in values["option"])
    for name in seat_options():
        for number, column, content in values.get(name, ()):
            seats = content.split()[1:]
            if not seats or name in options:
                raise GameFileError(number, column, f"expected one '{name} NAME...' line, naming seats in the header")
            options[name] = " ".join(seats)
    return Header(ruleset, version, kit, kit_hash, tuple(words), options)


def _parse_option(number: int, column: int, content: str) -> tuple[str, OptionValue]:
    words = content.split()
    match = _OPTION.fullmatch(words[1]) if len(words) == 2 else None
    if match is None:
        raise GameFileError(number, column, "expected 'option NAME=VALUE'")
    return match.group(1), parse_option_value(match.group(2))


def parse_option_value(text: str) -> OptionValue:
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d{1,18}", text):
        return int(text)
    return text


def _ruleset_of(header: Header, values: dict[str, list[tuple[int, int, str]]]) -> AnyRuleset:
    try:
        return get_ruleset(header.ruleset, header.version)
    except UnknownRuleset as error:
        number, column, _ = values["ruleset"][0]
        raise GameFileError(number, column, str(error)) from None


def _parse_result(number: int, column: int, content: str) -> tuple[Standing, ...]:
    body = content[len("result") :]
    standings = []
    offset = column + len("result")
    for part in body.split(","):
        match = _RESULT_ENTRY.fullmatch(part.strip())
        if match is None:
            column_of_entry = offset + len(part) - len(part.lstrip())
            raise GameFileError(number, column_of_entry, f"expected 'RANK PLAYER SCORE/SCORE', found {part.strip()!r}")
        rank, player, score = match.groups()
        standings.append(Standing(int(rank), player, tuple(int(s) for s in score.split("/"))))
        offset += len(part) + 1
    return tuple(standings)


def format_score(score: tuple[int, ...]) -> str:
    """A score as a result line writes it: its parts joined by `/` (`19/4`)."""
    return "/".join(str(value) for value in score)


def format_result(outcome: Outcome) -> str:
    entries = (f"{s.rank} {s.player} {format_score(s.score)}" for s in outcome.standings)
    return "result " + ", ".join(entries)


def format_header(header: Header) -> str:
    lines = [f"ruleset {header.ruleset} {header.version}"]
    lines.append(f"kit {header.kit}" + (f" {header.kit_hash}" if header.kit_hash else ""))
    lines.append("players " + " ".join(header.players))
    marks = seat_options()
    for name, value in sorted(header.options.items()):
        if name in marks and isinstance(value, str) and value:
            lines.append(f"{name} {value}")
        elif name not in marks or value != "":
            lines.append(f"option {name}={format_option_value(value)}")
    return "\n".join(lines)


def format_option_value(value: OptionValue) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def format_undo(count: int, reason: str) -> str:
    return f"undo {count} ({reason})"


def format_correction(notation: str, reason: str) -> str:
    return f"correct {notation} ({reason})"


def format_note(about: int, text: str) -> str:
    return f"note {about} {text}"


def format_hidden(reveal_at_end: bool) -> str:
    """The line that says whether, once the game is over, its hidden facts are shown to every reader."""
    return HIDDEN_SHOWN if reveal_at_end else HIDDEN_KEPT


def format_game(
    header: Header, lines: Iterable[str], outcome: Outcome | None = None, comments: Sequence[str] = ()
) -> str:
    """A whole game file: comments first, then the header, the actions and the result if the game has ended."""
    parts = [f"# {comment}" for comment in comments]
    parts.append(format_header(header))
    parts.extend(lines)
    if outcome is not None:
        parts.append(format_result(outcome))
    return "\n".join(parts) + "\n"
