"""Who may write to a game, and the appends already answered: event-sourced beside the games, not inside them.

A game's recorder token is kept only as its SHA-256; whoever holds the token may append. An append made with an
idempotency key leaves its answer behind, stored in the same transaction as its events, so that a retry of the
same request gets the same answer, also after a restart.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import StoredEvent

from evo_ledger.game.checkpoints import AccessHead
from evo_ledger.game.codec import stored_digest, unpack_sealed
from evo_ledger.game.seal import IMPORTED, RECORDED, Sealer

ACCESS_NAMESPACE = uuid.UUID("0b6f1f8e-3c1a-4f57-9a7e-2d4c5b6a7e81")
TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@lru_cache(maxsize=4096)
def access_id(game_id: UUID) -> UUID:
    """The id of a game's access aggregate (looked up for every group of appends: cached)."""
    return uuid.uuid5(ACCESS_NAMESPACE, f"access:{game_id}")


def answer_id(game_id: UUID, key: str) -> UUID:
    return uuid.uuid5(ACCESS_NAMESPACE, f"answer:{game_id}:{key}")


class RecorderRefused(PermissionError):
    """An append without the game's recorder token: `code` says which way it failed."""

    code = "token_refused"

    def __init__(self, game_id: UUID, message: str) -> None:
        super().__init__(message)
        self.game_id = game_id


class NoRecorderToken(RecorderRefused):
    code = "no_recorder"


class TokenRequired(RecorderRefused):
    code = "token_required"


class HiddenGame(LookupError):
    """A private game, to a caller who may not see it: told as an unknown game is."""


def check_recorder(game_id: UUID, access: GameAccess | None, token: str | None) -> None:
    """Only the holder of the game's recorder token appends to it. Whether a caller refused is told that a private
    game exists is the readers' rule (`evo_ledger.app.readers.check_seen`), asked before this."""
    if access is None or access.token_digest is None:
        raise NoRecorderToken(game_id, f"game {game_id} has no recorder token: the admin can issue one")
    if token is None:
        raise TokenRequired(game_id, "this needs the game's recorder token")
    if not access.admits(token):
        raise RecorderRefused(game_id, "that is not this game's recorder token")


ONLY_THE_RECORDERS_OWN = "only the recorder's own token changes who records the game and how it is read"


def check_recorders_own(game_id: UUID, access: GameAccess | None, token: str | None) -> None:
    """Only the recorder's own token (not a co-recorder's) changes who records the game and how it is read."""
    check_recorder(game_id, access, token)
    if access is None or not access.is_recorders(token):
        raise RecorderRefused(game_id, ONLY_THE_RECORDERS_OWN)


class NotOwnAction(RecorderRefused):
    """An action appended with a seat's token that is not that seat's own."""

    code = "not_own_action"


def recording_seat(game_id: UUID, access: GameAccess | None, token: str | None) -> str | None:
    """Who appends with `token`: None for the recorder or a co-recorder; the seat, for a seat's token where the
    recorder lets seats record their own actions; refused otherwise (`check_recorder`)."""
    if access is not None and access.seats_record and (seat := access.seat_of(token)) is not None:
        return seat
    check_recorder(game_id, access, token)
    return None


MAX_CO_RECORDER_NAME = 40
# Unicode's control, format (bidirectional overrides, zero widths), surrogate, private-use and unassigned
# characters, and its line and paragraph separators: none is seen where a name is shown.
UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def co_recorder_name_problem(name: str) -> str | None:
    """What is wrong with `name` as a co-recorder's name, or None: the one rule, wherever a name enters."""
    if not 1 <= len(name) <= MAX_CO_RECORDER_NAME:
        return f"a name is 1 to {MAX_CO_RECORDER_NAME} characters, not {len(name)}"
    unseen = next((char for char in name if unicodedata.category(char) in UNSEEN_CATEGORIES), None)
    if unseen is not None:
        return f"a name holds no control or invisible character (it holds U+{ord(unseen):04X})"
    if "/" in name or "\\" in name:
        return "a name holds no '/' and no '\\'"
    if name != name.strip():
        return "a name neither starts nor ends with a space"
    if not name.strip(". "):
        return "a name is more than dots and spaces"
    return None


class CoRecorderNameRefused(ValueError):
    """A co-recorder's name that breaks the rule (`co_recorder_name_problem`)."""


MAX_WITHDRAWAL_REASON = 200


def withdrawal_reason_problem(reason: str) -> str | None:
    """What is wrong with `reason` as why a game is withdrawn or reinstated, or None."""
    if not 1 <= len(reason) <= MAX_WITHDRAWAL_REASON:
        return f"a reason is 1 to {MAX_WITHDRAWAL_REASON} characters, not {len(reason)}"
    if not reason.strip():
        return "a reason is more than spaces"
    unseen = next((char for char in reason if unicodedata.category(char) in UNSEEN_CATEGORIES), None)
    if unseen is not None:
        return f"a reason holds no control or invisible character (it holds U+{ord(unseen):04X})"
    return None


class WithdrawalReasonRefused(ValueError):
    """A reason for withdrawing a game, or reinstating it, that breaks the rule (`withdrawal_reason_problem`)."""


class AlreadyWithdrawn(ValueError):
    """A game withdrawn again while it is withdrawn."""


class NotWithdrawn(ValueError):
    """A game reinstated that is not withdrawn."""


@dataclass(frozen=True)
class WithdrawalHeld:
    """A withdrawal or a reinstatement as the game's access holds it: the number of the access event that made it,
    whether it left the game withdrawn, and why."""

    event: int
    withdrawn: bool
    reason: str


@dataclass(frozen=True)
class CoRecorderHeld:
    """A co-recorder as its game's access holds it: its id (the number of the access event that added it, so that
    every co-recorder ever stored has one), the name the recorder gave it, and its token's digest."""

    id: int
    name: str
    token_digest: str


class GameAccess(Aggregate):
    """A game's recorder token (its digest), its co-recorders (each records as the recorder does, until it is
    revoked or the recorder's token is replaced), its seats' tokens (and whether each may append its
    player's own actions), whether the game is private, how many minutes late it is broadcast to readers
    without a token, and whether it is withdrawn (left out of standings, ratings, statistics and the game list),
    with every withdrawal and reinstatement in order (`withdrawals`)."""

    TOPIC = "evo-ledger:GameAccess"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:GameAccess.Created"

    class Granted(Created):
        """The game's access, with its recorder token's digest (None: no recorder token yet). Version 2 adds the
        digests of the seats' tokens, by player: each reads what its seat may see."""

        TOPIC = "evo-ledger:GameAccess.Granted"
        class_version = 2
        game_id: UUID
        token_digest: str | None
        seat_digests: dict[str, str]

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["seat_digests"] = {}

    class TokenReplaced(Aggregate.Event):
        TOPIC = "evo-ledger:GameAccess.TokenReplaced"
        token_digest: str

        def apply(self, aggregate: Any) -> None:
            aggregate.token_digest = self.token_digest

    class PrivacySet(Aggregate.Event):
        TOPIC = "evo-ledger:GameAccess.PrivacySet"
        private: bool

        def apply(self, aggregate: Any) -> None:
            aggregate.private = self.private

    class SeatTokenIssued(Aggregate.Event):
        """A seat's token, issued anew: the one it had before reads no more."""

        TOPIC = "evo-ledger:GameAccess.SeatTokenIssued"
        player: str
        token_digest: str

        def apply(self, aggregate: Any) -> None:
            aggregate.seat_digests = {**aggregate.seat_digests, self.player: self.token_digest}

    class CoRecorderAdded(Aggregate.Event):
        """A co-recorder, its id the event's own number (no co-recorder holds a name another holds)."""

        TOPIC = "evo-ledger:GameAccess.CoRecorderAdded"
        name: str
        token_digest: str

        def apply(self, aggregate: Any) -> None:
            added = CoRecorderHeld(self.originator_version, self.name, self.token_digest)
            aggregate.co_recorders = {**aggregate.co_recorders, added.id: added}

    class CoRecorderRevoked(Aggregate.Event):
        """The co-recorder of that name let go."""

        TOPIC = "evo-ledger:GameAccess.CoRecorderRevoked"
        name: str

        def apply(self, aggregate: Any) -> None:
            held = aggregate.co_recorders.items()
            aggregate.co_recorders = {key: kept for key, kept in held if kept.name != self.name}

    class BroadcastDelaySet(Aggregate.Event):
        """How many minutes behind the table a reader without a token follows the game until it ends (0: none)."""

        TOPIC = "evo-ledger:GameAccess.BroadcastDelaySet"
        minutes: float

        def apply(self, aggregate: Any) -> None:
            aggregate.broadcast_delay = self.minutes

    class SeatsRecordSet(Aggregate.Event):
        """Whether each seat's token may append its player's own actions."""

        TOPIC = "evo-ledger:GameAccess.SeatsRecordSet"
        allowed: bool

        def apply(self, aggregate: Any) -> None:
            aggregate.seats_record = self.allowed

    class WithdrawalSet(Aggregate.Event):
        """The game withdrawn (a test game, an abandoned one) or reinstated, and why: kept in the log and in audits
        either way; while withdrawn it is left out of standings, ratings and statistics, and out of the game list
        unless asked for."""

        TOPIC = "evo-ledger:GameAccess.WithdrawalSet"
        withdrawn: bool
        reason: str

        def apply(self, aggregate: Any) -> None:
            aggregate.withdrawn = self.withdrawn
            aggregate.withdrawal_reason = self.reason if self.withdrawn else None
            held = WithdrawalHeld(self.originator_version, self.withdrawn, self.reason)
            aggregate.withdrawals = (*aggregate.withdrawals, held)

    def __init__(self, game_id: UUID, token_digest: str | None, seat_digests: dict[str, str]) -> None:
        self.game_id = game_id
        self.token_digest = token_digest
        self.seat_digests = seat_digests
        self.private = False
        self.co_recorders: dict[int, CoRecorderHeld] = {}
        self.broadcast_delay: float = 0
        self.seats_record = False
        self.withdrawn = False
        self.withdrawal_reason: str | None = None
        self.withdrawals: tuple[WithdrawalHeld, ...] = ()

    @classmethod
    def grant(cls, game_id: UUID, token: str | None, seats: Mapping[str, str] | None = None) -> GameAccess:
        """The game's access: `token` its recorder token, or None for a game that has none yet; `seats`, each
        player's own token."""
        digest = token_digest(token) if token is not None else None
        seat_digests = {player: token_digest(seat) for player, seat in (seats or {}).items()}
        return cls._create(
            cls.Granted, id=access_id(game_id), game_id=game_id, token_digest=digest, seat_digests=seat_digests
        )

    def admits(self, token: str | None) -> bool:
        """Whether `token` records the game: the recorder's, or a co-recorder's not revoked."""
        return self.is_recorders(token) or self.co_recorder_of(token) is not None

    def is_recorders(self, token: str | None) -> bool:
        """Whether `token` is the recorder's own, which alone issues and revokes co-recorders."""
        held = self.token_digest
        return token is not None and held is not None and secrets.compare_digest(token_digest(token), held)

    def co_recorder_of(self, token: str | None) -> str | None:
        """The name of the co-recorder whose token `token` is, or None."""
        return _holder({held.name: held.token_digest for held in self.co_recorders.values()}, token)

    def co_recorder_named(self, name: str) -> CoRecorderHeld | None:
        return next((held for held in self.co_recorders.values() if held.name == name), None)

    def seat_of(self, token: str | None) -> str | None:
        """The player whose seat token `token` is, or None."""
        return _holder(self.seat_digests, token)

    def replace_token(self, token: str) -> None:
        """`token` the recorder's in place of the one it had, and every co-recorder let go: each was let in by the
        holder of the token replaced."""
        for held in list(self.co_recorders.values()):
            self.trigger_event(self.CoRecorderRevoked, name=held.name)
        self.trigger_event(self.TokenReplaced, token_digest=token_digest(token))

    def set_private(self, private: bool) -> None:
        if private != self.private:
            self.trigger_event(self.PrivacySet, private=private)

    def set_broadcast_delay(self, minutes: float) -> None:
        if minutes != self.broadcast_delay:
            self.trigger_event(self.BroadcastDelaySet, minutes=minutes)

    def set_seats_record(self, allowed: bool) -> None:
        if allowed != self.seats_record:
            self.trigger_event(self.SeatsRecordSet, allowed=allowed)

    def set_withdrawn(self, withdrawn: bool, reason: str, stored: Callable[[str], str] = str) -> None:
        """Withdraw the game (`withdrawn`) or reinstate it, for `reason` (stored as `stored` makes it): refused
        where it is so already."""
        problem = withdrawal_reason_problem(reason)
        if problem is not None:
            raise WithdrawalReasonRefused(f"reason: {problem}")
        if withdrawn and self.withdrawn:
            raise AlreadyWithdrawn(f"game {self.game_id} is withdrawn already")
        if not withdrawn and not self.withdrawn:
            raise NotWithdrawn(f"game {self.game_id} is not withdrawn: there is nothing to reinstate")
        self.trigger_event(self.WithdrawalSet, withdrawn=withdrawn, reason=stored(reason))

    def issue_seat_token(self, player: str, token: str) -> None:
        self.trigger_event(self.SeatTokenIssued, player=player, token_digest=token_digest(token))

    def add_co_recorder(self, name: str, token: str, stored: Callable[[str], str] = str) -> None:
        """A co-recorder named `name` (stored as `stored` makes it, the same for the same name), with its token."""
        problem = co_recorder_name_problem(name)
        if problem is not None:
            raise CoRecorderNameRefused(f"name: {problem}")
        if self.co_recorder_named(stored(name)) is not None:
            raise CoRecorderTaken(f"a co-recorder is named {name!r} already: revoke it first, or choose another name")
        self.trigger_event(self.CoRecorderAdded, name=stored(name), token_digest=token_digest(token))

    def revoke_co_recorder(self, co_recorder_id: int) -> None:
        held = self.co_recorders.get(co_recorder_id)
        if held is None:
            known = ", ".join(str(key) for key in sorted(self.co_recorders)) or "none"
            raise UnknownCoRecorder(f"no co-recorder has the id {co_recorder_id} (the game's: {known})")
        self.trigger_event(self.CoRecorderRevoked, name=held.name)


def _holder(digests: Mapping[str, str], token: str | None) -> str | None:
    """Whose token `token` is among `digests` (by holder), or None."""
    if token is None:
        return None
    given = token_digest(token)
    return next((holder for holder, held in digests.items() if secrets.compare_digest(given, held)), None)


class CoRecorderTaken(ValueError):
    """A co-recorder issued under a name another holds."""


class UnknownCoRecorder(LookupError):
    """A co-recorder revoked that the game does not have."""


Changes = Callable[[int | None], tuple[int, set[UUID]]]
Reader = Callable[[list[UUID]], dict[UUID, "GameAccess | None"]]


# The topics of the events that change who may write to a game or read it.
ACCESS_TOPICS = (
    GameAccess.Created.TOPIC,
    GameAccess.Granted.TOPIC,
    GameAccess.TokenReplaced.TOPIC,
    GameAccess.PrivacySet.TOPIC,
    GameAccess.SeatTokenIssued.TOPIC,
    GameAccess.CoRecorderAdded.TOPIC,
    GameAccess.CoRecorderRevoked.TOPIC,
    GameAccess.BroadcastDelaySet.TOPIC,
    GameAccess.SeatsRecordSet.TOPIC,
    GameAccess.WithdrawalSet.TOPIC,
)


class HeldAccesses:
    """Games' accesses read before, for the appends that follow, so that a group of appends does not read and fold
    the events of every game's access again (pays for: bench.api_speed HTTP, 32 clients).

    The holder knows up to which notification id its accesses are current. Before any is used, those with
    an event stored since then (by this process or another, such as an admin replacing a lost token on another
    server) are let go and read again. Held accesses are shared: never change one in place."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: dict[UUID, GameAccess | None] = {}
        self._position: int | None = None
        self._lock = threading.Lock()

    def current(self, wanted: Iterable[UUID], changes: Changes, read: Reader) -> dict[UUID, GameAccess | None]:
        """The accesses of `wanted` (access ids; None where a game has none), as stored now. `changes(position)`
        gives the log's last notification id and the accesses changed after `position`; `read` reads some."""
        with self._lock:
            self._position, changed = changes(self._position)
            for key in changed:
                self._held.pop(key, None)
            found = {key: self._held[key] for key in wanted if key in self._held}
            missing = [key for key in wanted if key not in found]
            if missing:
                fresh = read(missing)
                found.update(fresh)
                self._hold(fresh)
            return found

    def _hold(self, fresh: dict[UUID, GameAccess | None]) -> None:
        self._held.update(fresh)
        for key in list(islice(self._held, max(0, len(self._held) - self.limit))):  # the first read go first
            del self._held[key]


class AnsweredAppend(Aggregate):
    """The answer to an append made with an idempotency key: the request's digest and the receipt it got."""

    TOPIC = "evo-ledger:AnsweredAppend"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:AnsweredAppend.Created"

    class Answered(Created):
        TOPIC = "evo-ledger:AnsweredAppend.Answered"
        game_id: UUID
        request: str
        game_version: int
        head_hash: str

    def __init__(self, game_id: UUID, request: str, game_version: int, head_hash: str) -> None:
        self.game_id = game_id
        self.request = request
        self.game_version = game_version
        self.head_hash = head_hash

    @classmethod
    def answer(cls, game_id: UUID, key: str, request: str, game_version: int, head_hash: str) -> AnsweredAppend:
        return cls._create(
            cls.Answered,
            id=answer_id(game_id, key),
            game_id=game_id,
            request=request,
            game_version=game_version,
            head_hash=head_hash,
        )


ACCESS_RECORD = "the record of who may write to it and read it"
ANSWER_RECORD = "the answer kept for an append's idempotency key"


class AccessNotVouched(RuntimeError):
    """A game's record of who may write to it and read it that the seal key does not vouch for: changed in the
    database without the key. Nothing is read or written with it until an admin restores it."""

    def __init__(self, game_id: UUID, version: int, why: str, record: str = ACCESS_RECORD) -> None:
        super().__init__(
            f"game {game_id}: {record} was changed without the seal key (its event {version} {why}): nothing is "
            "read or written with it until an admin audits the game and restores the record from a backup"
        )
        self.game_id = game_id


# How a game's first event was stored, as the access check asks: sealed as recorded here or as imported, unsealed
# where a genuine checkpoint named it as stored before the key was set (STORED_BEFORE_THE_KEY), or none of these.
STORED_BEFORE_THE_KEY = "stored before the key"
StoredAs = Callable[[UUID], str | None]


def check_access_seals(
    game_id: UUID, stored: Sequence[StoredEvent], sealer: Sealer, stored_as: StoredAs, record: str = ACCESS_RECORD
) -> None:
    """A game's access events (or the answers kept for its appends, `record`) under a seal key: each seal holds
    for its own place, as recorded here, but for the first, which an import seals as imported for a game it
    imported; none without a seal follows one with it; and events without a seal are those of a game a
    checkpoint named as stored before the key was set."""
    sealed_before, game_stored_as = False, stored_as(game_id)
    for event in stored:
        _, seal = unpack_sealed(event.state)
        version = event.originator_version
        if seal is None:
            if sealed_before or game_stored_as != STORED_BEFORE_THE_KEY:
                why = "carries no seal, and the game's record must (one stored before the key was set is trusted once "
                why += "a checkpoint has named it so: `evo-ledger checkpoint`)"
                raise AccessNotVouched(game_id, version, why, record)
            continue
        kind = sealer.kind_of(event, seal)
        imported_grant = kind == IMPORTED and version == 1 and game_stored_as == IMPORTED
        if kind != RECORDED and not imported_grant:
            raise AccessNotVouched(game_id, version, "carries a seal the key did not make for it", record)
        sealed_before = True


def check_signed_head(game_id: UUID, head: AccessHead, stored: Sequence[StoredEvent]) -> None:
    """The record holds the event a checkpoint last signed as its head (read before the record), as signed."""
    if head.version == 0:
        return
    at_head = stored[head.version - 1] if len(stored) >= head.version else None
    if at_head is None or stored_digest(at_head.state) != head.bytes_digest:
        why = f"is not as checkpoint {head.checkpoint} signed it: the record was cut back, changed or deleted"
        raise AccessNotVouched(game_id, head.version, why)
