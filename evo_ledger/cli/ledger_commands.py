"""The command line's ledger commands: create, record, inspect, import and export games, and the play session.

Every command opens the ledger the `--database` option or EVO_LEDGER_DATABASE names (a SQLite file by default).
Exit status: 0 done; 1 refused (an illegal action, a version conflict); 2 bad input (no such game, an unreadable
file or action, a database that cannot be opened), named in a line on standard error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, cast
from uuid import UUID

from eventsourcing.persistence import PersistenceError

from evo_ledger.app.access import AccessNotVouched, CoRecorderTaken
from evo_ledger.app.audit import CLEAN
from evo_ledger.app.disputes import ExplanationReport, NotExplainable, WhatIfReport
from evo_ledger.app.ledger import GameReferenceError, Ledger, Receipt, ReplacedGame, UnknownGame, VersionConflict
from evo_ledger.app.personal import as_json_text
from evo_ledger.app.readers import (
    HiddenEvent,
    HiddenFacts,
    Seen,
    branch_for,
    explanation_for,
    reader_named,
    sentence_for,
    visibility,
)
from evo_ledger.app.selfplay import NoSelfPlay, bot_names
from evo_ledger.app.stored_kits import InvalidKit, KitTooLarge, UnknownKit
from evo_ledger.app.transfer import BUNDLE_SUFFIX, ImportFileError, export_bundle, export_notation, import_files
from evo_ledger.cli.console import PlaySession, completer
from evo_ledger.cli.last_game import remember, remembered
from evo_ledger.cli.phones import DEFAULT_PORT, ShareError, share_game
from evo_ledger.cli.terminal import ProgressBar, ShownText
from evo_ledger.cli.views import event_line, print_position, terminal_width
from evo_ledger.game.aggregate import Game, NothingToUndo
from evo_ledger.game.checker import GameSetupError
from evo_ledger.game.checkpoints import CHECKPOINT_FORMAT, CheckpointError, unvouched_words
from evo_ledger.game.notation import GameFileError, format_hidden, parse_option_value
from evo_ledger.rules import UnknownRuleset, marked_seats, rulesets, seat_options
from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.kits import KitError, load_kit_document
from evo_ledger.rules.text import NotationError
from evo_ledger.rules.words import counted
from evo_ledger.settings import Settings, SettingsError
from evo_ledger.store.recorders import reason_in

EXIT_OK = 0
EXIT_REFUSED = 1  # the rules, a check or an audit said no
EXIT_BAD_INPUT = 2  # a file, a setting or an argument could not be read
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024
GAME_HELP = "a game id, the beginning of one, or 'last' (the game a command last stored or named)"
HIDDEN_SETTINGS = ("kept", "shown")


def add_ledger_commands(commands: Any) -> None:
    """The ledger's subcommands, added to the command line's parser."""
    new = _command(commands, "new", "start a game and print its id")
    new.add_argument(
        "--kit", required=True, help="a built-in kit's name, a kit JSON file, or a kit's hash (sha256:...) as stored"
    )
    new.add_argument("--players", nargs="+", required=True, metavar="NAME", help="in seat order; NAME=ID keeps an id")
    new.add_argument("--ruleset", help="the ruleset, checked against the kit's (default: the kit's)")
    new.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a ruleset option")
    new.add_argument(
        "--keep-hidden",
        action="store_true",
        help="once the game is over, keep its hidden facts (cards drawn, peeks, hands) from readers who could not "
        "see them during play (by default every reader sees them then; `hidden` changes it later)",
    )
    for spec in seat_options().values():
        new.add_argument(
            f"--{spec.seat_mark}",
            action="append",
            default=[],
            metavar="NAME",
            dest=f"mark_{spec.seat_mark}",
            help=f"a seat of option {spec.name} ({spec.ruling}): {spec.help}",
        )
    record = _command(commands, "record", "record actions, all or none, and print the receipt", game=True)
    record.add_argument("actions", nargs="+", metavar="ACTION", help="an action in notation, quoted")
    record.add_argument("--expect", type=int, metavar="VERSION", help="refuse if the game is no longer at VERSION")
    undo = _command(commands, "undo", "take back the latest actions, saying why", game=True)
    undo.add_argument("--count", type=int, default=1)
    undo.add_argument("--reason", required=True)
    hidden = _command(
        commands,
        "hidden",
        "say whether, once the game is over, its hidden facts (cards drawn, peeks, "
        "hands) are shown to every reader or kept from those who could not see them during play; "
        "recorded in the game's log, it stands from then on, also after the end",
        game=True,
    )
    hidden.add_argument(
        "setting",
        choices=HIDDEN_SETTINGS,
        help="kept: readers who could not see them during play still cannot; shown: every reader sees them (the "
        "default of a game)",
    )
    note = _command(commands, "note", "attach a note to an event", game=True)
    note.add_argument("text")
    note.add_argument("--about", type=int, metavar="EVENT", help="the event (the latest if left out)")
    show = _command(commands, "show", "the game after an event: whose turn, the players, the island", game=True)
    show.add_argument("--at", type=int, metavar="EVENT", help="the event to stop after (the latest if left out)")
    add_reader(show)
    add_reader(_command(commands, "log", "the game's events, numbered", game=True))
    _command(commands, "games", "the games in the ledger, oldest first")
    imports = _command(commands, "import", f"store game files (.evo) and bundles ({BUNDLE_SUFFIX}) as new games")
    imports.add_argument("files", nargs="+", type=Path, metavar="FILE")
    imports.add_argument("--workers", type=int, help="processes preparing games (default: one per core)")
    imports.add_argument(
        "--again", action="store_true", help="store a game file's game again, as a copy, even if it is stored"
    )
    export = _command(commands, "export", "write a game as a game file, or as a bundle with its hashes", game=True)
    export.add_argument("--bundle", action="store_true", help=f"a msgpack bundle ({BUNDLE_SUFFIX})")
    export.add_argument("--output", "-o", type=Path, metavar="FILE", help="where to write (default: standard output)")
    _command(commands, "play", "record a game interactively, one action a line", game=True)
    add_audit_commands(commands)
    generate = _command(
        commands,
        "generate",
        "play a game with seeded bots and store it, committed to a secret "
        "salt and its seed, revealed at its end for the audit",
    )
    generate.add_argument("--ruleset", choices=sorted(rulesets()), required=True)
    generate.add_argument("--players", type=int, default=4)
    generate.add_argument("--seed", type=int, help="the seed (default: a random one)")
    generate.add_argument("--bot", choices=bot_names(), default="sensible")
    add_marked_counts(generate)
    explain = _command(
        commands,
        "explain",
        "why the rules decided as they did about the part of the game an event "
        "belongs to: a combat, a survival phase, an auction...",
        game=True,
    )
    explain.add_argument("event", type=int, metavar="EVENT", help="the event's number in the game's log")
    explain.add_argument("--json", action="store_true", help="the explanation as canonical JSON, with its hash")
    add_reader(explain)
    branch = _command(
        commands,
        "what-if",
        "fold the game again with one action replaced or dropped, in a branch "
        "(the log is not touched), and compare the standings",
        game=True,
    )
    branch.add_argument("event", type=int, metavar="EVENT", help="the action's event number in the game's log")
    change = branch.add_mutually_exclusive_group(required=True)
    change.add_argument("--replace", metavar="ACTION", help="the action, in notation, to put in its place")
    change.add_argument("--drop", action="store_true", help="leave the action out")
    branch.add_argument("--json", action="store_true", help="the report as canonical JSON, with its hash")
    add_reader(branch)


def add_share_command(commands: Any) -> None:
    share = _command(
        commands,
        "share",
        "put a game on the phones at the table: the address they open, the recording page's link with a token that "
        "records the game, and the link as a QR code",
        game=True,
    )
    share.add_argument(
        "--url",
        metavar="URL",
        help="the address the phones open the server at (default: this machine's network address and port "
        f"{DEFAULT_PORT}, as `serve --host 0.0.0.0` announces it)",
    )
    share.add_argument("--seats", action="store_true", help="also each seat's own link, with its token")
    share.add_argument(
        "--reissue-seats",
        action="store_true",
        help="with --seats, where seats have links already: a new one each (the links before read no more)",
    )


def add_audit_commands(commands: Any) -> None:
    audit = _command(commands, "audit", "check a game's log from its first event; exit 1 if it is not clean", game=True)
    audit.add_argument("--event", type=int, metavar="N", help="audit the log up to event N (all of it by default)")
    audit.add_argument(
        "--expect-head",
        type=event_hash_text,
        metavar="HASH",
        help="a receipt's head hash: shows whether events were cut",
    )
    audit.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="a checkpoint kept elsewhere, as `checkpoint` printed it: shows whether the checkpoint log was cut",
    )
    audit.add_argument("--json", action="store_true", help="the report as canonical JSON, with its hash")
    signing = _command(
        commands,
        "checkpoint",
        "sign with the seal key the events stored since the last checkpoint whose seals hold under it (naming "
        "those it cannot vouch for), append the checkpoint to the checkpoint log and print it, to be kept elsewhere",
    )
    signing.add_argument(
        "--acknowledge",
        type=int,
        metavar="N",
        help="the events checkpoints up to number N could not vouch for were looked into: sign a checkpoint that "
        "says so, and /health stops naming them",
    )


def add_reader(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as",
        dest="reader",
        metavar="SEAT",
        help="answer as a seat (a player's name) or 'public' would be answered over HTTP (default: the recorder)",
    )


def reader_of(ledger: Ledger, game: Game, args: argparse.Namespace) -> Seen:
    """The reader `--as` names: a seat by its player's handle (or its label), or `public`."""
    named = ledger.queries.seats.in_labels(game, args.reader) if args.reader is not None else None
    try:
        return reader_named(named, game.player_names)
    except ValueError as error:
        raise CommandError(str(error)) from None


def _command(commands: Any, name: str, summary: str, game: bool = False) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=summary, description=summary)
    if game:
        parser.add_argument("game", metavar="GAME", help=GAME_HELP)
    parser.add_argument("--database", help="a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)")
    return parser


def run_ledger_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        with open_ledger(args.database) as ledger:
            return run_on(ledger, args, out)
    except PersistenceError as error:  # opened, then refused a read or a write (a file only readable, a lost server)
        store = Settings.for_database(args.database).described
        print(f"evo-ledger {args.command}: {store}: cannot be used: {reason_in(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        raise
    except BAD_INPUT as error:
        print(f"evo-ledger {args.command}: {said(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run_on(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    """The command run on the ledger opened, what it writes and a refusal's words shown with the personal data
    they quote as it stands (the seats' handles)."""
    shown = ledger.store.personal.render
    try:
        return COMMANDS[args.command](ledger, args, cast(TextIO, ShownText(out, shown)))
    except (RuleViolation, VersionConflict, NothingToUndo) as refusal:
        print(f"refused: {shown(str(refusal))}; nothing was recorded", file=sys.stderr)
        return EXIT_REFUSED
    except AccessNotVouched as error:
        print(f"evo-ledger {args.command}: {shown(str(error))}", file=sys.stderr)
        return EXIT_REFUSED
    except BrokenPipeError:
        raise
    except BAD_INPUT as error:
        print(f"evo-ledger {args.command}: {shown(said(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT


def said(error: Exception) -> str:
    """An error in the command line's words: a file's error names the file and what is wrong with it."""
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{reason_of(error)}"
    return str(error)


def reason_of(error: OSError) -> str:
    """What the system says is wrong, in the command line's case: `no such file or directory`."""
    return error.strerror.lower() if error.strerror else str(error)


def game_of(ledger: Ledger, reference: str) -> UUID:
    """The game a command names, remembered as `last`; `last` is the game a command last stored or named in this
    database (the game started last where none is remembered)."""
    if reference.strip().lower() == "last":
        game_id = remembered(ledger.settings)
        if game_id is not None and ledger.queries.stored_among([game_id]):
            return game_id
    game_id = ledger.queries.find_game(reference)
    remember(ledger.settings, game_id)
    return game_id


class CommandError(ValueError):
    """An argument the command cannot use."""


def event_hash_text(text: str) -> str:
    """An event's hash as a receipt gives it: 64 lower-case hex digits."""
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an event's hash (64 hex digits, as a receipt gives it)")
    return text


BAD_INPUT = (
    CommandError,
    ReplacedGame,
    GameReferenceError,
    UnknownGame,
    NotationError,
    GameFileError,
    GameSetupError,
    ImportFileError,
    KitError,
    InvalidKit,
    KitTooLarge,
    UnknownKit,
    SetupError,
    UnknownRuleset,
    SettingsError,
    NotExplainable,
    NoSelfPlay,
    HiddenFacts,
    HiddenEvent,
    ShareError,
    CoRecorderTaken,
    OSError,
)


@contextmanager
def open_ledger(database: str | None) -> Iterator[Ledger]:
    settings = Settings.for_database(database)
    ledger = Ledger(settings)
    try:
        yield ledger
    finally:
        ledger.close()


def new_game(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    players = [tuple(p.split("=", 1)) if "=" in p else p for p in args.players]
    options = dict(parse_named_option(text) for text in args.option)
    marks = {spec.seat_mark: getattr(args, f"mark_{spec.seat_mark}") for spec in seat_options().values()}
    options.update(marked_seats(marks))
    receipt = ledger.commands.create_game(args.ruleset, args.kit, players, options, reveal_at_end=not args.keep_hidden)
    remember(ledger.settings, receipt.game_id)
    print(f"game {receipt.game_id}", file=out)
    print_receipt(receipt, out)
    return EXIT_OK


def store_kit(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    """`kit FILE --store`, once the kit is checked: it is stored by its hash, or said to be stored or built in
    already (nothing is stored then)."""
    document, _ = load_kit_document(args.kit)
    kept = ledger.commands.store_kit(document)
    if kept.built_in is not None:
        print(f"built in already as {kept.built_in}: nothing stored", file=out)
    elif kept.already:
        print(f"stored already as {kept.kit_hash}: nothing stored", file=out)
    else:
        print(f"stored as {kept.kit_hash}", file=out)
    return EXIT_OK


def generate(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    marked = marked_counts(args)
    receipt = ledger.commands.generate_game(args.players, args.bot, args.seed, ruleset=args.ruleset, marked=marked)
    remember(ledger.settings, receipt.game_id)
    print(f"game {receipt.game_id}", file=out)
    print_receipt(receipt, out)
    return EXIT_OK


def add_marked_counts(parser: argparse.ArgumentParser) -> None:
    """`--OPTION N` for each option naming seats: the last N seats of a game the bots play are so marked."""
    for spec in seat_options().values():
        parser.add_argument(
            f"--{spec.name}",
            type=int,
            default=0,
            metavar="N",
            dest=f"marked_{spec.name}",
            help=f"the last N seats are marked {spec.seat_mark} ({spec.ruling}): {spec.help}",
        )


def marked_counts(args: argparse.Namespace) -> dict[str, int]:
    return {name: getattr(args, f"marked_{name}") for name in seat_options()}


def parse_named_option(text: str) -> tuple[str, Any]:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise CommandError(f"--option {text!r}: write NAME=VALUE")
    return name, parse_option_value(value)


def record(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    before = ledger.queries.receipt(game_id).version
    receipt = ledger.commands.record(game_id, args.actions, expected_version=args.expect)
    print_events(ledger, receipt, before, out)
    return EXIT_OK


def undo(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    receipt = ledger.commands.undo(game_of(ledger, args.game), args.count, args.reason)
    print_events(ledger, receipt, receipt.version - 1, out)
    return EXIT_OK


def hidden_at_end(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    before = ledger.queries.receipt(game_id).version
    receipt = ledger.commands.set_reveal_at_end(game_id, args.setting == "shown")
    if receipt.version == before:
        print(f"the game says '{format_hidden(args.setting == 'shown')}' already: nothing was stored", file=out)
    else:
        print_events(ledger, receipt, before, out)
    return EXIT_OK


def note(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    about = args.about or ledger.queries.receipt(game_id).version
    try:
        receipt = ledger.commands.annotate(game_id, about, args.text)
    except ValueError as error:
        raise CommandError(f"--about {about}: {error}") from None
    print_events(ledger, receipt, receipt.version - 1, out)
    return EXIT_OK


def print_events(ledger: Ledger, receipt: Receipt, after: int, out: TextIO) -> None:
    rules, width = ledger.queries.game(receipt.game_id).rules, terminal_width(out)
    for event in ledger.queries.game_events(receipt.game_id, after=after):
        print(event_line(event, rules, width, shown=ledger.store.personal.render), file=out)
    print_receipt(receipt, out)


def print_receipt(receipt: Receipt, out: TextIO) -> None:
    print(f"stored: event {receipt.version}, head {receipt.head_hash}", file=out)


def show(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    """The position names no hidden fact: it is the same for every reader (`--as` is checked all the same)."""
    game_id = game_of(ledger, args.game)
    reader_of(ledger, ledger.queries.game(game_id), args)
    latest = ledger.queries.receipt(game_id).version
    if args.at is not None and not 1 <= args.at <= latest:
        raise CommandError(f"--at {args.at}: the game has events 1 to {latest}")
    print_position(ledger.queries.game(game_id, version=args.at), out, ledger.store.personal.render)
    return EXIT_OK


def log(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    game = ledger.queries.game(game_id)
    seen, width = visibility(reader_of(ledger, game, args), ledger, game), terminal_width(out)
    for event in ledger.queries.game_events(game_id):
        sentence = sentence_for(seen, event, game.rules)
        print(event_line(event, game.rules, width, sentence, ledger.store.personal.render), file=out)
    return EXIT_OK


def audit_game(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    if args.event is not None and args.event < 1:
        raise CommandError(f"--event {args.event}: events are numbered from 1")
    kept = [kept_checkpoint(path) for path in args.checkpoint]
    report = ledger.queries.audit(game_id, up_to=args.event, expect_head=args.expect_head, kept=kept)
    if args.json:
        write_json(ledger, report.canonical.decode(), out)
    else:
        out.write(report.text())
    return EXIT_OK if report.verdict == CLEAN else EXIT_REFUSED


def write_json(ledger: Ledger, text: str, out: TextIO) -> None:
    """JSON text as it is shown, with each text it opens escaped inside its JSON string: written past `out`'s own
    showing (plain text, which a quote in an opened note would turn into JSON no longer readable)."""
    shown = ledger.store.personal.render(text, as_json_text) + "\n"
    (out.stream if isinstance(out, ShownText) else out).write(shown)


def kept_checkpoint(path: Path) -> dict[str, Any]:
    """A checkpoint as `checkpoint` printed it (whether the key signed it is the audit's to say)."""
    with path.open("rb") as file:
        text = file.read(MAX_CHECKPOINT_BYTES + 1)
    if len(text) > MAX_CHECKPOINT_BYTES:
        raise CommandError(f"--checkpoint {path}: larger than a checkpoint ({MAX_CHECKPOINT_BYTES:,} bytes at most)")
    try:
        found = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as error:
        raise CommandError(f"--checkpoint {path}: not a checkpoint as `checkpoint` prints one ({error})") from None
    if not isinstance(found, dict) or found.get("format") != CHECKPOINT_FORMAT or "signature" not in found:
        raise CommandError(f"--checkpoint {path}: not a checkpoint as `checkpoint` prints one")
    return found


def no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a checkpoint holds")


def checkpoint(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    try:
        taken, new = ledger.commands.take_checkpoint(acknowledge=args.acknowledge)
    except CheckpointError as error:
        raise CommandError(str(error)) from None
    how = "signed" if new else "(nothing stored since it was signed)"
    print(f"checkpoint {taken['number']} {how}: the log up to position {taken['position']}", file=sys.stderr)
    unvouched = ledger.vouched.unvouched_by_last_checkpoint()
    if unvouched:
        print(unvouched_words(taken["number"], unvouched), file=sys.stderr)
    acknowledged, waiting = ledger.vouched.unvouched_since_acknowledged()
    if waiting:
        events = counted(sum(run.count for run in waiting), "event")
        print(
            f"checkpoints {acknowledged + 1} to {taken['number']} could not vouch for {events} in all, which "
            f"/health names until they are looked into: audit their games, then `checkpoint --acknowledge "
            f"{taken['number']}`",
            file=sys.stderr,
        )
    out.write(json.dumps(taken, sort_keys=True, indent=1) + "\n")
    return EXIT_OK


def explain(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    game = ledger.queries.game(game_id)
    report = explanation_for(reader_of(ledger, game, args), ledger, game, args.event)
    return _write_report(ledger, report, args.json, out)


def what_if(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    game = ledger.queries.game(game_id)
    replacement = ledger.queries.seats.in_labels(game, args.replace) if args.replace is not None else None
    report = branch_for(reader_of(ledger, game, args), ledger, game, args.event, replacement)
    return _write_report(ledger, report, args.json, out)


def _write_report(ledger: Ledger, report: ExplanationReport | WhatIfReport, as_json: bool, out: TextIO) -> int:
    if as_json:
        write_json(ledger, report.canonical.decode(), out)
    else:
        out.write(report.text())
    return EXIT_OK


def games(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    for game_id in ledger.queries.game_ids():
        game = ledger.queries.game(game_id)
        players = ", ".join(game.player_names)
        print(f"{game_id}  {game.ruleset_name} {game.kit_name}  {players}  {counted(game.version, 'event')}", file=out)
    return EXIT_OK


def import_command(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    paths: list[Path] = args.files
    stored = 0
    with ProgressBar(len(paths), "games", sys.stderr) as progress:
        for receipts in import_files(ledger, paths, workers=args.workers, again=args.again):
            for receipt in receipts:
                if receipt.already_stored:
                    line = f"{paths[stored]}: already stored as game {receipt.game_id} (--again stores a copy)"
                else:
                    line = f"{paths[stored]}: game {receipt.game_id}, {counted(receipt.version, 'event')}"
                progress.say(line, out)
                stored += 1
                remember(ledger.settings, receipt.game_id)
            progress.update(stored)
    return EXIT_OK


def export(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    game_id = game_of(ledger, args.game)
    if args.bundle:
        data = export_bundle(ledger, game_id)  # the stored form itself
    else:  # a game file is text: its seats by their handles, its notes opened
        data = ledger.store.personal.render(export_notation(ledger, game_id)).encode("utf-8")
    if args.output is not None:
        args.output.write_bytes(data)
    elif args.bundle and out.isatty():
        raise CommandError("a bundle is binary: give --output FILE, or redirect standard output")
    else:
        out.flush()
        out.buffer.write(data)
    return EXIT_OK


def share(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    share_game(ledger, game_of(ledger, args.game), args.url, args.seats, out, args.reissue_seats)
    return EXIT_OK


def play(ledger: Ledger, args: argparse.Namespace, out: TextIO) -> int:
    session = PlaySession(ledger, game_of(ledger, args.game), input, out)
    if sys.stdin.isatty():
        import readline  # noqa: PLC0415 (it takes over input() for the whole process: only at a terminal)

        readline.set_completer_delims("")
        readline.set_completer(completer(session))
        readline.parse_and_bind("tab: complete")
    return session.run()


COMMANDS: dict[str, Callable[[Ledger, argparse.Namespace, TextIO], int]] = {
    "new": new_game,
    "kit": store_kit,
    "generate": generate,
    "record": record,
    "undo": undo,
    "hidden": hidden_at_end,
    "note": note,
    "show": show,
    "log": log,
    "games": games,
    "import": import_command,
    "export": export,
    "play": play,
    "share": share,
    "audit": audit_game,
    "checkpoint": checkpoint,
    "explain": explain,
    "what-if": what_if,
}
