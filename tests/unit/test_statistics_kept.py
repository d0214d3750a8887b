"""The strength statistics kept once made (`api.statistics_kept`): each question's latest answer given again until
the read tables move on, made once however many ask it at once, and no more askers at once than may be."""

from __future__ import annotations

import threading

import pytest

from api.statistics_kept import KeptStatistics, StatisticsBusy

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


def test_an_asker_takes_the_answer_being_made_as_it_asked_though_the_read_tables_moved_on_meanwhile() -> None:
    kept, made = KeptStatistics(), []
    second_asked = threading.Event()

    def make() -> tuple[str, int]:
        made.append(1)
        second_asked.wait(BOTH_ASKED_SECONDS)
        return "made at 4", 4  # the read tables moved on as it was made

    def position_of_second() -> int:
        second_asked.set()
        return 3

    first = threading.Thread(target=lambda: kept.answer("seat-advantage", lambda: 3, make))
    first.start()
    assert kept.answer("seat-advantage", position_of_second, make) == ("made at 4", 4)
    first.join()
    assert made == [1]


def test_an_asker_whose_turn_to_make_does_not_come_within_the_wait_is_refused() -> None:
    kept = KeptStatistics(at_once=1, wait=0.05)
    making, done = threading.Event(), threading.Event()

    def slow() -> tuple[str, int]:
        making.set()
        done.wait()
        return "slow", 1

    asker = threading.Thread(target=lambda: kept.answer("skill", lambda: 1, slow))
    asker.start()
    making.wait()
    with pytest.raises(StatisticsBusy, match=r"no turn to make it came within 0\.05 s"):
        kept.answer("calibration", lambda: 1, lambda: ("quick", 1))
    with pytest.raises(StatisticsBusy, match=r"it is being made, and was not made within 0\.05 s"):
        kept.answer("skill", lambda: 1, slow)
    done.set()
    asker.join()
    assert kept.answer("calibration", lambda: 1, lambda: ("quick", 1)) == ("quick", 1)
    assert kept.answer("skill", lambda: 1, slow) == ("slow", 1)  # kept
