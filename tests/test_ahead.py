"""The second thread that reads ahead (ahead.py)."""
import os
import signal
import sys
import threading
import time

import pytest

from triva3d.ahead import THREAD, ahead

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) ends "
                                "the process there")


def interrupted(times, run, release_at):
    """Run `run(in_c, release)` with `times` real SIGINTs sent, 0.1 s apart, once its
    second thread is in its "C call" (which waits for `release`): each raises
    KeyboardInterrupt in this thread (the test's own handler, which sets `release`
    at the `release_at`-th). Returns what `run` returned, or what it raised; then
    releases the call."""
    in_c, release, sent = threading.Event(), threading.Event(), []

    def handler(signum, frame):
        sent.append(1)
        if len(sent) == release_at:
            release.set()
        raise KeyboardInterrupt

    def send():
        in_c.wait(30)
        for _ in range(times):
            time.sleep(0.1)
            os.kill(os.getpid(), signal.SIGINT)
    old = signal.signal(signal.SIGINT, handler)
    sender = threading.Thread(target=send, daemon=True)
    try:
        sender.start()
        try:
            return run(in_c, release)
        except KeyboardInterrupt as e:
            return e
    finally:
        release.set()
        while sender.is_alive():  # (every signal sent handled here, the last one too)
            try:
                time.sleep(0.01)
            except KeyboardInterrupt:
                pass
        try:
            time.sleep(0.05)
        except KeyboardInterrupt:
            pass
        signal.signal(signal.SIGINT, old)


def c_call_items(in_c, release, ended):
    """Two items; the second made in a "C call" that waits for `release`."""
    yield 0
    in_c.set()
    release.wait(30)  # (the C library's read, using what the caller frees after)
    time.sleep(0.2)
    ended.append(True)
    yield 1


def reading(ended, idle):
    """A read whose body is interrupted (the first Ctrl-C) once its second thread is
    in its C call."""
    def run(in_c, release):
        with ahead(c_call_items(in_c, release, ended), True, 1, idle) as got:
            for _ in got:
                in_c.wait(30)
                raise KeyboardInterrupt
    return run


def test_a_second_interrupt_waits_for_the_thread():
    """Ctrl-C (the body's KeyboardInterrupt), then Ctrl-C again while the second
    thread is in a C call (the OTF2 reader, which the caller closes next): the
    interrupt comes once the thread has ended (it segfaulted the process)."""
    ended, idle = [], threading.Event()
    got = interrupted(1, reading(ended, idle), release_at=1)
    assert isinstance(got, KeyboardInterrupt) and ended == [True] and idle.is_set()
    assert not [t for t in threading.enumerate() if t.name == THREAD]


def test_a_third_interrupt_leaves_the_thread_running_and_says_so():
    """Ctrl-C three times more while the thread is in its C call: the read is left
    at once (no hang), `idle` unset: what the thread uses must stay allocated."""
    ended, idle = [], threading.Event()
    got = interrupted(3, reading(ended, idle), release_at=None)
    assert isinstance(got, KeyboardInterrupt) and ended == [] and not idle.is_set()
    assert idle.wait(30) and ended == [True]  # (then it ends alone)


def test_items_come_in_order_with_the_error_in_its_place():
    """Made ahead or not, the same items in order, the error where it was raised."""
    def items():
        yield from range(5)
        raise ValueError("sixth")
    for threaded in (False, True):
        got = []
        with pytest.raises(ValueError, match="sixth"):
            with ahead(items(), threaded, 2) as it:
                got.extend(it)
        assert got == list(range(5))
