"""No class of the application defines more than 25 methods in its own body, so that each reads in one sitting: a
class that would grow past it is split into parts that each say what they hold (the Ledger's queries, its writer
path and its commands), and each part counts on its own."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from tests.helpers.modules import source, walk

APPLICATION = "evo_ledger.app"
MOST_METHODS = 25


def classes(code: str, module: str) -> Iterator[ast.ClassDef]:
    """Every class `code` defines, those inside other classes and functions included."""
    return (node for node in ast.walk(ast.parse(code, module)) if isinstance(node, ast.ClassDef))


def own_methods(cls: ast.ClassDef) -> list[str]:
    """The methods a class defines in its own body (properties and static methods included, inherited ones not)."""
    return [node.name for node in cls.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def too_big(code: str, module: str) -> list[str]:
    return [
        f"{module}.{cls.name} defines {len(own_methods(cls))} methods, more than {MOST_METHODS}"
        for cls in classes(code, module)
        if len(own_methods(cls)) > MOST_METHODS
    ]


@pytest.mark.parametrize("module", walk(APPLICATION))
def test_no_class_of_the_application_defines_more_than_25_methods(module: str) -> None:
    found = too_big(source(module), module)
    assert not found, "split it into parts of one concern each:\n" + "\n".join(found)


def test_the_walk_reads_every_part_of_the_ledger() -> None:
    parts = {"application", "queries", "writer_path", "commands"}
    assert {f"{APPLICATION}.ledger.{part}" for part in parts} <= set(walk(APPLICATION))


def test_a_class_with_one_method_too_many_is_named_and_its_parts_are_not() -> None:
    one_too_many = "\n".join(f"    def method_{n}(self) -> None: ..." for n in range(MOST_METHODS + 1))
    code = f"class Whole:\n{one_too_many}\n\nclass Half:\n    def method(self) -> None: ...\n"
    assert too_big(code, "example") == [f"example.Whole defines {MOST_METHODS + 1} methods, more than {MOST_METHODS}"]
