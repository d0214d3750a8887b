"""The dataset's files (`projections.dataset`): Parquet files written through pyarrow, their schemas, where each goes,
and the folder's own names. A file of rows that have a game lies in its game's partition, hive-style (`events/
ruleset=evo2/month=2026-11/part-00001.parquet`): the ruleset and the month are read from the folders' names, not
stored in the files; a table of rows without a game is a single file (`people.parquet`).

A run holds the folder's lock (`.dataset.lock`) while it writes, and writes its files into the folder's hidden
staging folder (`.dataset.unfinished`), which no reading of a table's files reaches; it moves them into their places
once it has written every one. It writes, moves and removes nothing through a symbolic link, and removes only files
of the shapes it writes, in the folders it writes them in."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from sqlalchemy import Table

from projections.dataset_rows import Partition, Row
from projections.schema import PEOPLE, PERSON_SEATS, read_tables

EVENTS = "events"
PEOPLE_FILE = "people"
PERSON_SEATS_FILE = "person_seats"
STANDINGS_FILE = "competition_standings"
PARTITION_KEYS = ("ruleset", "month")
PART_PREFIX = "part-"
SUFFIX = ".parquet"
MANIFEST = "manifest.json"
README = "README.md"
LOCK = ".dataset.lock"
"""The file a run holds locked while it writes into the folder: no other run writes into it meanwhile."""
STAGING = ".dataset.unfinished"
"""The folder a run writes its files into before it moves them into their places: hidden, and beside the tables'
folders, so that no reading of a table's files reaches it."""
OWN_NAMES = frozenset({LOCK, STAGING})
"""The names a run makes in the folder before the dataset's files: a folder holding only them is as good as empty."""
TABLE_SHAPE = r"[a-z][a-z0-9_]*"
RULESET_SHAPE = r"[A-Za-z0-9_.-]+"
MONTH_SHAPE = r"[0-9]{4}-[0-9]{2}"
PART_SHAPE = re.compile(rf"({TABLE_SHAPE})/ruleset=({RULESET_SHAPE})/month=({MONTH_SHAPE})/part-[0-9]{{5,}}\.parquet")
SINGLE_SHAPE = re.compile(rf"{TABLE_SHAPE}\.parquet")
RULESET_FOLDER = re.compile(rf"ruleset={RULESET_SHAPE}")
MONTH_FOLDER = re.compile(rf"month={MONTH_SHAPE}")
PART_FILE = re.compile(r"part-[0-9]{5,}\.parquet")
A_LINK = "a symbolic link: the dataset writes, moves and removes nothing through one"
ROW_GROUP = 50_000
"""Rows the files written at once gather before each writes its own as a row group."""
ARROW_TYPES: dict[type, Any] = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}


class DatasetRefused(ValueError):
    """A folder the dataset cannot be written into, or a dataset a run cannot add to: the message names the folder
    or the file and says why."""


def schema_of(columns: Sequence[tuple[str, Any, bool]]) -> Any:
    """A file's schema from its columns, each its name, Arrow type and whether it may be null."""
    return pa.schema([pa.field(name, kind, nullable=nullable) for name, kind, nullable in columns])


EVENT_SCHEMA = schema_of(
    [
        ("game_id", pa.string(), False),
        ("event", pa.int64(), False),
        ("kind", pa.string(), False),
        ("topic", pa.string(), False),
        ("timestamp", pa.timestamp("us", tz="UTC"), False),
        ("text", pa.string(), False),
        ("fields", pa.string(), False),
        ("hidden", pa.bool_(), False),
    ]
)
PEOPLE_SCHEMA = schema_of(
    [
        ("person_id", pa.string(), False),
        ("name", pa.string(), True),
        ("erased", pa.bool_(), False),
        ("recorded", pa.bool_(), False),
        ("games", pa.int64(), False),
    ]
)
PERSON_SEATS_SCHEMA = schema_of([("player_id", pa.string(), False), ("person_id", pa.string(), False)])
STANDINGS_SCHEMA = schema_of(
    [
        ("competition_id", pa.string(), False),
        ("place", pa.int64(), False),
        ("person_id", pa.string(), False),
        ("name", pa.string(), False),
        ("games", pa.int64(), False),
        ("wins", pa.int64(), False),
        ("points", pa.float64(), False),
        ("score", pa.int64(), False),
    ]
)
SINGLE_FILES = {PEOPLE_FILE: PEOPLE_SCHEMA, PERSON_SEATS_FILE: PERSON_SEATS_SCHEMA, STANDINGS_FILE: STANDINGS_SCHEMA}
"""The files the dataset makes of what no read table holds as it is shown: the people and the standings."""


def dataset_tables() -> list[Table]:
    """The read tables the dataset holds: every one but the people's, which it holds as the people's list shows them
    (`people.parquet`, `person_seats.parquet`)."""
    return [table for table in read_tables() if table not in (PEOPLE, PERSON_SEATS)]


def partitioned(table: Table) -> bool:
    """Whether the table's rows each have a game, and so lie in their games' partitions."""
    return "game_id" in table.c


def table_schema(table: Table) -> Any:
    """A read table's file schema: its columns with their Arrow types; a partitioned one's without its ruleset,
    which its partition's folder names."""
    return schema_of(
        [
            (column.name, ARROW_TYPES[column.type.python_type], bool(column.nullable))
            for column in table.columns
            if not (partitioned(table) and column.name in PARTITION_KEYS)
        ]
    )


def part_name(run: int) -> str:
    """The name of a part written by the dataset's run number `run`."""
    return f"{PART_PREFIX}{run:05d}{SUFFIX}"


def part_path(name: str, partition: Partition, run: int) -> str:
    """Where a run's part of a partitioned file goes, from the dataset's folder."""
    return f"{name}/{partition.folder}/{part_name(run)}"


def single_path(name: str) -> str:
    return f"{name}{SUFFIX}"


def is_dataset_file(relative: str) -> bool:
    """Whether a path, from the folder, has a shape the dataset writes its files in: a part of a table's partition
    (`events/ruleset=evo2/month=2026-11/part-00001.parquet`), or a table's single file (`people.parquet`)."""
    return PART_SHAPE.fullmatch(relative) is not None or SINGLE_SHAPE.fullmatch(relative) is not None


def part_of(relative: str) -> tuple[str, Partition] | None:
    """The table and the partition a part of a table's partition is in, from its path; None for another path."""
    found = PART_SHAPE.fullmatch(relative)
    return None if found is None else (found[1], Partition(found[2], found[3]))


def partitioned_folders(relatives: Iterable[str]) -> set[str]:
    """The tables' folders the parts among `relatives` lie in."""
    return {found[0] for relative in relatives if (found := part_of(relative)) is not None}


@contextmanager
def held_lock(folder: Path) -> Iterator[None]:
    """The folder's lock (`LOCK`) held until the block ends: DatasetRefused where another run holds it."""
    path = folder / LOCK
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise DatasetRefused(f"{path}: {A_LINK}") from None
        raise
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatasetRefused(f"another run is writing {folder}") from None
        yield
    finally:
        os.close(descriptor)


@dataclass(frozen=True)
class Files:
    """The dataset's folder: the run's files written into its staging folder and moved into their places, and the
    files the dataset holds no more removed."""

    folder: Path

    @property
    def staging(self) -> Path:
        return self.folder / STAGING

    def write(self, relative: str, schema: Any, rows: Sequence[Row]) -> str:
        """The rows written as a Parquet file into the staging folder, to go to `relative` (from the folder);
        `relative`."""
        path = self.staging / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(list(rows), schema=schema), path)
        return relative

    def write_text(self, relative: str, text: str) -> str:
        """Text written into the staging folder, to go to `relative`; `relative`."""
        path = self.staging / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return relative

    def commit(self, placed: Sequence[str], last: str, removed: Sequence[str]) -> None:
        """The staged files moved into their places, `last` after every other, then the `removed` files removed.
        Every place is checked (`checked`) before anything is moved, so that a place refused leaves the folder as it
        was."""
        moves = [(self.staging / relative, self.checked(relative)) for relative in [*placed, last]]
        gone = [self.checked(relative) for relative in removed]
        for staged, place in moves:
            place.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, place)
        self._unlink(removed, gone)

    def remove(self, relatives: Sequence[str]) -> None:
        """Files of the dataset's removed, once every one is checked (`checked`), with the partitions' folders they
        leave empty."""
        self._unlink(relatives, [self.checked(relative) for relative in relatives])

    def _unlink(self, relatives: Sequence[str], places: Sequence[Path]) -> None:
        for relative, place in zip(relatives, places, strict=True):
            place.unlink(missing_ok=True)
            for parent in list(Path(relative).parents)[:-1]:
                try:
                    (self.folder / parent).rmdir()
                except OSError:  # not empty (or no longer there, or not a folder): the folders above stay
                    break

    def checked(self, relative: str) -> Path:
        """The place of a file of the dataset's (of a shape it writes, `is_dataset_file`, or its README or manifest),
        where it can be written, replaced or removed: DatasetRefused naming the place where it, or a folder on the
        way to it, is a symbolic link, where it is a folder, where a folder on the way is not one, or where it lies
        outside the folder."""
        if not (is_dataset_file(relative) or relative in (README, MANIFEST)):
            raise DatasetRefused(f"{self.folder / relative}: not a file the dataset writes")
        place, names = self.folder, relative.split("/")
        for depth, name in enumerate(names, 1):
            place = place / name
            try:
                mode = place.lstat().st_mode
            except FileNotFoundError:
                break
            if stat.S_ISLNK(mode):
                raise DatasetRefused(f"{place}: {A_LINK}")
            if depth == len(names) and stat.S_ISDIR(mode):
                raise DatasetRefused(f"{place}: a folder, where the dataset writes a file")
            if depth < len(names) and not stat.S_ISDIR(mode):
                raise DatasetRefused(f"{place}: not a folder, where the dataset writes into one")
        found = self.folder / relative
        if not found.resolve().is_relative_to(self.folder.resolve()):
            raise DatasetRefused(f"{found}: outside {self.folder}")
        return found

    def present(self, relative: str) -> bool:
        """Whether a file of the dataset's is in its place (`checked`)."""
        return self.checked(relative).is_file()

    def clear_staging(self) -> None:
        """The staging folder removed, with whatever a run left in it."""
        try:
            mode = self.staging.lstat().st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(mode):
            raise DatasetRefused(f"{self.staging}: {A_LINK if stat.S_ISLNK(mode) else 'not a folder'}")
        shutil.rmtree(self.staging)

    def strays(self, named: Collection[str], tables: Iterable[str]) -> list[str]:
        """The parts in the partitions of `tables` (their folders' names) that are not `named`, from the folder:
        files of the shape of the dataset's parts that a run stopped before it said what it wrote, or before it
        removed what it replaced. None is sought through a symbolic link, nor in a folder that holds a manifest of
        its own (another dataset's)."""
        found: list[str] = []
        for table in sorted(set(tables)):
            for ruleset in self._entries(table, RULESET_FOLDER, stat.S_ISDIR):
                for month in self._entries(ruleset, MONTH_FOLDER, stat.S_ISDIR):
                    found.extend(self._entries(month, PART_FILE, stat.S_ISREG))
        return sorted(set(found) - set(named))

    def _entries(self, relative: str, shape: re.Pattern[str], kind: Callable[[int], bool]) -> list[str]:
        """The names of the shape and kind (by their mode) in the folder at `relative`, from the folder; none where
        it is not a folder (a symbolic link is not), or holds a manifest."""
        place = self.folder / relative
        try:
            if not stat.S_ISDIR(place.lstat().st_mode) or os.path.lexists(place / MANIFEST):
                return []
            with os.scandir(place) as entries:
                return [
                    f"{relative}/{entry.name}"
                    for entry in entries
                    if shape.fullmatch(entry.name) and kind(entry.stat(follow_symlinks=False).st_mode)
                ]
        except FileNotFoundError:
            return []


class Parts:
    """Files written a row group at a time into the staging folder, each opened as its first rows come: so that a
    file holds many games' rows without all of them held in memory at once."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.writers: dict[str, tuple[Any, list[Row]]] = {}
        self.pending = 0

    def add(self, relative: str, schema: Any, rows: Sequence[Row]) -> None:
        """The rows added to the file to go to `relative` (from the folder)."""
        if relative not in self.writers:
            path = self.files.staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[relative] = (pq.ParquetWriter(path, schema), [])
        self.writers[relative][1].extend(rows)
        self.pending += len(rows)
        if self.pending >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        """The rows each file gathered, written as a row group of it."""
        for writer, pending in self.writers.values():
            if pending:
                writer.write_table(pa.Table.from_pylist(pending, schema=writer.schema))
                pending.clear()
        self.pending = 0

    def close(self) -> list[str]:
        """Every file closed; their paths, from the folder, where they go."""
        self._flush()
        for writer, _ in self.writers.values():
            writer.close()
        written = sorted(self.writers)
        self.writers.clear()
        return written

    def abandon(self) -> None:
        """Every file left unfinished, closed (the run removes the staging folder)."""
        for writer, _ in self.writers.values():
            writer.close()
        self.writers.clear()
