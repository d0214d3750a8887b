"""What each reader of a game may see (the recorder, a co-recorder, a seat, the public live or behind a broadcast
delay, the admin), and every answer made for it: the one place that reads hidden facts for an answer and leaves
out what its reader may not see. The API and the command line ask it and narrow nothing themselves.

The rules mark what is hidden: an action only its player sees until it is revealed (`visible_only_to`,
`reveals`), an action whose legality rests on a player's hidden facts (`rests_on`), and a refusal that rests on
them (`RuleViolation.public`). Once a game is over, every reader sees every hidden fact, unless the recorder keeps
them hidden at its end.

May import the access, the game, the rules and eventsourcing; the ledger and its reports only as types, since
`disputes` (which the ledger imports) and `transfer` ask it how a hidden action is shown."""

from evo_ledger.app.readers.broadcast import (
    DelayedBroadcast,
    NotYetBroadcast,
    broadcast_horizon,
    broadcast_starts,
    check_live,
    held_back_to,
    latest_for,
    rows_as_of,
    shown_version,
    undone_by,
    with_access,
)
from evo_ledger.app.readers.callers import game_listed, reader_for, sees_game
from evo_ledger.app.readers.exports import hidden_line, narrowed_rows
from evo_ledger.app.readers.log import (
    HIDDEN,
    ShownEvent,
    Visibility,
    events_for,
    head_hash_for,
    hidden_from,
    hidden_in_place,
    leave_out,
    sentence_for,
    shown_event,
    visibility,
    withheld_from,
)
from evo_ledger.app.readers.positions import (
    choices_for,
    forced_choices_for,
    layout_for,
    legal_for,
    refusal_for,
    state_for,
)
from evo_ledger.app.readers.reader import (
    PUBLIC_PERSPECTIVE,
    PerspectiveRefused,
    Reader,
    RecordersOnly,
    UnknownPerspective,
    check_records_game,
    lost_access,
    may_see,
    narrowed,
    utc_now,
)
from evo_ledger.app.readers.reports import (
    HiddenEvent,
    HiddenFacts,
    audit_for,
    branch_for,
    check_public_replacement,
    check_shown,
    explanation_for,
    report_for,
)
from evo_ledger.app.readers.sight import (
    PUBLIC,
    RECORDER,
    Perspective,
    Seen,
    Sight,
    reader_named,
    reads_hidden,
    sight_of,
)

__all__ = [
    "HIDDEN",
    "PUBLIC",
    "PUBLIC_PERSPECTIVE",
    "RECORDER",
    "DelayedBroadcast",
    "HiddenEvent",
    "HiddenFacts",
    "NotYetBroadcast",
    "Perspective",
    "PerspectiveRefused",
    "Reader",
    "RecordersOnly",
    "Seen",
    "ShownEvent",
    "Sight",
    "UnknownPerspective",
    "Visibility",
    "audit_for",
    "branch_for",
    "broadcast_horizon",
    "broadcast_starts",
    "check_live",
    "check_public_replacement",
    "check_records_game",
    "check_shown",
    "choices_for",
    "events_for",
    "explanation_for",
    "forced_choices_for",
    "game_listed",
    "head_hash_for",
    "held_back_to",
    "hidden_from",
    "hidden_in_place",
    "hidden_line",
    "latest_for",
    "layout_for",
    "leave_out",
    "legal_for",
    "lost_access",
    "may_see",
    "narrowed",
    "narrowed_rows",
    "reader_for",
    "reader_named",
    "reads_hidden",
    "refusal_for",
    "report_for",
    "rows_as_of",
    "sees_game",
    "sentence_for",
    "shown_event",
    "shown_version",
    "sight_of",
    "state_for",
    "undone_by",
    "utc_now",
    "visibility",
    "with_access",
    "withheld_from",
]
