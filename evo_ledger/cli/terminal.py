"""Colour and progress bars for people at a terminal, through rich: plain text when the output is a file or a pipe
(or NO_COLOR is set), and no bar."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import BinaryIO, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

HEADLINE = "bold"
TABLE = "cyan"
REFUSED = "bold red"
STORED = "green"


def console_for(out: TextIO) -> Console:
    """A console that writes text as given (no markup, no wrapping of its own) and colours it at a terminal."""
    return Console(file=out, highlight=False, markup=False, emoji=False, soft_wrap=True)


def say(console: Console, text: str, style: str | None = None) -> None:
    console.print(Text(text, style=style or ""))
    console.file.flush()


class ProgressBar:
    """How many of `total` `unit` are done, as a bar on `stream` redrawn in place while the work runs and left at its
    end: only at a terminal, and only for more than one (a file, a pipe or a test's capture gets nothing)."""

    def __init__(self, total: int, unit: str, stream: TextIO) -> None:
        self.total = total
        self.bar: Progress | None = None
        self.task = TaskID(0)
        if stream.isatty() and total > 1:
            columns = (BarColumn(), MofNCompleteColumn(), TextColumn(unit), TimeElapsedColumn())
            self.bar = Progress(*columns, console=console_for(stream), redirect_stdout=False, redirect_stderr=False)
            self.task = self.bar.add_task(unit, total=total)

    def __enter__(self) -> ProgressBar:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *raised: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=min(done, self.total))

    def say(self, line: str, out: TextIO) -> None:
        """A line written to `out`: above the bar when both are on the terminal, so that the bar does not draw over
        it."""
        if self.bar is not None and out.isatty():
            self.bar.console.print(Text(line))
        else:
            print(line, file=out)


class ShownText(io.TextIOBase):
    """Text output with what `shown` makes of each piece written (the personal data it quotes, as it now stands),
    asking its stream for the rest (whether it is a terminal, its width)."""

    def __init__(self, stream: TextIO, shown: Callable[[str], str]) -> None:
        super().__init__()
        self.stream, self.shown = stream, shown

    def write(self, text: str) -> int:
        self.stream.write(self.shown(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def buffer(self) -> BinaryIO:
        """The stream's bytes, written as they are (a bundle is the stored form itself)."""
        buffer: BinaryIO = self.stream.buffer
        return buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"
