"""Personal data, kept so that erasure makes it unreadable while every game stays provable.

A seat of a game started here is stored under a label (`anon` and eight letters or digits, chosen at random) in
place of its player's handle: in the game's first event, in every action's notation and data, in every read table.
The handle it stands for is kept beside the log (evo_ledger.store.personal), and turned back in on the way out
(`render`); a handle entered with an action is put as its seat's label on the way in (evo_ledger.game.labels). A
seat's stable id is its handle's as first seen here: a fresh random id, or (for a handle that sat at a game stored
before labels were) the id its earlier games derived from it, so that its ratings carry on.

Text a person typed into a game (a note; an undo's, a correction's, a withdrawal's reason; a co-recorder's name) and
a person's name are stored sealed (AES-GCM) under a key of their owner's (the game, the person), also kept beside
the log: the log holds the sealed text, which its hashes, seals and checkpoints cover, and `render` opens it where
the key still stands. The digest of an idempotent append's request is keyed under its game's key too.

Erasing a person deletes the handles of their stable ids, their own key and the key of every game they sat at (its
typed text may name them in ways no server can find), and keeps a digest of each of their stable ids, which no seat
is given again: their games then read with the label in place of the handle and `[erased]` in place of the text,
and still replay and audit as they were stored.

May import the store and the game."""

from __future__ import annotations

import base64
import binascii
import hmac
import html
import json
import re
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from evo_ledger.game.labels import LABEL_IN_TEXT, LABEL_LETTERS, LABEL_PREFIX, is_label, new_label
from evo_ledger.rules.base import SetupError
from evo_ledger.store.personal import PersonalTables, SeatLabel

SEALED = re.compile(r"~sealed~([A-Za-z0-9_-]{1,400})~([A-Za-z0-9_-]{1,20000})~")
SEALED_MARK = "~sealed~"
ERASED = "[erased]"
NONCE_BYTES = 12
KEY_BITS = 256

Escape = Callable[[str], str]


def as_json_text(text: str) -> str:
    """Text to put inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def as_plain_text(text: str) -> str:
    return text


def as_csv_field(text: str) -> str:
    """Text that is a whole field of CSV (a sealed text is one cell of its own)."""
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(mark in text for mark in ',"\r\n') else text


ESCAPES: dict[str, Escape] = {
    "application/json": as_json_text,
    "text/event-stream": as_json_text,
    "text/html": html.escape,
    "text/plain": as_plain_text,
    "text/csv": as_csv_field,
}


def as_written(label: str, handles: Mapping[str, str]) -> str:
    """The handle a label stands for, its first letter a capital where the label's is (a sentence begins with it);
    the label itself where it was erased."""
    handle = handles.get(label.lower())
    if handle is None:
        return label
    return handle[:1].upper() + handle[1:] if label[:1].isupper() else handle


class LabelShapedHandle(SetupError):
    """A handle shaped as a seat's label: labels stand for erased players, so no handle may look like one."""

    def __init__(self, handle: str) -> None:
        super().__init__(
            f"{handle!r} cannot be a player's name: {LABEL_PREFIX} followed by {LABEL_LETTERS} letters or digits "
            "is how the ledger shows a seat whose player was erased"
        )


class ErasedSeatId(SetupError):
    """A stable id given for a seat whose person was erased: it is no one's to sit under again."""

    def __init__(self, stable_id: str) -> None:
        super().__init__(f"stable id {stable_id[:80]!r}: its person was erased; give the seat another stable id")


def new_id() -> str:
    return str(uuid.uuid4())


def game_owner(game_id: uuid.UUID | str) -> str:
    return f"game:{game_id}"


def person_owner(person_id: str) -> str:
    return f"person:{person_id}"


@dataclass(frozen=True)
class Seat:
    """A seat as a new game is asked for: its handle, and the stable id given for it (None: the handle's own)."""

    handle: str
    given_id: str | None = None

    @property
    def claim(self) -> str:
        return f"handle:{self.handle}" if self.given_id is None else f"id:{self.given_id}:{self.handle}"


class Personal:
    """Personal data on one store: seats' labels, sealed text, what an answer shows of them, and their erasure."""

    def __init__(self, tables: PersonalTables) -> None:
        self.tables = tables

    def seat_labels(self, seats: Sequence[Seat], earlier_id: Callable[[str], str | None]) -> list[SeatLabel]:
        """Each seat's label and stable id: the ones its handle (with the id given) was labelled with before, else
        new ones, stored (and committed) now. `earlier_id` gives the stable id a handle sat under at a game stored
        before labels were, if it did."""
        for seat in seats:
            if is_label(seat.handle):
                raise LabelShapedHandle(seat.handle)
        known = self.tables.labels_claimed([seat.claim for seat in seats])
        offers = [self._offer(seat, earlier_id) for seat in seats if seat.claim not in known]
        erased = self.tables.erased_among([offer.stable_id for offer in offers])
        for seat in seats:
            if seat.given_id in erased:
                raise ErasedSeatId(seat.given_id)
        offers = [offer if offer.stable_id not in erased else replace(offer, stable_id=new_id()) for offer in offers]
        if offers:
            known = {**known, **self.tables.claimed(offers)}
        labelled = [known[seat.claim] for seat in seats]
        # Checked again once claimed: an erasure between the first look and the claim leaves a claim no seat takes.
        erased_since = self.tables.erased_among([seat.stable_id for seat in labelled])
        if erased_since:
            raise ErasedSeatId(sorted(erased_since)[0])
        return labelled

    @staticmethod
    def _offer(seat: Seat, earlier_id: Callable[[str], str | None]) -> SeatLabel:
        stable_id = seat.given_id or earlier_id(seat.handle) or new_id()
        return SeatLabel(new_label(), seat.handle, stable_id, seat.claim)

    def labels_by_handle(self, names: Collection[str]) -> dict[str, str]:
        """The label of each handle standing for one of these seat names (those that are labels), as they stand:
        an erasure in any process leaves no handle to enter."""
        handles = self.tables.handles([name for name in names if is_label(name)])
        return {handle: label for label, handle in handles.items()}

    def names_of(self, player: str) -> set[str]:
        """What the seats of a player named by a reader (a handle, a label or a stable id) may be stored as."""
        return {player, *self.tables.labels_standing_for(player)}

    def seal(self, owner: str, text: str) -> str:
        """The text sealed under the owner's key (made now if it has none), as it is stored: the same text sealed
        the same (its nonce is derived from it under the key), so that stored names compare as their texts do."""
        key = self.tables.key_made(owner, AESGCM.generate_key(bit_length=KEY_BITS))
        nonce = hmac.digest(key, text.encode(), "sha256")[:NONCE_BYTES]
        sealed = nonce + AESGCM(key).encrypt(nonce, text.encode(), owner.encode())
        return f"{SEALED_MARK}{_b64(owner.encode())}~{_b64(sealed)}~"

    def keyed_digest(self, owner: str, digest: str) -> str:
        """A digest keyed under the owner's key (made now if it has none): what a request's digest is stored as."""
        key = self.tables.key_made(owner, AESGCM.generate_key(bit_length=KEY_BITS))
        return hmac.digest(key, digest.encode(), "sha256").hex()

    def render(self, text: str, escape: Escape = as_plain_text, opening: bool = True) -> str:
        """The text as an answer shows it: sealed text opened (`[erased]` where its key is gone; left sealed unless
        `opening`), then each label as the handle it stands for (itself where it was erased). `escape` makes opened
        text safe where it goes."""
        if opening and SEALED_MARK in text:
            text = self._opened(text, escape)
        labels = {found.lower() for found in LABEL_IN_TEXT.findall(text)}
        if not labels:
            return text
        handles = self.tables.handles(labels)
        if not handles:
            return text
        return LABEL_IN_TEXT.sub(lambda found: as_written(found.group(), handles), text)

    def _opened(self, text: str, escape: Escape) -> str:
        found = SEALED.findall(text)
        owners = {_unb64(owner) for owner, _ in found}
        keys = self.tables.keys([owner.decode(errors="replace") for owner in owners if owner is not None])

        def opened(match: re.Match[str]) -> str:
            owner, sealed = _unb64(match.group(1)), _unb64(match.group(2))
            key = keys.get(owner.decode(errors="replace")) if owner is not None else None
            if key is None or sealed is None or len(sealed) <= NONCE_BYTES:
                return ERASED
            try:
                plain = AESGCM(key).decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], owner)
            except InvalidTag:
                return ERASED
            return escape(plain.decode(errors="replace"))

        return SEALED.sub(opened, text)

    def erase(self, stable_ids: Collection[str], owners: Collection[str]) -> None:
        self.tables.erase(stable_ids, owners)


class SealedNames:
    """People's names sealed under a key of each person's (evo_ledger.app.people.NameSealing)."""

    def __init__(self, personal: Personal) -> None:
        self.personal = personal

    def seal(self, person_id: str, name: str) -> str:
        return self.personal.seal(person_owner(person_id), name)

    def opened(self, stored: str) -> str:
        return self.personal.render(stored)


def sealed_owners(value: Any) -> set[str]:
    """The owners of the sealed texts in a value (strings, and lists and maps of them, at any depth)."""
    if isinstance(value, str):
        owners = (_unb64(owner) for owner, _ in SEALED.findall(value)) if SEALED_MARK in value else ()
        return {owner.decode(errors="replace") for owner in owners if owner is not None}
    if isinstance(value, Mapping):
        return {owner for key, item in value.items() for owner in (*sealed_owners(key), *sealed_owners(item))}
    if isinstance(value, list | tuple):
        return {owner for item in value for owner in sealed_owners(item)}
    return set()


def holds_sealed_text(value: Any) -> bool:
    """Whether a value (strings, and lists and maps of them, nested however deep) holds the mark of sealed text."""
    pending = [value]
    while pending:
        found = pending.pop()
        if isinstance(found, str) and SEALED_MARK in found:
            return True
        if isinstance(found, Mapping):
            pending += [*found.keys(), *found.values()]
        elif isinstance(found, list | tuple):
            pending += found
    return False


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
