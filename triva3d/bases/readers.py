"""Topology files, one reader each (as networkx's readwrite): the table READERS says
which reads a file, from its name and first bytes; `read_topology` consults it."""
import os
from collections import namedtuple

from ..errors import TraceError
from ..load import head_of
from ..paje import is_paje

#: A topology format: its name for people, whether a file is one (from its lower-case
#: extension and first 4 KiB), how to read it into a Topology, and file-dialog
#: patterns of its files.
Reader = namedtuple("Reader", "name sniff read patterns")


def _is_dot(ext, head):
    start = head.lstrip()[:7].lower()
    return ext in (".dot", ".gv") or start.startswith((b"graph", b"digraph", b"strict"))


def _is_platform(ext, head):
    start = head.lstrip()
    return ext == ".xml" or start.startswith(b"<?xml") or start.startswith(b"<platform")


def _is_paje(ext, head):
    return is_paje(head)


def _read_dot(path):
    from .dotfile import read_dot
    return read_dot(path)


def _read_platform(path):
    from .simgrid import read_platform
    return read_platform(path)


def _read_platform_trace(path):
    from ..load import load
    from .topology import from_trace
    try:
        trace = load(path)
    except TraceError as e:  # (a lenient reading of a topology is not offered)
        raise TraceError(e.file, e.line, e.message) from None
    return from_trace(trace, path)


READERS = (Reader("Graphviz (.dot, .gv)", _is_dot, _read_dot, ("*.dot", "*.gv")),
           Reader("SimGrid platform XML", _is_platform, _read_platform, ("*.xml",)),
           Reader("SimGrid platform traces (Pajé)", _is_paje, _read_platform_trace,
                  ("*.trace",)))
#: The topology files triva3d reads, for people.
FORMATS = ("triva3d reads " + ", ".join(r.name for r in READERS)
           + " and, for a treemap base, JSON resource hierarchies (.json)")
#: The file dialog's filter for topologies (the graphs, and JSON hierarchies).
DIALOG_FILTER = ";;".join(
    [f"Topologies ({' '.join(p for r in READERS for p in r.patterns)} *.json)"]
    + [f"{r.name.split(' (')[0]} ({' '.join(r.patterns)})" for r in READERS]
    + ["Resource hierarchies (*.json)", "All files (*)"])


def reader_of(path):
    """The first of READERS that takes the regular file at `path`, or None."""
    head = head_of(path)
    ext = os.path.splitext(path)[1].lower()
    return next((r for r in READERS if r.sniff(ext, head)), None)


def read_topology(path):
    """The Topology in the file at `path`, read by the first of READERS that takes it."""
    if os.path.isdir(path):
        raise TraceError(path, None, "is a directory, not a topology file")
    if not os.path.isfile(path):
        raise TraceError(path, None, "no such topology file")
    reader = reader_of(path)
    if reader is None:
        raise TraceError(path, None, f"not a topology file: {FORMATS}")
    return reader.read(path)
