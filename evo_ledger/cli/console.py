"""`evo-ledger play`: record a game at the table, one line an action, each stored the moment Enter is pressed.

A line is an action in the game's notation, or a command after a colon (`:help` lists them). An action the rules
refuse is stored nowhere: the session names the ruling and what would be legal. Every action is committed before
the next prompt, so closing the terminal at any moment loses nothing that was acknowledged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TextIO
from uuid import UUID

from evo_ledger.app.ledger import Ledger, Receipt, VersionConflict
from evo_ledger.app.readers import RECORDER, legal_for
from evo_ledger.cli import terminal
from evo_ledger.cli.views import event_line, headline, print_position, terminal_width
from evo_ledger.game.aggregate import NothingToUndo
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.contract import advice as rules_advice
from evo_ledger.rules.text import NotationError

SHOWN_LEGAL_ACTIONS = 12
HELP = """\
  ACTION                 record an action in notation (Tab completes the legal ones)
  :undo [N] REASON       take back the latest N actions (1 if left out), saying why
  :note [EVENT] TEXT     note something about an event (the latest if left out)
  :show                  the players and the island
  :legal                 the legal actions now
  :log [N]               the latest N events (10 if left out)
  :help                  this list
  :quit                  leave (Ctrl-D too); everything recorded is already stored
"""


class PlaySession:
    """One recorder's session on one game; `read` is `input` at a terminal, or any line source."""

    def __init__(self, ledger: Ledger, game_id: UUID, read: Callable[[str], str], out: TextIO) -> None:
        self.ledger = ledger
        self.game_id = game_id
        self.read = read
        self.out = out
        self.console = terminal.console_for(out)
        self.game = ledger.queries.game(game_id)
        self.commands: dict[str, Callable[[str], None]] = {
            "undo": self.undo,
            "note": self.note,
            "show": lambda _: print_position(self.game, self.out, self.ledger.store.personal.render),
            "legal": lambda _: self.say("\n".join(self.legal_actions()) or "no action is enumerable here"),
            "log": self.log,
            "help": lambda _: self.say(HELP),
        }

    def run(self) -> int:
        print_position(self.game, self.out, self.ledger.store.personal.render)
        while True:
            try:
                line = self.read(self.prompt()).strip()
            except EOFError:
                self.say("")
                return 0
            except KeyboardInterrupt:
                self.say("^C (:quit to leave)")
                continue
            if line in (":quit", ":q", ":exit"):
                return 0
            if line.startswith(":"):
                self.command(line[1:])
            elif line:
                self.record(line)
            elif self.offered() is not None:
                self.record(self.offered() or "")

    def prompt(self) -> str:
        """What is awaited, and the action Enter records, each seat by its handle (the prompt is not `out`'s)."""
        offered = self.offered()
        advice = f"\n{self.advice_line()} (Enter records {offered})" if offered is not None else ""
        return self.ledger.store.personal.render(
            f"[{self.game.version}] {self.game.rules.view(self.game.state).headline}{advice}\n> "
        )

    def offered(self) -> str | None:
        """The action Enter records: the first of the rules' own decision for a seat they run, if one is awaited."""
        advice = rules_advice(self.game.rules, self.game.state)
        return self.game.rules.format_action(advice.actions[0]) if advice is not None and advice.actions else None

    def advice_line(self) -> str:
        advice = rules_advice(self.game.rules, self.game.state)
        assert advice is not None
        return f"the algorithm [{advice.ruling}]: {advice.reason}"

    def say(self, text: str, style: str | None = None) -> None:
        terminal.say(self.console, text, style)

    def record(self, line: str) -> None:
        self.change(lambda: self.ledger.commands.record(self.game_id, line, expected_version=self.game.version))

    def refused(self, violation: RuleViolation) -> None:
        self.say(f"refused {violation}; nothing was recorded", terminal.REFUSED)
        legal = list(self.legal_actions())
        if legal:
            more = f" (and {len(legal) - SHOWN_LEGAL_ACTIONS} more: :legal)" if len(legal) > SHOWN_LEGAL_ACTIONS else ""
            self.say("legal now: " + "; ".join(legal[:SHOWN_LEGAL_ACTIONS]) + more)

    def acknowledge(self, receipt: Receipt, before: int) -> None:
        """Say what was stored: the events after `before`, each with its number, and the receipt's head hash."""
        self.game = self.ledger.queries.game(self.game_id)
        for event in self.ledger.queries.game_events(self.game_id, after=before):
            self.say_event(event)
        self.say(f"stored: event {receipt.version}, head {receipt.head_hash[:16]}", terminal.STORED)
        if self.game.rules.outcome(self.game.state) is not None:
            self.say(headline(self.game))

    def reload(self, message: str) -> None:
        self.say(message)
        self.game = self.ledger.queries.game(self.game_id)

    def command(self, text: str) -> None:
        name, _, rest = text.partition(" ")
        handler = self.commands.get(name)
        if handler is None:
            self.say(f"no command :{name}; :help lists them")
            return
        handler(rest.strip())

    def undo(self, rest: str) -> None:
        count, reason = leading_number(rest)
        if not reason:
            self.say("say why: :undo [N] REASON")
            return
        self.change(
            lambda: self.ledger.commands.undo(self.game_id, count or 1, reason, expected_version=self.game.version)
        )

    def note(self, rest: str) -> None:
        about, text = leading_number(rest)
        if not text:
            self.say("what is the note? :note [EVENT] TEXT")
            return
        self.change(lambda: self.ledger.commands.annotate(self.game_id, about or self.game.version, text))

    def change(self, append: Callable[[], Receipt]) -> None:
        """Append, then say what was stored, or why nothing was."""
        before = self.game.version
        try:
            receipt = append()
        except RuleViolation as violation:
            self.refused(violation)
            return
        except NotationError as error:
            self.say(f"cannot read that: {error}")
            return
        except (NothingToUndo, ValueError) as error:
            self.say(f"not recorded: {error}")
            return
        except VersionConflict as conflict:
            self.reload(f"not recorded: {conflict}; the game is read again")
            return
        self.acknowledge(receipt, before)

    def log(self, rest: str) -> None:
        count, _ = leading_number(rest)
        for event in self.ledger.queries.game_events(self.game_id)[-(count or 10) :]:
            self.say_event(event)

    def say_event(self, event: Any) -> None:
        self.say(event_line(event, self.game.rules, terminal_width(self.out), shown=self.ledger.store.personal.render))

    def legal_actions(self) -> Iterator[str]:
        """The legal actions now, each seat by its handle, as they are typed."""
        actions = legal_for(RECORDER, self.game)
        return iter(self.ledger.store.personal.render("\n".join(actions)).split("\n") if actions else ())


def leading_number(text: str) -> tuple[int | None, str]:
    """`3 misread the die` as (3, 'misread the die'); text without a leading number as (None, text)."""
    first, _, rest = text.partition(" ")
    if first.isdigit():
        return int(first), rest.strip()
    return None, text


def completer(session: PlaySession) -> Callable[[str, int], str | None]:
    """Completion of whole lines: the legal actions and the commands that begin with what is typed."""
    matches: list[str] = []

    def complete(text: str, index: int) -> str | None:
        if index == 0:
            candidates = [f":{name}" for name in (*session.commands, "quit")] + list(session.legal_actions())
            matches[:] = [candidate for candidate in candidates if candidate.startswith(text)]
        return matches[index] if index < len(matches) else None

    return complete
