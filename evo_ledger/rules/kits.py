"""Kits: the physical components of a game as JSON documents, each naming the ruleset that reads it.

A kit's `ruleset` (in island kits of format 1, `edition`) names its ruleset, which parses and checks the rest
(`Ruleset.parse_kit`). The content hash is over the canonical JSON, whatever the ruleset: a game pins it, so that
its replay never changes when a kit file does. Built-in kits ship in the `kits` folder of their
ruleset's package.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, NoReturn

from evo_ledger.rules.base import SetupError
from evo_ledger.rules.contract import AnyRuleset, package_file
from evo_ledger.rules.registry import UnknownRuleset, get_ruleset, rulesets

# The keys that may name a kit's ruleset: `edition` in the island kits written before there were other rulesets.
RULESET_KEYS = ("ruleset", "edition")


# A kit error's message as `KitReader.fail` writes it: the kit's label, then the field, then what is wrong.
FIELD_OF_MESSAGE = re.compile(r"""^kit (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"): ([A-Za-z_][\w.\[\]-]*): """)


class KitError(ValueError):
    """A kit that cannot be used; the message names the kit, the field and what is wrong. `field` is the field it
    names (`spaces[3].terrain`, `start_marks.2`), given or read from the message; None where it names none."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        found = FIELD_OF_MESSAGE.match(message)
        self.field = field if field is not None else (found.group(1) if found else None)


def canonical_hash(document: Mapping[str, Any]) -> str:
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        raise KitError("kit: a string holds a lone surrogate (\\ud800 to \\udfff), which is no text") from None


def ruleset_of_kit(document: Any, label: str = "kit") -> str:
    """The name of the ruleset a kit document is for."""
    if isinstance(document, dict):
        for key in RULESET_KEYS:
            if isinstance(document.get(key), str) and document[key]:
                return str(document[key])
    raise KitError(f"kit {label!r}: document: must be an object naming its ruleset in 'ruleset'")


def ruleset_for_kit(document: Any, label: str, named: str | None = None) -> AnyRuleset:
    """The ruleset the kit is for; one `named` by a caller must be that one."""
    found = ruleset_of_kit(document, label)
    if named is not None and named != found:
        raise SetupError(f"kit {label!r} is for ruleset {found}, not {named}")
    return get_ruleset(found)


def parse_kit(document: Any, label: str = "kit") -> Any:
    """The kit a document describes, checked by the ruleset it names."""
    name = ruleset_of_kit(document, label)
    try:
        ruleset = get_ruleset(name)
    except UnknownRuleset as error:
        raise KitError(f"kit {label!r}: {error}") from None
    return ruleset.parse_kit(document, label)


@cache
def _builtin_kits() -> dict[str, Traversable]:
    return {name: path for ruleset in rulesets().values() for name, path in builtin_kits(ruleset).items()}


def builtin_kits(ruleset: AnyRuleset) -> dict[str, Traversable]:
    """The kits a ruleset ships: the JSON files in the `kits` folder of its package, if it has one."""
    folder = package_file(ruleset, "kits")
    if folder is None:
        return {}
    return {path.name.removesuffix(".json"): path for path in folder.iterdir() if path.name.endswith(".json")}


def builtin_kit_names() -> list[str]:
    return sorted(_builtin_kits())


def builtin_kit_of_hash(kit_hash: str) -> str | None:
    """The name of the built-in kit whose content hash is `kit_hash`, if one is."""
    return _builtin_hashes().get(kit_hash)


@cache
def _builtin_hashes() -> dict[str, str]:
    return {canonical_hash(json.loads(_builtin_kit_text(name))): name for name in _builtin_kits()}


def load_kit(reference: str) -> Any:
    """Load a kit by built-in name (`standin-e2-3p`) or by the path of a JSON file."""
    return load_kit_document(reference)[1]


def load_kit_document(reference: str, files: bool = True) -> tuple[dict[str, Any], Any]:
    """The kit's JSON document as written, and the kit it describes: a built-in kit by name or, with `files`, a
    kit file by its path (a game file from outside names a built-in kit: no file is read for it)."""
    if reference in _builtin_kits():
        text = _builtin_kit_text(reference)
    elif not files:
        known = ", ".join(builtin_kit_names())
        raise KitError(f"kit {reference[:80]!r}: no such built-in kit ({known}); a kit of one's own comes in a bundle")
    else:
        text = _kit_file_text(reference)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise KitError(f"kit {reference!r}: not valid JSON: {error}") from None
    return document, _parsed_kit(text, reference)


# A kit is a few kilobytes: a larger file is no kit.
MAX_KIT_BYTES = 1_000_000


def _kit_file_text(reference: str) -> str:
    path = Path(reference)
    if not path.is_file():
        known = ", ".join(builtin_kit_names())
        raise KitError(f"kit {reference!r}: no such built-in kit ({known}) and no such file")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_KIT_BYTES + 1)
        if len(data) > MAX_KIT_BYTES:
            raise KitError(f"kit {reference!r}: the file is over {MAX_KIT_BYTES} bytes, which no kit is")
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise KitError(f"kit {reference!r}: not a text kit file: byte {error.start:,} is not UTF-8 text") from None
    except OSError as error:
        raise KitError(f"kit {reference!r}: the file cannot be read: {error.strerror or error}") from None


@cache
def _builtin_kit_text(name: str) -> str:
    """A kit installed with a ruleset: read once (an import reads it for every game)."""
    return _builtin_kits()[name].read_text(encoding="utf-8")


@lru_cache(maxsize=64)
def _parsed_kit(text: str, label: str) -> Any:
    """The kit a document's text describes: parsed once per text (a kit is immutable)."""
    return parse_kit(json.loads(text), label=label)


# No count of a board game's pieces, nor a coordinate of its board, is this large.
KIT_NUMBER_LIMIT = 1000


class KitReader:
    """Typed access to a kit's JSON document for the ruleset that parses it; every failure names the field."""

    def __init__(self, label: str) -> None:
        self.label = label

    def document(self, value: Any, format_version: int) -> dict[str, Any]:
        """The kit's root object, refused unless its `format` is the one the ruleset reads."""
        root = self.mapping(value, "")
        version = self.integer(root, "format", minimum=1)
        if version != format_version:
            raise KitError(
                f"kit {self.label!r}: format {version} is not supported (this version reads {format_version})"
            )
        return root

    def fail(self, where: str, problem: str) -> NoReturn:
        raise KitError(f"kit {self.label!r}: {where or 'document'}: {problem}")

    def _path(self, where: str, key: str) -> str:
        return f"{where}.{key}" if where else key

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"must be an object, got {type(value).__name__}")
        return value

    def sequence(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, f"must be a list, got {type(value).__name__}")
        return value

    def string(self, item: Mapping[str, Any], key: str, where: str = "") -> str:
        value = item.get(key)
        if not isinstance(value, str) or not value:
            self.fail(self._path(where, key), f"must be a non-empty string, got {value!r}")
        return value

    def strings(self, item: Mapping[str, Any], key: str, where: str = "") -> list[str]:
        values = self.sequence(item.get(key), self._path(where, key))
        if not all(isinstance(v, str) and v for v in values) or len(set(values)) != len(values):
            self.fail(self._path(where, key), "must be a list of distinct non-empty strings")
        return values

    def boolean(self, item: Mapping[str, Any], key: str) -> bool:
        value = item.get(key)
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, got {value!r}")
        return value

    def choice(self, item: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str = "") -> str:
        value = item.get(key)
        if value not in allowed:
            self.fail(self._path(where, key), f"{value!r} is not one of {', '.join(allowed)}")
        return str(value)

    def integer(
        self,
        item: Mapping[str, Any],
        key: str,
        minimum: int | None = None,
        maximum: int | None = None,
        where: str = "",
        default: int | None = None,
    ) -> int:
        """A whole number within `minimum` and `maximum`, and never beyond KIT_NUMBER_LIMIT either way: a kit counts
        a game's pieces."""
        value = item.get(key, default)
        path = self._path(where, key)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(path, f"must be a whole number, got {value!r}")
        if not -KIT_NUMBER_LIMIT <= value <= KIT_NUMBER_LIMIT:
            self.fail(path, f"must be within {KIT_NUMBER_LIMIT} either side of 0, got {value}")
        if minimum is not None and value < minimum:
            self.fail(path, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            self.fail(path, f"must be at most {maximum}, got {value}")
        return value


@dataclass(frozen=True)
class PlainKit:
    """A kit with the fields the core reads and its whole document (`values`), for a ruleset whose kit is a few
    values of its own: the ruleset checks those with a `KitReader`."""

    name: str
    stand_in: bool
    players: int
    content_hash: str
    values: Mapping[str, Any]


def plain_kit(document: Any, label: str, counts: Sequence[str] = ()) -> PlainKit:
    """A kit document's `name`, `stand_in` and `players`, and each of `counts`, an integer of at least 1, checked,
    with the document itself."""
    reader = KitReader(label)
    root = reader.mapping(document, "")
    players = reader.integer(root, "players", minimum=1)
    for count in counts:
        reader.integer(root, count, minimum=1)
    return PlainKit(reader.string(root, "name"), reader.boolean(root, "stand_in"), players, canonical_hash(root), root)
