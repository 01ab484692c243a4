"""Open a trace file of any supported format: the table READERS says which reader
takes a path, from its content; `load` consults it, through the cache."""
import os
import stat
from collections import namedtuple

from . import cache as _cache
from .errors import out_of_memory

#: A trace format: its name for people; `sniff(path, head)`, what this reader reads at
#: `path` (whose first 4 KiB are `head`; an OTF2 folder: its anchor), or None when it
#: is not of this format; `read(path, *, lenient, progress)`, its Trace; `patterns`,
#: file-dialog patterns of its files; `cached`: whether a load keeps a cached copy;
#: `streams`: whether `read` also takes `spill` (spill.py: a store written in bounded
#: memory).
Reader = namedtuple("Reader", "name sniff read patterns cached streams")


def _read_paje(path, *, lenient, progress, spill=None):
    from .paje.reader import read_paje
    return read_paje(path, lenient=lenient, progress=progress, spill=spill)


def _read_otf2(path, *, lenient, progress, spill=None):
    from .otf2.reader import read_otf2
    return read_otf2(path, lenient=lenient, progress=progress, spill=spill)


def _sniff_paje(path, head):
    from .paje import is_paje
    return path if is_paje(head) else None


def _sniff_otf2(path, head):
    from .otf2 import anchor_of
    return anchor_of(path)


def _read_store(path, *, lenient, progress):
    from .store import read_store
    return read_store(path, lenient=lenient, progress=progress)


def _sniff_store(path, head):
    from .store import store_folder
    return store_folder(path)


def _sniff_cache(path, head):
    return path if head.startswith(b"PK\x03\x04") else None  # of these formats, the one zip


PAJE = Reader("Pajé traces", _sniff_paje, _read_paje, ("*.trace", "*.paje"), True, True)
READERS = (Reader("triva3d stores", _sniff_store, _read_store, ("store.json",), False, False),
           Reader("OTF2 archives", _sniff_otf2, _read_otf2, ("*.otf2",), True, True),
           Reader("triva3d caches", _sniff_cache, _cache.open_saved,
                  ("*" + _cache.SUFFIX,), False, False),
           PAJE)
#: The file dialog's filter for traces: every format, each one, any file.
DIALOG_FILTER = ";;".join(
    [f"Traces ({' '.join(p for r in READERS for p in r.patterns)})"]
    + [f"{r.name} ({' '.join(r.patterns)})" for r in READERS] + ["All files (*)"])


def head_of(path, size=4096):
    """The first `size` bytes of the regular file at `path`; b"" for anything else
    (a folder, a FIFO, what cannot be read)."""
    try:
        if not os.path.isfile(path):
            return b""
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


def reader_of(path):
    """(the first of READERS that takes `path`, the path it reads), or None."""
    head = head_of(path)
    for reader in READERS:
        found = reader.sniff(path, head)
        if found:
            return reader, found
    return None


def load(path, lenient=False, cache=True, progress=None):
    """Load the trace at `path` into a Trace, read by the first of READERS that takes
    it (Pajé reads the rest, and says what is wrong with it).

    With `cache`, a Trace saved by an earlier load of the unchanged file is reused,
    and a fresh load is saved. `lenient` recovers from what PajeNG rejects and
    lists every recovery in `trace.report`. `trace.notes` holds its `unit_note` and
    says where a damaged cached copy was parsed again and written over, or that no
    cache could be written. `progress`: None, or f(bytes read, bytes in all), which
    may raise to stop the read (the window's Cancel; the CLI draws a bar with it). A pipe or FIFO is read once as Pajé,
    without cache. Raises TraceError on bad input.
    """
    try:
        mode_bits = os.stat(path).st_mode
    except OSError:
        mode_bits = 0
    if stat.S_ISFIFO(mode_bits) or stat.S_ISCHR(mode_bits):
        # a pipe (/dev/stdin, <(cat T)) or a FIFO reads once: no sniffing (it would eat
        # the first block), no cache (no stamps)
        return _read(PAJE, path, lenient, progress)
    reader, path = reader_of(path) or (PAJE, path)
    cache = cache and reader.cached
    mode = "lenient" if lenient else "strict"
    damaged = []
    if cache:
        trace = _cache.read(path, mode, damaged)
        if trace is not None:
            return trace
    trace = _read(reader, path, lenient, progress)
    trace.notes += [f"{p}: the cached copy could not be read; parsed again" for p in damaged]
    if cache and _cache.write(trace, mode) is None:
        trace.notes.append("no writable place for the cache; the next load parses again")
    return trace


def _read(reader, path, lenient, progress):
    """`reader`'s Trace of `path`; a TraceError where memory runs out (what was read
    is freed before it is raised)."""
    try:
        return reader.read(path, lenient=lenient, progress=progress)
    except MemoryError:
        pass
    raise out_of_memory(path)
