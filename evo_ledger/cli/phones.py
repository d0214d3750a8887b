"""The phones at a table: the address they reach the server at, and `evo-ledger share`, which gives them a game's
recording page with a token that records it (and, if asked, each seat's own link), as links and a QR code."""

from __future__ import annotations

import socket
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import urlsplit
from uuid import UUID

from evo_ledger.app.access import GameAccess, new_token
from evo_ledger.app.ledger import Ledger
from evo_ledger.rules.words import counted
from evo_ledger.settings import SEAL_KEY_VARIABLE

# Hosts that listen on every address of the machine: the phones reach it by its network address.
EVERY_ADDRESS = ("0.0.0.0", "::", "")
DEFAULT_PORT = 8000
SHARED_NAME = "shared from the command line"
WIDTH, INDENT = 100, "                "


class ShareError(ValueError):
    """A game that cannot be shared as asked: an address the phones cannot open, a seal key missing."""


def network_address() -> str:
    """This machine's address on its network, as another device there reaches it: the one its route out leaves
    from (a datagram socket connected to a documentation address sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address


def phones_address(scheme: str = "http", port: int = DEFAULT_PORT) -> str:
    """Where the phones on this machine's network open a server listening on every address."""
    return f"{scheme}://{network_address()}:{port}/"


def address_given(url: str) -> str:
    """An address given for the phones, ending with `/`; ShareError unless it is an http or https one."""
    if not is_address(url):
        raise ShareError(f"--url {url!r}: not an address the phones open, such as http://192.168.1.20:8000/")
    return url if url.endswith("/") else f"{url}/"


def is_address(url: str) -> bool:
    """Whether `url` is an http or https address with a host, and a port (if any) from 1 to 65535."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises where it is not a port number
    except ValueError:
        return False
    plain = not (parts.query or parts.fragment)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and plain and port != 0


def recording_link(address: str, game_id: UUID, token: str) -> str:
    """The recording page with `token` after `#`, as the server's own join links give it (never sent to it)."""
    return f"{address}games/{game_id}/record#token={token}"


@dataclass(frozen=True)
class Issued:
    """A token that records a game, and what it is, in words."""

    token: str
    said: str


def issue_recording_token(ledger: Ledger, game_id: UUID) -> Issued:
    """The game's recorder token, where it has none; else a co-recorder's, beside the recorder's, which records on
    as before: a phone that records the game already is never locked out."""
    access = ledger.vouched.access(game_id)
    token = new_token()
    if access is None or access.token_digest is None:
        let_go = ledger.commands.grant_recorder(game_id, token)
        said = "the game's recorder token, issued now: the phone that opens the link records the game, and lets"
        said += " other phones and the seats in"
        if let_go:
            said += f" ({counted(let_go, 'co-recorder')} let in before it were let go)"
        return Issued(token, said)
    shared_before = [key for key, held in access.co_recorders.items() if held.name == SHARED_NAME]

    def share_anew(held: GameAccess) -> None:
        for key in shared_before:
            held.revoke_co_recorder(key)
        held.add_co_recorder(SHARED_NAME, token)

    ledger.commands.change_access(game_id, share_anew)
    said = f"a co-recorder's token, {SHARED_NAME!r}: the phone that opens the link records the game beside its"
    said += " recorder, whose token records on (the recorder lets it go under the recording page's other devices)"
    if shared_before:
        said += "; the link an earlier share gave records no more"
    return Issued(token, said)


def issue_seat_tokens(ledger: Ledger, game_id: UUID, seats: Sequence[str], again: bool) -> dict[str, str]:
    """A token for each seat, in one change of the access; ShareError where seats have tokens already, unless
    `again` (each seat's token before then reads no more)."""
    access = ledger.vouched.access(game_id)
    held = sorted(access.seat_digests) if access is not None else []
    if held and not again:
        raise ShareError(
            f"--seats: {', '.join(held)} have their links already: --reissue-seats gives each seat a new one, and the"
            " links they have read no more"
        )
    issued = {seat: new_token() for seat in seats}

    def issue(access: GameAccess) -> None:
        for seat, token in issued.items():
            access.issue_seat_token(seat, token)

    ledger.commands.change_access(game_id, issue)
    return issued


def share_game(
    ledger: Ledger, game_id: UUID, url: str | None, seats: bool, out: TextIO, reissue_seats: bool = False
) -> None:
    """`evo-ledger share`: the address the phones open (`url`, or the one `serve --host 0.0.0.0` announces), the
    recording link with a token issued for it, the link as a QR code drawn in the terminal, and each seat's link if
    asked."""
    address = address_given(url) if url is not None else phones_address()
    game = ledger.queries.game(game_id)
    if game.sealed and ledger.store.sealer is None:
        raise ShareError(f"game {game_id} is sealed: share it with {SEAL_KEY_VARIABLE} set, as the server has it")
    print(f"game {game_id}: {game.ruleset_name} on {game.kit_name}, {', '.join(game.player_names)}", file=out)
    where = "" if url is not None else " (as `serve --host 0.0.0.0` serves; --url names another address)"
    print(f"phones open     {address}{where}", file=out)
    seat_tokens = issue_seat_tokens(ledger, game_id, game.player_names, reissue_seats) if seats else {}
    recording = issue_recording_token(ledger, game_id)
    link = recording_link(address, game_id, recording.token)
    print(f"recording link  {link}", file=out)
    print(textwrap.fill(f"with {recording.said}", WIDTH, initial_indent=INDENT, subsequent_indent=INDENT), file=out)
    import segno  # noqa: PLC0415 (this command alone draws a QR code)

    segno.make(link, error="m").terminal(out=out, compact=True)
    if seats:
        for seat, token in seat_tokens.items():
            print(f"seat {seat}: {recording_link(address, game_id, token)}", file=out)
        said = "each seat's link shows its player that seat's hidden facts alone"
        said += "; the link it had before reads no more" if reissue_seats else ""
        print(textwrap.fill(said, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT), file=out)
