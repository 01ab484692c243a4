"""Items made ahead by a second thread while this one uses them, in order: the Pajé
reader's lexed batches, the OTF2 reader's locations read. The work of each thread
must let the other run (numba's nogil kernels, the C library's calls)."""
import contextlib
import queue
import threading
import time

#: The second thread's name.
THREAD = "triva3d-ahead"


@contextlib.contextmanager
def ahead(items, threaded, most, idle=None):
    """`items` as they come, from a second thread when `threaded` and one can be
    started, with at most `most` (1 or more) made and not yet taken: memory is then
    that many items, besides the one in use. An exception of the second thread comes
    in the items' order; leaving stops the thread and waits for it, through a second
    interrupt (a third leaves at once). `idle`: an Event cleared while the second
    thread runs: what `items` use must not be freed until it is set again."""
    if not threaded:
        yield items
        return
    if idle is None:
        idle = threading.Event()
    made, room, stop = queue.Queue(), threading.Semaphore(most), threading.Event()

    def wait_room():
        while not stop.is_set():
            if room.acquire(timeout=0.05):
                return True
        return False

    def produce():
        try:
            while wait_room():
                made.put(next(items))
        except StopIteration:
            made.put(_END)
        except BaseException as e:  # noqa: B036 (handed over in the items' order)
            made.put(_Raised(e))
        finally:
            idle.set()

    def consume():
        while (item := made.get()) is not _END:
            room.release()
            if isinstance(item, _Raised):
                raise item.error
            yield item
    thread = threading.Thread(target=produce, name=THREAD, daemon=True)
    idle.clear()
    try:
        thread.start()
    except RuntimeError:  # no thread to be had (memory, limits): made in this one
        idle.set()
        yield items
        return
    try:
        yield consume()
    finally:
        stop.set()
        try:
            _wait(idle)
        finally:
            if idle.is_set():
                thread.join()


def _wait(idle, patience=3):
    """Wait for the second thread to end (`idle` set), through interrupts: it may be
    in a C library, using what the caller frees next (a second Ctrl-C crashed the
    process). Polled: an interrupt inside Event.wait can keep its lock. The last
    interrupt is raised after; the `patience`-th leaves at once. (Not Thread.join: in
    Python 3.11, once interrupted, it takes the thread for ended.)"""
    interrupted = []
    while len(interrupted) < patience:
        try:
            while not idle.is_set():
                time.sleep(0.005)
            break
        except BaseException as e:  # noqa: B036 (raised below)
            interrupted.append(e)
    if interrupted:
        raise interrupted[-1]


class _Raised:
    """An exception of the second thread, handed over in its place."""

    def __init__(self, error):
        self.error = error


_END = object()
