"""The suite's two tiers: `pytest -m "not slow"` is the quick tier of the inner loop, plain `pytest` the whole suite.

A test is marked `slow` with its reason: a line `Slow: ...` in its docstring where the test itself carries the
mark, or the mark's own `reason` where a parameter, a module or a fixture carries it for many tests (the PostgreSQL
variants, the browser's modules). A slow mark without a reason stops the run at collection; a test that took longer
than `SLOW_AFTER_SECONDS` without the mark is listed at the end of the run."""

from __future__ import annotations

import inspect
from collections import defaultdict
from typing import Any

import pytest

SLOW = "slow"
SLOW_AFTER_SECONDS = 10.0
REASON_PREFIX = "Slow:"


def slow_reason(item: pytest.Item) -> str | None:
    """Why `item` is in the whole suite only: its slow mark's reason, or its docstring's `Slow:` line."""
    for mark in item.iter_markers(SLOW):
        if mark.kwargs.get("reason"):
            return str(mark.kwargs["reason"])
    function = getattr(item, "function", None)
    docstring = inspect.getdoc(function) if function is not None else None
    lines = (line.strip() for line in (docstring or "").splitlines())
    return next((line.removeprefix(REASON_PREFIX).strip() for line in lines if line.startswith(REASON_PREFIX)), None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    unexplained = [item.nodeid for item in items if item.get_closest_marker(SLOW) and not slow_reason(item)]
    if unexplained:
        listed = "\n  ".join(unexplained)
        raise pytest.UsageError(
            f"marked slow without a reason (a docstring line '{REASON_PREFIX} ...', or the mark's reason=):\n  {listed}"
        )


class SlowTests:
    """Each test's time (setup, call and teardown), as the run's reports give it, whichever worker ran it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.marked: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration
        if SLOW in report.keywords:
            self.marked.add(report.nodeid)

    def unmarked(self) -> list[tuple[str, float]]:
        over = [(node, seconds) for node, seconds in self.seconds.items() if seconds > SLOW_AFTER_SECONDS]
        return sorted(((node, s) for node, s in over if node not in self.marked), key=lambda found: -found[1])

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        unmarked = self.unmarked()
        if not unmarked:
            return
        terminalreporter.section(f"tests over {SLOW_AFTER_SECONDS:.0f} s not marked slow", yellow=True)
        for node, seconds in unmarked:
            terminalreporter.line(f"{seconds:6.1f} s  {node}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SlowTests(), "slow-tests")
