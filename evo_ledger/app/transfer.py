"""Whole games in and out of the ledger: notation files, and msgpack bundles of the stored events.

A bundle holds a game's stored events exactly as the store has them (topic, version, state bytes, with their
hashes inside), so importing a bundle and exporting it again gives the same bytes. A bundle is verified before
anything is written: its hash chain must hold and every action must be legal where it stands. A game goes out
whole as the readers export it for its recorder (`evo_ledger.app.readers.exports`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import Any, NamedTuple, TypeVar
from uuid import UUID, uuid5

from eventsourcing.domain import EventSourcingError
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import TopicError

from evo_ledger.app.access import GameAccess
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.personal import LabelShapedHandle, game_owner, sealed_owners
from evo_ledger.app.readers import BUNDLE_FORMAT, BUNDLE_VERSION, RECORDER, bundle_for, game_file_for
from evo_ledger.game.aggregate import (
    CHECK_ON_FOLD,
    GENESIS,
    MAX_GAME_EVENTS,
    SNAPSHOT_INTERVAL,
    Game,
    GameSnapshot,
    GameTooLong,
    check_distinct_players,
    commitment_holds,
    field_names,
    is_game_event_topic,
    stored_hash,
)
from evo_ledger.game.checker import load_pinned_kit_document
from evo_ledger.game.codec import COMPACT_MARK, CodecError, check_depth, digest, unpack_input, unpack_sealed
from evo_ledger.game.labels import is_label
from evo_ledger.game.notation import (
    ActionLine,
    GameFile,
    GameFileError,
    Revision,
    parse_game,
    read_game_text,
)
from evo_ledger.game.seal import IMPORTED
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.kits import canonical_hash
from evo_ledger.rules.text import NotationError
from evo_ledger.store.mapper import imported_by, sealed_by

BUNDLE_SUFFIX = ".msgpack"
IMPORT_BATCH = 25
T = TypeVar("T")


class BundleError(ValueError):
    """A bundle that cannot be imported: unreadable, or its events do not verify."""


def export_bundle(ledger: Ledger, game_id: UUID) -> bytes:
    """The game's stored events with their hashes, whole: the bundle its recorder is given (`bundle_for`)."""
    return bundle_for(RECORDER, ledger, ledger.queries.game(game_id)).content


def read_bundle(data: bytes) -> list[StoredEvent]:
    """A bundle's stored events, each of a game event's topic, refused (BundleError) unless they are readable."""
    try:
        bundle = unpack_input(data)
    except CodecError as error:
        raise BundleError(f"not a bundle: {error}") from None
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        raise BundleError("not an evo-ledger bundle")
    if bundle.get("version") != BUNDLE_VERSION:
        raise BundleError(f"bundle version {bundle.get('version')!r} is not supported (this reads {BUNDLE_VERSION})")
    if bundle.get("left_out"):
        events = ", ".join(map(str, bundle["left_out"]))
        raise BundleError(
            f"the bundle leaves out hidden actions (events {events}): it is imported once they are revealed"
        )
    rows = bundle.get("events")
    if not isinstance(rows, list) or not isinstance(bundle.get("game"), str):
        raise BundleError("the bundle's 'game' is not an id, or its 'events' not a list")
    if len(rows) > MAX_GAME_EVENTS:
        raise BundleError(f"the bundle holds {len(rows)} events: a game holds at most {MAX_GAME_EVENTS}")
    try:
        game_id = UUID(bundle["game"])
    except ValueError:
        raise BundleError(f"the bundle's game {bundle['game']!r} is not an id") from None
    return [_stored_row(game_id, number, row) for number, row in enumerate(rows, start=1)]


def _stored_row(game_id: UUID, number: int, row: Any) -> StoredEvent:
    shapes = (str, int, bytes)
    if not (isinstance(row, list) and len(row) == 3 and all(type(v) is t for v, t in zip(row, shapes, strict=True))):
        raise BundleError(f"the bundle's event {number} is not [topic, version, bytes]")
    topic, version, state = row
    if state[:1] == COMPACT_MARK:
        raise BundleError(f"the bundle's event {number} is compact: a bundle carries each event's canonical bytes")
    return StoredEvent(game_id, version, topic, state)


def verify_chain(events: Sequence[StoredEvent]) -> None:
    """Each event's hash is over its own content, and each carries its predecessor's hash."""
    previous = GENESIS
    for expected_version, event in enumerate(events, start=1):
        if event.originator_version != expected_version:
            raise BundleError(f"event {expected_version} is missing (found version {event.originator_version})")
        fields, seal = _event_fields(event, expected_version)
        if seal is not None:
            raise BundleError(f"event {expected_version} carries a server's seal: bundles are exported without seals")
        if fields.get("prev_hash") != previous:
            raise BundleError(f"event {expected_version} does not follow the hash of event {expected_version - 1}")
        try:
            hash_holds = stored_hash(event.topic, event.originator_id, expected_version, fields) == fields["hash"]
            commitment = commitment_holds(fields)
        except (ValueError, TypeError) as error:  # a value canonical JSON has no form for (NaN, bytes, a map's key)
            raise BundleError(f"event {expected_version} holds a value that cannot be hashed: {error}") from None
        if not hash_holds:
            raise BundleError(f"event {expected_version}'s content does not match its hash")
        if not commitment:
            raise BundleError(f"event {expected_version}'s hidden action does not match its commitment")
        previous = fields["hash"]


# The fields every stored game event carries, with their types.
STORED_FIELDS = {"timestamp": datetime, "hash": str, "prev_hash": str}


def _event_fields(event: StoredEvent, number: int) -> tuple[dict[str, Any], bytes | None]:
    """A bundle's event's fields and seal, refused unless they are a map of named fields within the codec's depth,
    with a time and hashes."""
    try:
        fields, seal = unpack_sealed(event.state)
        check_depth(fields)
    except CodecError as error:
        raise BundleError(f"event {number} cannot be read: {error}") from None
    if not isinstance(fields, dict) or not all(isinstance(key, str) for key in fields):
        raise BundleError(f"event {number} is not a map of named fields")
    for name, kind in STORED_FIELDS.items():
        if not isinstance(fields.get(name), kind):
            raise BundleError(f"event {number} has no {name} of type {kind.__name__}")
    return fields, seal


# What folding a foreign event can raise where its fields are not what its class expects.
UNFOLDABLE = (ValueError, TypeError, LookupError, AttributeError, EventSourcingError, TopicError)


def _check_fields(event: Any) -> None:
    """Refuses a foreign event whose fields are not those of its class."""
    expected, found = set(field_names(type(event))), set(vars(event))
    if found != expected:
        wrong = ", ".join([*(f"{name} missing" for name in expected - found), *sorted(found - expected)][:5])
        raise BundleError(f"event {event.originator_version}'s fields are not a {type(event).__name__}'s: {wrong}")


def _check_setup(started: Any) -> None:
    """A foreign game's setup starts a game, and carries the kit whose hash it pins (a kit read before is not
    read again for the same hash)."""
    if started.originator_topic != Game.TOPIC:
        raise BundleError(f"event 1 starts a {str(started.originator_topic)[:80]!r}, not a game")
    if not isinstance(started.kit_document, dict) or canonical_hash(started.kit_document) != started.kit_hash:
        raise BundleError(f"event 1's kit does not have the hash it pins ({str(started.kit_hash)[:80]})")
    if not isinstance(started.players, list) or not all(isinstance(seat, dict) for seat in started.players):
        raise BundleError("event 1's players are not a list of seats")
    try:
        check_distinct_players(started.players)
    except SetupError as error:
        raise BundleError(f"event 1: {error}") from None


def fold(mapper: Mapper[UUID], events: Sequence[StoredEvent]) -> tuple[Game, list[GameSnapshot]]:
    """The game the events make, every action checked again by its rules, and its snapshots on the way."""
    game: Any = None
    snapshots = []
    checking = CHECK_ON_FOLD.set(True)
    try:
        for stored in events:
            if not is_game_event_topic(stored.topic):
                number, topic = stored.originator_version, stored.topic[:80]
                raise BundleError(f"event {number} has the topic {topic!r}, which is no game event's")
            event: Any = mapper.to_domain_event(stored)
            _check_fields(event)
            if (game is None) != isinstance(event, Game.Started):
                raise BundleError(f"event {stored.originator_version}: a game starts with its setup, and only once")
            if game is None:
                _check_setup(event)
            game = event.mutate(game)
            if game.version % SNAPSHOT_INTERVAL == 0:
                snapshots.append(GameSnapshot.take(game))
    except BundleError:
        raise
    except RuleViolation as violation:
        raise BundleError(f"event {stored.originator_version} is not legal: {violation}") from None
    except UNFOLDABLE as error:
        problem = f"{type(error).__name__}: {error}"[:300]
        raise BundleError(f"event {stored.originator_version} cannot be read ({problem})") from None
    finally:
        CHECK_ON_FOLD.reset(checking)
    if not isinstance(game, Game):
        raise BundleError("the bundle does not start a game")
    return game, snapshots


def in_batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class PreparedGame(NamedTuple):
    """A game ready to be written as it is: its receipt, stored events and stored snapshots."""

    receipt: Receipt
    events: list[StoredEvent]
    snapshots: list[StoredEvent]


def bundle_game(mapper: Mapper[UUID], data: bytes) -> PreparedGame:
    """A bundle read and verified: its hash chain holds and every action is legal where it stands."""
    events = read_bundle(data)
    verify_chain(events)
    game, snapshots = fold(mapper, events)
    check_sealed_text_its_own(mapper, events, game.id)
    sealed = [sealed_by(mapper, event, IMPORTED) for event in events]
    return PreparedGame(Receipt.of(game), sealed, [mapper.to_stored_event(s) for s in snapshots])


def check_sealed_text_its_own(mapper: Mapper[UUID], events: Sequence[StoredEvent], game_id: UUID) -> None:
    """Refused (BundleError) unless every sealed text the bundle's events hold was sealed for its own game: a text
    sealed for another is opened by no answer about this one."""
    own = game_owner(game_id)
    for event in events:
        foreign = sealed_owners(vars(mapper.to_domain_event(event))) - {own}
        if foreign:
            raise BundleError(f"event {event.originator_version} holds sealed text of another game or person")


def notation_game(
    mapper: Mapper[UUID], text: str, base: Path | None = None, again: bool = False, files: bool = True
) -> PreparedGame:
    """A game file recorded as a game, every action checked. Its id is that of its content (ruleset, kit,
    players, options and actions), so that the same game imported twice is found stored already; `again` gives
    it a new id, to store a copy. Without `files`, its kit is a built-in one: no file is read for it."""
    sealed = getattr(mapper, "sealer", None) is not None
    game = game_from_notation(text, base, sealed=sealed, again=again, files=files)
    events = [imported_by(mapper, event) for event in game.collect_events()]
    snapshots = [mapper.to_stored_event(snapshot) for snapshot in game.snapshots_due]
    return PreparedGame(Receipt.of(game), events, snapshots)


def store_game(ledger: Ledger, game: PreparedGame, recorder_token: str | None = None) -> Receipt:
    """One prepared game stored in one transaction, with its recorder token's digest if one is given; a game the
    ledger holds already is not stored again (its receipt says so)."""
    if ledger.queries.stored_among([game.receipt.game_id]):
        return _already(ledger, game.receipt)
    access = [GameAccess.grant(game.receipt.game_id, recorder_token)] if recorder_token is not None else []
    granted = [imported_by(ledger.store.mapper, event) for aggregate in access for event in aggregate.collect_events()]
    ledger.commands.insert_stored_events([*game.events, *granted], game.snapshots)
    return game.receipt


def import_bundles(
    ledger: Ledger, bundles: Iterable[bytes], batch: int = IMPORT_BATCH, workers: int | None = 1
) -> list[Receipt]:
    """Verify and store whole games, `batch` games to a transaction: nothing of a batch with a bad bundle."""
    return _import(ledger, bundle_game, bundles, batch, workers)


def export_notation(ledger: Ledger, game_id: UUID) -> str:
    """The game as a notation file, whole: the game file its recorder is given (`game_file_for`), which importing
    makes the same events of."""
    return game_file_for(RECORDER, ledger, ledger.queries.game(game_id)).content


def import_notation(ledger: Ledger, text: str, base: Path | None = None, again: bool = False) -> Receipt:
    """A game file recorded as a new game: every action checked, all stored or none (nothing if it is stored
    already, unless `again`)."""
    return import_notations(ledger, [text], base=base, again=again)[0]


def import_notations(
    ledger: Ledger,
    texts: Iterable[str],
    base: Path | None = None,
    batch: int = IMPORT_BATCH,
    workers: int | None = 1,
    again: bool = False,
) -> list[Receipt]:
    """Game files recorded as new games, `batch` games to a transaction; an illegal action stops the import
    with the games of earlier batches stored. A game stored already is not stored again, unless `again`."""
    return _import(ledger, partial(notation_game, base=base, again=again), texts, batch, workers)


def import_batches(
    ledger: Ledger,
    prepare: Callable[[Mapper[UUID], T], PreparedGame],
    items: Iterable[T],
    batch: int = IMPORT_BATCH,
    workers: int | None = 1,
) -> Iterator[list[Receipt]]:
    """Each batch of items prepared, then stored in one transaction, in order: the batch's receipts as it is stored.

    `workers` processes prepare the batches ahead (all the machine's cores when None); a batch that fails in a
    worker is prepared again here, so that the error raised is the item's own."""
    for group, prepared in _prepared_batches(ledger.store.mapper, prepare, in_batches(items, batch), workers):
        with _cycle_collector_paused():
            if prepared is None:
                games = [_unpacked(*_packed(prepare(ledger.store.mapper, item))) for item in group]
            else:
                games = unpacked_games(prepared)
            stored = ledger.queries.stored_among(game.receipt.game_id for game in games)
            new = list(
                {game.receipt.game_id: game for game in reversed(games) if game.receipt.game_id not in stored}.values()
            )
            new.reverse()  # the first of the same game in the batch is stored, the others are found stored
            stored |= {game.receipt.game_id for game in new}
            if new:
                events = [event for game in new for event in game.events]
                ledger.commands.insert_stored_events(events, [stored for game in new for stored in game.snapshots])
        first = {id(game) for game in new}
        yield [game.receipt if id(game) in first else _already(ledger, game.receipt) for game in games]


def _already(ledger: Ledger, receipt: Receipt) -> Receipt:
    """The receipt of a game found stored already: as the ledger has it."""
    return replace(ledger.queries.receipt(receipt.game_id), already_stored=True)


def _import(
    ledger: Ledger,
    prepare: Callable[[Mapper[UUID], T], PreparedGame],
    items: Iterable[T],
    batch: int,
    workers: int | None,
) -> list[Receipt]:
    return [receipt for receipts in import_batches(ledger, prepare, items, batch, workers) for receipt in receipts]


Prepared = tuple[list[T], list[bytes] | None]
Ahead = tuple[list[T], list[Future[bytes | None]]]


def _prepared_batches(
    mapper: Mapper[UUID],
    prepare: Callable[[Mapper[UUID], T], PreparedGame],
    groups: Iterator[list[T]],
    workers: int | None,
) -> Iterator[Prepared[T]]:
    """The batches in order, each with its prepared games, or None where it is to be prepared by the caller.

    Each batch is shared out among the workers, so that none waits idle while another prepares the last one."""
    count = workers or os.cpu_count() or 1
    ahead_of_pool = list(islice(groups, 2))
    groups = chain(ahead_of_pool, groups)
    if count == 1 or len(ahead_of_pool) < 2:  # one batch is not worth starting processes for
        yield from ((group, None) for group in groups)
        return
    pool = ProcessPoolExecutor(count, mp_context=_worker_context(), initializer=_start_worker, initargs=(mapper,))
    try:
        ahead: deque[Ahead[T]] = deque()
        for group in groups:
            ahead.append((group, [pool.submit(_prepare_in_worker, prepare, share) for share in _shares(group, count)]))
            if len(ahead) > 2:
                yield _result(ahead.popleft())
        while ahead:
            yield _result(ahead.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class StoredGame(NamedTuple):
    """A prepared game as the import writes it: its receipt, its stored events and its stored snapshots."""

    receipt: Receipt
    events: list[StoredEvent]
    snapshots: list[StoredEvent]


def packed_games(games: Sequence[PreparedGame]) -> bytes:
    """Prepared games as a worker hands them over: each event and snapshot as a tuple of its version, topic and
    bytes (its game's id once, in the receipt), pickled: the importing thread, which stores every worker's games,
    unpickles plain tuples rather than events, with the cycle collector paused."""
    return pickle.dumps([_packed(game) for game in games], pickle.HIGHEST_PROTOCOL)


def unpacked_games(shares: Iterable[bytes]) -> list[StoredGame]:
    """The games of a batch in order, from the shares of it that workers prepared."""
    return [_unpacked(*game) for share in shares for game in pickle.loads(share)]


PackedEvents = list[tuple[int, str, bytes]]


def _packed(game: PreparedGame) -> tuple[Receipt, PackedEvents, PackedEvents]:
    return game.receipt, _plain(game.events), _plain(game.snapshots)


def _plain(events: Sequence[StoredEvent]) -> PackedEvents:
    return [(event.originator_version, event.topic, event.state) for event in events]


def _unpacked(receipt: Receipt, events: PackedEvents, snapshots: PackedEvents) -> StoredGame:
    game_id = receipt.game_id
    return StoredGame(
        receipt, [StoredEvent(game_id, *event) for event in events], [StoredEvent(game_id, *s) for s in snapshots]
    )


def _worker_context() -> multiprocessing.context.BaseContext:
    """Workers forked from this process when it runs no other thread (they start at once, with its modules and
    caches); from a fork server otherwise, since a thread may hold a lock at the moment of a fork."""
    if threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _shares(group: list[T], count: int) -> Iterator[list[T]]:
    size = -(-len(group) // count)
    return (group[start : start + size] for start in range(0, len(group), size))


def _result(entry: Ahead[T]) -> Prepared[T]:
    group, futures = entry
    shares = [future.result() for future in futures]
    prepared = [share for share in shares if share is not None]
    return group, prepared if len(prepared) == len(shares) else None


_worker_mapper: list[Mapper[UUID]] = []


def _start_worker(mapper: Mapper[UUID]) -> None:
    _worker_mapper.append(mapper)


def _prepare_in_worker(prepare: Callable[[Mapper[UUID], T], PreparedGame], group: list[T]) -> bytes | None:
    try:
        with _cycle_collector_paused():
            return packed_games([prepare(_worker_mapper[0], item) for item in group])
    except Exception:  # prepared again by the importing process, which raises the item's own error
        return None


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """A batch makes many objects and no cycles: collecting cycles as they are made only costs time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class IllegalAction(ValueError):
    """An action of a game file that its rules refuse: the line, and the violation with its ruling."""

    def __init__(self, line: ActionLine, violation: RuleViolation) -> None:
        super().__init__(f"line {line.line}: illegal action '{line.text}': {violation}")
        self.line = line
        self.violation = violation


def game_from_notation(
    text: str, base: Path | None = None, sealed: bool = False, again: bool = False, files: bool = True
) -> Game:
    """The game a file records (`sealed`: to be stored with seals), under the id of its content (a new one
    with `again`); an action the rules refuse raises IllegalAction, one unreadable GameFileError. Without
    `files`, the game file is from outside, and its kit a built-in one."""
    game_file = parse_game(text)
    header = game_file.header
    shaped = next((name for name in header.players if is_label(name)), None)
    if shaped is not None:
        raise GameFileError(1, 1, str(LabelShapedHandle(shaped)))
    document, kit = load_pinned_kit_document(game_file, base, files)
    players = [(name, None) for name in header.players]
    rules = get_ruleset(header.ruleset, header.version)
    game_id = None if again else content_id(rules, kit.content_hash, game_file)
    game = Game.start(rules, document, kit, players, header.options, sealed=sealed, game_id=game_id)
    for entry in game_file.entries:
        try:
            _record_entry(game, entry)
        except RuleViolation as violation:
            line = entry if isinstance(entry, ActionLine) else entry.action or ActionLine(entry.line, entry.kind, None)
            raise IllegalAction(line, violation) from None
        except NotationError as error:
            raise GameFileError(entry.line, error.column, str(error)) from None
        except GameTooLong:
            raise
        except ValueError as error:
            raise GameFileError(entry.line, 1, str(error)) from None
    return game


def _record_entry(game: Game, entry: ActionLine | Revision) -> None:
    if isinstance(entry, ActionLine):
        game.record(entry.text)
    elif entry.kind == "undo":
        game.undo(entry.count, entry.text)
    elif entry.kind == "note":
        game.annotate(entry.count, entry.text)
    elif entry.kind == "hidden":
        game.set_reveal_at_end(entry.text == "shown")
    elif entry.action is not None:
        game.correct(entry.action.text, entry.text)


def _entry_content(rules: Any, entry: ActionLine | Revision) -> Any:
    if isinstance(entry, ActionLine):
        return rules.format_action(entry.action)
    return [entry.kind, entry.count, entry.text, rules.format_action(entry.action.action) if entry.action else None]


IMPORTED_NAMESPACE = UUID("3f1d8a52-52b6-4c1e-9b0a-2f1f7e6c9d40")


def content_id(rules: Any, kit_hash: str, game_file: GameFile) -> UUID:
    """The id of a game file's game: the same for the same ruleset, kit, players, options and actions."""
    header = game_file.header
    actions = [rules.format_action(line.action) for line in game_file.actions]
    content: list[Any] = [rules.name, rules.version, kit_hash, list(header.players), dict(header.options), actions]
    if game_file.revisions:
        content.append([_entry_content(rules, entry) for entry in game_file.entries])
    return uuid5(IMPORTED_NAMESPACE, digest(content))


class ImportFileError(ValueError):
    """A file that cannot be imported, and why."""

    def __init__(self, path: Path, reason: Exception) -> None:
        said = (
            f"cannot read it: {reason.strerror.lower()}" if isinstance(reason, OSError) and reason.strerror else reason
        )
        super().__init__(f"{path}: {said}")
        self.path = path
        self.reason = reason


def file_game(mapper: Mapper[UUID], path: Path, again: bool = False) -> PreparedGame:
    """A game file (notation) or a bundle (BUNDLE_SUFFIX) read and checked, ready to store; `again` gives a game
    file's game a new id (a bundle keeps its game's)."""
    try:
        if path.suffix == BUNDLE_SUFFIX:
            return bundle_game(mapper, path.read_bytes())
        return notation_game(mapper, read_game_text(path), path.parent, again)
    except (OSError, ValueError) as error:
        raise ImportFileError(path, error) from None


def import_files(
    ledger: Ledger, paths: Iterable[Path], batch: int = IMPORT_BATCH, workers: int | None = None, again: bool = False
) -> Iterator[list[Receipt]]:
    """Game files and bundles stored as games, a batch at a time; a bad file raises ImportFileError naming it."""
    return import_batches(ledger, partial(file_game, again=again), paths, batch, workers)
