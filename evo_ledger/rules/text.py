"""Reading actions in notation: words with their columns, and errors that say what was expected where."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

_WORD = re.compile(r"\S+")


class NotationError(ValueError):
    """Text that is not an action. `column` is 1-based within the action's text."""

    def __init__(self, column: int, expected: str, found: str) -> None:
        super().__init__(f"column {column}: expected {expected}, found {found}")
        self.column = column
        self.expected = expected
        self.found = found


@dataclass(frozen=True)
class Word:
    text: str
    column: int


class Words:
    """A cursor over the whitespace-separated words of one action."""

    def __init__(self, text: str, offset: int = 0) -> None:
        """`offset` is how many characters of the line come before `text`, for columns in errors."""
        self._source = text
        self._offset = offset
        self._words = [Word(m.group(), m.start() + 1 + offset) for m in _WORD.finditer(text)]
        self._index = 0
        self._end_column = len(text.rstrip()) + 1 + offset

    def peek(self) -> Word | None:
        return self._words[self._index] if self._index < len(self._words) else None

    def take(self, expected: str) -> Word:
        word = self.peek()
        if word is None:
            raise NotationError(self._end_column, expected, "the end of the line")
        self._index += 1
        return word

    def choice(self, choices: Collection[str], expected: str) -> str:
        word = self.take(expected)
        if word.text not in choices:
            raise NotationError(word.column, expected, repr(word.text))
        return word.text

    def integer(self, expected: str) -> int:
        word = self.take(expected)
        if not re.fullmatch(r"[-+]?\d+", word.text):
            raise NotationError(word.column, expected, repr(word.text))
        return int(word.text)

    def matching(self, pattern: re.Pattern[str], expected: str) -> str:
        word = self.take(expected)
        if not pattern.fullmatch(word.text):
            raise NotationError(word.column, expected, repr(word.text))
        return word.text

    def rest(self, pattern: re.Pattern[str], expected: str, at_least: int = 1) -> list[str]:
        items: list[str] = []
        while self.peek() is not None or len(items) < at_least:
            items.append(self.matching(pattern, expected))
        return items

    def remainder(self) -> tuple[str, int] | None:
        """The rest of the text from the next word on, with that word's column; the cursor moves to the end."""
        word = self.peek()
        if word is None:
            return None
        last = self._words[-1]
        self._index = len(self._words)
        return self._source[
            word.column - 1 - self._offset : last.column - 1 - self._offset + len(last.text)
        ], word.column

    def end(self) -> None:
        word = self.peek()
        if word is not None:
            raise NotationError(word.column, "the end of the action", repr(word.text))
