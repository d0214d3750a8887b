"""Colour for people at a terminal, through rich: plain text when the output is a file or a pipe (or NO_COLOR is
set)."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
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
