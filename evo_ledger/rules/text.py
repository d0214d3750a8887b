"""Reading actions in notation: words, and errors that say what was expected at which column."""

from __future__ import annotations

import re
from collections.abc import Collection

_WORD = re.compile(r"\S+")
# At most 18 digits: no rule counts further, and a longer number would be costly to read and to write back.
_INTEGER = re.compile(r"[-+]?\d{1,18}")


class NotationError(ValueError):
    """Text that is not an action. `column` is 1-based within the line."""

    def __init__(self, column: int, expected: str, found: str) -> None:
        super().__init__(f"column {column}: expected {expected}, found {found}")
        self.column = column
        self.expected = expected
        self.found = found


class Words:
    """A cursor over the whitespace-separated words of one action. Columns are worked out only for errors."""

    def __init__(self, text: str, offset: int = 0) -> None:
        """`offset` is how many characters of the line come before `text`."""
        self._source = text
        self._offset = offset
        self._words = text.split()
        self._index = 0

    def column(self, index: int | None = None) -> int:
        """The column of the word at `index` (the last one taken by default), or just past the text."""
        index = self._index - 1 if index is None else index
        starts = [m.start() for m in _WORD.finditer(self._source)]
        start = starts[index] if index < len(starts) else len(self._source.rstrip())
        return start + 1 + self._offset

    def peek(self) -> str | None:
        return self._words[self._index] if self._index < len(self._words) else None

    def take(self, expected: str) -> str:
        if self._index >= len(self._words):
            raise NotationError(self.column(self._index), expected, "the end of the line")
        self._index += 1
        return self._words[self._index - 1]

    def fail(self, expected: str) -> NotationError:
        """The error for the word just taken."""
        return NotationError(self.column(), expected, repr(self._words[self._index - 1]))

    def choice(self, choices: Collection[str], expected: str) -> str:
        word = self.take(expected)
        if word not in choices:
            raise self.fail(expected)
        return word

    def integer(self, expected: str) -> int:
        word = self.take(expected)
        if not _INTEGER.fullmatch(word):
            raise self.fail(expected)
        return int(word)

    def matching(self, pattern: re.Pattern[str], expected: str) -> str:
        word = self.take(expected)
        if not pattern.fullmatch(word):
            raise self.fail(expected)
        return word

    def rest(self, pattern: re.Pattern[str], expected: str, at_least: int = 1) -> list[str]:
        items: list[str] = []
        while self.peek() is not None or len(items) < at_least:
            items.append(self.matching(pattern, expected))
        return items

    def remainder(self) -> tuple[str, int] | None:
        """The rest of the text from the next word on, with that word's column; the cursor moves to the end."""
        if self.peek() is None:
            return None
        column = self.column(self._index)
        self._index = len(self._words)
        return self._source[column - 1 - self._offset :].rstrip(), column

    def end(self) -> None:
        if self.peek() is not None:
            self._index += 1
            raise self.fail("the end of the action")
