"""Pieces of one computation in threads (`bayesgen._parallel`)."""

import sys
import threading
import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from bayesgen import _parallel as parallel


def test_results_come_in_the_order_of_the_pieces_whatever_the_threads(monkeypatch):
    def square(piece):
        return piece * piece

    for threads in (1, 2, 3, 8):
        monkeypatch.setattr(parallel, "thread_count", lambda threads=threads: threads)
        assert parallel.run_pieces(square, range(11)) == [i * i for i in range(11)]
        assert parallel.run_pieces(square, []) == []
        assert parallel.run_pieces(square, [5]) == [25]


def test_two_threads_run_the_pieces_side_by_side_and_write_disjoint_rows(monkeypatch):
    monkeypatch.setattr(parallel, "thread_count", lambda: 2)
    both_running = threading.Barrier(2, timeout=10)  # breaks unless two pieces overlap
    names = set()
    out = np.zeros((4, 3))

    def fill(row):
        both_running.wait()
        names.add(threading.current_thread().name)
        out[row] = row
        return row

    assert parallel.run_pieces(fill, range(4)) == [0, 1, 2, 3]
    np.testing.assert_array_equal(out, np.repeat(np.arange(4.0)[:, None], 3, axis=1))
    assert len(names) == 2


def test_blas_limited_to_one_thread_means_no_threads_here():
    with threadpool_limits(1, user_api="blas"):
        assert parallel.thread_count() == 1
        seen = parallel.run_pieces(lambda _: threading.current_thread(), range(4))
    assert all(thread is threading.current_thread() for thread in seen)


def test_the_pieces_run_under_the_callers_floating_point_state(monkeypatch):
    """NumPy's errstate belongs to a thread: the pieces get the caller's, so an overflow
    the caller ignores (a row far out) raises no warning from a worker."""
    monkeypatch.setattr(parallel, "thread_count", lambda: 2)

    def overflow(_):
        return np.float64(1e300) * np.float64(1e300)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="ignore"):
            assert parallel.run_pieces(overflow, range(4)) == [np.inf] * 4
        with np.errstate(over="raise"), pytest.raises(FloatingPointError):
            parallel.run_pieces(overflow, range(4))


def test_calls_from_many_threads_leave_blas_as_they_found_it():
    """The BLAS limit is the process's: calls overlapping in several threads must not
    restore each other's limit, which could leave BLAS on one thread for good."""
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the threads as much as possible
    try:
        with threadpool_limits(2, user_api="blas"):  # the suite runs BLAS on one thread
            assert parallel.thread_count() == 2

            def many_calls():
                for _ in range(3000):
                    parallel.run_pieces(lambda piece: piece, range(2))

            workers = [threading.Thread(target=many_calls) for _ in range(6)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            assert parallel.thread_count() == 2
    finally:
        sys.setswitchinterval(old_interval)


def test_overlapping_calls_limit_blas_until_the_last_one_ends():
    """Two callers' limits ending out of order (first in, first out): BLAS stays on one
    thread until the last ends, then gets back what it had before the first."""
    with threadpool_limits(2, user_api="blas"):
        first, second = parallel.blas_on_one_thread(), parallel.blas_on_one_thread()
        first.__enter__()
        second.__enter__()
        assert parallel.thread_count() == 1
        first.__exit__(None, None, None)
        assert parallel.thread_count() == 1  # the second caller's pieces still run
        second.__exit__(None, None, None)
        assert parallel.thread_count() == 2


def test_blas_on_one_thread_around_pieces_gives_it_back():
    """`blas_on_one_thread` (around the Gaussian's small factors) sets the process's limit
    as `run_pieces` does, nested in it or around it, and leaves BLAS as it found it."""
    with threadpool_limits(2, user_api="blas"):
        with parallel.blas_on_one_thread():
            assert parallel.thread_count() == 1
            inner = parallel.run_pieces(lambda _: parallel.thread_count(), range(4))
            assert inner == [1, 1, 1, 1]
            assert parallel.thread_count() == 1
        assert parallel.thread_count() == 2


def test_a_limit_set_in_one_thread_is_restored_from_another_and_leaves_blas_free():
    """threadpoolctl 3.8 lets only the thread that last set OpenBLAS's limit change it: the
    first caller in (thread A) must let go, so that the last one out (thread B) restores
    the limit, and a user's ``threadpool_limits`` in a third thread still takes effect."""
    entered, a_left, b_entered = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with parallel.blas_on_one_thread():
            entered.set()
            b_entered.wait(10)
        a_left.set()

    def second():
        entered.wait(10)
        with parallel.blas_on_one_thread():
            b_entered.set()
            a_left.wait(10)
            seen["inside"] = parallel.thread_count()

    def user():
        with threadpool_limits(1, user_api="blas"):
            seen["user"] = parallel.thread_count()

    # Two threads to start from, set as the library sets limits (a context manager here
    # would keep this thread in control of OpenBLAS, and no other thread could set one).
    baseline = parallel._blas_controller().limit(limits=2, user_api="blas")
    parallel._release_blas_control()
    try:
        workers = [threading.Thread(target=first), threading.Thread(target=second)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(20)
        seen["after"] = parallel.thread_count()
        worker = threading.Thread(target=user)
        worker.start()
        worker.join(20)
        assert seen == {"inside": 1, "after": 2, "user": 1}
        assert parallel.thread_count() == 2
    finally:
        baseline.restore_original_limits()
        parallel._release_blas_control()


def test_a_users_limit_stands_after_a_call_inside_it():
    """A call inside the user's ``with threadpool_limits(1)`` leaves that thread in control
    of OpenBLAS, so a bare limit set from another thread meanwhile does nothing (before,
    the call let go of the user's control and the other thread's limit of 2 took effect)."""
    done, hold = threading.Event(), threading.Event()

    def other():
        threadpool_limits(limits=2, user_api="blas")  # a library's bare limit elsewhere
        done.set()
        hold.wait(10)

    worker = threading.Thread(target=other)
    with threadpool_limits(limits=1, user_api="blas"):
        with parallel.blas_on_one_thread():
            assert parallel.thread_count() == 1
        worker.start()
        done.wait(10)
        inside = parallel.thread_count()
    hold.set()
    worker.join(20)
    parallel._release_blas_control()
    assert inside == 1


def test_blas_is_limited_only_where_needed():
    """`blas_on_one_thread_where(False)` leaves BLAS alone (a first limit in a process
    costs about 10 ms, which only large work pays for); True limits it and gives it back."""
    with threadpool_limits(2, user_api="blas"):
        with parallel.blas_on_one_thread_where(False):
            assert parallel.thread_count() == 2
        with parallel.blas_on_one_thread_where(True):
            assert parallel.thread_count() == 1
        assert parallel.thread_count() == 2
