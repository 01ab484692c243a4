"""Open a trace file of any supported format, through the cache."""
from . import cache as _cache
from .paje.reader import read_paje


def load(path, lenient=False, cache=True, progress=False):
    """Load the trace at `path` (Pajé text) into a Trace.

    With `cache`, a Trace saved by an earlier load of the unchanged file is reused,
    and a fresh load is saved. `lenient` recovers from what PajeNG rejects and
    lists every recovery in `trace.report`. Raises TraceError on bad input.
    """
    mode = "lenient" if lenient else "strict"
    if cache:
        trace = _cache.read(path, mode)
        if trace is not None:
            trace.from_cache = True
            return trace
    trace = read_paje(path, lenient=lenient, progress=progress)
    trace.from_cache = False
    if cache:
        _cache.write(trace, mode)
    return trace
