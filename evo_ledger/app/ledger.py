"""The Ledger application: one method per use case over the event-sourced games.

Every change is appended, never updated; an append returns a receipt (the game's new version and head hash)
that a recorder can keep as proof of what it wrote.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property, partial
from typing import Any, cast
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError, InternalError, Mapper, Notification, StoredEvent, Transcoder

from evo_ledger.app.access import (
    ACCESS_TOPICS,
    ANSWER_RECORD,
    STORED_BEFORE_THE_KEY,
    AccessNotVouched,
    AnsweredAppend,
    GameAccess,
    HeldAccesses,
    NotOwnAction,
    access_id,
    answer_id,
    check_access_seals,
    check_recorder,
    check_recorders_own,
    check_signed_head,
    recording_seat,
)
from evo_ledger.app.audit import AuditReport, audit
from evo_ledger.app.disputes import ExplanationReport, WhatIfReport, explain_event, what_if
from evo_ledger.app.selfplay import marked_options, player_names, self_play_of
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL, Game, seed_commitment
from evo_ledger.game.checkpoints import (
    CHECKPOINT_LOG_ID,
    WITHOUT_A_KEY,
    CheckpointError,
    CheckpointIndex,
    Examiner,
    Signed,
    Unvouched,
    next_checkpoint,
    published,
    read_events,
    signed_events_id,
    signed_for,
    unvouched_by,
)
from evo_ledger.game.codec import MsgpackTranscoder, unpack_sealed
from evo_ledger.game.notation import REVISION_KEYS
from evo_ledger.game.seal import Sealer
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.base import OptionValue, RuleViolation, SetupError, resolve_options
from evo_ledger.rules.kits import load_kit_document, ruleset_for_kit
from evo_ledger.rules.structured import ActionDataError
from evo_ledger.rules.text import NotationError
from evo_ledger.settings import SEAL_KEY_VARIABLE, Settings
from evo_ledger.store.game_logs import GameLogs
from evo_ledger.store.mapper import SealingMapper
from evo_ledger.store.recorders import persistence_env, store_opening

CACHED_GAMES = 256
HELD_ACCESSES = 4096  # games' accesses a ledger holds (each a token's digest and a flag)
STARTUP_ATTEMPTS = 5
NOTIFICATION_PAGE = 1000


def fold_events(game: Any, events: Iterable[Any]) -> Any:
    """Each event applied in turn, without the library's own projector, which checks a typing protocol per event
    (pays for: bench.ledger_speed full fold)."""
    for event in events:
        game = event.mutate(game)
    return game


@dataclass(frozen=True)
class Receipt:
    """What a recorder keeps after an append: the game, its new version and its head hash."""

    game_id: UUID
    version: int
    head_hash: str
    already_stored: bool = False
    """For an import: the game was in the ledger already, and nothing was stored."""

    @classmethod
    def of(cls, game: Game) -> Receipt:
        return cls(game.id, game.version, game.head_hash)


@dataclass(frozen=True)
class AuditBasis:
    """What an audit of a game rests on, as the store holds it: the game's last stored event (its version, and the
    digest of its bytes as stored, seal included) and, with the seal key, how many checkpoints the log holds. An
    audit made again on the same basis gives the same report, unless an earlier event or a snapshot was changed in
    the database since, behind the ledger's back."""

    version: int
    head_digest: str
    checkpoints: int


class UnknownGame(LookupError):
    def __init__(self, game_id: UUID) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


# The games an ambiguous beginning of an id is told to match, at the most.
AMBIGUOUS_SHOWN = 5


class GameReferenceError(LookupError):
    """A reference that names no game, or more than one."""


@dataclass(frozen=True)
class Idempotency:
    """An append's idempotency key, and the digest of the request it came with."""

    key: str
    request: str


class IdempotencyKeyReused(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was used for a different request")
        self.key = key


# How often an append that names no expected version is made again when another writer appended first.
RETRIES_ON_CONFLICT = 5


class Contention(Exception):
    """Other writers appended first every time an append was made again: nothing was appended."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(
            f"game {game_id}: other writers appended first {RETRIES_ON_CONFLICT} times; nothing was appended"
        )
        self.game_id = game_id


class ReplacedGame(ValueError):
    """An import of a game a checkpoint has named: it was stored on this server, and someone deleted it since."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(
            f"game {game_id} was stored on this server and a checkpoint names it, but it is no longer stored: it was "
            "deleted behind the server's back, and no import takes its place (audit it with the checkpoints kept)"
        )
        self.game_id = game_id


class VersionConflict(Exception):
    """The game moved on since the recorder last saw it: nothing was appended."""

    def __init__(self, game_id: UUID, expected: int | None, actual: int | None) -> None:
        now = f"it is at version {actual}" if actual is not None else "another recorder appended first"
        wanted = f"expected version {expected}, but " if expected is not None else ""
        super().__init__(f"game {game_id}: {wanted}{now}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


ActionInput = str | Mapping[str, Any]


@dataclass(frozen=True)
class AppendRequest:
    """One append among many committed together (`Ledger.record_many`): actions in notation or as data, all or
    none; with `token_required`, only the holder of the game's recorder token may make it; `entered_at`, when
    they were entered at the table (ISO 8601, UTC), if the recording device said."""

    game_id: UUID
    actions: Sequence[ActionInput]
    expected_version: int | None = None
    idempotency: Idempotency | None = None
    recorder_token: str | None = None
    token_required: bool = False
    entered_at: str | None = None


@dataclass(frozen=True)
class Recorder:
    """Who makes a change: with `token_required`, only the holder of the game's recorder token may."""

    token: str | None = None
    token_required: bool = False

    def change_fields(self) -> dict[str, Any]:
        return {"token": self.token, "token_required": self.token_required}


ANYONE = Recorder()


@dataclass(frozen=True)
class _Change:
    game_id: UUID
    expected: int | None
    change: Callable[[Game], object]
    idempotency: Idempotency | None = None
    token: str | None = None
    token_required: bool = False
    # For a new game: makes it afresh, with the aggregates stored beside it (its access), each time it is tried.
    starts: Callable[[], list[Any]] | None = None
    # For an append: its actions, which a seat's token may append where they are its player's own.
    actions: tuple[Any, ...] | None = None
    # For a change of how the game is read: the recorder's own token alone makes it, a co-recorder's does not.
    recorders_own: bool = False

    @classmethod
    def of(cls, item: AppendRequest | Callable[[], list[Any]]) -> _Change:
        return cls.recording(item) if isinstance(item, AppendRequest) else cls.starting(item)

    @classmethod
    def starting(cls, make: Callable[[], list[Any]]) -> _Change:
        return cls(uuid4(), None, lambda game: None, starts=make)

    @classmethod
    def recording(cls, request: AppendRequest) -> _Change:
        actions, entered_at = list(request.actions), request.entered_at
        return cls(
            request.game_id,
            request.expected_version,
            lambda game: game.record_all(actions, entered_at),
            request.idempotency,
            request.recorder_token,
            request.token_required,
            actions=tuple(actions),
        )

    def by_seat(self, seat: str) -> _Change:
        """The append made with a seat's token: refused unless each of its actions is the seat's own."""
        actions, record = self.actions or (), self.change

        def own_then_record(game: Game) -> object:
            for action in actions:
                check_own(game, seat, action)
            return record(game)

        return replace(self, change=own_then_record)


Outcome = Receipt | Exception


def check_own(game: Game, seat: str, action: Any) -> None:
    """Refuse an action appended with a seat's token that is not its player's own (the table's actions, which
    name no player, included). An action the rules cannot read is left to them to refuse, whoever appends it."""
    rules = game.rules
    try:
        parsed = rules.parse_action(action) if isinstance(action, str) else rules.action_from_data(action)
    except (NotationError, ActionDataError):
        return
    if rules.action_data(parsed).get("player") != seat:
        shown = rules.format_action(parsed)
        raise NotOwnAction(game.id, f"{seat}'s token appends {seat}'s own actions only, not {shown!r}")


class Ledger(Application[UUID]):
    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        settings = settings or Settings.from_environment()
        self.settings = settings
        self.game_logs = GameLogs(settings.log_cache_events) if settings.log_cache_events else None
        self._checkpoints: CheckpointIndex | None = None
        self._checkpoints_lock = threading.RLock()
        self.held_accesses = HeldAccesses(HELD_ACCESSES)
        full_env = {
            **persistence_env(settings),
            "AGGREGATE_CACHE_MAXSIZE": str(CACHED_GAMES),
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            "IS_SNAPSHOTTING_ENABLED": "y",
            **env,
        }
        with store_opening(settings):
            self._open(full_env)

    def _open(self, env: dict[str, str]) -> None:
        for attempt in range(STARTUP_ATTEMPTS):
            try:
                super().__init__(env=env)
                return
            except InternalError as error:
                # PostgreSQL refuses one of two servers creating the same tables at the same moment.
                if "concurrently" not in str(error) or attempt == STARTUP_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def construct_transcoder(self) -> Transcoder:
        return MsgpackTranscoder()

    def construct_mapper(self) -> Mapper[UUID]:
        return SealingMapper(transcoder=self.construct_transcoder(), sealer=self.sealer)

    @cached_property
    def sealer(self) -> Sealer | None:
        key = self.settings.seal_key
        return None if key is None else Sealer(key)

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """Store the games' new events in one transaction, then the snapshots they took on the way (the library
        takes none itself: it would fold each game again to take one)."""
        recordings = super().save(*objs, **kwargs)
        games = [game for game in objs if isinstance(game, Game)]
        self.store_snapshots([snapshot for game in games for snapshot in game.snapshots_due])
        for game in games:
            game.snapshots_due.clear()
        return recordings

    def store_snapshots(self, snapshots: Sequence[Any]) -> None:
        if self.snapshots is not None and snapshots:
            self.snapshots.put(list(snapshots))

    def create_game(
        self,
        ruleset: str | None,
        kit: str,
        players: Sequence[str | tuple[str, str | None]],
        options: Mapping[str, OptionValue] | None = None,
        recorder_token: str | None = None,
        seat_tokens: Mapping[str, str] | None = None,
        reveal_at_end: bool = True,
    ) -> Receipt:
        """A new game: `players` in seat order, each a name or (name, stable id); with a recorder token, only
        its holder may append (its digest is stored with the game's first event, in one transaction); with seat
        tokens (by player), each reads what its seat may see. The ruleset is the one the kit names; a `ruleset`
        given must be that one. Without `reveal_at_end`, the game's second event keeps its hidden facts from
        those who could not see them during play also once it is over (`set_reveal_at_end`)."""
        game, *access = self.new_game(ruleset, kit, players, options, recorder_token, seat_tokens, reveal_at_end)
        return self.save_games([game], also=access)[0]

    def new_game(
        self,
        ruleset: str | None,
        kit: str,
        players: Sequence[str | tuple[str, str | None]],
        options: Mapping[str, OptionValue] | None = None,
        recorder_token: str | None = None,
        seat_tokens: Mapping[str, str] | None = None,
        reveal_at_end: bool = True,
    ) -> list[Any]:
        """A new game as `create_game` makes it, not yet stored: the game, then its access if it has one."""
        document, loaded = load_kit_document(kit)
        seats = [(p, None) if isinstance(p, str) else p for p in players]
        reserved = sorted({name for name, _ in seats} & set(REVISION_KEYS))
        if reserved:
            raise SetupError(f"{reserved[0]!r} cannot be a player's name: a game file's line of its own begins with it")
        rules = ruleset_for_kit(document, kit, ruleset)
        game = Game.start(rules, document, loaded, seats, options or {}, sealed=self.sealer is not None)
        if not reveal_at_end:
            game.set_reveal_at_end(False)
        granted = recorder_token is not None or bool(seat_tokens)
        return [game, *([GameAccess.grant(game.id, recorder_token, seat_tokens)] if granted else [])]

    def generate_game(
        self,
        players: int,
        bot: str = "sensible",
        seed: int | None = None,
        *,
        ruleset: str,
        marked: Mapping[str, int] | None = None,
    ) -> Receipt:
        """A whole game played by the ruleset's seeded bots (the `Bots` capability) and stored in one transaction.
        Its first event commits to the chance generator, a secret salt and the seed (a random one unless given);
        its last reveals them, so that an audit can draw every roll again. `marked`: for an option naming seats,
        how many of the last seats it names (seats the rules run play the rules' own decisions)."""
        rules = get_ruleset(ruleset)
        bots = self_play_of(rules, players, bot)
        seed = secrets.randbits(63) if seed is None else seed
        salt = secrets.token_hex(16)
        document, kit = load_kit_document(bots.default_kit(players))
        names = player_names(players)
        options = marked_options(names, marked or {})
        commitment = seed_commitment(bots.generator, salt, seed)
        seats = [(name, None) for name in names]
        game = Game.start(rules, document, kit, seats, options, commitment=commitment, sealed=self.sealer is not None)
        for action, _ in bots.play(kit, names, seed, bot, resolve_options(rules.options, options)):
            game.record(rules.format_action(action))
        game.reveal_seed(bots.generator, salt, seed)
        return self.save_games([game])[0]

    def record(
        self,
        game_id: UUID,
        notations: str | Sequence[str],
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Receipt:
        """Append one action or a batch, all or nothing: an illegal action in the batch appends none of them.

        With an idempotency key, a request already answered gets its answer again and appends nothing."""
        batch = [notations] if isinstance(notations, str) else list(notations)
        return self._change(_Change.recording(AppendRequest(game_id, batch, expected_version, idempotency)))

    def record_many(self, requests: Sequence[AppendRequest | Callable[[], list[Any]]]) -> list[Outcome]:
        """Many appends, to one game or several, and new games (each given as what makes it, as `new_game` does),
        committed in one transaction (one sync to disk): for each, its receipt or the error that refused it, as if
        each had been made alone, in turn."""
        return self._commit([_Change.of(item) for item in requests])

    def access(self, game_id: UUID) -> GameAccess | None:
        """Who may write to the game, as held since it was last read (shared: read it, never change it); None for
        a game made without a recorder token."""
        return self.accesses([game_id])[game_id]

    def _access_to_change(self, game_id: UUID) -> GameAccess | None:
        key = access_id(game_id)
        return self._read_accesses([key], {key: game_id})[key]

    def accesses(self, game_ids: Iterable[UUID]) -> dict[UUID, GameAccess | None]:
        """Who may write to each game: those held since they were last read, and the others read in one query
        where the store can (read only: never change one in place)."""
        wanted = {access_id(game_id): game_id for game_id in game_ids}
        if not wanted:
            return {}
        changes = getattr(self.recorder, "select_changed_since", None)
        read = partial(self._read_accesses, games=wanted)
        if changes is None:
            found = read(list(wanted))
        else:
            found = self.held_accesses.current(wanted, partial(changes, topics=ACCESS_TOPICS), read)
        return {game_id: found[key] for key, game_id in wanted.items()}

    def _read_accesses(self, access_ids: list[UUID], games: Mapping[UUID, UUID]) -> dict[UUID, GameAccess | None]:
        """The accesses (of `games`, by access id) folded afresh from their events (held accesses are shared, so
        never the cached ones), each refused (AccessNotVouched) where the seal key does not vouch for its events,
        or where it is behind the head a checkpoint signed of it."""
        found: dict[UUID, GameAccess | None] = dict.fromkeys(access_ids)
        for key in access_ids:
            head = self.checkpoint_index().head_of(str(key)) if self.sealer is not None else None
            stored = self.recorder.select_events(key)
            for event in stored:
                found[key] = self.mapper.to_domain_event(event).mutate(found[key])  # type: ignore[attr-defined]
            access = found[key]
            if access is not None and access_id(access.game_id) != key:
                raise AccessNotVouched(access.game_id, 1, "names another game than the one it is kept for")
            if head is not None:
                check_signed_head(games.get(key, key), head, stored)
            if access is not None and self.sealer is not None:
                check_access_seals(access.game_id, stored, self.sealer, self._game_stored_as)
        return found

    def _game_stored_as(self, game_id: UUID) -> str | None:
        """How the game's first event was stored, as the key says (evo_ledger.app.access.check_access_seals)."""
        assert self.sealer is not None
        first = self.recorder.select_events(game_id, lte=1)
        if not first:
            return None
        _, seal = unpack_sealed(first[0].state)
        if seal is not None:
            return self.sealer.kind_of(first[0], seal)
        index = self.checkpoint_index()
        named = index.refusals_of(str(game_id)).get(1) == WITHOUT_A_KEY or self._signed_unsealed(index, game_id)
        return STORED_BEFORE_THE_KEY if named else None

    def _signed_unsealed(self, index: CheckpointIndex, game_id: UUID) -> bool:
        """Whether a genuine checkpoint of the first format (which signed unsealed events, naming none) signed the
        game's first event unsealed."""
        for number in index.naming.get(str(game_id), ()):
            checkpoint = index.checkpoints[number - 1]
            if checkpoint.genuine and checkpoint.signed["version"] == 1:
                listed = read_events(list(self.recorder.select_events(signed_events_id(game_id, number)))) or []
                return any(event[0] == 1 and event[2] is False for event in listed)
        return False

    def grant_recorder(self, game_id: UUID, token: str) -> int:
        """Make `token` the game's recorder token, in place of any it had, letting go of every co-recorder: how
        many were let go."""
        access = self._access_to_change(game_id)
        if access is None:
            self.game(game_id)  # an unknown game raises
            self.save(GameAccess.grant(game_id, token))
            return 0
        let_go = len(access.co_recorders)
        access.replace_token(token)
        self.save(access)
        return let_go

    def change_recorders(
        self, game_id: UUID, change: Callable[[GameAccess], None], token: str | None, admin: bool = False
    ) -> GameAccess:
        """Issue or revoke co-recorders, issue seats' tokens, set a broadcast's delay: the recorder's own token (or
        the admin) alone may."""
        access = self._access_to_change(game_id)
        if access is None:
            self.game(game_id)  # an unknown game raises
        if not admin:
            check_recorders_own(game_id, access, token)
        return self.change_access(game_id, change)

    def change_access(self, game_id: UUID, change: Callable[[GameAccess], None]) -> GameAccess:
        """Change who may see or write to the game (a game started without a recorder token gets its access
        here, still without one)."""
        access = self._access_to_change(game_id)
        if access is None:
            self.game(game_id)  # an unknown game raises
            access = GameAccess.grant(game_id, None)
        change(access)
        self.save(access)
        return access

    def answered(self, game_id: UUID, idempotency: Idempotency) -> Receipt | None:
        """The receipt an append with this key was given, if there was one; a different request with the same key
        is refused."""
        stored = self.recorder.select_events(answer_id(game_id, idempotency.key))
        if not stored:
            return None
        if self.sealer is not None:
            check_access_seals(game_id, stored, self.sealer, self._game_stored_as, ANSWER_RECORD)
        answer: Any = None
        for event in stored:
            answer = self.mapper.to_domain_event(event).mutate(answer)  # type: ignore[attr-defined]
        assert isinstance(answer, AnsweredAppend)
        return self._answer_to(idempotency, answer)

    @staticmethod
    def _answer_to(idempotency: Idempotency, answer: AnsweredAppend) -> Receipt:
        if answer.request != idempotency.request:
            raise IdempotencyKeyReused(idempotency.key)
        return Receipt(answer.game_id, answer.game_version, answer.head_hash)

    def undo(
        self, game_id: UUID, count: int, reason: str, expected_version: int | None = None, by: Recorder = ANYONE
    ) -> Receipt:
        change = _Change(game_id, expected_version, lambda game: game.undo(count, reason), **by.change_fields())
        return self._change(change)

    def correct(
        self,
        game_id: UUID,
        notation: str,
        reason: str,
        expected_version: int | None = None,
        by: Recorder = ANYONE,
        entered_at: str | None = None,
    ) -> Receipt:
        def correction(game: Game) -> None:
            game.correct(notation, reason, entered_at)

        return self._change(_Change(game_id, expected_version, correction, **by.change_fields()))

    def annotate(
        self, game_id: UUID, about: int, text: str, expected_version: int | None = None, by: Recorder = ANYONE
    ) -> Receipt:
        change = _Change(game_id, expected_version, lambda game: game.annotate(about, text), **by.change_fields())
        return self._change(change)

    def set_reveal_at_end(self, game_id: UUID, reveal: bool, by: Recorder = ANYONE) -> Receipt:
        """Whether, once the game is over, its hidden facts are shown to every reader (`reveal`) or kept from those
        who could not see them during play: an event of the game's log, which stands from then on (also after the
        end). `by` says who may set it (with `token_required`, only the recorder's own token, as for every change
        of how the game is read). Setting what stands appends nothing."""

        def change(game: Game) -> None:
            if game.reveal_at_end != reveal:
                game.set_reveal_at_end(reveal)

        return self._change(_Change(game_id, None, change, **by.change_fields(), recorders_own=True))

    def game(self, game_id: UUID, version: int | None = None) -> Game:
        """The game as it stands, or as it stood after event `version`."""
        if version is not None and self.game_logs is not None:
            return self._game_at(game_id, version)
        try:
            game: Any = self.repository.get(game_id, version=version, projector_func=fold_events)
        except AggregateNotFoundError:
            raise UnknownGame(game_id) from None
        assert isinstance(game, Game)
        return game

    def _game_at(self, game_id: UUID, version: int) -> Game:
        """The game after event `version` (or at its head, if it has fewer): its latest snapshot at or before
        that event and the events after it, each read from the store once and then held."""
        game: Any = None
        snapshot = self._snapshot_within(game_id, version)
        if snapshot is not None:
            game = cast(Any, self.mapper.to_domain_event(snapshot)).mutate(None)
        events = self._logged_events(game_id, game.version if game else 0, version)
        if game is None and not events:
            raise UnknownGame(game_id)
        game = fold_events(game, events)
        assert isinstance(game, Game)
        return game

    def _logged_events(self, game_id: UUID, base: int, version: int) -> list[Any]:
        """The game's events after `base` up to `version`: those held, and any after them read and held."""
        assert self.game_logs is not None
        held = self.game_logs.events(game_id, base, version)
        if base + len(held) < version:
            read = list(self.repository.event_store.get(game_id, gt=base + len(held), lte=version))
            self.game_logs.add(game_id, base, read)
            held += read
        return held

    def _snapshot_within(self, game_id: UUID, version: int) -> StoredEvent | None:
        """The game's latest stored snapshot at or before `version`, held once read (one is due every
        SNAPSHOT_INTERVAL events; the store is asked when the due one is not held)."""
        assert self.game_logs is not None
        if self.snapshots is None or version < SNAPSHOT_INTERVAL:
            return None
        held = self.game_logs.snapshot(game_id, version - version % SNAPSHOT_INTERVAL)
        if held is None:
            found = self.snapshots.recorder.select_events(game_id, lte=version, desc=True, limit=1)
            held = found[0] if found else None
            if held is not None:
                self.game_logs.add_snapshot(game_id, held)
        return held

    def stored_among(self, game_ids: Iterable[UUID]) -> set[UUID]:
        """Those of the games that the ledger holds."""
        return {game_id for game_id in game_ids if self.recorder.select_events(game_id, limit=1)}

    def receipt(self, game_id: UUID) -> Receipt:
        game = self.game(game_id)
        return Receipt.of(game)

    def game_events(
        self, game_id: UUID, up_to: int | None = None, after: int | None = None, limit: int | None = None
    ) -> list[Any]:
        """The game's domain events in order: those after version `after` and up to version `up_to`, at most
        `limit` of them, if given. Those up to a known `up_to` are read once and then held (`GameLogs`)."""
        if up_to is None or self.game_logs is None:
            return list(self.repository.event_store.get(game_id, gt=after, lte=up_to, limit=limit))
        held = self._logged_events(game_id, 0, up_to)[after or 0 :]
        return held[:limit] if limit is not None else held

    def last_stored_by(self, game: Game, moment: datetime) -> int:
        """The last of the game's events (up to its version) stored at or before `moment`; 0 if none was. The game
        knows when its first and its last were stored; between them the store is asked for single events, back
        from the last by growing steps, then by halves: a number of reads that grows with how many events were
        stored after the moment, never with the game's length (a game's events are stored in the order of their
        times)."""
        if game.modified_on <= moment:
            return game.version
        if game.created_on > moment:
            return 0
        stored_by, stored_after, step = 1, game.version, 1
        while stored_after - stored_by > 1:
            probe = max(stored_after - step, (stored_by + stored_after) // 2)
            if self._stored_on(game.id, probe) <= moment:
                stored_by = probe
            else:
                stored_after, step = probe, step * 2
        return stored_by

    def _stored_on(self, game_id: UUID, version: int) -> datetime:
        [event] = self.repository.event_store.get(game_id, gt=version - 1, lte=version)
        stored_on: datetime = cast(Any, event).timestamp
        return stored_on

    def audit_basis(self, game_id: UUID) -> AuditBasis:
        """What an audit of the game rests on now (`AuditBasis`), read in a query or two; an unknown game raises."""
        head = self.recorder.select_events(game_id, desc=True, limit=1)
        if not head:
            raise UnknownGame(game_id)
        checkpoints = 0
        if self.settings.seal_key is not None:
            last = self.recorder.select_events(CHECKPOINT_LOG_ID, desc=True, limit=1)
            checkpoints = last[0].originator_version if last else 0
        return AuditBasis(head[0].originator_version, hashlib.sha256(head[0].state).hexdigest(), checkpoints)

    def audit(
        self,
        game_id: UUID,
        up_to: int | None = None,
        expect_head: str | None = None,
        kept: Sequence[Mapping[str, Any]] = (),
    ) -> AuditReport:
        """The game's stored log checked from its first event: hashes, chain, seals and signed checkpoints (with
        the key; `kept`: checkpoints published elsewhere), rules, the stored snapshots against the fold and, given
        a receipt's head hash, its end (evo_ledger.app.audit)."""
        stored = self.stored_events(game_id)
        if not stored:
            raise UnknownGame(game_id)
        snapshots = self.snapshots.recorder.select_events(game_id) if self.snapshots is not None else []
        signed = self._signed_for(game_id, kept) if self.settings.seal_key is not None else None
        return audit(game_id, stored, up_to, expect_head, self.sealer, snapshots, signed)

    def checkpoint_index(self) -> CheckpointIndex:
        """The checkpoint log read under the seal key, its new rows read (evo_ledger.game.checkpoints)."""
        key = self._checkpoint_key()
        with self._checkpoints_lock:
            if self._checkpoints is None:
                self._checkpoints = CheckpointIndex(key)
            self._checkpoints.read(self.recorder.select_events(CHECKPOINT_LOG_ID, gt=self._checkpoints.rows))
            return self._checkpoints

    def _signed_for(self, game_id: UUID, kept: Sequence[Mapping[str, Any]]) -> Signed:
        """What the checkpoints signed of the game: only its own signed events are read."""
        index = self.checkpoint_index()
        lists = {
            number: read_events(list(self.recorder.select_events(signed_events_id(game_id, number))))
            for number in index.naming.get(str(game_id), ())
        }
        return signed_for(game_id, index, lists, kept)

    def _checkpoint_key(self) -> str:
        key = self.settings.seal_key
        if key is None:
            raise CheckpointError(f"checkpoints are signed with the seal key: set {SEAL_KEY_VARIABLE}")
        return key

    def take_checkpoint(self, acknowledge: int | None = None) -> tuple[dict[str, Any], bool]:
        """A checkpoint of every game event stored since the last that the seal key vouches for, signed with it
        and appended to the checkpoint log, naming the events it could not vouch for unsigned; with none stored
        since, the last checkpoint. `acknowledge`: the events checkpoints up to that number could not vouch for
        were looked into (a checkpoint is signed to say so, also with nothing stored since). Returns it as it is
        published, and whether it is new."""
        with self._checkpoints_lock:
            index = self.checkpoint_index()
            last = index.last
            after = last.signed["position"] if last is not None else 0
            sealer = Sealer(self._checkpoint_key())
            examiner = Examiner(sealer, last is None, self._stored_between, index, self._last_stored)
            if not index.signs_access_heads:
                examiner.also_records(self._access_records())
            examined = examiner.examine(self.notifications_after(after))
            if not (examined.events or examined.refused or examined.accesses) and acknowledge is None:
                if last is None:
                    raise CheckpointError("no game event is stored yet: there is nothing to sign")
                return published(last), False
            position = max(examined.position, after)
            taking = next_checkpoint(
                index,
                examined.events,
                position,
                refused=examined.refused,
                acknowledge=acknowledge,
                accesses=examined.accesses,
            )
            try:
                self.save(*taking)
            except IntegrityError:
                raise CheckpointError("another checkpoint was taken at the same moment: take it again") from None
            taken = self.checkpoint_index().last
            assert taken is not None
            return published(taken), True

    def unvouched_by_last_checkpoint(self) -> list[Unvouched]:
        """The events the last checkpoint could not vouch for, and did not sign, in runs of the same reason."""
        last = self.checkpoint_index().last
        return unvouched_by(last) if last is not None else []

    def unvouched_since_acknowledged(self) -> tuple[int, list[Unvouched]]:
        """The last checkpoint acknowledged, and the events every checkpoint after it could not vouch for."""
        found = self.unvouched_unless_signing()
        assert found is not None
        return found

    def unvouched_unless_signing(self, wait: bool = True) -> tuple[int, list[Unvouched]] | None:
        """As `unvouched_since_acknowledged`, but None at once while a checkpoint is being taken (unless `wait`)."""
        if not self._checkpoints_lock.acquire(blocking=wait):
            return None
        try:
            index = self.checkpoint_index()
            return index.acknowledged, index.unvouched_since_acknowledged()
        finally:
            self._checkpoints_lock.release()

    def _access_records(self) -> set[UUID]:
        """Every record of who may write to a game the log holds."""
        return {UUID(str(stored.originator_id)) for stored in self.notifications_after(0, ACCESS_TOPICS)}

    def _last_stored(self, aggregate_id: UUID) -> StoredEvent | None:
        found = self.recorder.select_events(aggregate_id, desc=True, limit=1)
        return found[0] if found else None

    def _stored_between(self, game_id: UUID, after: int, up_to: int) -> Sequence[StoredEvent]:
        return self.recorder.select_events(game_id, gt=after, lte=up_to)

    def notifications_after(self, after: int, topics: Sequence[str] = ()) -> Iterator[Notification]:
        """The log after position `after` (only the `topics` named, if any), read a page at a time."""
        start = after + 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=NOTIFICATION_PAGE, topics=topics)
            yield from page
            if len(page) < NOTIFICATION_PAGE:
                return
            start = page[-1].id + 1

    def explain(self, game_id: UUID, event: int) -> ExplanationReport:
        """Why the rules decided as they did about the part of the game (a combat, a survival phase...) that
        `event` belongs to (evo_ledger.app.disputes)."""
        game = self.game(game_id)
        return explain_event(game, self.game_events(game_id, up_to=game.version), event)

    def what_if(
        self,
        game_id: UUID,
        event: int,
        replacement: str | None,
        told: Callable[[RuleViolation], str] = str,
        hidden: Mapping[int, str] | None = None,
    ) -> WhatIfReport:
        """The game in a branch where the action at `event` is replaced (dropped if None); the log is untouched.
        For a reader, a refusal in the branch is reported as `told` words it, and the branch stops before the
        first of the actions `hidden` from it (event: its player)."""
        game = self.game(game_id)
        return what_if(game, self.game_events(game_id, up_to=game.version), event, replacement, told, hidden)

    def stored_events(self, game_id: UUID) -> list[StoredEvent]:
        return list(self.recorder.select_events(game_id))

    def game_ids(self) -> Iterator[UUID]:
        """Every game, in the order it was started."""
        return (game_id for _, game_id in self.started_games())

    def started_setups(self, after: int = 0) -> Iterator[tuple[int, Any]]:
        """The setups (first events) of the games started after position `after` of the log, in order, each with
        its position: a game's ruleset, players and start, read without folding the game."""
        return ((n.id, self.mapper.to_domain_event(n)) for n in self._started_notifications(after))

    def started_games(self, after: int = 0) -> Iterator[tuple[int, UUID]]:
        """The games started after position `after` of the log, in order: each with its start's position."""
        return ((n.id, UUID(str(n.originator_id))) for n in self._started_notifications(after))

    def _started_notifications(self, after: int) -> Iterator[Notification]:
        return self.notifications_after(after, topics=[Game.Started.TOPIC])

    def find_game(self, reference: str) -> UUID:
        """A game by its id, a unique beginning of its id, or `last`: the game started last."""
        wanted = reference.strip().lower()
        if wanted == "last":
            last = deque(self.game_ids(), maxlen=1)
            if not last:
                raise GameReferenceError("there are no games yet")
            return last[0]
        if not wanted or any(c not in "0123456789abcdef-" for c in wanted):
            raise GameReferenceError(f"{reference!r} is not a game id (hexadecimal digits), nor 'last'")
        found = [game_id for game_id in self.game_ids() if str(game_id).startswith(wanted)]
        if not found:
            raise GameReferenceError(f"no game has an id starting {reference!r} (`games` lists them)")
        if len(found) > 1:
            shown = ", ".join(map(str, found[:AMBIGUOUS_SHOWN])) + (", ..." if len(found) > AMBIGUOUS_SHOWN else "")
            raise GameReferenceError(f"{len(found)} games have an id starting {reference!r}: {shown}; give more of it")
        return found[0]

    def save_games(self, games: Sequence[Game], expected: int = 0, also: Sequence[Any] = ()) -> list[Receipt]:
        """The games' new events stored in one transaction, with those of the aggregates `also` given;
        `expected` is the version the games were changed from."""
        try:
            self.save(*games, *also)
        except IntegrityError:
            for game in games:
                self._forget(game.id)
            raise VersionConflict(games[0].id, expected, None) from None
        return [Receipt.of(game) for game in games]

    def insert_stored_events(self, events: Sequence[StoredEvent], snapshots: Sequence[StoredEvent] = ()) -> None:
        """Write events exactly as given, in one transaction, then their snapshots (the imports); never a game a
        checkpoint has named (ReplacedGame): it was stored here, and deleted since."""
        if self.sealer is not None:
            self._check_never_checkpointed([event.originator_id for event in events if event.originator_version == 1])
        try:
            self.recorder.insert_events(list(events))
        except IntegrityError as error:
            raise VersionConflict(events[0].originator_id, events[0].originator_version, None) from error  # type: ignore[arg-type]
        self._insert_snapshots(snapshots)

    def _check_never_checkpointed(self, game_ids: Sequence[UUID | str]) -> None:
        index = self.checkpoint_index()
        for game_id in game_ids:
            if index.covered_of(str(game_id)) > 0:
                raise ReplacedGame(UUID(str(game_id)))

    def _insert_snapshots(self, snapshots: Sequence[StoredEvent]) -> None:
        if self.snapshots is not None and snapshots:
            self.snapshots.recorder.insert_events(list(snapshots))

    def _change(self, change: _Change) -> Receipt:
        [outcome] = self._commit([change])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def _commit(self, changes: Sequence[_Change], retries: int = RETRIES_ON_CONFLICT) -> list[Outcome]:
        """Apply each change in turn and store all their events in one transaction.

        If the store refuses the transaction (another process appended to one of the games, or two changes carry
        one idempotency key), each change is made again alone, so that each gets the answer it would have had; a
        change that names no expected version is made again on the game as it now stands, `retries` times."""
        games: dict[UUID, Game] = {}
        answers: dict[UUID, Any] = {}
        outcomes: list[Outcome] = []
        try:
            accesses = self.accesses({change.game_id for change in changes if change.token_required})
        except Exception as error:
            if len(changes) > 1:  # one game's access the key does not vouch for refuses that game's changes alone
                return [outcome for change in changes for outcome in self._commit([change])]
            return [error]
        for change in changes:
            try:
                made = self._checked(change, accesses[change.game_id]) if change.token_required else change
                outcomes.append(self._apply(made, games, answers))
            except Exception as error:
                outcomes.append(error)
        if not answers and not any(game.pending_events for game in games.values()):
            return outcomes
        try:
            self.save(*games.values(), *answers.values())
        except IntegrityError:
            self._forget_all(games)
            if len(changes) > 1:
                return [outcome for change in changes for outcome in self._commit([change])]
            conflict = self._conflict(changes[0])
            if not isinstance(conflict, VersionConflict) or changes[0].expected is not None:
                return [conflict]
            return self._commit(changes, retries - 1) if retries else [Contention(changes[0].game_id)]
        except Exception as error:
            self._forget_all(games)
            return [error if isinstance(outcome, Receipt) else outcome for outcome in outcomes]
        return outcomes

    def _apply(self, change: _Change, games: dict[UUID, Game], answers: dict[UUID, Any]) -> Receipt:
        """One change made to its game (kept in `games` for the changes after it, as its answer is in `answers`);
        on an error the game is as it was before the change. A new game is kept with its access beside the answers."""
        if change.starts is not None:
            game, *beside = change.starts()
            games[game.id] = game
            answers.update((aggregate.id, aggregate) for aggregate in beside)
            return Receipt.of(game)
        if change.idempotency is not None:
            idempotency = change.idempotency
            pending = answers.get(answer_id(change.game_id, idempotency.key))
            given = self._answer_to(idempotency, pending) if pending else self.answered(change.game_id, idempotency)
            if given is not None:
                return given
        game = games.get(change.game_id) or self._current(change.game_id, change.expected)
        games[game.id] = game
        if change.expected is not None and change.expected != game.version:
            raise VersionConflict(game.id, change.expected, game.version)
        mark = game.mark()
        try:
            change.change(game)
        except BaseException:
            game.restore(mark)
            raise
        if change.idempotency is not None:
            key, request = change.idempotency.key, change.idempotency.request
            answer = AnsweredAppend.answer(game.id, key, request, game.version, game.head_hash)
            answers[answer.id] = answer
        return Receipt.of(game)

    def _current(self, game_id: UUID, expected: int | None) -> Game:
        """A recorder that says which version it expects gets the cached game as it is when it stands there: the
        store's unique key on (game, version) refuses an append on a stale game, so no read is needed first.
        Otherwise the game is read as the store has it, so the rules judge the action on the real game."""
        cached = self._cached(game_id) if expected is not None else None
        return cached if cached is not None and cached.version == expected else self.game(game_id)

    def _checked(self, change: _Change, access: GameAccess | None) -> _Change:
        """The change, once its token is found to make it: the recorder's own for a change of how the game is read,
        a recorder's (or a co-recorder's), or a seat's appending its own actions where the recorder lets seats
        record."""
        if access is None:
            self.game(change.game_id)  # an unknown game raises
        if change.recorders_own:
            check_recorders_own(change.game_id, access, change.token)
            return change
        if change.actions is None:
            check_recorder(change.game_id, access, change.token)
            return change
        seat = recording_seat(change.game_id, access, change.token)
        return change if seat is None else change.by_seat(seat)

    def _conflict(self, change: _Change) -> Outcome:
        """What a change refused by the store gets: the answer to the same request if it was answered
        meanwhile, or a version conflict."""
        if change.idempotency is not None:
            with suppress(Exception):
                if (answered := self.answered(change.game_id, change.idempotency)) is not None:
                    return answered
        return VersionConflict(change.game_id, change.expected, None)

    def _forget_all(self, games: Mapping[UUID, Game]) -> None:
        for game_id in games:
            self._forget(game_id)

    def _cached(self, game_id: UUID) -> Game | None:
        if self.repository.cache is None:
            return None
        try:
            game = self.repository.cache.get(game_id)
        except KeyError:
            return None
        return game if isinstance(game, Game) else None

    def _forget(self, game_id: UUID) -> None:
        """Drop a cached game whose unsaved changes must not be seen again."""
        if self.repository.cache is not None:
            with suppress(KeyError):
                self.repository.cache.get(game_id, evict=True)
