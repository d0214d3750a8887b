"""The strength statistics kept once made (`api.statistics_kept`): one answer for each question and position of the
read tables, made once however many ask it at once."""

from __future__ import annotations

import threading

from api.statistics_kept import KeptStatistics

BOTH_ASKED_SECONDS = 0.5


def test_a_question_asked_again_at_the_same_position_is_answered_from_what_was_kept() -> None:
    kept, made = KeptStatistics(), []
    at = {"position": 7}

    def make() -> tuple[str, int]:
        made.append(at["position"])
        return f"answer at {at['position']}", at["position"]

    first = kept.answer("batch-ratings", lambda: at["position"], make)
    again = kept.answer("batch-ratings", lambda: at["position"], make)
    at["position"] = 8  # the read tables moved on
    later = kept.answer("batch-ratings", lambda: at["position"], make)
    other = kept.answer("calibration", lambda: at["position"], make)
    assert (first, again, later, other) == (("answer at 7", 7),) * 2 + (("answer at 8", 8),) * 2
    assert made == [7, 8, 8]


def test_a_question_asked_while_it_is_being_made_waits_for_that_answer() -> None:
    kept, made = KeptStatistics(), []
    second_made = threading.Event()

    def make() -> tuple[str, int]:
        made.append(threading.current_thread().name)
        if len(made) == 1:
            second_made.wait(BOTH_ASKED_SECONDS)  # long enough for the second asker to make it too, if it could
        else:
            second_made.set()
        return "made once", 3

    answers: list[tuple[str, int]] = []
    askers = [
        threading.Thread(target=lambda: answers.append(kept.answer("skill", lambda: 3, make)), name=f"asker {n}")
        for n in range(2)
    ]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    assert answers == [("made once", 3)] * 2 and len(made) == 1


def test_the_least_recently_asked_answer_is_given_up_first() -> None:
    kept, made = KeptStatistics(most=2), []

    def make(question: str) -> tuple[str, int]:
        made.append(question)
        return question, 1

    for question in ("a", "b", "a", "c", "a", "b"):
        kept.answer(question, lambda: 1, lambda question=question: make(question))  # type: ignore[misc]
    assert made == ["a", "b", "c", "b"]
