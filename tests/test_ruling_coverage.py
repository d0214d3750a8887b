"""Every ruling in RULINGS.md of the editions we implement is named by at least one test."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support import ROOT

IMPLEMENTED_EDITIONS = ("E2",)
RULING_ID = re.compile(r"\[(E\d-\d\d)\]")
NAMED_IN_TESTS = re.compile(r"\b(E\d)[-_](\d\d)\b")


def rulings_file() -> Path:
    """The shared rules folder sits beside the checkout; EVO_RULINGS may point elsewhere."""
    return Path(os.environ.get("EVO_RULINGS", ROOT.parent / "shared" / "rules" / "RULINGS.md"))


def ruling_ids() -> set[str]:
    path = rulings_file()
    if not path.is_file():
        message = f"RULINGS.md not found at {path}: set EVO_RULINGS to its path"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return {found for found in RULING_ID.findall(path.read_text()) if found.startswith(IMPLEMENTED_EDITIONS)}


def ids_named_by_tests() -> set[str]:
    named = set()
    for path in (ROOT / "tests").rglob("*"):
        if path.suffix in (".py", ".evo") and path.name != Path(__file__).name:
            named |= {f"{edition}-{number}" for edition, number in NAMED_IN_TESTS.findall(path.read_text())}
    return named


def test_every_ruling_of_an_implemented_edition_has_a_test() -> None:
    missing = sorted(ruling_ids() - ids_named_by_tests())
    assert not missing, f"rulings no test names: {', '.join(missing)}"


def test_the_rulings_file_has_the_e2_ids() -> None:
    assert {f"E2-{n:02d}" for n in range(1, 17)} <= ruling_ids()
