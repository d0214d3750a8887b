"""A benchmark's report: its own section of docs/benchmarks.md, written by the benchmark itself with `--report`.

A section lies between two comment lines that name it, so that each run replaces its own section and leaves the
others as they are; a section not there yet is added at the end of the page.
"""

from __future__ import annotations

import os
import platform
import re
import time
from pathlib import Path

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
