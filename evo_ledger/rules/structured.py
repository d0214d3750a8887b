"""Actions as data, for clients that would rather send JSON than notation.

An action is an object with its `kind` (the notation's word: `bid`, `climate`; its class in snake case reads
too) and its fields by name: `{"kind": "bid", "player": "ann", "amount": 3, "target": "horns"}`. Lists stand
for tuples; a field that holds any one of several kinds of action is an object with a `kind` of its own. The
data is read into the ruleset's own action values, then checked by writing them in notation and reading that
back, so both forms accept exactly the same actions.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, fields, is_dataclass
from typing import Any

from evo_ledger.rules.text import NotationError

UNIONS = (types.UnionType, typing.Union)


class ActionDataError(ValueError):
    """Data that is not an action: the message names the field (`action.amount`) and what is wrong with it."""


def kind_of(action_class: type) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", action_class.__name__).lower()


class ActionForm:
    """The data form of a ruleset's actions, given the union of its action classes (or its one class) and its
    notation. An action's kind is its notation's word (`words`, by class; the class's name in snake case where none
    is given); the class's name in snake case is read too."""

    def __init__(
        self,
        actions: Any,
        parse: Callable[[str], Any],
        format: Callable[[Any], str],
        words: Mapping[type, str] | None = None,
    ) -> None:
        self.words = dict(words or {})
        self.kinds = self._kinds(typing.get_args(actions) or (actions,))
        self.parse, self.format = parse, format

    def word(self, cls: type) -> str:
        return self.words.get(cls, kind_of(cls))

    def _kinds(self, classes: Sequence[type]) -> dict[str, type]:
        """The kinds read, by word, and by class name for the words that differ from it."""
        return {**{kind_of(cls): cls for cls in classes}, **{self.word(cls): cls for cls in classes}}

    def write(self, action: Any) -> dict[str, Any]:
        """The action as data: its kind, then its fields."""
        return {"kind": self.word(type(action)), **self._fields_data(action)}

    def _fields_data(self, value: Any) -> dict[str, Any]:
        hints = _hints(type(value))
        return {field.name: self._data(getattr(value, field.name), hints[field.name]) for field in fields(value)}

    def _data(self, value: Any, hint: Any) -> Any:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is tuple:
            return [self._data(item, args[0]) for item in value]
        if value is None or not is_dataclass(value):
            return value
        classes = [arg for arg in args if arg is not type(None)] if origin in UNIONS else [hint]
        return self.write(value) if len(classes) > 1 else self._fields_data(value)

    def read(self, data: Any, where: str = "action") -> Any:
        """The action the data stands for; ActionDataError names the field that is wrong."""
        action = self._action(data, self.kinds, where)
        notation = self.format(action)
        try:
            parsed = self.parse(notation)
        except NotationError as error:
            raise ActionDataError(f"{where} reads as {notation!r}, which is not an action: {error}") from None
        if parsed != action:
            raise ActionDataError(f"{where} reads as {notation!r}, which means something else")
        return action

    def _action(self, data: Any, kinds: Mapping[str, type], where: str) -> Any:
        if not isinstance(data, Mapping):
            raise ActionDataError(f"{where}: expected an object with a 'kind', found {_shown(data)}")
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in kinds:
            expected = ", ".join(sorted({self.word(cls) for cls in kinds.values()}))
            raise ActionDataError(f"{where}.kind: expected one of {expected}, found {_shown(kind)}")
        return self._instance(kinds[kind], {k: v for k, v in data.items() if k != "kind"}, where)

    def _instance(self, cls: type, data: Mapping[str, Any], where: str) -> Any:
        hints = _hints(cls)
        known = {field.name: field for field in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ActionDataError(f"{where}: {self.word(cls)} has no field {unknown[0]!r}; it has {', '.join(known)}")
        values = {}
        for name, field in known.items():
            if name in data:
                values[name] = self._value(data[name], hints[name], f"{where}.{name}")
            elif field.default is MISSING:
                raise ActionDataError(f"{where}.{name}: missing")
        return cls(**values)

    def _value(self, data: Any, hint: Any, where: str) -> Any:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is tuple:
            if not isinstance(data, list):
                raise ActionDataError(f"{where}: expected a list, found {_shown(data)}")
            return tuple(self._value(item, args[0], f"{where}[{index}]") for index, item in enumerate(data))
        if origin in UNIONS:
            if type(None) in args and data is None:
                return None
            classes = [arg for arg in args if arg is not type(None)]
            if len(classes) == 1:
                return self._value(data, classes[0], where)
            return self._action(data, self._kinds(classes), where)
        if is_dataclass(hint):
            if not isinstance(data, Mapping):
                raise ActionDataError(f"{where}: expected an object, found {_shown(data)}")
            return self._instance(typing.cast(type, hint), data, where)
        return _scalar(data, hint, where)


def _scalar(data: Any, hint: Any, where: str) -> Any:
    if hint is int and (isinstance(data, bool) or not isinstance(data, int)):
        raise ActionDataError(f"{where}: expected a whole number, found {_shown(data)}")
    if hint is str and not isinstance(data, str):
        raise ActionDataError(f"{where}: expected text, found {_shown(data)}")
    return data


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
