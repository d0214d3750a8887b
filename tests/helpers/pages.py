"""The viewer and dashboard pages: a game imported and opened in the viewer, the read tables caught up, and
what a chart or a table cell shows."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx


def imported(server: str, path: Path) -> dict[str, Any]:
    answer = httpx.post(
        f"{server}/v1/games/import", content=path.read_text(), headers={"Content-Type": "text/plain"}, timeout=30
    )
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def open_viewer(page: Any, server: str, game: str, at: int | None = None) -> None:
    page.goto(f"{server}/games/{game}" + (f"?at={at}" if at else ""))
    page.wait_for_selector("body[data-ready=true]")


CAUGHT_UP_SECONDS = 60
CELLS = "rows => rows.map(row => [...row.cells].map(cell => cell.textContent))"


def caught_up(server: str) -> None:
    """Waits until the read tables have followed the whole log (a condition, not a pause of a set length)."""
    deadline = time.monotonic() + CAUGHT_UP_SECONDS
    while (fresh := httpx.get(f"{server}/v1/projections").json())["position"] < fresh["log_position"]:
        assert time.monotonic() < deadline, f"the read tables did not catch up: {fresh}"
        time.sleep(0.1)


def chart_data(page: Any, section: str) -> Any:
    return page.evaluate(
        f"""() => {{
            const chart = Chart.getChart(document.querySelector('#{section} canvas'));
            return chart ? chart.data.datasets.map((dataset) => ({{label: dataset.label, data: dataset.data}})) : null;
        }}"""
    )


def the_rulesets_own_panels_show_its_statistics(page: Any, server: str, ruleset: str) -> None:
    """A panel per statistic the ruleset declares, its rows as the API serves them."""
    listed = httpx.get(f"{server}/v1/rulesets/{ruleset}/statistics").json()["statistics"]
    panels = page.eval_on_selector_all("#ruleset-panels section", "sections => sections.map(s => s.id)")
    assert panels == [f"statistic-{found['name']}" for found in listed]
    drawn = 0
    for found in listed:
        served = httpx.get(f"{server}/v1/rulesets/{ruleset}/statistics/{found['name']}").json()
        panel = f"#statistic-{found['name']}"
        assert page.text_content(f"{panel} h2") == f"{ruleset}: {found['name']}"
        cells = page.eval_on_selector_all(f"{panel} tbody tr", CELLS)
        assert len(cells) == len(served["rows"]), (ruleset, found["name"])
        drawn += len(cells)
        if served["rows"]:
            first = next(iter(served["rows"][0].values()))
            assert cells[0][0] == cell_text(first)
    assert drawn > 0 or not listed, f"no statistic of {ruleset} has rows"


def cell_text(value: Any) -> str:
    """A value as the dashboard writes it in a cell: nothing for null, booleans as JSON writes them."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)
