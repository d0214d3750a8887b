"""One package reads hidden facts for an answer and decides what each reader sees: no module the project ships
outside `evo_ledger.app.readers`, other than the rules (which mark what is hidden) and the modules allowed below,
each for its reason, does any of these:

- names a hidden fact, a reader's sight or one of the package's redactions (`HIDDEN_FACTS`, `SIGHT`,
  `REDACTIONS`), or what gives a game's whole record at once (`WHOLE_RECORDS`: its events as stored, its
  snapshot's data, its whole state before an action);
- names what tells one caller's sight from another's (`ROLES`): the access's `private`, `admits`, `seat_of` and
  the like, the API's `is_admin`, a reader's `anonymous`, the projections' `include_private`. Who sees a private
  game is the package's to say (`may_see`, `sees_game`, `check_seen`), and whether private games' rows count for a
  caller too (`private_rows_for`); the read tables' rows are filtered in SQL, which only `projections` writes;
- dumps an object whole, which would carry its hidden fields out without naming them (`DUMPS`: `asdict`, `vars`,
  `__dict__`, `model_dump`, `jsonable_encoder`, pydantic's `from_attributes`...; `DUMP_CALLS`: `repr(obj)`;
  `DUMP_METHODS`: pydantic 1's `model.dict()`; `DUMP_MODULES`: `copy`, `pickle`...), or gets, sets or passes an
  attribute by a name it computes (`getattr(obj, name)`, `attrgetter(name)`, `replace(obj, **{name: value})`):
  only a name written out can be checked;
- compares a seat with a reader's, or with a name bound to it, in a set, through `operator.eq` or in a `match`;
- raises, makes or renames one of the readers' refusals (`REFUSALS`), or spells the code of a game told unknown
  (`TOLD_UNKNOWN`): telling a caller that a private game is unknown (`HiddenGame`), that a broadcast is not yet
  shown, that an event or a question rests on facts hidden from it, is the package's to decide.

A name counts however it is written: an attribute, a key or any other string (string constants joined with `+`
count as the string they make), a keyword, a parameter, an import (by the name imported, whatever it is imported
as), a definition. `PLANTED` holds a snippet of each form, which the check must find, and `ALLOWED_USES` snippets
it must let pass.

What reading the code cannot tell, and the check does not find: an object turned into text by formatting
(`str(event)`, `f"{event}"`, `!r`), which reads as any string's formatting does; a hidden action's `notation`,
a field every action has (the check finds the fields that mark it hidden); a seat handed on further than one
name bound to it (an argument, an attribute, a container kept); a name computed otherwise than by joining string
constants (`"_".join(...)`, read from data) and handed on in a variable; a module imported by a name computed
(`import_module(name)`); and what a ruleset's function gives of the whole state it is handed (`rules.view`,
`rules.legal_actions`, `layout` with a seat): the rules mark what is hidden, and each capability's contract says
what it may show."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from tests.helpers.modules import shipped_packages, source, walk

READERS = "evo_ledger.app.readers"
RULES = "evo_ledger.rules"
# What the game and its rules keep hidden: the fields of a hidden action, the game's record of its hidden actions
# and of every action it stands on (`history`), the rules' hidden-information capability and what it gives, the
# whole state.
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
        "history",
    }
)
# What gives a game's whole record at once, its hidden facts with the rest: its events as the store holds them,
# the data its snapshot keeps, its whole state before an action.
WHOLE_RECORDS = frozenset({"stored_events", "snapshot_data", "state_before"})
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
        "from_attributes",
        "orm_mode",
        "__repr__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
    }
)
# What is called to dump the object it is handed (`repr(obj)`), or called on (pydantic 1's `model.dict()`), and
# the modules that copy, pickle or print an object whole (checked where they are imported).
DUMP_CALLS = frozenset({"repr", "ascii"})
DUMP_METHODS = frozenset({"dict", "json"})
DUMP_MODULES = frozenset(
    {"copy", "copyreg", "pickle", "marshal", "shelve", "pprint", "reprlib", "dill", "cloudpickle", "jsonpickle"}
)
# What gets, sets or probes an attribute by a name given as a value (`getattr(obj, name)`), with the place of that
# name; and keywords passed by names computed (`replace(reader, **{name: True})`).
GETTERS = {"getattr": 1, "setattr": 1, "delattr": 1, "hasattr": 1, "attrgetter": 0, "__getattribute__": 0}
COMPUTED = "gets by a computed name"
SPLAT = "**"
COMPUTED_KEYWORDS = "passes keywords by computed names"
# The code a game told unknown is answered with: a private game is told unknown by the readers' `HiddenGame`.
TOLD_UNKNOWN = frozenset({"unknown_game"})
CHECKED = HIDDEN_FACTS | SIGHT | REDACTIONS | ROLES | DUMPS | WHOLE_RECORDS | TOLD_UNKNOWN
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
RENAMES = "renames"
SEATS = frozenset({"seat", "holder_seat"})
# What compares the values it is handed, called by name (`operator.eq(a, b)`, `a.__eq__(b)`).
COMPARISONS = frozenset({"eq", "ne", "is_", "is_not", "contains", "countOf", "__eq__", "__ne__", "__contains__"})
SEATS_COMPARED = "compares seats:"
# Every name an entry of ALLOWED may give: those checked, however they are used.
FLAGGED = CHECKED | GETTERS.keys() | DUMP_CALLS | DUMP_METHODS | DUMP_MODULES | REFUSALS | {SPLAT}


@dataclass(frozen=True)
class Allowed:
    """A module outside the readers that may use `names`, for its reason."""

    module: str
    names: frozenset[str]
    reason: str


ALLOWED = (
    Allowed(
        "evo_ledger.game.aggregate",
        HIDDEN_FACTS - {"seat_state", "public_state", "rests_on", "ALL_SEATS"}
        | {"snapshot_data", "state_before", "__dict__", "vars"},
        "the Game and its events hold the hidden fields and the actions, commit to them in the hash chain and "
        "snapshot them; its own attributes are kept in its `__dict__`, and its events found among its class's",
    ),
    Allowed(
        "evo_ledger.game.stored_shapes",
        frozenset({"visible_only_to", "action_salt", "action_commitment", "private"}),
        "the field names of each shape of stored event the compact form knows, as names: it reads no value",
    ),
    Allowed(
        "evo_ledger.game.sentences",
        frozenset({"visible_only_to"}),
        "an event's own sentence, as those who see it read it; the readers give the others theirs (`sentence_for`)",
    ),
    Allowed(
        "evo_ledger.app.audit",
        frozenset(
            {"visible_only_to", "action_salt", "action_commitment", "uncommitted_hidden", "history", "snapshot_data"}
            | {"vars"}
        ),
        "the audit checks every stored field, hidden ones included, folds the actions again and compares the "
        "snapshots with the fold, and reaches a reader through `report_for`",
    ),
    Allowed(
        "evo_ledger.app.disputes",
        frozenset({"hidden_in_place", "history", "repr"}),
        "explanations and branches fold the game's actions again, and reach a reader through `report_for`; a branch "
        "stops before the actions `branch_for` says are hidden from its reader, named as the readers do; a "
        "branch's report quotes the replacement its reader gave",
    ),
    Allowed(
        "evo_ledger.app.ledger.queries",
        frozenset({"stored_events", "copy"}),
        "the ledger's read of a game's stored rows, for the readers' bundles and the audit, each up to the event "
        "its reader's sight was taken at; a cached game is brought up to date on a copy, so that a game handed out "
        "never changes: read, not answered",
    ),
    Allowed(
        "evo_ledger.app.ledger.writer_path",
        frozenset({"copy"}),
        "a change is made to a copy of its game, which takes the cached game's place once stored: written, not "
        "answered",
    ),
    Allowed(
        "evo_ledger.app.access",
        frozenset({"private", "admits", "seat_of", "is_recorders", "co_recorder_of"}),
        "the access records who holds which token and whether the game is private, and judges a token's right to "
        "write (`check_recorder`, `recording_seat`); what a token sees is the readers' (`may_see`)",
    ),
    Allowed(
        "evo_ledger.app.transfer",
        frozenset({"vars", "pickle"}),
        "an imported event is refused unless its fields are its class's: they are counted, not given to a reader; "
        "the games import workers prepare are handed back pickled, to be stored",
    ),
    Allowed(
        "evo_ledger.app.writer",
        frozenset({"vars", "__dict__", "pickle"}),
        "an error raised in the writing process is sent back with its attributes: errors, not games; the changes "
        "and their answers go between the processes pickled, to the caller that made the change",
    ),
    Allowed(
        "evo_ledger.store.fast_paths",
        frozenset({"__dict__", "stored_events"}),
        "a stored event is decoded into its object's `__dict__` without the library's per-row conversions; the "
        "store reads and writes the events table's rows: the store's own, not an answer",
    ),
    Allowed(
        "evo_ledger.store.mapper",
        frozenset({"vars"}),
        "the mapper reads an event's fields to store them, as the library's mapper does: stored, not answered",
    ),
    Allowed(
        "evo_ledger.store.packed",
        frozenset({"stored_events"}),
        "the packed form's recorders read and write the events table's rows and the runs' beside it, under the "
        "names the library gives them: the store's own, not an answer",
    ),
    Allowed(
        "evo_ledger.cli.ledger_commands",
        frozenset({"getattr"}),
        "the seat marks' options are read from the parsed command line by the names the rulesets give them",
    ),
    Allowed(
        "api.deps",
        frozenset({"is_admin", "unknown_game"}),
        "the admin's token is told apart here, once, and handed to the readers (`reader_for`, `sees_game`, "
        "`told_already_stored`, `Caller`) and to the ledger's changes as a right to write; a game id that is no "
        "UUID names no game, whoever asks",
    ),
    Allowed(
        "api.errors",
        frozenset({"unknown_game"}),
        "the readers' `HiddenGame` and the ledger's unknown game are answered with the same code, once",
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
        frozenset({"private", "include_private"}),
        "the games table keeps whether each game is private, and `shown_to_public` filters on it in SQL, as does "
        "`counted_games`, the statistics' one condition, unless the readers say private games' rows count",
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
        "projections.competitions",
        frozenset({"include_private"}),
        "a competition's standings leave out private games' rows in SQL unless the readers say they count",
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


def joined(node: ast.AST) -> str | None:
    """The string a node of string constants joined with `+` makes (`'sees' + '_all'`), where it is one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = joined(node.left), joined(node.right)
        return left + right if left is not None and right is not None else None
    return None


def named(node: ast.AST) -> list[tuple[str, str]]:
    """The names the node writes and how: an import as the name imported and as the name it is bound to."""
    if isinstance(node, ast.Attribute):
        return [(node.attr, "reads")]
    if isinstance(node, ast.Name):
        return [(node.id, "names")]
    if isinstance(node, ast.Constant | ast.BinOp) and (text := joined(node)) is not None:
        return [(text, "spells")]
    if isinstance(node, ast.keyword) and node.arg is not None:
        return [(node.arg, "passes")]
    if isinstance(node, ast.arg):
        return [(node.arg, "takes")]
    if isinstance(node, ast.alias):
        return [(name, "imports") for name in dict.fromkeys([node.name, node.asname or node.name])]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [(node.name, "defines")]
    return []


def seat_locals(tree: ast.AST) -> frozenset[str]:
    """The names a module binds to a reader's seat (`seat = reader.seat`)."""
    return frozenset(
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr in SEATS
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    )


def holds_seat(node: ast.AST, bound: frozenset[str]) -> bool:
    """Whether the node is a reader's seat, a name bound to one, or a set, list or tuple holding one."""
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        return any(holds_seat(item, bound) for item in node.elts)
    return (isinstance(node, ast.Attribute) and node.attr in SEATS) or (isinstance(node, ast.Name) and node.id in bound)


def seat_compared(node: ast.AST, bound: frozenset[str] = frozenset()) -> bool:
    """Whether the node compares something with a reader's seat (`owner == reader.seat`, `reader.seat is None`,
    `{owner} == {reader.seat}`, `operator.eq(owner, reader.seat)`, `match reader.seat:`), or with a name bound to
    one (`bound`)."""
    if isinstance(node, ast.Compare):
        return any(holds_seat(side, bound) for side in [node.left, *node.comparators])
    if isinstance(node, ast.Match):
        return holds_seat(node.subject, bound)
    if not isinstance(node, ast.Call) or called(node) not in COMPARISONS:
        return False
    return any(holds_seat(arg, bound) for arg in node.args)


def called(node: ast.AST) -> str | None:
    """The name of what the node calls (`f` of `f(x)` and of `m.f(x)`), where it calls something by a name."""
    if not isinstance(node, ast.Call):
        return None
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)


def computed_get(node: ast.AST) -> str | None:
    """The getter the node calls with a name it does not write out (`getattr(obj, name)`, `attrgetter(name)`,
    `obj.__getattribute__(name)`), where it calls one."""
    getter = called(node)
    if not isinstance(node, ast.Call) or getter not in GETTERS or len(node.args) <= GETTERS[getter]:
        return None
    return None if joined(node.args[GETTERS[getter]]) is not None else getter


def computed_keywords(node: ast.AST) -> bool:
    """Whether the node passes keywords by names it does not write out (`f(**{name: value})`)."""
    if not isinstance(node, ast.keyword) or node.arg is not None:
        return False
    given = node.value
    return isinstance(given, ast.DictComp) or (
        isinstance(given, ast.Dict) and any(key is None or joined(key) is None for key in given.keys)
    )


def dumped(node: ast.AST) -> str | None:
    """What the node calls or imports to dump an object whole: `repr(obj)`, `model.dict()`, `import pickle`."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in DUMP_CALLS:
            return node.func.id
        if isinstance(node.func, ast.Attribute) and node.func.attr in DUMP_METHODS:
            return node.func.attr
    modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
        modules = [node.module]
    return next((top for module in modules if (top := module.partition(".")[0]) in DUMP_MODULES), None)


def refusal_named(node: ast.AST | None) -> str | None:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name if name in REFUSALS else None


def refusal_raised(node: ast.AST) -> str | None:
    """The readers' refusal the node makes (`HiddenGame(...)`) or raises as it is (`raise HiddenGame`), where it
    does either."""
    if isinstance(node, ast.Call):
        return refusal_named(node.func)
    if isinstance(node, ast.Raise) and not isinstance(node.exc, ast.Call):
        return refusal_named(node.exc)
    return None


def refusal_renamed(node: ast.AST) -> str | None:
    """The readers' refusal the node binds to another name (`import HiddenGame as Gone`, `Gone = HiddenGame`),
    which a raise would then not name."""
    if isinstance(node, ast.alias) and node.name in REFUSALS and node.asname not in (None, node.name):
        return node.name
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr):
        return refusal_named(node.value)
    return None


def uses_in(text: str) -> list[Use]:
    found: list[Use] = []
    tree = ast.parse(text)
    bound = seat_locals(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        found += [Use(line, name, how) for name, how in named(node) if name in CHECKED]
        if (getter := computed_get(node)) is not None:
            found.append(Use(line, getter, COMPUTED))
        if computed_keywords(node):
            found.append(Use(line, SPLAT, COMPUTED_KEYWORDS))
        if (dump := dumped(node)) is not None:
            found.append(Use(line, dump, "dumps with"))
        if (refusal := refusal_raised(node)) is not None:
            found.append(Use(line, refusal, RAISES))
        if (refusal := refusal_renamed(node)) is not None:
            found.append(Use(line, refusal, RENAMES))
        if seat_compared(node, bound):
            found.append(Use(line, ast.unparse(node.subject if isinstance(node, ast.Match) else node), SEATS_COMPARED))
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
    unchecked = allowed.names - FLAGGED
    assert not unchecked, f"ALLOWED names what is not checked: {sorted(unchecked)}"


def test_every_name_checked_is_one_the_readers_use_or_a_module_allowed_must() -> None:
    """The names of hidden facts, sights and redactions are all the readers'; a role's name, a whole record's and the
    code of a game told unknown are the readers' or one a module allowed must use (the API's `is_admin` and the
    projections' `include_private`, which the readers' answers are handed to; the ledger's `stored_events`, which
    the readers' bundles read; the API's errors, which answer the readers' `HiddenGame`); a dump, a computed name
    and a refusal are checked wherever they are written."""
    used = {use.name for module in walk(READERS) for use in uses_in(source(module))}
    facts = HIDDEN_FACTS | SIGHT | REDACTIONS
    assert used >= facts, f"the readers use none of {sorted(facts - used)}: the check need not name them"
    known = used | {name for allowed in ALLOWED for name in allowed.names}
    named_by_some = ROLES | WHOLE_RECORDS | TOLD_UNKNOWN
    assert known >= named_by_some, f"nothing uses {sorted(named_by_some - known)}: the check need not name them"
    assert any(use.how == SEATS_COMPARED for module in walk(READERS) for use in uses_in(source(module)))
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
    "a seat compared through a local": (
        "def f(owner, reader):\n    seat = reader.seat\n    return owner == seat\n",
        ["line 3: compares seats:"],
    ),
    "a seat compared in a set": (
        "def f(owner, reader):\n    return {owner} == {reader.seat}\n",
        ["line 2: compares seats:"],
    ),
    "a seat compared by operator": (
        "import operator\ndef f(owner, reader):\n    return operator.eq(owner, reader.seat)\n",
        ["line 3: compares seats:"],
    ),
    "a seat matched": (
        "def f(owner, reader):\n    match reader.seat:\n        case x if x == owner:\n            return True\n",
        ["line 2: compares seats:"],
    ),
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
    "a field's name joined": ("def f(e):\n    return getattr(e, 'action' + '_salt')\n", ["line 2: spells"]),
    "a field's name joined with a value": (
        "def f(e, kind):\n    return getattr(e, kind + '_salt')\n",
        [f"line 2: {COMPUTED}"],
    ),
    "a computed setattr": ("def f(r, name):\n    setattr(r, name, True)\n", [f"line 2: {COMPUTED}"]),
    "a sight passed by a joined key": (
        "from dataclasses import replace\ndef f(r):\n    return replace(r, **{'sees' + '_all': True})\n",
        ["line 3: spells"],
    ),
    "keywords passed by computed names": (
        "from dataclasses import replace\ndef f(r, name):\n    return replace(r, **{name: True})\n",
        [f"line 3: {COMPUTED_KEYWORDS}"],
    ),
    "the actions a game stands on": (
        "def f(game):\n    return [n for _, n, _ in game.history]\n",
        ["line 2: reads"],
    ),
    "a game's snapshot data": ("def f(game):\n    return game.snapshot_data()\n", ["line 2: reads"]),
    "the stored rows": ("def f(ledger, g):\n    return ledger.queries.stored_events(g)\n", ["line 2: reads"]),
    "a checked name imported as another": (
        "from evo_ledger.app.readers import leave_out as lo\n",
        ["line 1: imports"],
    ),
    "an event's repr": ("def f(event):\n    return repr(event)\n", ["line 2: dumps with"]),
    "a model dumped by pydantic 1": ("def f(m):\n    return m.dict()\n", ["line 2: dumps with"]),
    "a model read from an object's attributes": (
        "def f(M, game):\n    return M.model_validate(game, from_attributes=True)\n",
        ["line 2: passes"],
    ),
    "an event pickled": ("import pickle\ndef f(e):\n    return pickle.dumps(e)\n", ["line 1: dumps with"]),
    "an event copied": ("from copy import copy\ndef f(e):\n    return copy(e)\n", ["line 1: dumps with"]),
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
    "a refusal imported as another name": (
        "from evo_ledger.app.access import HiddenGame as Gone\ndef f():\n    raise Gone('x')\n",
        [f"line 1: {RENAMES}"],
    ),
    "a refusal bound to another name": ("Gone = HiddenGame\n", [f"line 1: {RENAMES}"]),
    "a refusal made, then raised": ("def f():\n    gone = HiddenGame('x')\n    raise gone\n", ["line 2: raises"]),
    "a refusal raised as its class": ("def f():\n    raise HiddenGame\n", ["line 2: raises"]),
    "a game told unknown by its code": (
        "def f(g):\n    raise ApiError(404, 'unknown_game', f'no game {g}')\n",
        ["line 2: spells"],
    ),
}
ALLOWED_USES = {
    "a package entry point": "from evo_ledger.app.readers import legal_for\ndef f(r, g):\n    return legal_for(r, g)\n",
    "a reader's seat shown": "def f(reader):\n    return {'seat': reader.seat}\n",
    "a seat named in a path": "def f(seat, players):\n    return seat in players\n",
    "a field got by its name": "def f(event):\n    return getattr(event, 'cause', None)\n",
    "a field probed by its name": "def f(module):\n    return hasattr(module, '__path__')\n",
    "keywords passed by their names": "def f(M, options):\n    return M(**options, **{'kit': 'x'})\n",
    "a field kept out of a repr": "from dataclasses import field\nseal: str = field(repr=False)\n",
    "a flag named json": "def f(args):\n    return args.json\n",
    "a mapping copied": "def f(rows):\n    copy = dict(rows)\n    return copy.copy()\n",
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
