"""A benchmark's report: its own section of docs/benchmarks.md, written by the benchmark itself with `--report`.

A section lies between two comment lines that name it, so that each run replaces its own section and leaves the
others as they are; a section not there yet is added at the end of the page.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

PAGE = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- report: {name} -->", f"<!-- end of report: {name} -->"


def machine() -> str:
    """When and on what a report was measured: the date and the machine's kind, never its name or paths."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"{stamp}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_section(name: str, markdown: str, page: Path = PAGE) -> None:
    begin, end = markers(name)
    block = f"{begin}\n{markdown.strip()}\n{end}"
    text = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), flags=re.DOTALL)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + f"\n\n{block}\n"
    page.write_text(text, encoding="utf-8")


def verdict(ratio: float, target: float) -> str:
    return f"{ratio:.2f}x, target {target:.1f}x: " + ("met" if ratio >= target else "not met")


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, shown: TextIO) -> None:
        self.shown, self.kept = shown, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.shown.write(text)

    def flush(self) -> None:
        self.shown.flush()


def reporting(name: str, title: str, command: str, targets: str, run: Callable[[], None], report: bool) -> None:
    """Run a benchmark; with `report`, write what it printed as its section of the page, with the command, when
    and on what it ran, and its targets."""
    if not report:
        run()
        return
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        run()
    printed = tee.kept.getvalue().rstrip()
    write_section(
        name,
        f"## {title}\n\nMeasured by `{command} --report` ({machine()}). Targets: {targets}\n\n```text\n{printed}\n```",
    )
    print(f"wrote the section {name!r} of docs/benchmarks.md")
