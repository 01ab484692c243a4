"""Items made ahead by a second thread while this one uses them, in order: the Pajé
reader's lexed batches, the OTF2 reader's locations read. The work of each thread
must let the other run (numba's nogil kernels, the C library's calls)."""
import contextlib
import queue
import threading

#: The second thread's name.
THREAD = "triva3d-ahead"


@contextlib.contextmanager
def ahead(items, threaded, most):
    """`items` as they come, from a second thread when `threaded` and one can be
    started, with at most `most` (1 or more) made and not yet taken: memory is then
    that many items, besides the one in use. An exception of the second thread comes
    in the items' order; leaving stops the thread and waits for it."""
    if not threaded:
        yield items
        return
    made, room = queue.Queue(), threading.Semaphore(most)
    stop, ended = threading.Event(), threading.Event()

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
            ended.set()

    def consume():
        while (item := made.get()) is not _END:
            room.release()
            if isinstance(item, _Raised):
                raise item.error
            yield item
    thread = threading.Thread(target=produce, name=THREAD, daemon=True)
    try:
        thread.start()
    except RuntimeError:  # no thread to be had (memory, limits): made in this one
        yield items
        return
    try:
        yield consume()
    finally:
        stop.set()
        _wait(ended)
        thread.join()


def _wait(ended):
    """Wait for the second thread to have `ended`, through interrupts (it may be in
    a C library, using what the caller closes next: a second Ctrl-C crashed the
    process); the last interrupt is raised once it has. (Not Thread.join: in Python
    3.11, once interrupted, it takes the thread for ended.)"""
    interrupted = None
    while not ended.is_set():
        try:
            ended.wait()
        except BaseException as e:  # noqa: B036 (raised below)
            interrupted = e
    if interrupted is not None:
        raise interrupted


class _Raised:
    """An exception of the second thread, handed over in its place."""

    def __init__(self, error):
        self.error = error


_END = object()
