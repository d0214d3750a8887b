"""`evo-ledger dataset`'s work: the whole ledger written into a folder as Parquet files for analysis (DuckDB,
Polars, pandas, Spark), as every reader of the service may see it: each game's events, the read tables, the people
and the competitions' standings (`dataset_rows` says what each holds, `dataset_files` where it goes,
`dataset_readme` what the folder's README says).

The folder's `manifest.json` says which ledger the dataset is of, how far its log was read, which files the dataset
holds, and how many events of each game its files hold, with a digest of them. A run that adds to a dataset
(`since`) is refused on another ledger's dataset, and reads the log after that position: a game with an event since
(its own, or its access record's) is read again; its new events go into a new part of its partition when its earlier
ones stand as they were written, and its partition is written again whole when they do not (a hidden action
revealed, the game made private), as is a partition a part of which is missing from the folder. An erasure since
makes every file again. The read tables, the people and the standings change in place: every run writes them whole.

One run at a time writes into a folder: it holds the folder's lock. It writes every file into the folder's hidden
staging folder, then moves them into their places, writes the manifest, and removes the files the manifest no
longer names; only in that moment at its end may a reader find files of two runs side by side (a part beside the
one it replaces: rows twice). A run stopped before that moment leaves the dataset as the last run left it; one
stopped in it leaves some of its files in place, and the next run removes, as it starts, the parts the manifest does
not name (as it ends, where there is no manifest yet)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

from sqlalchemy import Connection

from evo_ledger.app.access import access_id
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.people import Person
from evo_ledger.app.readers import utc_now
from projections.dataset_files import (
    A_LINK,
    EVENT_SCHEMA,
    EVENTS,
    LOCK,
    MANIFEST,
    MONTH_SHAPE,
    OWN_NAMES,
    PEOPLE_FILE,
    PEOPLE_SCHEMA,
    PERSON_SEATS_FILE,
    PERSON_SEATS_SCHEMA,
    README,
    RULESET_SHAPE,
    SINGLE_FILES,
    STANDINGS_FILE,
    STANDINGS_SCHEMA,
    DatasetRefused,
    Files,
    Parts,
    dataset_tables,
    held_lock,
    is_dataset_file,
    part_of,
    part_path,
    partitioned,
    partitioned_folders,
    single_path,
    table_schema,
)
from projections.dataset_readme import readme
from projections.dataset_rows import (
    GameEvents,
    Partition,
    competition_standings,
    game_events,
    partitions,
    people,
    rows_by_partition,
    table_rows,
)
from projections.runner import Projector
from projections.store import ReadStore, position_in

__all__ = [
    "DatasetRefused",
    "Manifest",
    "Mode",
    "Progress",
    "Summary",
    "checked_folder",
    "no_progress",
    "write_checked",
    "write_dataset",
]

FORMAT = "evo-ledger dataset"
FORMAT_VERSION = 1
Mode = Literal["new", "since", "replace"]
Progress = Callable[[str, int, int], None]
"""Told how far a run is: the stage (`log`: the read tables brought up to date; `games`: the games' events read;
`tables`: the read tables written), and how many of how many are done."""


def no_progress(stage: str, done: int, total: int) -> None:
    """Told nothing."""


@dataclass(frozen=True)
class Written:
    """A game's events the dataset holds: the partition they are in, how many, and a digest of them."""

    partition: Partition
    events: int
    digest: str

    @classmethod
    def of(cls, found: GameEvents) -> Written:
        return cls(found.partition, len(found.rows), found.digest(len(found.rows)))


@dataclass(frozen=True)
class Manifest:
    """What a dataset's folder holds (`manifest.json`): the run that wrote it last, from 1; how far it read the log
    and the read tables; when; the ledger it is of (`ledger_identity`); its files, from the folder; and each game's
    events in its files."""

    run: int
    log_position: int
    read_position: int
    written_at: str
    ledger: str | None
    files: tuple[str, ...]
    games: Mapping[str, Written]

    def text(self) -> str:
        games = {game: [w.partition.ruleset, w.partition.month, w.events, w.digest] for game, w in self.games.items()}
        return json.dumps(
            {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "run": self.run,
                "log_position": self.log_position,
                "read_position": self.read_position,
                "written_at": self.written_at,
                "ledger": self.ledger,
                "files": list(self.files),
                "games": games,
            },
            indent=1,
        )

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """The manifest at `path`, each of its fields checked (DatasetRefused naming it: not a dataset's manifest,
        one another version wrote, or one that holds what no run writes)."""
        found = manifest_json(path)
        if found.get("version") != FORMAT_VERSION:
            raise DatasetRefused(
                f"{path}: a dataset of version {short(found.get('version'))}, not {FORMAT_VERSION}: --replace writes "
                "it again"
            )
        fields = ManifestFields(path, found)
        return cls(
            fields.count("run", least=1),
            fields.count("log_position"),
            fields.count("read_position"),
            fields.text("written_at"),
            fields.ledger(),
            fields.files(),
            fields.games(),
        )


def manifest_json(path: Path) -> dict[str, Any]:
    """The manifest's JSON, where it is a dataset's."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise not_a_manifest(path, str(error)) from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise not_a_manifest(path, f"it names no {FORMAT}")
    return found


def not_a_manifest(path: Path, why: str) -> DatasetRefused:
    return DatasetRefused(f"{path}: not a dataset's manifest ({why}): --replace writes it again")


def short(value: Any) -> str:
    """A value as JSON writes it, cut short where it is long."""
    said = json.dumps(value, ensure_ascii=False)
    return said if len(said) <= 60 else f"{said[:57]}..."


def whole_number(value: Any, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


@dataclass(frozen=True)
class ManifestFields:
    """A manifest's JSON, each field read where it holds what a run writes there (DatasetRefused naming the
    manifest and the field where it does not)."""

    path: Path
    found: dict[str, Any]

    def count(self, key: str, least: int = 0) -> int:
        value = self.found.get(key)
        if not whole_number(value, least):
            raise self.wrong(f"`{key}` is {short(value)}, not a whole number from {least}")
        return int(self.found[key])

    def text(self, key: str) -> str:
        value = self.found.get(key)
        if not isinstance(value, str):
            raise self.wrong(f"`{key}` is {short(value)}, not a text")
        return value

    def ledger(self) -> str | None:
        if "ledger" not in self.found:
            raise self.wrong("it names no `ledger`")
        value = self.found["ledger"]
        if value is not None and not (isinstance(value, str) and re.fullmatch("[0-9a-f]{32}", value)):
            raise self.wrong(f"`ledger` is {short(value)}, not a ledger's identity")
        return value

    def files(self) -> tuple[str, ...]:
        """The files, each of a shape the dataset writes and inside the folder (by its resolved path)."""
        value = self.found.get("files")
        if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
            raise self.wrong(f"`files` is {short(value)}, not a list of the dataset's files")
        folder = self.path.parent.resolve()
        for name in value:
            if not is_dataset_file(name):
                raise self.wrong(f"`files` names {json.dumps(name)}, not a file the dataset writes")
            if not (folder / name).resolve().is_relative_to(folder):
                raise self.wrong(f"`files` names {json.dumps(name)}, which lies outside the folder")
        return tuple(value)

    def games(self) -> dict[str, Written]:
        """Each game, by its id, with the partition of its events, how many and their digest."""
        value = self.found.get("games")
        if not isinstance(value, dict):
            raise self.wrong(f"`games` is {short(value)}, not a map of games")
        return {self.game_id(game): self.written(game, held) for game, held in value.items()}

    def game_id(self, game: str) -> str:
        try:
            if str(UUID(game)) == game:
                return game
        except ValueError:
            pass
        raise self.wrong(f"`games` names {short(game)}, not a game's id")

    def written(self, game: str, held: Any) -> Written:
        if (
            isinstance(held, list)
            and len(held) == 4
            and isinstance(held[0], str)
            and re.fullmatch(RULESET_SHAPE, held[0])
            and isinstance(held[1], str)
            and re.fullmatch(MONTH_SHAPE, held[1])
            and whole_number(held[2])
            and isinstance(held[3], str)
        ):
            return Written(Partition(held[0], held[1]), held[2], held[3])
        raise self.wrong(f"`games` holds {short(held)} for {game}, not its ruleset, month, events and digest")

    def wrong(self, why: str) -> DatasetRefused:
        return not_a_manifest(self.path, why)


@dataclass(frozen=True)
class Summary:
    """What a run did: its number; whether it wrote every file (`whole`); the games the dataset holds, and of them
    those it wrote events of; the events it wrote; the partitions of events it wrote again whole; the files it
    wrote; how far it read the log and the read tables."""

    folder: Path
    run: int
    whole: bool
    games: int
    games_written: int
    events_written: int
    partitions_rewritten: int
    files_written: int
    log_position: int
    read_position: int


def write_dataset(
    ledger: Ledger,
    store: ReadStore,
    folder: Path,
    mode: Mode = "new",
    progress: Progress = no_progress,
    clock: Callable[[], datetime] = utc_now,
) -> Summary:
    """The dataset written into `folder`: a new one (`new`: refused where the folder holds one), what is new since
    the last run added to it (`since`: a new one where the folder holds none), or written again (`replace`).
    DatasetRefused where the folder cannot hold it (`checked_folder`), or another run writes into it."""
    checked_folder(folder, mode)
    return write_checked(ledger, store, folder, mode, progress, clock)


def write_checked(
    ledger: Ledger,
    store: ReadStore,
    folder: Path,
    mode: Mode = "new",
    progress: Progress = no_progress,
    clock: Callable[[], datetime] = utc_now,
) -> Summary:
    """The dataset written into a folder `checked_folder` let through, before the ledger was opened: the folder made
    where it is not there, and written while the run holds its lock (DatasetRefused where another run holds it).
    Under the lock its manifest is read again (another run may have written one meanwhile), but what else it holds
    is not asked again: the database the run opened may lie in it. The read tables are brought up to date with the
    log first."""
    folder.mkdir(parents=True, exist_ok=True)
    with held_lock(folder):
        files = Files(folder)
        try:
            return written_run(ledger, store, files, mode, manifest_in(folder, mode), progress, clock)
        finally:
            files.clear_staging()


def written_run(
    ledger: Ledger,
    store: ReadStore,
    files: Files,
    mode: Mode,
    before: Manifest | None,
    progress: Progress,
    clock: Callable[[], datetime],
) -> Summary:
    """A run's work, under the folder's lock: refused on another ledger's dataset; the files a stopped run left
    removed; the files written into the staging folder, then moved into their places, the manifest last, and the
    files it no longer names removed."""
    log_position = ledger.store.recorder.max_notification_id() or 0
    identity = ledger_identity(ledger)
    if mode == "since" and before is not None:
        check_same_ledger(files.folder, before, identity, log_position)
    files.clear_staging()
    for name in [README, MANIFEST, *single_files()]:  # refused now, not once every file is written
        files.checked(name)
    if before is not None:
        files.remove(files.strays(before.files, own_tables(before.files)))
    Projector(ledger, store).catch_up(lambda done, last: progress("log", done, last))
    changed = None if before is None or mode == "replace" else changes_since(ledger, before.log_position, log_position)
    run = before.run + 1 if before is not None else 1
    events = EventsRun(ledger, files, run, clock, progress)
    events.write(before if changed is not None else None, changed)
    tables, read_position = write_tables(ledger, store, files, run, progress)
    kept = [name for name in before.files if name.startswith(f"{EVENTS}/")] if before and changed is not None else []
    held = sorted(set(kept) - events.replaced | set(events.files) | set(tables))
    manifest = Manifest(run, log_position, read_position, clock().isoformat(), identity, tuple(held), events.games)
    earlier = set(before.files) if before is not None else set()
    removed = earlier - set(held) | set(files.strays(held, own_tables([*earlier, *held])))
    files.write_text(README, readme(position_line(manifest)))
    files.write_text(MANIFEST, manifest.text())
    files.commit([*events.files, *tables, README], MANIFEST, sorted(removed))
    return Summary(
        files.folder,
        run,
        changed is None,
        len(events.games),
        events.games_written,
        events.rows,
        len(events.rewritten),
        len(events.files) + len(tables),
        log_position,
        read_position,
    )


def ledger_identity(ledger: Ledger) -> str | None:
    """What tells the ledger from any other: a digest of its log's first event (the id of what it is an event of,
    its version, its topic and the moment it was stored), which no later event, and no migration of the stored
    form, changes; None while the log is empty."""
    first = ledger.store.recorder.select_notifications(start=None, limit=1)
    if not first:
        return None
    event: Any = ledger.store.mapper.to_domain_event(first[0])
    said = [str(first[0].originator_id), first[0].originator_version, first[0].topic, event.timestamp.isoformat()]
    return hashlib.sha256(json.dumps(said).encode()).hexdigest()[:32]


def check_same_ledger(folder: Path, before: Manifest, identity: str | None, log_position: int) -> None:
    """DatasetRefused where the dataset is of another ledger, or read further in the log than it goes here."""
    if before.ledger is not None and before.ledger != identity:
        raise DatasetRefused(
            f"{folder}: the dataset of another ledger ({before.ledger}; this one is {identity or 'empty'}): "
            "--replace writes it again from this one"
        )
    if before.log_position > log_position:
        raise DatasetRefused(
            f"{folder}: written up to position {before.log_position} of a log that ends at {log_position} here: "
            "--replace writes it again from this one"
        )


def single_files() -> list[str]:
    """The files every run writes whole, besides the README and the manifest: the single files."""
    tables = [table.name for table in dataset_tables() if not partitioned(table)]
    return [single_path(name) for name in [*tables, *SINGLE_FILES]]


def own_tables(names: Iterable[str]) -> set[str]:
    """The folders of the tables whose partitions the dataset writes: its events', each partitioned table's, and
    those of the parts among `names`."""
    return {EVENTS, *(table.name for table in dataset_tables() if partitioned(table)), *partitioned_folders(names)}


def checked_folder(folder: Path, mode: Mode) -> Manifest | None:
    """The manifest of the dataset the folder holds (None: it holds none, or is not there yet), where a run of
    `mode` may write into it; DatasetRefused naming the folder where it may not. A folder without a manifest is
    taken where it holds nothing but what a run makes first (`OWN_NAMES`), or holds the lock a run made in it (a run
    began writing there: a first run stopped). Nothing is made, nor is the database opened: a folder refused is left
    as it was."""
    if not folder.exists():
        check_can_make(folder)
        return None
    if not folder.is_dir():
        raise DatasetRefused(f"{folder}: not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DatasetRefused(f"{folder}: not writable")
    if os.path.lexists(folder / MANIFEST):
        return manifest_in(folder, mode)
    names = {entry.name for entry in folder.iterdir()}
    if names - OWN_NAMES and LOCK not in names:
        raise DatasetRefused(f"{folder}: neither empty nor a dataset (no {MANIFEST}): give a new or empty folder")
    return None


def manifest_in(folder: Path, mode: Mode) -> Manifest | None:
    """The manifest of the dataset the folder holds (None: it holds none, or one `replace` cannot read), where a run
    of `mode` may write into it: DatasetRefused where the folder holds a dataset and the run is to write a new one,
    or where `since` cannot read the manifest."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        raise DatasetRefused(f"{path}: {A_LINK if path.is_symlink() else 'not a file'}")
    if mode == "new":
        raise DatasetRefused(
            f"{folder}: holds a dataset already: --since adds what is new to it, --replace writes it again"
        )
    return Manifest.read(path) if mode == "since" else replaced(path)


def check_can_make(folder: Path) -> None:
    """DatasetRefused where a folder not there cannot be made: the nearest folder above it that is there is a file,
    or not writable."""
    above = next(parent for parent in folder.absolute().parents if parent.exists())
    if not above.is_dir():
        raise DatasetRefused(f"{folder}: cannot be made: {above} is not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise DatasetRefused(f"{folder}: cannot be made: {above} is not writable")


def replaced(path: Path) -> Manifest | None:
    """The manifest of a dataset to be written again, whose files are removed once the new ones are in place; None
    where it cannot be read (then the files removed are the parts in its tables' partitions the new manifest does not
    name)."""
    try:
        return Manifest.read(path)
    except DatasetRefused:
        return None


def position_line(manifest: Manifest) -> str:
    return (
        f"Run {manifest.run}, written at {manifest.written_at}: the log up to position {manifest.log_position}, the "
        f"read tables at position {manifest.read_position}."
    )


def changes_since(ledger: Ledger, position: int, last: int) -> set[UUID] | None:
    """The games whose events, or whose access records, the log holds after `position` and up to `last`; None
    where a person was erased meanwhile (then every file is made again, so that none keeps what was erased)."""
    changed: set[UUID] = set()
    for notification in ledger.queries.notifications_after(position):
        if notification.id > last:
            break
        if notification.topic == Person.Erased.TOPIC:
            return None
        changed.add(UUID(str(notification.originator_id)))
    games = list(ledger.queries.game_ids())
    return {game for game in games if game in changed or access_id(game) in changed}


@dataclass
class EventsRun:
    """The games' events written by one run: each game's as every reader is given it, into the parts of the run."""

    ledger: Ledger
    dataset: Files
    run: int
    clock: Callable[[], datetime]
    progress: Progress
    games: dict[str, Written] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    replaced: set[str] = field(default_factory=set)
    rewritten: set[Partition] = field(default_factory=set)
    rows: int = 0
    games_written: int = 0

    def write(self, before: Manifest | None, changed: set[UUID] | None) -> None:
        """Every game's events (`before` None), or those of the `changed` games added to the dataset `before`, with
        the partitions written again whole whose parts are not all in the folder."""
        if before is None or changed is None:
            self._write_games(list(self.ledger.queries.game_ids()))
            return
        self.games = dict(before.games)
        self.rewritten = self._missing(before)
        appended: dict[Partition, list[GameEvents]] = {}
        for done, game_id in enumerate(sorted(changed), 1):
            self._read_again(str(game_id), appended)
            self.progress("games", done, len(changed))
        self.replaced = {
            name for name in before.files for partition in self.rewritten if name.startswith(events_folder(partition))
        }
        whole = [UUID(game) for game, written in self.games.items() if written.partition in self.rewritten]
        self._write_games(whole, appended)

    def _missing(self, before: Manifest) -> set[Partition]:
        """The partitions of events a part of which the manifest names but the folder does not hold."""
        return {
            found[1]
            for name in before.files
            if (found := part_of(name)) is not None and found[0] == EVENTS and not self.dataset.present(name)
        }

    def _read_again(self, game_id: str, appended: dict[Partition, list[GameEvents]]) -> None:
        """A changed game read again: its new events to be appended where those written stand, its partition to be
        written again where they do not."""
        found = game_events(self.ledger, UUID(game_id), self.clock)
        old = self.games.pop(game_id, None)
        if found is not None:
            self.games[game_id] = Written.of(found)
        if found is not None and (old is None or stands(old, found)):
            new = found.rows[old.events :] if old is not None else found.rows
            appended.setdefault(found.partition, []).append(GameEvents(game_id, found.partition, new))
        elif old is not None:
            self.rewritten.update([old.partition, *([found.partition] if found is not None else [])])

    def _write_games(
        self, game_ids: Sequence[UUID], appended: Mapping[Partition, list[GameEvents]] | None = None
    ) -> None:
        """The games' events written whole into the run's parts (a partition's every game), then the `appended`
        events of the partitions not written whole, each partition's into the run's part of it."""
        parts = Parts(self.dataset)
        try:
            for done, game_id in enumerate(game_ids, 1):
                found = game_events(self.ledger, game_id, self.clock)
                if found is None:
                    self.games.pop(str(game_id), None)
                else:
                    self.games[found.game_id] = Written.of(found)
                    self._add(parts, found)
                self.progress("games", done, len(game_ids))
            for partition, games in sorted((appended or {}).items()):
                for found in games if partition not in self.rewritten else ():
                    self._add(parts, found)
            self.files = parts.close()
        finally:
            parts.abandon()

    def _add(self, parts: Parts, found: GameEvents) -> None:
        if found.rows:
            parts.add(part_path(EVENTS, found.partition, self.run), EVENT_SCHEMA, found.rows)
            self.rows += len(found.rows)
            self.games_written += 1


def events_folder(partition: Partition) -> str:
    return f"{EVENTS}/{partition.folder}/"


def stands(old: Written, found: GameEvents) -> bool:
    """Whether the events of a game the dataset holds stand as they were written: in the same partition, as many or
    more of them, the first ones the same."""
    return old.partition == found.partition and old.events <= len(found.rows) and found.digest(old.events) == old.digest


def write_tables(ledger: Ledger, store: ReadStore, files: Files, run: int, progress: Progress) -> tuple[list[str], int]:
    """The read tables, the people and the standings written into the staging folder, read as one transaction: the
    files written, from the folder, and the read tables' position."""
    tables = dataset_tables()
    written: list[str] = []
    with store.at_once() as connection:
        position = position_in(connection)
        partition_of = partitions(connection)
        for done, table in enumerate(tables, 1):
            written.extend(write_table(ledger, connection, files, table, partition_of, run))
            progress("tables", done, len(tables) + 1)
        shown = people(ledger, connection)
        written.append(files.write(single_path(PEOPLE_FILE), PEOPLE_SCHEMA, shown.people))
        written.append(files.write(single_path(PERSON_SEATS_FILE), PERSON_SEATS_SCHEMA, shown.seats))
        standings = competition_standings(ledger, connection)
        written.append(files.write(single_path(STANDINGS_FILE), STANDINGS_SCHEMA, standings))
        progress("tables", len(tables) + 1, len(tables) + 1)
    return written, position


def write_table(
    ledger: Ledger, connection: Connection, files: Files, table: Any, partition_of: dict[str, Partition], run: int
) -> list[str]:
    """A read table's rows every reader gets, written: into the run's part of each of their games' partitions, or
    into a single file."""
    schema = table_schema(table)
    if not partitioned(table):
        rows = [row for page in table_rows(ledger, connection, table) for row in page]
        return [files.write(single_path(table.name), schema, rows)]
    parts = Parts(files)
    try:
        for page in table_rows(ledger, connection, table):
            for partition, rows in rows_by_partition(page, partition_of).items():
                parts.add(part_path(table.name, partition, run), schema, rows)
        return parts.close()
    finally:
        parts.abandon()
