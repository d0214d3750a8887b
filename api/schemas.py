"""What the API takes and gives, as pydantic models: input and output apart."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_BATCH = 200


class Player(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40, pattern=r"^[a-z][a-z0-9_]*$")
    id: str | None = Field(default=None, max_length=200, description="a stable id; derived from the name if left out")


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ruleset: str = Field(default="evo2", max_length=40)
    kit: str = Field(max_length=200, pattern=r"^[a-z0-9][a-z0-9_-]*$", description="a built-in kit's name")
    players: list[Player] = Field(min_length=2, max_length=6)
    options: dict[str, bool | int | str] = Field(default_factory=dict)


class Append(BaseModel):
    """One action or a batch, in notation; all or nothing."""

    model_config = ConfigDict(extra="forbid")
    actions: list[str] = Field(min_length=1, max_length=MAX_BATCH)
    expected_version: int | None = Field(default=None, ge=1, description="refused with 409 unless the game is here")


class Privacy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    private: bool


class Receipt(BaseModel):
    game_id: str
    version: int
    head_hash: str


class Created(Receipt):
    recorder_token: str = Field(description="shown once: only its holder may append to the game")


class RecorderToken(BaseModel):
    game_id: str
    recorder_token: str


class Summary(BaseModel):
    game_id: str
    ruleset: str
    ruleset_version: str
    kit: str
    kit_hash: str
    players: list[dict[str, Any]]
    version: int
    head_hash: str
    status: str = Field(description="ongoing or over")
    headline: str
    private: bool
    started_at: str
    result: list[dict[str, Any]] | None


class GameList(BaseModel):
    games: list[Summary]


class Event(BaseModel):
    number: int
    kind: str
    topic: str
    timestamp: str
    fields: dict[str, Any]
    hidden: bool = Field(description="true when what the rules keep hidden was left out for this reader")


class EventPage(BaseModel):
    events: list[Event]
    next_after: int | None = Field(description="pass as `after` for the next page; null at the end")


class State(BaseModel):
    version: int
    headline: str
    players: list[str]
    occupants: dict[str, str]
    result: list[dict[str, Any]] | None
    state: dict[str, Any]


class LegalActions(BaseModel):
    version: int
    actions: list[str]
