"""The read tables of the records kept beside the games (people, competitions): for each topic of such a record's
events, the function that writes its rows.

Each takes the open connection and the decoded event, and answers whether the ratings are to be made again from
the results (a change of who a stable id's person is changes every rating that person's games gave)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

from projections.competitions import READERS as COMPETITION_READERS
from projections.people import READERS as PEOPLE_READERS

RecordReader = Callable[[Connection, Any], bool]

READERS: dict[str, RecordReader] = {**COMPETITION_READERS, **PEOPLE_READERS}
