"""Whether the read tables a server runs are stalled, as its health checks see them: behind the log and at the
same position for STALLED_SECONDS or more; never while they are not behind, move on, or run in another server."""

from __future__ import annotations

from typing import Any, cast

from api.supervision import STALLED_SECONDS, Supervisor


def supervisor(following: bool) -> Supervisor:
    """A supervisor whose read tables' process runs here (`following`) or in another server."""
    watching = Supervisor(cast(Any, None), None)
    watching.following = following
    return watching


def test_tables_behind_and_not_moving_on_are_stalled_once_the_time_has_passed() -> None:
    watching = supervisor(following=True)
    seen = [
        watching.stalled(10, 5, 100.0),  # first seen at 10: the count starts
        watching.stalled(10, 5, 100.0 + STALLED_SECONDS - 0.1),
        watching.stalled(10, 9, 100.0 + STALLED_SECONDS),  # the log moved on; the tables did not
        watching.stalled(11, 8, 100.0 + STALLED_SECONDS + 1),  # they moved on: the count starts again
        watching.stalled(11, 8, 101.0 + STALLED_SECONDS * 2 - 0.1),
        watching.stalled(11, 8, 101.0 + STALLED_SECONDS * 2),
    ]
    assert seen == [False, False, True, False, False, True]


def test_tables_that_caught_up_or_run_elsewhere_are_never_stalled() -> None:
    caught_up, elsewhere = supervisor(following=True), supervisor(following=False)
    assert not caught_up.stalled(10, 0, 0.0) and not caught_up.stalled(10, 0, STALLED_SECONDS * 10)
    assert not caught_up.stalled(10, 2, STALLED_SECONDS * 11)  # behind from now: the count starts now
    assert not elsewhere.stalled(10, 5, 0.0) and not elsewhere.stalled(10, 5, STALLED_SECONDS * 10)
