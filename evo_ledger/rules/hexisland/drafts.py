"""Kits as the kit editor draws them (`/kits/new`): hex spaces named by the islands' own scheme as they are placed,
and every check the ruleset makes of a kit run on each change.

The scheme is the shipped kits': a column letter by `q` from the leftmost column (`A`, ..., `Z`, then `AA`), and
the space's place in its column from the top, by `r` (`C4`). The page runs `checked_json` in its rules worker
(Pyodide), so that what it draws and what the server stores are named and checked by the same code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from evo_ledger.rules.kits import KitError, canonical_hash, parse_kit

# A ruling id as the rulings files write them (`E1-01`): a refusal that cites one names it.
RULING_IN_MESSAGE = re.compile(r"\b([A-Z][A-Z0-9]?-\d\d)\b")
# The fields of a hex kit that name spaces by id: a list of ids, or an object of lists of ids.
SPACE_REFERENCES = ("start_marks", "start_beaches")


def column_letters(column: int) -> str:
    """The letters of the column `column` places from the leftmost (0): A to Z, then AA, AB..."""
    letters = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def space_names(cells: Iterable[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Each cell's name: its column's letter, counted by `q` from the leftmost column, and its place in the column
    from the top, counted by `r` (the first is 1)."""
    distinct = set(cells)
    if not distinct:
        return {}
    leftmost = min(q for q, _ in distinct)
    names: dict[tuple[int, int], str] = {}
    for q in sorted({q for q, _ in distinct}):
        for place, r in enumerate(sorted(r for cq, r in distinct if cq == q), start=1):
            names[(q, r)] = f"{column_letters(q - leftmost)}{place}"
    return names


def _coordinates(space: Any) -> tuple[int, int] | None:
    if not isinstance(space, dict):
        return None
    q, r = space.get("q"), space.get("r")
    if isinstance(q, int) and isinstance(r, int) and not isinstance(q, bool) and not isinstance(r, bool):
        return q, r
    return None


def named_document(document: Any) -> Any:
    """The document with its hex spaces named by the scheme, and every start mark or beach that named a space by
    its id before naming it by its new one; a document whose spaces are not all hex cells is given back as it is."""
    if not isinstance(document, dict) or not isinstance(document.get("spaces"), list):
        return document
    cells = [_coordinates(space) for space in document["spaces"]]
    if not cells or any(cell is None for cell in cells):
        return document
    names = space_names(cell for cell in cells if cell is not None)
    renamed: dict[str, str] = {}
    spaces = []
    for space, cell in zip(document["spaces"], cells, strict=True):
        assert cell is not None
        if isinstance(space.get("id"), str):
            renamed.setdefault(space["id"], names[cell])
        spaces.append({**space, "id": names[cell]})
    named = {**document, "spaces": spaces}
    for key in SPACE_REFERENCES:
        if key in named:
            named[key] = _renamed(named[key], renamed)
    return named


def _renamed(value: Any, renamed: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, list):
        return [_renamed(item, renamed) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, renamed) for key, item in value.items()}
    return value


def problem_of(error: Exception) -> dict[str, Any]:
    """A refusal as the page shows it: the field it names (None for the document as a whole), its message, and
    the ruling its message cites, if any."""
    message = str(error)
    ruling = RULING_IN_MESSAGE.search(message)
    field = error.field if isinstance(error, KitError) else None
    return {"field": field, "message": message, "ruling": ruling.group(1) if ruling else None}


def checked(document: Any, label: str | None = None) -> dict[str, Any]:
    """The document named (`named_document`), the ruleset's refusals of it (none, or the first check it fails),
    and its content hash once the ruleset takes it."""
    named = named_document(document)
    name = named.get("name") if isinstance(named, dict) else None
    problems: list[dict[str, Any]] = []
    try:
        parse_kit(named, label or (name if isinstance(name, str) and name else "kit"))
    except KitError as error:
        problems.append(problem_of(error))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        problems.append({"field": None, "message": f"the kit cannot be read: {error}", "ruling": None})
    kit_hash = canonical_hash(named) if not problems and isinstance(named, dict) else None
    return {"document": named, "problems": problems, "kit_hash": kit_hash}


def checked_json(text: str) -> str:
    """`checked` of a kit document's JSON text, as JSON text: what the kit editor's rules worker answers."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        problem = {"field": None, "message": f"not valid JSON: {error}", "ruling": None}
        return json.dumps({"document": None, "problems": [problem], "kit_hash": None})
    return json.dumps(checked(document))
