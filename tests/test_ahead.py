"""The second thread that reads ahead (ahead.py)."""
import os
import signal
import threading
import time

import pytest

from triva3d.ahead import THREAD, ahead


def test_a_second_interrupt_waits_for_the_thread():
    """Ctrl-C twice while the second thread is in a C call (the OTF2 reader, which
    the caller closes next): the interrupt comes once the thread has ended (it
    segfaulted the process)."""
    in_c, ended, seen = threading.Event(), [], []

    def items():
        yield 0
        in_c.set()
        time.sleep(1)  # (the C library's read)
        ended.append(True)
        yield 1

    def interrupt_again():  # (a real SIGINT: it wakes the main thread's join)
        in_c.wait()
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)
    again = threading.Thread(target=interrupt_again)
    again.start()
    try:
        with ahead(items(), True, 1) as got:
            for _ in got:
                in_c.wait()
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        seen.append(list(ended))
    while again.is_alive() or not seen:  # (late, it must not stop the test session)
        try:
            again.join()
            time.sleep(0.1)
            break
        except KeyboardInterrupt:
            seen.append("late")
    assert seen == [[True]]
    assert not [t for t in threading.enumerate() if t.name == THREAD]


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
