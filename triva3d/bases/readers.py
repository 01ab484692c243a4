"""Topology files, one reader each (as networkx's readwrite): the table READERS says
which reads a file, from its name and first bytes; `read_topology` consults it."""
import os
from collections import namedtuple

from ..errors import TraceError

#: A topology format: its name for people, whether a file is one (from its lower-case
#: extension and first 4 KiB), and how to read it into a Topology.
Reader = namedtuple("Reader", "name sniff read")


def _is_dot(ext, head):
    start = head.lstrip()[:7].lower()
    return ext in (".dot", ".gv") or start.startswith((b"graph", b"digraph", b"strict"))


def _is_platform(ext, head):
    start = head.lstrip()
    return ext == ".xml" or start.startswith(b"<?xml") or start.startswith(b"<platform")


def _is_paje(ext, head):
    """Could a file starting with `head` (all of it when shorter than 4 KiB) be a Pajé
    trace: no NUL byte, its first line but blanks and comments a `%` line (undecided
    within a part: yes)?"""
    whole = len(head) < 4096
    if b"\0" in head:
        return False
    lines = head.splitlines()
    for line in lines if whole else lines[:-1]:
        line = line.strip()
        if line and not line.startswith(b"#"):
            return line.startswith(b"%")
    return not whole


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


READERS = (Reader("Graphviz (.dot, .gv)", _is_dot, _read_dot),
           Reader("SimGrid platform XML", _is_platform, _read_platform),
           Reader("SimGrid platform traces (Pajé)", _is_paje, _read_platform_trace))
#: The topology files triva3d reads, for people.
FORMATS = ("triva3d reads " + ", ".join(r.name for r in READERS)
           + " and, for a treemap base, JSON resource hierarchies (.json)")


def read_topology(path):
    """The Topology in the file at `path`, read by the first of READERS that takes it."""
    if os.path.isdir(path):
        raise TraceError(path, None, "is a directory, not a topology file")
    if not os.path.isfile(path):
        raise TraceError(path, None, "no such topology file")
    ext = os.path.splitext(path)[1].lower()
    with open(path, "rb") as f:
        head = f.read(4096)
    for reader in READERS:
        if reader.sniff(ext, head):
            return reader.read(path)
    raise TraceError(path, None, f"not a topology file: {FORMATS}")
