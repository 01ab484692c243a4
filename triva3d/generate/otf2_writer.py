"""A generated run as an OTF2 archive, written with the `otf2` package.

Upper levels become system-tree nodes (their class is the level's name); each leaf
is a process (location group) holding one thread of the same name, whose states
are regions entered and left, and whose links are MPI messages: a send at the
link's start, the receive at its end (tag: the link's number, so every message
matches its own receive). Timer: 1 GHz. A seeded archive is byte-identical from
run to run: its creation time is the epoch and its trace id comes from the seed.
"""
import os
import shutil
import struct

import numpy as np

from ..errors import OptionsError, TraceError
from .program import NS

LEAVE, ENTER, SEND, RECV = range(4)
#: What a folder we may replace holds: an archive of ours (and its cached Trace).
ARCHIVE = {"traces.otf2", "traces.def", "traces", "traces.otf2.t3dcache"}
#: Buffer size per location: the smallest the library takes (its default, 1 MiB for
#: events and 4 MiB for definitions, made closing each location cost 5 ms).
CHUNK = 256 * 1024
#: At most this many processes: each holds its buffers until the archive closes.
MAX_LOCATIONS = 10_000


def _events(program, rank):
    """Per-leaf event arrays (leaf rank, time, kind, a, b), in writing order."""
    p = program
    ns, nl = len(p.state_start), len(p.link_src)
    st_rank = rank[p.state_container]
    leaf = np.concatenate([st_rank, st_rank, rank[p.link_src], rank[p.link_dst]])
    time = np.concatenate([p.state_end, p.state_start, p.link_start, p.link_end])
    kind = np.repeat([LEAVE, ENTER, SEND, RECV], [ns, ns, nl, nl])
    link = np.arange(nl)
    a = np.concatenate([p.state_value, p.state_value, rank[p.link_dst], rank[p.link_src]])
    b = np.concatenate([np.arange(ns), np.arange(ns), link, link])  # the state, the link
    order = np.lexsort((kind, time, leaf))
    return leaf[order], time[order], kind[order], a[order], b[order]


def write_otf2(program, path, seed=0):
    """Write `program` as the OTF2 archive folder `path` (an earlier archive there
    is replaced; a folder holding anything else is refused)."""
    p = program
    leaves = p.leaves
    if p.link_level() not in (-1, len(p.levels) - 1):
        raise OptionsError("OTF2 messages join processes: links between "
                           f"{p.levels[p.link_level()][0]} containers need the Pajé format")
    if len(leaves) > MAX_LOCATIONS:
        raise OptionsError(f"{len(leaves)} processes: an OTF2 archive is written with a "
                           f"buffer per process in memory, at most {MAX_LOCATIONS} "
                           "(use the Pajé format)")
    path = os.path.abspath(str(path))
    if os.path.exists(path) and \
            (not os.path.isdir(path) or not set(os.listdir(path)) <= ARCHIVE):
        raise TraceError(path, None, "exists and holds more than an OTF2 archive; not "
                                     "replaced")
    parent = os.path.dirname(path)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise TraceError(path, None, "cannot write: its folder does not exist or is not "
                                     "writable")
    tmp = f"{path}.t3d-{os.getpid()}.tmp"  # the archive appears whole, or not at all
    try:
        _write(p, tmp, leaves, seed)
        if os.path.exists(path):
            shutil.rmtree(path)
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write(p, path, leaves, seed):
    import otf2
    from otf2.enums import GroupType, Paradigm, RegionRole
    rank = np.full(len(p.names), -1, np.int64)
    rank[leaves] = np.arange(len(leaves))
    try:
        archive = otf2.writer.open(path, timer_resolution=NS, chunk_size_events=CHUNK,
                                   chunk_size_definitions=CHUNK)
    except Exception as e:  # the library's errors are plain exceptions
        raise TraceError(path, None, f"cannot write the archive: {e}") from None
    with archive as w:
        d = w.definitions
        nodes = {}
        for c in np.flatnonzero(p.level < len(p.levels) - 1).tolist():
            par = int(p.parent[c])
            nodes[c] = d.system_tree_node(p.names[c], parent=nodes.get(par),
                                          class_name=p.levels[p.level[c]][0])
        locs = []
        for c in leaves.tolist():
            group = d.location_group(p.names[c], system_tree_parent=nodes.get(int(p.parent[c])))
            locs.append(d.location(p.names[c], group=group))
        regions = [d.region(v, paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
                   for v in p.values]
        comm = None
        if len(p.link_src):
            d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                    members=locs)
            comm = d.comm("MPI_COMM_WORLD", group=d.group(
                "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                members=locs))
        leaf, time, kind, a, b = _events(p, rank)
        bounds = np.searchsorted(leaf, np.arange(len(leaves) + 1))
        size = p.link_size
        attributes = _task_attributes(p, d)
        for r in range(len(leaves)):
            ev = w.event_writer_from_location(locs[r])
            lo, hi = bounds[r], bounds[r + 1]
            for t, k, x, y in zip(time[lo:hi].tolist(), kind[lo:hi].tolist(),
                                  a[lo:hi].tolist(), b[lo:hi].tolist()):
                if k == ENTER:
                    ev.enter(t, regions[x], attributes(y))
                elif k == LEAVE:
                    ev.leave(t, regions[x], attributes(y))
                elif k == SEND:
                    ev.mpi_send(t, x, comm, y, int(size[y]))
                else:
                    ev.mpi_recv(t, x, comm, y, int(size[y]))
        w._realtime_timestamp = 0.0  # the creation time, else the wall clock
    _stamp_trace_id(os.path.join(path, "traces.otf2"), seed)


def _task_attributes(p, d):
    """state index -> the attributes of its Enter and Leave: APEX's `GUID` and `Parent
    GUID` (uint64) where the program has them, else none."""
    if p.state_guid is None:
        return lambda i: None
    from otf2.enums import Type
    guid = d.attribute("GUID", "HPX task id", Type.UINT64)
    parent = d.attribute("Parent GUID", "the id of the task that created it", Type.UINT64)
    g, pg = p.state_guid.tolist(), p.state_parent_guid.tolist()
    return lambda i: {guid: g[i], parent: pg[i]}


def _stamp_trace_id(anchor, seed):
    """Replace the random trace id the library drew with one from `seed` (the
    library has no setter; the id is stored once, as 8 little-endian bytes)."""
    import _otf2
    h = _otf2.Reader_Open(anchor)
    try:
        old = struct.pack("<Q", _otf2.Reader_GetTraceId(h))
    finally:
        _otf2.Reader_Close(h)
    new = struct.pack("<Q", int(np.random.default_rng(seed).integers(1, 2**63)))
    data = open(anchor, "rb").read()
    if data.count(old) != 1:
        raise TraceError(anchor, None, "cannot set the trace id from the seed (this OTF2 "
                                       "version stores it otherwise)")
    with open(anchor, "wb") as f:
        f.write(data.replace(old, new))
