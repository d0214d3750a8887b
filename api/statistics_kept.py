"""The statistics that fit the players' strengths (`projections.strengths`), kept once made: over a federation's
results one costs a minute and more than a gigabyte. Each question keeps its latest answer, given again until the
read tables move on; a request asking it while it is being made waits for that answer (or any made after it
arrived) rather than making it again; and at most MADE_AT_ONCE answers are made at a time. A request that has
waited WAIT_SECONDS for its turn is refused (`StatisticsBusy`), so that waiting never holds the server's worker
threads for longer."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

KEPT_QUESTIONS = 32
"""How many questions keep their latest answer, the least recently asked given up first."""
MADE_AT_ONCE = 2
"""How many answers are made at a time, each holding its games and a fit's arrays in memory."""
WAIT_SECONDS = 30.0
"""How long a request waits for an answer being made, or for its turn to make one."""

Made = tuple[Any, int]
"""An answer, and the position of the read tables it was made from."""


class StatisticsBusy(RuntimeError):
    """A request waited WAIT_SECONDS for an answer being made, or for its turn to make one: ask again later."""


@dataclass
class Question:
    """A question's latest answer (None: none yet), and what one asker at a time holds to make it."""

    latest: Made | None = None
    making: threading.Lock = field(default_factory=threading.Lock)


class KeptStatistics:
    """The latest answer to each question (what is asked, and for which games: the caller's scope is part of it)."""

    def __init__(self, most: int = KEPT_QUESTIONS, at_once: int = MADE_AT_ONCE, wait: float = WAIT_SECONDS) -> None:
        self.most, self.wait = most, wait
        self._questions: OrderedDict[Hashable, Question] = OrderedDict()
        self._guard = threading.Lock()
        self._slots = threading.BoundedSemaphore(at_once)

    def answer(self, question: Hashable, position: Callable[[], int], make: Callable[[], Made]) -> Made:
        """The answer to `question` made from the read tables at their `position` as it is asked, or later: kept, or
        made (`make` reads the tables at once and says the position it read them at) while other askers wait;
        StatisticsBusy once it has waited `wait` seconds for one being made or for its turn to make it."""
        asked = position()
        kept = self._question(question)
        found = self._made_since(kept, asked)
        if found is not None:
            return found
        if not kept.making.acquire(timeout=self.wait):
            raise StatisticsBusy(f"it is being made, and was not made within {self.wait:g} s")
        try:
            found = self._made_since(kept, asked)
            if found is not None:
                return found
            if not self._slots.acquire(timeout=self.wait):
                raise StatisticsBusy(f"others are being made, and no turn to make it came within {self.wait:g} s")
            try:
                found = kept.latest = make()
            finally:
                self._slots.release()
            return found
        finally:
            kept.making.release()

    def _question(self, question: Hashable) -> Question:
        with self._guard:
            kept = self._questions.setdefault(question, Question())
            self._questions.move_to_end(question)
            while len(self._questions) > self.most:
                self._questions.popitem(last=False)
            return kept

    def _made_since(self, kept: Question, asked: int) -> Made | None:
        with self._guard:
            latest = kept.latest
        return latest if latest is not None and latest[1] >= asked else None
