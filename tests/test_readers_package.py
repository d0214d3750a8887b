"""One package reads hidden facts for an answer and decides what each reader sees: no module the project ships
outside `evo_ledger.app.readers`, other than the rules (which mark what is hidden) and the modules allowed below,
each for its reason, does any of these:

- names a hidden fact, a reader's sight or one of the package's redactions (`HIDDEN_FACTS`, `SIGHT`,
  `REDACTIONS`);
- names what tells one caller's sight from another's (`ROLES`): the access's `private`, `admits`, `seat_of` and
  the like, the API's `is_admin`, a reader's `anonymous`, the projections' `include_private`. Who sees a private
  game is the package's to say (`may_see`, `sees_game`, `check_seen`), and whether private games' rows count for a
  caller too (`private_rows_for`); the read tables' rows are filtered in SQL, which only `projections` writes;
- dumps an object whole, which would carry its hidden fields out without naming them (`DUMPS`: `asdict`, `vars`,
  `__dict__`, `model_dump`, `jsonable_encoder`...), or gets an attribute by a name it computes (`getattr(obj,
  name)`, `attrgetter(name)`): only a name written out can be checked;
- compares a seat with a reader's;
- raises one of the readers' refusals (`REFUSALS`): telling a caller that a private game is unknown
  (`HiddenGame`), that a broadcast is not yet shown, that an event or a question rests on facts hidden from it,
  is the package's to decide.

A name counts however it is written: an attribute, a key or any other string, a keyword, a parameter, an import,
a definition. `PLANTED` holds a snippet of each form, which the check must find, and `ALLOWED_USES` snippets it
must let pass."""

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
# What tells one caller's sight from another's: the access's record of who holds which token and whether the game
# is private, the API's check of the admin's token, a reader without a token, private games' rows counted.
ROLES = frozenset(
    {"private", "admits", "seat_of", "is_recorders", "co_recorder_of", "is_admin", "anonymous", "include_private"}
)
# What gives an object's fields without naming them: an object dumped whole carries its hidden fields out.
DUMPS = frozenset(
    {
        "asdict",
        "astuple",
        "_asdict",
        "vars",
        "__dict__",
        "getmembers",
        "model_dump",
        "model_dump_json",
        "jsonable_encoder",
    }
)
# What gets an attribute by a name given as a value (`getattr(obj, name)`), with the place of that name.
GETTERS = {"getattr": 1, "attrgetter": 0, "__getattribute__": 0}
COMPUTED = "gets by a computed name"
CHECKED = HIDDEN_FACTS | SIGHT | REDACTIONS | ROLES | DUMPS
# What the readers refuse a caller, for what it may not see.
REFUSALS = frozenset(
    {
        "HiddenGame",
        "NotYetBroadcast",
        "DelayedBroadcast",
        "HiddenEvent",
        "HiddenFacts",
        "RecordersOnly",
        "PerspectiveRefused",
        "UnknownPerspective",
    }
)
RAISES = "raises"
SEATS = frozenset({"seat", "holder_seat"})


@dataclass(frozen=True)
class Allowed:
    """A module outside the readers that may use `names`, for its reason."""

    module: str
    names: frozenset[str]
    reason: str


ALLOWED = (
    Allowed(
        "evo_ledger.game.aggregate",
        HIDDEN_FACTS - {"seat_state", "public_state", "rests_on", "ALL_SEATS"} | {"__dict__", "vars"},
        "the Game and its events hold the hidden fields, commit to them in the hash chain and snapshot them; its "
        "own attributes are kept in its `__dict__`, and its events found among its class's",
    ),
    Allowed(
        "evo_ledger.game.sentences",
        frozenset({"visible_only_to"}),
        "an event's own sentence, as those who see it read it; the readers give the others theirs (`sentence_for`)",
    ),
    Allowed(
        "evo_ledger.app.audit",
        frozenset({"visible_only_to", "action_salt", "action_commitment", "uncommitted_hidden", "vars"}),
        "the audit checks every stored field, hidden ones included, and reaches a reader through `report_for`",
    ),
    Allowed(
        "evo_ledger.app.disputes",
        frozenset({"hidden_in_place"}),
        "a branch stops before the actions `branch_for` says are hidden from its reader, named as the readers do",
    ),
    Allowed(
        "evo_ledger.app.access",
        frozenset({"private", "admits", "seat_of", "is_recorders", "co_recorder_of"}),
        "the access records who holds which token and whether the game is private, and judges a token's right to "
        "write (`check_recorder`, `recording_seat`); what a token sees is the readers' (`may_see`)",
    ),
    Allowed(
        "evo_ledger.app.transfer",
        frozenset({"vars"}),
        "an imported event is refused unless its fields are its class's: they are counted, not given to a reader",
    ),
    Allowed(
        "evo_ledger.app.writer",
        frozenset({"vars", "__dict__"}),
        "an error raised in the writing process is sent back with its attributes: errors, not games",
    ),
    Allowed(
        "evo_ledger.store.fast_paths",
        frozenset({"__dict__"}),
        "a stored event is decoded into its object's `__dict__` without the library's per-row conversions",
    ),
    Allowed(
        "evo_ledger.cli.ledger_commands",
        frozenset({"getattr"}),
        "the seat marks' options are read from the parsed command line by the names the rulesets give them",
    ),
    Allowed(
        "api.deps",
        frozenset({"is_admin"}),
        "the admin's token is told apart here, once, and handed to the readers (`reader_for`, `sees_game`, "
        "`Caller`) and to the ledger's changes as a right to write",
    ),
    Allowed(
        "api.routes.recording",
        frozenset({"is_admin"}),
        "the admin may change who records a game: a right to write, which the ledger's command takes",
    ),
    Allowed(
        "api.whole_log_reads",
        frozenset({"anonymous"}),
        "audits and exports are limited per address for readers without a token: how often, not what they see",
    ),
    Allowed(
        "api.schemas",
        frozenset({"private", "model_dump"}),
        "a game's summary and its settings say whether it is private, to those who see the game; the answers are "
        "models the routes fill with what the readers give",
    ),
    Allowed(
        "api.routes.games",
        frozenset({"private", "model_dump", "model_dump_json"}),
        "a game's summary says whether it is private, to those who see the game, and the recorder sets it; the "
        "append's actions and answer are dumped as the request and the receipt models",
    ),
    Allowed(
        "api.routes.events",
        frozenset({"model_dump", "jsonable_encoder", "asdict"}),
        "the events, the state and the board as the readers give them (`events_for`, `state_for`, `layout_for`), "
        "encoded as JSON or msgpack",
    ),
    Allowed(
        "api.conflicts",
        frozenset({"model_dump"}),
        "a version conflict's answer, made of what the readers give its caller",
    ),
    Allowed(
        "api.routes.rules",
        frozenset({"asdict"}),
        "what the rulings mean, as each ruleset's `rulings.toml` says: no game's",
    ),
    Allowed(
        "projections.folded",
        frozenset({"snapshot_state"}),
        "read tables are derived from whole states; their rows reach readers filtered in SQL (`projections`)",
    ),
    Allowed(
        "projections.schema",
        frozenset({"private"}),
        "the games table keeps whether each game is private, and `shown_to_public` filters on it in SQL",
    ),
    Allowed(
        "projections.readmodel",
        frozenset({"private"}),
        "a game's row follows its access's privacy, for the SQL filters",
    ),
    Allowed(
        "projections.queries",
        frozenset({"include_private"}),
        "the read tables' rows of private games are left out in SQL unless the readers say they count",
    ),
    Allowed(
        "projections.outcomes",
        frozenset({"include_private", "private"}),
        "the read tables' rows of private games are left out in SQL unless the readers say they count",
    ),
    Allowed(
        "projections.strengths",
        frozenset({"include_private"}),
        "the read tables' rows of private games are left out in SQL unless the readers say they count",
    ),
    Allowed(
        "projections.ratings",
        frozenset({"private"}),
        "the ratings are of the games that are not private, for every caller alike, filtered in SQL",
    ),
)


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


def computed_get(node: ast.AST) -> str | None:
    """The getter the node calls with a name it does not write out (`getattr(obj, name)`, `attrgetter(name)`,
    `obj.__getattribute__(name)`), where it calls one."""
    if not isinstance(node, ast.Call):
        return None
    getter = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
    if getter not in GETTERS or len(node.args) <= GETTERS[getter]:
        return None
    name = node.args[GETTERS[getter]]
    return None if isinstance(name, ast.Constant) and isinstance(name.value, str) else getter


def refusal_raised(node: ast.AST) -> str | None:
    """The readers' refusal the node raises (`raise HiddenGame(...)`), where it raises one."""
    if not isinstance(node, ast.Raise) or node.exc is None:
        return None
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    name = raised.id if isinstance(raised, ast.Name) else getattr(raised, "attr", None)
    return name if name in REFUSALS else None


def uses_in(text: str) -> list[Use]:
    found: list[Use] = []
    for node in ast.walk(ast.parse(text)):
        line = getattr(node, "lineno", 0)
        writes = named(node)
        if writes is not None and writes[0] in CHECKED:
            found.append(Use(line, writes[0], writes[1]))
        if (getter := computed_get(node)) is not None:
            found.append(Use(line, getter, COMPUTED))
        if (refusal := refusal_raised(node)) is not None:
            found.append(Use(line, refusal, RAISES))
        if seat_compared(node):
            found.append(Use(line, ast.unparse(node), "compares seats:"))
    return sorted(found, key=lambda use: use.line)


def checked_modules() -> list[str]:
    """Every module the distribution ships but those of the readers' package and of the rules."""
    modules = [module for package in shipped_packages() for module in walk(package)]
    return [module for module in modules if not module.startswith((READERS, RULES))]


def allowed_in(module: str) -> frozenset[str]:
    return frozenset(name for allowed in ALLOWED if allowed.module == module for name in allowed.names)


def not_allowed(module: str) -> list[Use]:
    allowed = allowed_in(module)
    return [use for use in uses_in(source(module)) if use.name not in allowed]


@pytest.mark.parametrize("module", checked_modules())
def test_no_module_outside_the_readers_reads_a_hidden_fact_or_a_readers_sight(module: str) -> None:
    found = not_allowed(module)
    assert not found, (
        f"{module} reads what only {READERS} may (ask it instead, or add the module to ALLOWED with its reason): "
        + "; ".join(map(str, found))
    )


@pytest.mark.parametrize("allowed", ALLOWED, ids=lambda allowed: f"{allowed.module}: {sorted(allowed.names)}")
def test_each_module_allowed_still_uses_every_name_it_is_allowed(allowed: Allowed) -> None:
    used = {use.name for use in uses_in(source(allowed.module))}
    assert allowed.names <= used, (
        f"{allowed.module} no longer uses {sorted(allowed.names - used)}: narrow its entry in ALLOWED"
    )
    unchecked = allowed.names - CHECKED - GETTERS.keys()
    assert not unchecked, f"ALLOWED names what is not checked: {sorted(unchecked)}"


def test_every_name_checked_is_one_the_readers_use_or_a_module_allowed_must() -> None:
    """The names of hidden facts, sights and redactions are all the readers'; a role's name is the readers' or one a
    module allowed must use (the API's `is_admin` and the projections' `include_private`, which the readers'
    answers are handed to); a dump, a computed name and a refusal are checked wherever they are written."""
    used = {use.name for module in walk(READERS) for use in uses_in(source(module))}
    facts = HIDDEN_FACTS | SIGHT | REDACTIONS
    assert used >= facts, f"the readers use none of {sorted(facts - used)}: the check need not name them"
    known = used | {name for allowed in ALLOWED for name in allowed.names}
    assert known >= ROLES, f"nothing uses {sorted(ROLES - known)}: the check need not name them"
    assert any(use.how == "compares seats:" for module in walk(READERS) for use in uses_in(source(module)))
    raised = {use.name for module in walk(READERS) for use in uses_in(source(module)) if use.how == RAISES}
    assert raised == REFUSALS, f"the readers raise {sorted(raised ^ REFUSALS)} otherwise than REFUSALS says"


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
    "a game's privacy read": ("def f(access):\n    return access.private\n", ["line 2: reads"]),
    "a recorder's token judged": ("def f(access, token):\n    return access.admits(token)\n", ["line 2: reads"]),
    "a seat's token judged": ("def f(access, token):\n    return access.seat_of(token)\n", ["line 2: reads"]),
    "the admin told apart": ("def f(request, token):\n    return is_admin(request, token)\n", ["line 2: names"]),
    "a reader without a token": ("def f(reader):\n    return reader.anonymous\n", ["line 2: reads"]),
    "private rows asked for": ("def f(q, c, admin):\n    return q(c, include_private=admin)\n", ["line 2: passes"]),
    "a dataclass dumped": ("import dataclasses\ndef f(e):\n    return dataclasses.asdict(e)\n", ["line 3: reads"]),
    "an object's vars": ("def f(event):\n    return dict(vars(event))\n", ["line 2: names"]),
    "an object's __dict__": ("def f(event):\n    return event.__dict__\n", ["line 2: reads"]),
    "a model dumped": ("def f(model):\n    return model.model_dump()\n", ["line 2: reads"]),
    "an object encoded whole": (
        "from fastapi.encoders import jsonable_encoder\n",
        ["line 1: imports"],
    ),
    "a computed getattr": ("def f(e, name):\n    return getattr(e, name)\n", [f"line 2: {COMPUTED}"]),
    "a field's name joined": ("def f(e):\n    return getattr(e, 'action' + '_salt')\n", [f"line 2: {COMPUTED}"]),
    "a computed attrgetter": (
        "from operator import attrgetter\ndef f(e, n):\n    return attrgetter(n)(e)\n",
        [f"line 3: {COMPUTED}"],
    ),
    "a computed __getattribute__": ("def f(e, n):\n    return e.__getattribute__(n)\n", [f"line 2: {COMPUTED}"]),
    "a private game told unknown": (
        "def f(game_id):\n    raise HiddenGame(f'no game {game_id}')\n",
        ["line 2: raises"],
    ),
    "a refusal raised by its module": (
        "from evo_ledger.app import access\ndef f():\n    raise access.HiddenGame('no game')\n",
        ["line 3: raises"],
    ),
}
ALLOWED_USES = {
    "a package entry point": "from evo_ledger.app.readers import legal_for\ndef f(r, g):\n    return legal_for(r, g)\n",
    "a reader's seat shown": "def f(reader):\n    return {'seat': reader.seat}\n",
    "a seat named in a path": "def f(seat, players):\n    return seat in players\n",
    "a field got by its name": "def f(event):\n    return getattr(event, 'cause', None)\n",
    "a refusal the readers raised, passed on": (
        "def f(ask):\n    try:\n        ask()\n    except HiddenGame:\n        raise\n"
    ),
    "the readers' answer passed on": (
        "from evo_ledger.app.readers import private_rows_for\ndef f(q, c, caller):\n"
        "    return q(c, private_rows_for(caller))\n"
    ),
}


@pytest.mark.parametrize("name", PLANTED)
def test_the_check_finds_a_planted_use(name: str) -> None:
    planted, expected = PLANTED[name]
    assert [f"line {use.line}: {use.how}" for use in uses_in(planted)] == expected


@pytest.mark.parametrize("name", ALLOWED_USES)
def test_the_check_lets_a_use_of_the_package_pass(name: str) -> None:
    assert uses_in(ALLOWED_USES[name]) == []
