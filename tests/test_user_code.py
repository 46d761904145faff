"""The project's Python code runs with a time limit; an overrun fails its call, not the run."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_arena.evaluation import user_code


def test_a_call_returns_its_value_from_the_worker_thread() -> None:
    assert user_code.call(lambda a, b: (a + b, threading.current_thread().name), (1, 2), 5) == (
        3,
        "arena-user-code",
    )


def test_an_exception_reaches_the_caller_as_raised() -> None:
    def boom() -> None:
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        user_code.call(boom, (), 5)


def test_a_call_that_overruns_is_left_behind_and_the_next_one_runs_at_once() -> None:
    release = threading.Event()
    stuck: list[threading.Thread] = []

    def hang() -> None:
        stuck.append(threading.current_thread())
        release.wait(30)

    started = time.monotonic()
    with pytest.raises(user_code.Overran, match=r"did not return within 0\.2 s"):
        user_code.call(hang, (), 0.2)
    assert time.monotonic() - started < 5
    nxt = user_code.call(threading.current_thread, (), 5)
    assert nxt is not stuck[0]  # a fresh worker, not the stuck one
    assert stuck[0].is_alive() and stuck[0].daemon  # left to finish; never holds up the exit
    release.set()
    stuck[0].join(5)
    assert not stuck[0].is_alive()  # done with its call, it ends


def test_without_a_limit_the_call_stays_on_this_thread() -> None:
    assert (
        user_code.call(lambda: threading.current_thread(), (), None) is threading.current_thread()
    )
