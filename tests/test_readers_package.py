"""One package reads hidden facts for an answer and decides what each reader sees: no module the project ships
outside `evo_ledger.app.readers` names a hidden fact, a reader's sight or one of the package's redactions, nor
compares a seat with a reader's, other than the rules (which mark what is hidden) and the few modules allowed
below, each for its reason. A name counts however it is written: an attribute, a key or any other string, a
keyword, a parameter, an import. Whether a private game is seen is the package's too (`may_see`); the read
tables' rows are filtered in SQL, which only `projections` writes."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from tests.helpers.modules import shipped_packages, source, walk

READERS = "evo_ledger.app.readers"
RULES = "evo_ledger.rules"
# What the game and its rules keep hidden: the fields of a hidden action, the game's record of its hidden actions,
# the rules' hidden-information capability and what it gives, the whole state.
HIDDEN_FACTS = frozenset(
    {
        "visible_only_to",
        "action_salt",
        "action_commitment",
        "uncommitted_hidden",
        "revealed_versions",
        "hidden_information",
        "seat_state",
        "public_state",
        "rests_on",
        "ALL_SEATS",
        "snapshot_state",
    }
)
SIGHT = frozenset({"sees_all", "holder_sees_all", "holder_seat"})
REDACTIONS = frozenset({"leave_out", "hidden_from", "hidden_in_place", "withheld_hashes"})
CHECKED = HIDDEN_FACTS | SIGHT | REDACTIONS
SEATS = frozenset({"seat", "holder_seat"})
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "evo_ledger.game.aggregate": (
        HIDDEN_FACTS - {"seat_state", "public_state", "rests_on", "ALL_SEATS"},
        "the Game and its events hold the hidden fields, commit to them in the hash chain and snapshot them",
    ),
    "evo_ledger.game.sentences": (
        frozenset({"visible_only_to"}),
        "an event's own sentence, as those who see it read it; the readers give the others theirs (`sentence_for`)",
    ),
    "evo_ledger.app.audit": (
        frozenset({"visible_only_to", "action_salt", "action_commitment", "uncommitted_hidden"}),
        "the audit checks every stored field, hidden ones included, and reaches a reader through `report_for`",
    ),
    "evo_ledger.app.disputes": (
        frozenset({"hidden_in_place"}),
        "a branch stops before the actions `branch_for` says are hidden from its reader, named as the readers do",
    ),
    "projections.folded": (
        frozenset({"snapshot_state"}),
        "read tables are derived from whole states; their rows reach readers filtered in SQL (`projections`)",
    ),
}


@dataclass(frozen=True)
class Use:
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.how} {self.name}"


def named(node: ast.AST) -> tuple[str, str] | None:
    """The name the node writes and how, where it writes one."""
    if isinstance(node, ast.Attribute):
        return node.attr, "reads"
    if isinstance(node, ast.Name):
        return node.id, "names"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, "spells"
    if isinstance(node, ast.keyword) and node.arg is not None:
        return node.arg, "passes"
    if isinstance(node, ast.arg):
        return node.arg, "takes"
    if isinstance(node, ast.alias):
        return node.asname or node.name, "imports"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name, "defines"
    return None


def seat_compared(node: ast.AST) -> bool:
    """Whether the node compares something with a reader's seat (`owner == reader.seat`, `reader.seat is None`)."""
    if not isinstance(node, ast.Compare):
        return False
    return any(isinstance(side, ast.Attribute) and side.attr in SEATS for side in [node.left, *node.comparators])


def uses_in(text: str) -> list[Use]:
    found: list[Use] = []
    for node in ast.walk(ast.parse(text)):
        writes = named(node)
        if writes is not None and writes[0] in CHECKED:
            found.append(Use(getattr(node, "lineno", 0), writes[0], writes[1]))
        if seat_compared(node):
            found.append(Use(getattr(node, "lineno", 0), ast.unparse(node), "compares seats:"))
    return sorted(found, key=lambda use: use.line)


def checked_modules() -> list[str]:
    """Every module the distribution ships but those of the readers' package and of the rules."""
    modules = [module for package in shipped_packages() for module in walk(package)]
    return [module for module in modules if not module.startswith((READERS, RULES))]


def not_allowed(module: str) -> list[Use]:
    allowed = ALLOWED.get(module, (frozenset(), ""))[0]
    return [use for use in uses_in(source(module)) if use.name not in allowed]


@pytest.mark.parametrize("module", checked_modules())
def test_no_module_outside_the_readers_reads_a_hidden_fact_or_a_readers_sight(module: str) -> None:
    found = not_allowed(module)
    assert not found, (
        f"{module} reads what only {READERS} may (ask it instead, or add the module to ALLOWED with its reason): "
        + "; ".join(map(str, found))
    )


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_each_module_allowed_still_uses_every_name_it_is_allowed(module: str) -> None:
    names, _ = ALLOWED[module]
    used = {use.name for use in uses_in(source(module))}
    assert names <= used, f"{module} no longer uses {sorted(names - used)}: narrow its entry in ALLOWED"


def test_every_name_checked_is_one_the_readers_use() -> None:
    used = {use.name for module in walk(READERS) for use in uses_in(source(module))}
    assert used >= CHECKED, f"the readers use none of {sorted(CHECKED - used)}: the check need not name them"
    assert any(use.how == "compares seats:" for module in walk(READERS) for use in uses_in(source(module)))


PLANTED = {
    "a hidden action's field read": ("def f(event):\n    return event.visible_only_to\n", ["line 2: reads"]),
    "a field as a key": ("def f(fields):\n    fields['action_salt'] = None\n", ["line 2: spells"]),
    "a field through getattr": ("def f(e):\n    return getattr(e, 'action_commitment', None)\n", ["line 2: spells"]),
    "the whole state": ("def f(rules, state):\n    return rules.snapshot_state(state)\n", ["line 2: reads"]),
    "a reader's sight": ("def f(reader):\n    return reader.sees_all\n", ["line 2: reads"]),
    "a reader built seeing all": ("def f(R):\n    return R(sees_all=True)\n", ["line 2: passes"]),
    "a seat compared": ("def f(owner, reader):\n    return owner != reader.seat\n", ["line 2: compares seats:"]),
    "the capability imported": (
        "from evo_ledger.rules.contract import hidden_information\n",
        ["line 1: imports"],
    ),
    "a redaction redone": ("from evo_ledger.app.readers import leave_out\n", ["line 1: imports"]),
}
ALLOWED_USES = {
    "a package entry point": "from evo_ledger.app.readers import legal_for\ndef f(r, g):\n    return legal_for(r, g)\n",
    "a reader's seat shown": "def f(reader):\n    return {'seat': reader.seat}\n",
    "a seat named in a path": "def f(seat, players):\n    return seat in players\n",
}


@pytest.mark.parametrize("name", PLANTED)
def test_the_check_finds_a_planted_use(name: str) -> None:
    planted, expected = PLANTED[name]
    assert [f"line {use.line}: {use.how}" for use in uses_in(planted)] == expected


@pytest.mark.parametrize("name", ALLOWED_USES)
def test_the_check_lets_a_use_of_the_package_pass(name: str) -> None:
    assert uses_in(ALLOWED_USES[name]) == []
