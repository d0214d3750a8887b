"""A whole game of the toy ruleset in notation."""

from __future__ import annotations

# ann rolls 5 and 6 and holds 11; ben rolls a 4, then a 1 and loses it; ann rolls 3 and holds: 14.
WHOLE_GAME = [
    "ann roll 5",
    "ann roll 6",
    "ann hold",
    "ben roll 4",
    "ben roll 1",
    "ann roll 3",
    "ann hold",
]
