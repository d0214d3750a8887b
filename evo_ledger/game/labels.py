"""Seats' labels: what a game started here stores in place of each player's handle (`anon` and eight letters or
digits), and an action entered with handles put in labels."""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Iterator, Mapping
from itertools import combinations, islice
from types import MappingProxyType
from typing import Any

LABEL_PREFIX = "anon"
LABEL_LETTERS = 8
LABEL = re.compile(rf"\b{LABEL_PREFIX}[a-z2-7]{{{LABEL_LETTERS}}}\b")
# A label as a sentence may begin with it: its first letter a capital.
LABEL_IN_TEXT = re.compile(
    rf"\b[{LABEL_PREFIX[0]}{LABEL_PREFIX[0].upper()}]{LABEL_PREFIX[1:]}[a-z2-7]{{{LABEL_LETTERS}}}\b"
)
HANDLE_WORD = re.compile(r"[a-z][a-z0-9_]*")
NO_LABELS: Mapping[str, str] = MappingProxyType({})


def new_label() -> str:
    letters = base64.b32encode(secrets.token_bytes(5)).decode().lower()
    return f"{LABEL_PREFIX}{letters[:LABEL_LETTERS]}"


def is_label(name: str) -> bool:
    return LABEL.fullmatch(name) is not None


def spoken_as_labels(action: str | Mapping[str, Any], labels: Mapping[str, str]) -> Any:
    """An action as entered (notation, or data), with each word that is a seated handle (`labels`: each handle's
    label) put as its seat's label."""
    if not labels:
        return action
    if isinstance(action, str):
        return HANDLE_WORD.sub(lambda word: labels.get(word.group(), word.group()), action)
    return _data_as_labels(action, labels)


MAX_READINGS = 64


def readings(action: str | Mapping[str, Any], labels: Mapping[str, str]) -> Iterator[Any]:
    """An action as entered, in each way its handles may be read, the likeliest first: every word that is a seated
    handle put as its seat's label, then fewer of them, down to none (a handle spelt as a word of the notation, a
    player named `eggs` bidding on eggs). At most MAX_READINGS."""
    if not labels:
        yield action
        return
    if not isinstance(action, str):
        paths = list(_handle_paths(action, labels))
        for chosen in _ways(len(paths)):
            yield _data_with_labels(action, {paths[place] for place in chosen}, labels)
        return
    spots = [found for found in HANDLE_WORD.finditer(action) if found.group() in labels]
    for chosen in _ways(len(spots)):
        yield _with_labels(action, [spot for place, spot in enumerate(spots) if place in chosen], labels)


def _ways(count: int) -> Iterator[set[int]]:
    """Which of `count` places to take, all first, then fewer, down to none: at most MAX_READINGS ways."""
    every = (set(chosen) for size in range(count, -1, -1) for chosen in combinations(range(count), size))
    return islice(every, MAX_READINGS)


Path = tuple[Any, ...]


def _handle_paths(value: Any, labels: Mapping[str, str], path: Path = ()) -> Iterator[Path]:
    """Where a value (an action as data) holds a seated handle as a whole string."""
    if isinstance(value, str):
        if value in labels:
            yield path
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _handle_paths(item, labels, (*path, key))
    elif isinstance(value, list | tuple):
        for place, item in enumerate(value):
            yield from _handle_paths(item, labels, (*path, place))


def _data_with_labels(value: Any, chosen: set[Path], labels: Mapping[str, str], path: Path = ()) -> Any:
    if isinstance(value, str):
        return labels[value] if path in chosen else value
    if isinstance(value, Mapping):
        return {key: _data_with_labels(item, chosen, labels, (*path, key)) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_data_with_labels(item, chosen, labels, (*path, place)) for place, item in enumerate(value)]
    return value


def _with_labels(action: str, spots: list[re.Match[str]], labels: Mapping[str, str]) -> str:
    parts, end = [], 0
    for spot in spots:
        parts += [action[end : spot.start()], labels[spot.group()]]
        end = spot.end()
    return "".join([*parts, action[end:]])


def _data_as_labels(value: Any, labels: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return labels.get(value, value)
    if isinstance(value, Mapping):
        return {key: _data_as_labels(item, labels) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_data_as_labels(item, labels) for item in value]
    return value
