"""Open a trace file of any supported format, through the cache."""
import os
import stat

from . import cache as _cache


def load(path, lenient=False, cache=True, progress=False):
    """Load the trace at `path` into a Trace: Pajé text, or an OTF2 archive (its
    anchor file or the folder that holds it), told apart by content.

    With `cache`, a Trace saved by an earlier load of the unchanged file is reused,
    and a fresh load is saved. `lenient` recovers from what PajeNG rejects and
    lists every recovery in `trace.report`. `trace.notes` holds its `unit_note` and
    says where a damaged cached copy was parsed again and written over. `progress`
    True for a bar on stderr, or f(bytes read, bytes in all), which may raise to
    stop the read (the window's Cancel). A pipe or
    FIFO is read once as Pajé, without cache. Raises TraceError on bad input.
    """
    from .otf2 import anchor_of
    try:
        mode_bits = os.stat(path).st_mode
    except OSError:
        mode_bits = 0
    if stat.S_ISFIFO(mode_bits) or stat.S_ISCHR(mode_bits):
        # a pipe (/dev/stdin, <(cat T)) or a FIFO reads once: no sniffing (it ate the
        # first block), no cache (no stamps)
        from .paje.reader import read_paje
        trace = read_paje(path, lenient=lenient, progress=progress)
        trace.from_cache, trace.notes = False, _notes(trace)
        return trace
    anchor = anchor_of(path)
    path = anchor if anchor else path
    mode = "lenient" if lenient else "strict"
    damaged = []
    if cache:
        trace = _cache.read(path, mode, damaged)
        if trace is not None:
            trace.from_cache, trace.notes = True, _notes(trace)
            return trace
    if anchor:
        from .otf2.reader import read_otf2
        trace = read_otf2(anchor, lenient=lenient, progress=progress)
    else:
        from .paje.reader import read_paje
        trace = read_paje(path, lenient=lenient, progress=progress)
    trace.from_cache = False
    trace.notes = _notes(trace) + [f"{p}: the cached copy could not be read; parsed again"
                                   for p in damaged]
    if cache:
        _cache.write(trace, mode)
    return trace


def _notes(trace):
    return [trace.unit_note] if trace.unit_note else []
