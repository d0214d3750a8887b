"""The statistics that fit the players' strengths (`projections.strengths`), kept once made: over a federation's
results one costs a minute and more than a gigabyte, so the same question is made once for each position of the
read tables, and a request asking it while it is being made waits for that answer rather than making it again."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

KEPT_ANSWERS = 32
"""How many answers are kept, the least recently asked given up first."""

Made = tuple[Any, int]
"""An answer, and the position of the read tables it was made from."""


class KeptStatistics:
    """Answers by their question (what is asked, and for which games: the caller's scope is part of it) and the
    position of the read tables they were made from."""

    def __init__(self, most: int = KEPT_ANSWERS) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[Hashable, int], Any] = OrderedDict()
        self._guard = threading.Lock()
        self._making: dict[Hashable, threading.Lock] = {}

    def answer(self, question: Hashable, position: Callable[[], int], make: Callable[[], Made]) -> Made:
        """The answer to `question` made from the read tables at their `position` now: kept, or made (`make`, which
        reads the tables at once and says the position it read them at) while other askers of it wait."""
        found = self._found(question, position())
        if found is not None:
            return found
        with self._lock_of(question):
            found = self._found(question, position())
            if found is not None:
                return found
            answer, made_at = make()
            with self._guard:
                self._kept[(question, made_at)] = answer
                while len(self._kept) > self.most:
                    self._kept.popitem(last=False)
            return answer, made_at

    def _found(self, question: Hashable, at: int) -> Made | None:
        with self._guard:
            if (question, at) not in self._kept:
                return None
            self._kept.move_to_end((question, at))
            return self._kept[(question, at)], at

    def _lock_of(self, question: Hashable) -> threading.Lock:
        with self._guard:
            return self._making.setdefault(question, threading.Lock())
