"""The suite's own shape: what tests share lives in `tests.helpers`, so that no module imports a test module (or a
conftest), and any test module can be run, moved or cut alone."""

from __future__ import annotations

import pytest

from tests.helpers.modules import Import, imports, walk


def is_test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "tests" and any(part.startswith("test_") or part == "conftest" for part in parts[1:])


def module_imports(top: str) -> list[Import]:
    return [found for module in walk(top) for found in imports(module)]


@pytest.mark.parametrize("top", ["tests", "bench"])
def test_no_module_imports_a_test_module(top: str) -> None:
    found = [f"{found.module}:{found.line} imports {found.name}" for found in module_imports(top)]
    assert [line for line in found if is_test_module(line.rpartition(" imports ")[2])] == []


def test_a_test_module_import_is_found() -> None:
    assert is_test_module("tests.e2e.test_api.client_for")
    assert is_test_module("tests.browser.conftest.CHROMIUM")
    assert not is_test_module("tests.helpers.api.client_for")
