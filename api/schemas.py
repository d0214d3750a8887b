"""What the API takes and gives, as pydantic models (input and output apart), and the answers several routers
document alike."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import models_json_schema

from evo_ledger.app.access import (
    MAX_CO_RECORDER_NAME,
    MAX_WITHDRAWAL_REASON,
    co_recorder_name_problem,
    withdrawal_reason_problem,
)
from evo_ledger.app.competitions import (
    MAX_NAME,
    MAX_PLACES,
    MAX_POINTS,
    MAX_ROUND,
    MAX_SEASON,
    MAX_TABLE,
    normalised_text,
    text_problem,
)
from evo_ledger.app.ledger import Receipt as LedgerReceipt
from evo_ledger.app.stored_kits import KIT_HASH, is_kit_hash
from evo_ledger.game.codec import CodecError, check_depth
from evo_ledger.rules import rulesets, seat_options
from evo_ledger.rules.base import Outcome
from evo_ledger.rules.kits import builtin_kit_names

API_PREFIX = "/v1"  # every route of the API is under it; the pages and health are not
MAX_BATCH = 200
MAX_ACTION_BYTES = 4096
MIN_PLAYERS, MAX_PLAYERS = 2, 5
CLOCK_SKEW = timedelta(minutes=5)
# Every time the API takes: from the first day of 1970 to the last of 9999 (in UTC), with an offset from UTC that a
# clock somewhere may have.
FIRST_YEAR, LAST_YEAR = 1970, 9999
EARLIEST = datetime(FIRST_YEAR, 1, 1, tzinfo=UTC)
LATEST = datetime(LAST_YEAR, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
LEAST_OFFSET, MOST_OFFSET = timedelta(hours=-12), timedelta(hours=14)
ENTERED_AT = (
    "when the action was entered at the table, as the recording device's clock said it (ISO 8601 with its offset, "
    "from -12:00 to +14:00; from 1970 to 9999 in UTC); stored with the action, in UTC"
)
MAX_REASON = 200
MAX_NOTE = 2000
# The largest event number a store's integer column holds: a larger one is refused, not sent to the database.
MAX_EVENT_NUMBER = 2**63 - 1

# Where a position stands, as its view gives it apart from the headline, which says the same in words.
ROUND = "the round (evo1: the turn; the trait-card game: the millennium), counted from 1; 0 before the first begins"
PHASE = "the part of the round, in the ruleset's words (`movement`, `births`); `over` once the game is over"
STEP = "what the table awaits now, in words (`ann to move (2 steps left)`); empty once the game is over"
REVEAL_AT_END = (
    "once the game is over, its hidden facts (cards drawn, peeks, hands) are shown to every reader (true), or kept "
    "from readers who could not see them during play (false)"
)


SEAT_MARKS = {spec.seat_mark: spec for spec in seat_options().values()}


def passed(value: str, problem: str | None) -> str:
    """The value, where the rule that judged it found no `problem` (a refusal naming it otherwise)."""
    if problem is not None:
        raise ValueError(problem)
    return value


class Player(BaseModel):
    """A seat: its player's name and stable id, and the marks a ruleset's options give seats (`MARK: true`)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "description": "A seat in seat order. Marks a ruleset gives seats, each `MARK: true`: "
            + "; ".join(f"{mark}: {spec.help} ({spec.ruling})" for mark, spec in SEAT_MARKS.items()),
            "additionalProperties": False,
        },
    )
    name: str = Field(min_length=1, max_length=40, pattern=r"^[a-z][a-z0-9_]*$")
    id: str | None = Field(default=None, max_length=200, description="a stable id; derived from the name if left out")

    @model_validator(mode="after")
    def known_marks(self) -> Player:
        for key, value in (self.model_extra or {}).items():
            if key not in SEAT_MARKS:
                known = ", ".join(["name", "id", *SEAT_MARKS])
                raise ValueError(f"a player has no field {key!r}; its fields are {known}")
            if not isinstance(value, bool):
                raise ValueError(f"{key} is true or false, not {value!r}")
        return self

    def marks(self) -> list[str]:
        return [key for key, value in (self.model_extra or {}).items() if value is True]


KITS = builtin_kit_names()
RULESET_NAMES: list[JsonValue] = list(sorted(rulesets()))
KIT_NAMES: list[JsonValue] = list(KITS)
# A kit a new game names: a built-in kit's name, or the hash of a kit built in or stored (`GET /v1/kits` lists both).
KIT_REFERENCE: dict[str, JsonValue] = {"anyOf": [{"enum": KIT_NAMES}, {"pattern": f"^{KIT_HASH.pattern}$"}]}


COMPETITION_ID = "a competition's id, as `POST /v1/competitions` answered it"
GAME_ROUND = "the round of the competition the game is in, counted from 1"
GameRound = Annotated[StrictInt, Field(ge=1, le=MAX_ROUND, description=GAME_ROUND)]
GAME_TABLE = "the table the game is played at, in words (`A`, `the long table`)"


def text_checked(value: str | None, most: int) -> str | None:
    """A name, a season label or a table as a competition holds it (`text_problem`; None where none is given),
    refused naming the problem."""
    problem = None if value is None else text_problem(value, most)
    if problem is not None:
        raise ValueError(problem)
    return value


class CompetitionEntry(BaseModel):
    """A new game's entry in a competition, made with the organiser's token (or the admin's) as the request's
    bearer token, and stored with the game in one transaction."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(max_length=64, description=COMPETITION_ID)
    round: GameRound | None = None
    table: str | None = Field(default=None, min_length=1, max_length=MAX_TABLE, description=GAME_TABLE)

    @field_validator("table")
    @classmethod
    def table_as_the_rule_says(cls, table: str | None) -> str | None:
        return text_checked(table, MAX_TABLE)


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ruleset: str | None = Field(
        default=None,
        description="the ruleset, checked against the kit's (the kit's if left out)",
        json_schema_extra={"enum": [*RULESET_NAMES, None]},
    )
    kit: str = Field(
        description="a built-in kit's name, or a kit's hash (`sha256:...`, as `GET /v1/kits` lists it): a kit built "
        "in or stored on the server; it names its ruleset",
        json_schema_extra=KIT_REFERENCE,
    )
    players: list[Player] = Field(
        min_length=MIN_PLAYERS, max_length=MAX_PLAYERS, description="in seat order, as many as the kit seats"
    )
    options: dict[str, bool | int | str] = Field(default_factory=dict, description="the ruleset's named options")
    seat_tokens: bool = Field(default=False, description="issue a token per seat: each reads what its seat may see")
    reveal_at_end: bool = Field(default=True, description=REVEAL_AT_END + "; the recorder may change it later")
    competition: CompetitionEntry | None = Field(
        default=None,
        description="the competition the game is entered in, with its organiser's token (or the admin's) as the "
        "request's bearer token: the game and its entry are stored together, or neither",
    )

    @field_validator("ruleset", "kit")
    @classmethod
    def known(cls, name: str | None, info: ValidationInfo) -> str | None:
        known = RULESET_NAMES if info.field_name == "ruleset" else KIT_NAMES
        if info.field_name == "kit" and name is not None and is_kit_hash(name):
            return name  # a stored kit's hash: the ledger finds it, or refuses it (404 `unknown_kit`)
        if name is not None and name not in known:
            raise ValueError(f"no {info.field_name} {name!r}; known: {', '.join(map(str, known))}")
        return name


class ActionData(BaseModel):
    """An action as data: its kind (the notation's word for it) and its fields by name."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [{"kind": "bid", "player": "ann", "amount": 3, "target": "horns"}]},
    )
    kind: str = Field(min_length=1, max_length=40)

    @model_validator(mode="after")
    def numbers_fit(self) -> ActionData:
        """No number of an action is larger than 64 bits: no rule counts that far, and a longer one could not
        even be written back as text."""
        for name, value in (self.model_extra or {}).items():
            if not fits(value):
                raise ValueError(f"{name}: a number in an action must be within 64 bits")
            try:
                check_depth(value)
            except CodecError as error:
                raise ValueError(f"{name}: {error}") from None
        return self


def fits(value: Any) -> bool:
    if isinstance(value, int):
        return value.bit_length() <= MAX_NUMBER_BITS
    if isinstance(value, list):
        return all(fits(item) for item in value)
    if isinstance(value, dict):
        return all(fits(item) for item in value.values())
    return True


MAX_NUMBER_BITS = 63


class Append(BaseModel):
    """One action or a batch, each in notation or as data; all or nothing."""

    model_config = ConfigDict(extra="forbid")
    actions: list[str | ActionData] = Field(min_length=1, max_length=MAX_BATCH)
    expected_version: int | None = Field(
        default=None, ge=1, le=MAX_EVENT_NUMBER, description="refused with 409 unless the game is here"
    )
    entered_at: AwareDatetime | None = Field(default=None, description=ENTERED_AT)

    @field_validator("entered_at")
    @classmethod
    def not_ahead(cls, value: datetime | None) -> datetime | None:
        return entered_at_checked(value)

    def digest(self) -> str:
        """What a retry with the same idempotency key must repeat (a time left out is not part of it)."""
        shown = self.model_dump(mode="json", exclude={"entered_at"} if self.entered_at is None else set())
        return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


def entered_at_checked(value: datetime | None) -> datetime | None:
    """A time the table gave, refused when it is out of bounds (`time_checked`) or later than the server's clock by
    more than a device's clock may be off."""
    if value is not None and time_checked(value) > datetime.now(UTC) + CLOCK_SKEW:
        raise ValueError(f"entered_at is later than the server's clock by more than {CLOCK_SKEW}")
    return value


def time_checked(value: datetime) -> datetime:
    """A time within the bounds of every time the API takes: its offset from -12:00 to +14:00, and from 1970 to
    9999 in UTC (compared as instants, which never leave the calendar: converting one could)."""
    offset = value.utcoffset()
    if offset is None or not LEAST_OFFSET <= offset <= MOST_OFFSET:
        raise ValueError(f"a time's offset from UTC is from -12:00 to +14:00: {value.isoformat()} is not")
    if not EARLIEST <= value <= LATEST:
        raise ValueError(f"a time is from {FIRST_YEAR}-01-01 to {LAST_YEAR}-12-31 in UTC: {value.isoformat()} is not")
    return value


def date_checked(value: date) -> date:
    """A date within the years of every time the API takes."""
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        raise ValueError(f"a date is from {FIRST_YEAR}-01-01 to {LAST_YEAR}-12-31, not {value.isoformat()}")
    return value


def entered_at_text(value: datetime | None) -> str | None:
    """The time as it is stored: ISO 8601 in UTC, to the millisecond."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds") if value is not None else None


class Privacy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    private: bool


MAX_BROADCAST_DELAY = 24 * 60
MIN_BROADCAST_DELAY = 0.1


class BroadcastDelay(BaseModel):
    """How many minutes behind the table a reader without a token follows the game, until it ends (0: none)."""

    model_config = ConfigDict(extra="forbid")
    minutes: float = Field(ge=0, le=MAX_BROADCAST_DELAY, allow_inf_nan=False, strict=True)

    @field_validator("minutes")
    @classmethod
    def live_or_a_delay(cls, minutes: float) -> float:
        if 0 < minutes < MIN_BROADCAST_DELAY:
            raise ValueError(f"0 (live), or at least {MIN_BROADCAST_DELAY} minutes")
        return minutes


class SeatsRecord(BaseModel):
    """Whether each seat's token may append its player's own actions."""

    model_config = ConfigDict(extra="forbid")
    allowed: bool


WITHDRAWN = "left out of standings, ratings, statistics and the game list; its log and its audits keep it"


class Withdrawal(BaseModel):
    """Why the game is withdrawn (a test game, an abandoned one), or reinstated."""

    model_config = ConfigDict(extra="forbid")
    reason: str = Field(
        min_length=1,
        max_length=MAX_WITHDRAWAL_REASON,
        description="why, in words: no control or invisible character, not only spaces",
    )

    @field_validator("reason")
    @classmethod
    def reason_as_the_rule_says(cls, reason: str) -> str:
        return passed(reason, withdrawal_reason_problem(reason))


class WithdrawalSet(BaseModel):
    """The game after it was withdrawn or reinstated: whether it is withdrawn now, and the reason given."""

    game_id: str
    withdrawn: bool = Field(description=WITHDRAWN)
    reason: str


class RevealAtEnd(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reveal_at_end: bool = Field(description=REVEAL_AT_END)


class Receipt(BaseModel):
    game_id: str
    version: int
    head_hash: str

    @classmethod
    def of(cls, receipt: LedgerReceipt) -> Receipt:
        return cls(game_id=str(receipt.game_id), version=receipt.version, head_hash=receipt.head_hash)


class Created(Receipt):
    recorder_token: str = Field(description="shown once: only its holder may append to the game")
    seat_tokens: dict[str, str] | None = Field(
        default=None, description="shown once, by player: each reads what that player's seat may see"
    )

    @classmethod
    def given(cls, receipt: LedgerReceipt, token: str, seats: dict[str, str] | None = None) -> Created:
        return cls(**Receipt.of(receipt).model_dump(), recorder_token=token, seat_tokens=seats)


class RevealAtEndSet(Receipt):
    """The game's receipt after the setting (an event of its log, none if it said so already), and the setting."""

    reveal_at_end: bool = Field(description=REVEAL_AT_END)


class RecorderToken(BaseModel):
    game_id: str
    recorder_token: str = Field(description="shown once: the token it replaces records no more")
    co_recorders_let_go: int = Field(description="the co-recorders let go with the token replaced")
    join_link: str = Field(description="the recording page with the new token after `#`")
    join_qr: str = Field(description="the join link as a QR code: an SVG image as a data URI")


class Summary(BaseModel):
    game_id: str
    ruleset: str
    ruleset_version: str
    kit: str
    kit_hash: str
    players: list[dict[str, Any]]
    version: int
    head_hash: str | None = Field(
        description="the hash of the latest event; null where a hidden action stored before hidden actions carried "
        "a salted commitment could be tried from it"
    )
    status: str = Field(description="ongoing or over")
    headline: str
    round: int = Field(description=ROUND)
    phase: str = Field(description=PHASE)
    step: str = Field(description=STEP)
    private: bool
    reveal_at_end: bool = Field(description=REVEAL_AT_END)
    broadcast_delay: float = Field(
        0, description="how many minutes behind the table a reader without a token follows the game until it ends"
    )
    seats_record: bool = Field(False, description="whether each seat's token may append its player's own actions")
    withdrawn: bool = Field(False, description=f"whether the game is withdrawn: {WITHDRAWN}")
    withdrawn_reason: str | None = Field(None, description="why it is withdrawn; null while it is not")
    started_at: str
    result: list[dict[str, Any]] | None


class GameList(BaseModel):
    games: list[Summary]
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


class Event(BaseModel):
    number: int
    kind: str
    topic: str
    timestamp: str
    text: str = Field(description="the event as the log says it: an action as recorded, a consequence as a sentence")
    fields: dict[str, Any]
    hidden: bool = Field(description="true when what the rules keep hidden was left out for this reader")


class EventPage(BaseModel):
    events: list[Event]
    next_after: int | None = Field(description="pass as `after` for the next page; null at the end")


class State(BaseModel):
    version: int
    headline: str
    round: int = Field(description=ROUND)
    phase: str = Field(description=PHASE)
    step: str = Field(description=STEP)
    players: list[str]
    occupants: dict[str, str]
    result: list[dict[str, Any]] | None
    state: dict[str, Any]


def result_of(outcome: Outcome | None) -> list[dict[str, Any]] | None:
    """A game's `result` as an answer gives it: each standing's rank, player and score (None while it goes on)."""
    if outcome is None:
        return None
    return [{"rank": s.rank, "player": s.player, "score": list(s.score)} for s in outcome.standings]


class Advice(BaseModel):
    """The decision the rules make themselves for a seat they run (an Autosaur's): record `actions[0]` to confirm
    it; several actions are an open tie, where the recorder's choice stands."""

    actions: list[str]
    ruling: str
    reason: str


class LegalActions(BaseModel):
    version: int
    actions: list[str]
    advice: Advice | None = None


class Choices(BaseModel):
    """The words that may follow `words` (and the `forced` words after them, if asked) in a legal action at
    `version`, and whether they are one."""

    version: int
    words: list[str]
    forced: list[str] = []
    next: list[str]
    complete: bool


class KitSummary(BaseModel):
    """A kit, built in or stored, as a new game's form offers it: how a new game names it, the ruleset it names,
    how many players it seats, the words that mark a seat with a seat option (`autosaur`), its name and content
    hash, and whether it is stored on the server."""

    kit: str = Field(description="what a new game's `kit` names it by: a built-in kit's name, a stored kit's hash")
    ruleset: str
    min_players: int
    max_players: int
    seat_marks: list[str]
    name: str = Field(description="the name its document gives it")
    kit_hash: str = Field(description="its content hash: `sha256:` and the SHA-256 of its canonical JSON")
    stored: bool = Field(description="false for a kit built in, true for one stored on the server")


class KitList(BaseModel):
    kits: list[KitSummary]


CO_RECORDER_NAME = (
    "say, ben's phone: 1 to 40 characters, no '/' or '\\', no control or invisible character, no space at either "
    "end, more than dots and spaces; no other co-recorder of the game's holds it"
)
CO_RECORDER_ID = "the co-recorder's id, given when it was added and never to another co-recorder of the game's"


class CoRecorder(BaseModel):
    """Another device that records the game as the recorder does, by the name the recorder gives it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=MAX_CO_RECORDER_NAME, description=CO_RECORDER_NAME)

    @field_validator("name")
    @classmethod
    def name_as_the_rule_says(cls, name: str) -> str:
        return passed(name, co_recorder_name_problem(name))


class CoRecorderIssued(BaseModel):
    id: int = Field(description=CO_RECORDER_ID)
    name: str
    token: str = Field(description="shown once: the device that holds it records the game until it is revoked")
    join_link: str = Field(description="the recording page with the token after `#`, which no browser sends on")
    join_qr: str = Field(description="the join link as a QR code: an SVG image as a data URI")


class SeatTokenIssued(BaseModel):
    seat: str
    token: str = Field(description="shown once: its holder reads the game with that seat's hidden facts alone")
    join_link: str
    join_qr: str


class CoRecorderListed(BaseModel):
    id: int = Field(description=CO_RECORDER_ID + ": `DELETE .../co-recorders/{id}` lets it go")
    name: str


class CoRecorderList(BaseModel):
    co_recorders: list[CoRecorderListed] = Field(description="by name")


class GameSetup(BaseModel):
    """What the rules need to judge a game's next action where the server cannot be reached (the recording page's
    rules worker): its ruleset and the version it was pinned to, the kit's document, its players and options, its
    effective actions in order (`evo_ledger.rules.judge`), and the version it stands at."""

    ruleset: str
    ruleset_version: str
    kit: dict[str, Any]
    players: list[str]
    options: dict[str, Any]
    actions: list[str]
    version: int


class Undo(BaseModel):
    """Undo the last `count` actions, for a `reason`."""

    count: int = Field(ge=1, le=1000)
    reason: str = Field(min_length=1, max_length=MAX_REASON)
    expected_version: int | None = Field(default=None, ge=1)


class Correction(BaseModel):
    """Replace the latest action by `action` (in notation), for a `reason`."""

    action: str = Field(min_length=1, max_length=MAX_ACTION_BYTES)
    reason: str = Field(min_length=1, max_length=MAX_REASON)
    expected_version: int | None = Field(default=None, ge=1)
    entered_at: AwareDatetime | None = Field(default=None, description=ENTERED_AT)

    @field_validator("entered_at")
    @classmethod
    def not_ahead(cls, value: datetime | None) -> datetime | None:
        return entered_at_checked(value)


class Note(BaseModel):
    """A note about event `event`."""

    event: int = Field(ge=1)
    text: str = Field(min_length=1, max_length=MAX_NOTE)
    expected_version: int | None = Field(default=None, ge=1)


class Problem(BaseModel):
    """Every refusal: a machine-readable code and a message; a rule violation also names its ruling."""

    code: str
    message: str
    ruling: str | None = None
    line: int | None = None
    details: list[dict[str, Any]] | None = None
    broadcast_starts_at: str | None = Field(
        None,
        description="`not_yet_broadcast`: when a reader without a token is first shown the game (its first event "
        "then as old as the delay)",
    )
    broadcast_delay: float | None = Field(
        None, description="`not_yet_broadcast`: how many minutes behind the table the game is broadcast"
    )


PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "description": description}
    for status, description in (
        (400, "a body that cannot be parsed"),
        (401, "no token, or not a bearer token"),
        (403, "a token that does not give this right, or a private game"),
        (404, "no such game or event"),
        (409, "the game is not at the expected version"),
        (413, "the request body is too large"),
        (415, "a body of a type this operation does not take"),
        (422, "a request the rules or the schema refuse"),
    )
}


RECORDED_SHOWN = 100  # the events a version conflict shows at most


class VersionConflictProblem(BaseModel):
    """A change made on a game that has moved on since the version it expected: nothing was stored. What was stored
    since comes with it, each event as the reader who asked may see it (as `GET /v1/games/{id}/events` shows it to
    that reader)."""

    code: Literal["version_conflict"]
    message: str
    expected_version: int = Field(description="the version the request expected")
    version: int = Field(description="the game's version now")
    recorded: list[Event] = Field(
        description=f"the events after `expected_version`, the first {RECORDED_SHOWN} at most, as this reader may see "
        "them: an action hidden from it shows only whose it is"
    )
    next_after: int | None = Field(
        description="pass as `after` to the events for the rest of them; null when `recorded` holds them all"
    )


# A change that names the version it expects: the conflict, or (without it) the writers it lost to every time.
VERSION_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {
        "model": VersionConflictProblem | Problem,
        "description": "the game is no longer at `expected_version`: `version_conflict`, with what was stored since; "
        "without `expected_version`, other writers appended first each time it was made again (`contention`)",
    }
}


# What every game has, whatever its ruleset (a game of a ruleset without auctions has no auction history).
GAME_LINKS = {
    name: {"operationId": operation, "parameters": {"game_id": "$response.body#/game_id"}}
    for name, operation in (
        ("Summary", "game_summary"),
        ("Append", "append"),
        ("Legal", "legal_actions"),
        ("Events", "events"),
        ("State", "state"),
        ("Export", "export"),
        ("Audit", "audit"),
        ("Explain", "explain"),
        ("WhatIf", "what_if"),
        ("Standings", "standings"),
    )
}
GAME_CREATED: dict[int | str, dict[str, Any]] = {
    201: {"description": "the game, and its recorder token", "links": GAME_LINKS}
}


COMPONENTS = "#/components/schemas/"


def json_body_of(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI request body of an endpoint that reads `model` from its request itself (`with_models` puts
    the model in the schema's components)."""
    return {"required": True, "content": {"application/json": {"schema": {"$ref": COMPONENTS + model.__name__}}}}


OpenApi = Callable[[], dict[str, Any]]


def with_models(openapi: OpenApi, models: Sequence[type[BaseModel]]) -> OpenApi:
    """`openapi`, whose components also hold `models` and the models they use."""

    def documented() -> dict[str, Any]:
        schema = openapi()
        components: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
        if any(model.__name__ not in components for model in models):
            read = [(model, "validation") for model in models]
            _, definitions = models_json_schema(read, ref_template=COMPONENTS + "{model}")  # type: ignore[arg-type]
            for name, definition in definitions.get("$defs", {}).items():
                components.setdefault(name, definition)
        return schema

    return documented


class Ruling(BaseModel):
    id: str = Field(description="the ruling's id, as a refusal names it")
    title: str
    text: str = Field(description="what the ruling means, in the project's words")
    ruleset: str


class RulingList(BaseModel):
    rulings: list[Ruling]


class PositionView(BaseModel):
    """A position as the replay viewer draws it, for its reader: what a rule keeps hidden is drawn only where the
    reader may see it (a hand, for its seat)."""

    version: int
    ruleset: str
    headline: str
    round: int = Field(description=ROUND)
    phase: str = Field(description=PHASE)
    step: str = Field(description=STEP)
    players: list[str] = Field(description="each player's line")
    table: list[str] = Field(description="what lies on the table besides the board, a line each")
    layout: dict[str, Any] | None = Field(
        description="the board, for a game whose rules draw one, as data any page draws: spaces on a `grid` with "
        "the `pieces` on them and what a tap on each enters, a `legend`, `groups` of panels (docs/api.md)"
    )
    result: list[dict[str, Any]] | None
    perspectives: list[str] = Field(
        description="what the token's holder may read the game as (`as`): `public`, and each seat for the recorder"
    )
    seat: str | None = Field(
        None,
        description="the seat this answer was made for, whose own hidden facts it shows: the seat token's player, or "
        "the seat read `as`; null for the recorder (who sees every hidden fact) and for the public",
    )


# The read tables' answers: each says the position in the log it includes.
PERSON_ID = (
    "the person, whose stable ids' games count together (`/v1/people`): a stable id no person's record claims is a "
    "person of its own, with that id"
)
T = TypeVar("T")


class Fresh(BaseModel):
    position: int
    log_position: int


class GameReport(BaseModel):
    """A report on one game: its id, its ruleset, and each part the ruleset's reading names, a list of rows; and
    the read tables' positions, left out (null) for a reader a broadcast's delay holds back (they count every
    event stored, those held back included)."""

    model_config = ConfigDict(extra="allow")
    position: int | None
    log_position: int | None
    game_id: str
    ruleset: str


class PlayerRecord(BaseModel):
    ruleset: str
    person_id: str = Field(description=PERSON_ID)
    player_id: str = Field(description="the least of the stable ids the person sat under")
    name: str
    games: int
    wins: int
    mean_score: float
    best_score: int


class Rating(BaseModel):
    person_id: str = Field(description=PERSON_ID)
    player_id: str = Field(description="the stable id the person sat under at their latest rated game")
    name: str
    games: int
    mu: float
    sigma: float
    ordinal: float


class SeatWins(BaseModel):
    players: int
    seat: int
    games: int
    wins: int
    win_rate: float
    low: float
    high: float


class FirstPlaceWins(BaseModel):
    players: int
    place: int
    games: int
    wins: int
    win_rate: float
    low: float
    high: float


class GameLength(BaseModel):
    players: int
    kit: str
    games: int
    mean_rounds: float
    least_rounds: int
    most_rounds: int
    mean_events: float


class ScoreMargin(BaseModel):
    players: int
    games: int
    mean_winning_score: float
    mean_score: float
    mean_margin: float
    least_margin: int
    most_margin: int


class Profile(BaseModel):
    person_id: str = Field(description=PERSON_ID)
    player_id: str = Field(description="the least of the stable ids the person sat under")
    name: str
    games: int
    wins: int
    mean_place: float
    ratings: list[float]
    rated_games: list[int]


class RulesetCount(BaseModel):
    ruleset: str
    games: int
    finished: int
    players: int


class DieFit(BaseModel):
    rolls: int
    observed: dict[str, int]
    expected: dict[str, float]
    chi_square: float | None
    degrees_of_freedom: int
    p_value: float | None
    verdict: str
    flagged: bool


class DieFaces(Fresh):
    ruleset: str
    die: str
    table: str
    game_id: str | None
    recorder: str | None
    faces: dict[str, int]
    by_purpose: dict[str, dict[str, int]]
    undone: dict[str, int]
    fit: DieFit
    fit_by_purpose: dict[str, DieFit]


class GameSummary(BaseModel):
    game_id: str
    ruleset: str
    players: int
    status: str
    started_at: str
    ended_at: str | None
    rounds: int
    events: int
    actions: int


class Rows(Fresh, Generic[T]):
    rows: list[T]


class StatisticName(BaseModel):
    name: str
    means: str


class RulesetStatistics(BaseModel):
    ruleset: str
    statistics: list[StatisticName]


class RulesetStatistic(Fresh):
    """A ruleset's own statistic: what it means, and a row a group (its columns and its measures)."""

    ruleset: str
    statistic: str
    means: str
    rows: list[dict[str, Any]]


class Score(BaseModel):
    """The mean per game of the predictions' log loss and Brier score, and of a prediction without skill (each of n
    players 1/n); null without games."""

    games: int
    log_loss: float | None
    baseline_log_loss: float | None
    brier: float | None
    baseline_brier: float | None


class ReliabilityBin(BaseModel):
    """The predicted win chances from `low` to `high`: how many, their mean, and the share of them that won with
    its Wilson 95% interval."""

    low: float
    high: float
    predictions: int
    mean_predicted: float
    observed: float
    observed_low: float
    observed_high: float


class Calibration(Fresh):
    ruleset: str
    games: int
    all: Score
    later_half: Score
    bins: list[ReliabilityBin]


class SeatEffect(BaseModel):
    """A seat (or place in the opening order) at a number of players: its effect on the log of a player's worth
    against the first's, with its 95% interval; the chance it wins at a table of equally strong players, with its
    95% interval; and the raw win rate (shared first places count as wins)."""

    players: int
    at: int
    games: int
    effect: float
    low: float
    high: float
    win_chance: float
    win_chance_low: float
    win_chance_high: float
    win_rate: float | None


class SeatAdvantage(Fresh):
    ruleset: str
    by: str
    games: int
    players: int
    rows: list[SeatEffect]


class BatchRating(BaseModel):
    """A player's strength fitted to the whole history at once, with its 95% interval, as an OpenSkill mu and
    sigma, beside the incremental rating of the same games; `difference` is the batch mu less the incremental."""

    person_id: str = Field(description=PERSON_ID)
    player_id: str = Field(description="the stable id the person sat under at their latest game counted")
    name: str
    games: int
    strength: float
    low: float
    high: float
    mu: float
    sigma: float
    ordinal: float
    incremental_mu: float
    incremental_sigma: float
    incremental_ordinal: float
    difference: float
    rank: int
    incremental_rank: int


PERSON_NAME = "the person's name: 1 to 80 printable characters once trimmed"
STABLE_IDS = "stable ids, as seats carry them (`players[].id` of a new game; derived from the name where none is given)"


class NewPerson(BaseModel):
    """A person registered afresh, under a new id, with stable ids linked to it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description=PERSON_NAME)
    link: list[str] = Field(default_factory=list, description=f"{STABLE_IDS} to link to the person")


class PersonChange(BaseModel):
    """A person renamed (where `name` is given) and stable ids linked to it, in one change."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, description=PERSON_NAME)
    link: list[str] = Field(default_factory=list, description=f"{STABLE_IDS} to link to the person")


class PersonMerge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    into: str = Field(max_length=200, description="the person that takes the stable ids of the one merged")


class PersonSplit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat_id: str = Field(max_length=200, description="the stable id that goes back to its own person")


class PersonOut(BaseModel):
    """A person: a record's (`recorded`), or a stable id no record claims, whose own person it is."""

    person_id: str
    name: str = Field(description="the record's name, else the name the stable id last sat under")
    seat_ids: list[str] = Field(description="the person's stable ids the caller is told of")
    games: int = Field(description="the games the person's stable ids sat at that the caller is told of")
    merged_into: str | None = Field(description="the person it was merged into (null: it stands)")
    recorded: bool = Field(description="whether the person has a record of its own")
    erased: bool = Field(
        default=False,
        description="whether the person's personal data was erased: they are named by the label of a seat of theirs "
        "(`anon…`), and can be renamed no more",
    )


class PeopleList(Fresh):
    people: list[PersonOut] = Field(description="by name")


class BotGap(BaseModel):
    """The sensible bot's strength less the random one's, from a seeded set of their games, with its 95% interval."""

    games: int
    gap: float
    low: float
    high: float


class SkillBenchmark(BaseModel):
    """The spread of the strengths in the same games with a share of the results decided by the bots' strengths
    and the rest drawn at random (0: all drawn at random)."""

    bots_share: float
    dispersion: float


class Skill(Fresh):
    ruleset: str
    games: int
    players: int
    counted_players: int
    min_games: int
    dispersion: float | None
    benchmarks: list[SkillBenchmark]
    bots: BotGap | None
    skill_share: float | None


CompetitionKind = Literal["night", "season", "tournament"]
CompetitionScoring = Literal["places", "scores"]
PlacePoints = Annotated[StrictInt, Field(ge=-MAX_POINTS, le=MAX_POINTS)]
KIND = "`night` (a club night), `season` (a league season) or `tournament`"
SCORING = (
    "how the standings count a game: `places` gives each place the `points` listed for it (0 beyond the list; "
    "players sharing places share those places' points equally), `scores` sums the games' own scores"
)
POINTS = "the points each place gives, the first place's first: whole numbers (only with `places` scoring)"


class NewCompetition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: CompetitionKind = Field(description=KIND)
    name: str = Field(min_length=1, max_length=MAX_NAME, description="what the club calls it")
    season: str | None = Field(
        default=None, min_length=1, max_length=MAX_SEASON, description="the season it belongs to (`2026 autumn`)"
    )
    scoring: CompetitionScoring = Field(default="places", description=SCORING)
    points: list[PlacePoints] | None = Field(
        default=None, min_length=1, max_length=MAX_PLACES, description=POINTS + "; [3, 2, 1, 0] if left out"
    )

    @field_validator("name", "season")
    @classmethod
    def text_as_the_rule_says(cls, text: str | None, info: ValidationInfo) -> str | None:
        """The name or the season label normalised as the competition keeps it (`normalised_text`), checked."""
        most = MAX_NAME if info.field_name == "name" else MAX_SEASON
        # Spaces alone normalise to nothing: the text as given is refused then, as blank.
        return None if text is None else text_checked(normalised_text(text) or text, most)

    @model_validator(mode="after")
    def points_only_for_places(self) -> NewCompetition:
        if self.scoring == "scores" and self.points is not None:
            raise ValueError("points: a competition counting the games' own `scores` gives no points")
        return self


class CompetitionSummary(BaseModel):
    competition_id: str
    kind: str = Field(description=KIND)
    name: str
    season: str | None
    scoring: str = Field(description=SCORING)
    points: list[int] = Field(description=POINTS + "; empty with `scores` scoring")
    created_at: str


class CompetitionOpened(CompetitionSummary):
    organiser_token: str = Field(
        description="shown once: its holder (or the admin) adds the competition's games and takes them out; it "
        "begins with the competition's id"
    )


class CompetitionList(BaseModel):
    competitions: list[CompetitionSummary]


class CompetitionGame(BaseModel):
    """A game of a competition, where it sits in it."""

    model_config = ConfigDict(extra="forbid")
    game_id: str = Field(max_length=64, description="the game's whole id (a UUID)")
    round: GameRound | None = None
    table: str | None = Field(default=None, min_length=1, max_length=MAX_TABLE, description=GAME_TABLE)

    @field_validator("table")
    @classmethod
    def table_as_the_rule_says(cls, table: str | None) -> str | None:
        return text_checked(table, MAX_TABLE)


class CompetitionGameHeld(BaseModel):
    """A game of a competition as the competition holds it: where it sits in it, and whether it is withdrawn."""

    game_id: str
    round: int | None = Field(description=GAME_ROUND)
    table: str | None = Field(description=GAME_TABLE)
    withdrawn: bool = Field(
        description="whether the game is withdrawn: it stays in the competition, left out of its standings and of "
        "every statistic"
    )


class CompetitionStanding(BaseModel):
    place: int = Field(description="shared by rows equal in points, wins, score and games")
    person_id: str = Field(description="the person: the one a stable id is linked to, else the stable id")
    name: str
    games: int
    wins: int = Field(description="first places, shared ones included")
    points: float
    score: int = Field(description="the sum of the games' own scores")


class Competition(CompetitionSummary, Fresh):
    """A competition, its games that the caller sees, and its standings from the read tables (as far as
    `position` of `log_position` events)."""

    games: list[CompetitionGameHeld] = Field(description="in the order they were added")
    standings: list[CompetitionStanding]
