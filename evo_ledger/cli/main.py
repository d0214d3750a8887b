"""The `evo-ledger` command line, and the composition root of the application."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import socket
import sys
import textwrap
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from evo_ledger import __version__
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.processes import settle_collector
from evo_ledger.app.selfplay import NoSelfPlay, bot_names, play_game
from evo_ledger.cli.dataset_command import add_dataset_command, dataset
from evo_ledger.cli.ledger_commands import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_REFUSED,
    CommandError,
    add_ledger_commands,
    add_marked_counts,
    add_share_command,
    marked_counts,
    parse_named_option,
    reason_of,
    run_ledger_command,
)
from evo_ledger.cli.migrate_command import add_migrate_command, migrate
from evo_ledger.cli.phones import DEFAULT_PORT, EVERY_ADDRESS, network_address, phones_address
from evo_ledger.game.checker import CheckReport, GameSetupError, check_game
from evo_ledger.game.notation import GameFileError, NotTextGameFile, format_result, parse_game, read_game_text
from evo_ledger.rules import UnknownRuleset, rulesets
from evo_ledger.rules.contract import draw
from evo_ledger.rules.kits import KitError, builtin_kit_names, load_kit_document, ruleset_for_kit
from evo_ledger.rules.reference import UnknownRuling, reference, ruling
from evo_ledger.settings import Settings, SettingsError
from projections import PAGE

if TYPE_CHECKING:
    from fastapi import FastAPI

    from api import ApiSettings

LOG_LEVELS = ("debug", "info", "warning", "error")
log = logging.getLogger("evo_ledger.serve")
MAX_PORT = 65535


class ListenError(ValueError):
    """An address and port the server cannot listen on: the message names them and says why."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evo-ledger", description="Record, replay and audit games of Evo.")
    parser.add_argument("--version", action="version", version=f"evo-ledger {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="replay game files through their rules",
        description="Replay game files through their rules. Exit status: 0 all legal and every result line right; "
        "1 an illegal action or a wrong result line; 2 a file that cannot be read.",
    )
    check.add_argument("files", nargs="+", type=Path, metavar="FILE")
    check.add_argument("--quiet", "-q", action="store_true", help="print only problems")
    selfplay = commands.add_parser(
        "selfplay",
        help="play a game with seeded bots and print it as a game file",
        description="Play a complete game with seeded bots; the same seed prints the same bytes.",
    )
    selfplay.add_argument("--ruleset", choices=sorted(rulesets()), required=True)
    selfplay.add_argument("--players", type=int, default=4)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.add_argument("--bot", choices=bot_names(), default="sensible")
    selfplay.add_argument(
        "--bots", metavar="BOT,BOT,...", help="a bot a seat, each seat named after its bot (the seats' count)"
    )
    selfplay.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a ruleset option")
    add_marked_counts(selfplay)
    kit = commands.add_parser("kit", help="validate a kit and show its island", description="Validate a kit.")
    kit.add_argument(
        "kit", nargs="?", metavar="NAME-OR-PATH", help="a built-in kit's name or a JSON file; none lists them"
    )
    kit.add_argument(
        "--store",
        action="store_true",
        help="store the kit in the database, once checked: a game starts on it by its hash (`new --kit sha256:...`)",
    )
    kit.add_argument("--database", help="a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)")
    rules = commands.add_parser(
        "rules",
        help="what a ruling id means, as the rules refuse an action by it",
        description="Print what a ruling id (as a refusal names it) means, in the project's words; with no id, list "
        "them.",
    )
    rules.add_argument(
        "ruling", nargs="?", metavar="ID", help="a ruling id, as a refusal names it; none lists them all"
    )
    add_ledger_commands(commands)
    add_share_command(commands)
    serve = commands.add_parser("serve", help="serve the HTTP API", description="Serve the HTTP API under /v1.")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on: 0.0.0.0 for the phones on this machine's network (default: 127.0.0.1, this "
        "machine alone)",
    )
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"(default: {DEFAULT_PORT})")
    serve.add_argument("--database", help="a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)")
    serve.add_argument("--no-projections", action="store_true", help="do not keep the read tables up to date")
    serve.add_argument(
        "--read-only",
        action="store_true",
        help="serve a PostgreSQL streaming replica: reads, statistics and streams, every write answered 503 "
        "read_only; the server that writes the primary keeps the read tables",
    )
    serve.add_argument(
        "--tls",
        action="store_true",
        help="serve https with the certificate and key `evo-ledger tls` wrote into the user's state folder",
    )
    serve.add_argument("--tls-cert", type=Path, metavar="FILE", help="serve https with this certificate instead")
    serve.add_argument("--tls-key", type=Path, metavar="FILE", help="the certificate's private key")
    serve.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="info",
        help="info logs each request (method, path, status, time); warning only what goes wrong (default: info)",
    )
    add_project_command(commands)
    add_migrate_command(commands)
    add_dataset_command(commands)
    tls = commands.add_parser(
        "tls",
        help="make a certificate for serving https to the phones at a table",
        description="Make a certificate authority of the table's own and a server certificate it signs, for "
        "`serve --tls`; each phone trusts evo-ledger-ca.crt once.",
    )
    tls.add_argument(
        "--out",
        type=Path,
        metavar="FOLDER",
        help="where to write the files, for `serve --tls-cert --tls-key` (default: the user's state folder, "
        "$XDG_STATE_HOME/evo-ledger/tls or ~/.local/state/evo-ledger/tls, which `serve --tls` reads)",
    )
    tls.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name or address the phones reach this machine by (default: its network address and host name)",
    )
    return parser


def add_project_command(commands: Any) -> None:
    project = commands.add_parser(
        "project",
        help="bring the read tables (standings, auctions, statistics) up to date with the log",
        description="Apply the events stored since the read tables' position to them, then stop (or, with "
        "--follow, go on as events arrive; --rebuild drops the tables and folds the whole log again).",
    )
    how = project.add_mutually_exclusive_group()
    how.add_argument("--follow", action="store_true", help="keep following the log until interrupted")
    how.add_argument("--rebuild", action="store_true", help="drop the read tables and build them from the log")
    project.add_argument("--database", help="a SQLite file or a postgresql:// URL (default: EVO_LEDGER_DATABASE)")
    project.add_argument("--page", type=int, default=PAGE, help=f"events per transaction (default {PAGE})")


def main(argv: Sequence[str] | None = None) -> int:
    """The command's exit status; one whose reader went away (`| head`) ends quietly."""
    try:
        return run(argv)
    except BrokenPipeError:
        # Python would write to the closed pipe again at exit: standard output now goes nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "check":
        return max(check_file(path, args.quiet, sys.stdout) for path in args.files)
    if args.command == "selfplay":
        try:
            options = dict(parse_named_option(text) for text in args.option)
            seats = args.bots.split(",") if args.bots else []
            players = len(seats) or args.players
            game = play_game(players, args.seed, args.bot, args.ruleset, options, seats, marked_counts(args))
            sys.stdout.write(game.text())
        except (NoSelfPlay, CommandError, ValueError) as error:
            print(f"evo-ledger selfplay: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return EXIT_OK
    if args.command == "kit":
        if args.store and args.kit is None:
            print("evo-ledger kit: --store: name the kit file to store", file=sys.stderr)
            return EXIT_BAD_INPUT
        shown = show_kit(args.kit, sys.stdout)
        return run_ledger_command(args) if args.store and shown == EXIT_OK else shown
    if args.command == "rules":
        return show_rules(args.ruling, sys.stdout)
    if args.command == "serve":
        served = ServeOptions(args.database, not args.no_projections, args.read_only, tls_of(args))
        return serve(args.host, args.port, served, args.log_level)
    if args.command == "tls":
        return make_tls(args.out, args.host, sys.stdout)
    if args.command == "project":
        from evo_ledger.cli.project_command import project  # noqa: PLC0415 (the only command that needs SQLAlchemy)

        return project(args, sys.stdout)
    if args.command == "migrate":
        return migrate(args, sys.stdout)
    if args.command == "dataset":
        return dataset(args, sys.stdout)
    return run_ledger_command(args)


@dataclass(frozen=True)
class ServeOptions:
    """What `evo-ledger serve` serves: its store (None: EVO_LEDGER_DATABASE's), whether it keeps the read tables,
    whether it serves the store read only, and the certificate and key of https."""

    database: str | None = None
    projections: bool = True
    read_only: bool = False
    tls: tuple[Path, Path] | None = None


def serve(host: str, port: int, served: ServeOptions, log_level: str = "info") -> int:
    """The API on SQLite or PostgreSQL, with the read tables followed in the background, over https with a
    certificate and key; the admin token comes from EVO_LEDGER_ADMIN_TOKEN, the seal key from EVO_LEDGER_SEAL_KEY.
    A store, a certificate or a port it cannot use is named before anything is served."""
    from api import create_app  # noqa: PLC0415 (every command but this one starts without the API)
    from evo_ledger.cli.tls import TlsFilesError  # noqa: PLC0415 (cryptography, for these two commands alone)

    tls = served.tls
    try:
        settings = served_settings(served)
        listening = listening_socket(host, port)
    except (TlsFilesError, SettingsError, ListenError) as error:
        print(f"evo-ledger serve: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s", force=True)
    scheme, port = "https" if tls else "http", listening.getsockname()[1]
    log.info("serving on %s://%s:%s (%s)", scheme, host, port, settings.store.described)
    if served.read_only:
        log.info(
            "read only: writes are answered 503 read_only; streams look for new events every %g s",
            settings.stream_poll_seconds,
        )
    if host in EVERY_ADDRESS:
        log.info("phones on this network open %s", phones_address(scheme, port))
    with listening:
        serve_app(create_app(settings), listening, tls)
    log.info("stopped")
    return EXIT_OK


def served_settings(served: ServeOptions) -> ApiSettings:
    """The server's settings, once its certificate and key serve together and its store opens (read only: with
    the ledger and the read tables in it)."""
    from api import ApiSettings  # noqa: PLC0415 (as in `serve`)
    from evo_ledger.cli.tls import checked_authority  # noqa: PLC0415 (as in `serve`)
    from projections.store import ReadStore  # noqa: PLC0415 (as in `serve`)

    authority = checked_authority(*served.tls) if served.tls else None
    store = replace(Settings.for_database(served.database), read_only=served.read_only)
    if store.read_only and not store.is_postgres:
        raise SettingsError(f"--read-only serves a PostgreSQL replica, not a {store.described}")
    settings = replace(
        ApiSettings.from_environment(),
        store=store,
        follow_projections=served.projections and not served.read_only,
        tls_authority=authority,
    )
    Ledger(store).close()
    if store.read_only:
        ReadStore(store).close()
    return settings


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` as uvicorn binds one, for it to serve on: an address in use is named
    before the server says where it listens."""
    if not 0 <= port <= MAX_PORT:
        raise ListenError(f"--port {port}: not a port number (0 to {MAX_PORT})")
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise ListenError(f"--host {host} --port {port}: cannot listen there: {reason_of(error)}") from None
    return listening


def tls_of(args: argparse.Namespace) -> tuple[Path, Path] | None:
    """The certificate and key to serve https with: both or neither, or with `--tls` those `evo-ledger tls` wrote
    into the user's state folder."""
    if (args.tls_cert is None) != (args.tls_key is None):
        build_parser().error("serve: --tls-cert and --tls-key go together")
    if args.tls_cert is not None:
        return args.tls_cert, args.tls_key
    if not args.tls:
        return None
    from evo_ledger.cli.tls import CERT_FILE, KEY_FILE, default_folder  # noqa: PLC0415 (as in `serve`)

    return default_folder() / CERT_FILE, default_folder() / KEY_FILE


def make_tls(folder: Path | None, hosts: Sequence[str], out: TextIO) -> int:
    """`evo-ledger tls`: the files written, where, and what to do with them."""
    from evo_ledger.cli.tls import (  # noqa: PLC0415 (as in `serve`)
        TlsFilesError,
        checked_hosts,
        default_folder,
        default_hosts,
        make_tls_files,
    )

    into = folder if folder is not None else default_folder()
    try:
        files = make_tls_files(into, checked_hosts(hosts) or default_hosts(network_address()))
    except TlsFilesError as error:
        print(f"evo-ledger tls: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        print(f"evo-ledger tls: {error.filename or into}: cannot write there: {reason_of(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    served = "--tls" if folder is None else f"--tls-cert {files.certificate} --tls-key {files.key}"
    print(f"written into          {into}", file=out)
    print(f"the phones trust      {files.authority} (fingerprint SHA-256 {files.fingerprint})", file=out)
    print(f"the server serves     {files.certificate} with its key {files.key}", file=out)
    print(f"serve with            evo-ledger serve --host 0.0.0.0 {served}", file=out)
    return EXIT_OK


def run_server(app: FastAPI, host: str, port: int, tls: tuple[Path, Path] | None = None) -> None:
    """Serve `app` on `host` and `port` as `evo-ledger serve` serves the API."""
    with listening_socket(host, port) as listening:
        serve_app(app, listening, tls)


def serve_app(app: FastAPI, listening: socket.socket, tls: tuple[Path, Path] | None = None) -> None:
    """Serve `app` on a bound socket as `evo-ledger serve` serves the API (the requests logged by the app itself,
    each request's head and body read within the app's settings' deadlines), over https with `tls`'s certificate
    and key."""
    import uvicorn  # noqa: PLC0415 (as in `serve`)
    from uvicorn.config import STARTUP_FAILURE  # noqa: PLC0415 (likewise)

    from evo_ledger.cli.request_deadlines import (  # noqa: PLC0415 (likewise)
        StoppingServer,
        served_as_the_server_serves,
    )

    settle_collector()
    certificate, key = (str(tls[0]), str(tls[1])) if tls else (None, None)
    config = uvicorn.Config(
        app,
        **served_as_the_server_serves(app.state.settings),
        log_level="warning",
        access_log=False,
        log_config=None,
        ssl_certfile=certificate,
        ssl_keyfile=key,
    )
    server = StoppingServer(config, app.state.stopping)
    with suppress(KeyboardInterrupt):  # Ctrl-C stops the server, which says so
        server.run(sockets=[listening])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def check_file(path: Path, quiet: bool, out: TextIO) -> int:
    try:
        game = parse_game(read_game_text(path))
        report = check_game(game, path.parent)
    except OSError as error:
        print(f"{path}: cannot read: {error.strerror}", file=out)
        return EXIT_BAD_INPUT
    except NotTextGameFile as error:
        print(f"{path}: {error}", file=out)
        return EXIT_BAD_INPUT
    except GameFileError as error:
        print(f"{path}:{error.line}:{error.column}: {error.message}", file=out)
        return EXIT_BAD_INPUT
    except GameSetupError as error:
        print(f"{path}: cannot start the game: {error}", file=out)
        return EXIT_BAD_INPUT
    for warning in report.warnings:
        print(f"{path}:{warning.line}: warning [{warning.ruling}] {warning.message}", file=out)
    return print_verdict(path, game.result_line, report, quiet, out)


def print_verdict(path: Path, result_line: int | None, report: CheckReport, quiet: bool, out: TextIO) -> int:
    if report.refused is not None:
        line, violation = report.refused
        print(f"{path}:{line.line}: illegal action '{line.text}': {violation}", file=out)
        return EXIT_REFUSED
    if report.result_mismatch is not None:
        print(f"{path}:{result_line}: wrong result: {report.result_mismatch}", file=out)
        return EXIT_REFUSED
    if not quiet:
        headline = report.ruleset.view(report.state).headline
        if report.outcome is not None:
            summary = f"{headline}: {format_result(report.outcome)}"
        else:
            summary = f"game goes on: {headline}"
        print(f"{path}: {report.actions_applied} actions legal; {summary}", file=out)
    return EXIT_OK


def show_rules(ruling_id: str | None, out: TextIO) -> int:
    if ruling_id is None:
        for known in reference().values():
            print(f"{known.id}  {known.title} ({known.ruleset})", file=out)
        return EXIT_OK
    try:
        found = ruling(ruling_id)
    except UnknownRuling as error:
        print(f"evo-ledger rules: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    width = min(shutil.get_terminal_size().columns, 100)
    print(f"{found.id} {found.title} ({found.ruleset})", file=out)
    print(textwrap.fill(found.text, width=width), file=out)
    return EXIT_OK


def show_kit(reference: str | None, out: TextIO) -> int:
    if reference is None:
        for name in builtin_kit_names():
            print(name, file=out)
        return EXIT_OK
    try:
        document, kit = load_kit_document(reference)
        rules = ruleset_for_kit(document, reference)
    except (KitError, UnknownRuleset) as error:
        print(f"evo-ledger kit: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    stand_in = " (stand-in)" if kit.stand_in else ""
    fewest = getattr(kit, "min_players", kit.players)
    players = f"{fewest} to {kit.players}" if fewest != kit.players else str(kit.players)
    print(f"kit {kit.name}{stand_in}: {rules.name}, {players} players", file=out)
    print(f"hash {kit.content_hash}", file=out)
    print(draw(rules, kit), file=out, end="")
    return EXIT_OK
