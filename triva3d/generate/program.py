"""A generated run, in columns: what every generator builds and both writers write.

Times are integer nanoseconds from 0, so that the Pajé text (seconds with nine
decimals) and the OTF2 archive (a 1 GHz timer) read back as the very same doubles.
Containers are listed parents first; states are intervals on the leaves (one
state at a time per leaf); links join two containers of one level.
"""
from dataclasses import dataclass, field

import numpy as np

from ..errors import OptionsError

NS = 1_000_000_000
#: At most this many containers a generated run (the thesis's largest run has 150 000
#: leaves), and this many messages (or a Sigovan run's rank-iterations).
MAX_CONTAINERS = 10_000_000
MAX_LINKS = 10_000_000
#: The latest time (ns) that reads back as the same double from Pajé and OTF2.
MAX_END = 2 ** 53


@dataclass
class Program:
    #: (type name, Pajé alias) of each level, from the top down; the leaves are last.
    levels: list
    #: per container: index of its parent container (-1: the root), level, name
    parent: np.ndarray
    level: np.ndarray
    names: list
    #: state values (names) and their colours ("r g b" in 0..1)
    values: list
    colors: list
    #: states: container, value index, start and end (ns)
    state_container: np.ndarray
    state_value: np.ndarray
    state_start: np.ndarray
    state_end: np.ndarray
    #: links: sending and receiving containers, start and end (ns), size in bytes
    link_src: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    link_dst: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    link_start: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    link_end: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    link_size: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: the end of the run (ns): every container is destroyed then
    end: int = 0
    state_type: str = "State"
    link_type: str = "Message"
    #: the Pajé aliases of the state and link types
    state_alias: str = "ST"
    link_alias: str = "LT"
    link_value: str = "message"
    #: per state, APEX's task attributes `GUID` and `Parent GUID` (OTF2 only), or None
    state_guid: np.ndarray = None
    state_parent_guid: np.ndarray = None

    def __post_init__(self):
        keep = self.state_end > self.state_start  # a zero-length state shows nothing
        for name in ("state_container", "state_value", "state_start", "state_end",
                     "state_guid", "state_parent_guid"):
            if getattr(self, name) is not None:
                setattr(self, name, np.asarray(getattr(self, name), np.int64)[keep])
        self.parent = np.asarray(self.parent, np.int64)
        self.level = np.asarray(self.level, np.int64)
        ends = [self.end, self.state_end.max(initial=0), np.max(self.link_end, initial=0)]
        self.end = int(max(ends))
        if self.end > MAX_END:  # nanoseconds beyond 2^53 no longer read back exactly
            raise OptionsError(f"the run lasts {self.end / NS:.3g} s: at most "
                               f"{MAX_END / NS:.3g} s")

    @property
    def leaves(self):
        """Container indices of the leaf level, in order (their MPI ranks in OTF2)."""
        return np.flatnonzero(self.level == len(self.levels) - 1)

    def link_level(self):
        """The level whose containers the links join (-1 without links)."""
        if not len(self.link_src):
            return -1
        levels = np.unique(self.level[np.r_[self.link_src, self.link_dst]])
        if len(levels) != 1:
            raise OptionsError("links must join containers of one level")
        return int(levels[0])


def seconds(ticks):
    """Pajé time fields for integer nanoseconds: "S.NNNNNNNNN" (exact decimals)."""
    uniq, inv = np.unique(np.asarray(ticks, np.int64), return_inverse=True)
    text = np.array([f"{t // NS}.{t % NS:09d}" for t in uniq.tolist()], dtype=object)
    return text[inv.reshape(-1)]


def _names(values):
    return np.array([f'"{v}"' for v in values], dtype=object)


def write_paje(program, path):
    """Write `program` as a time-ordered Pajé trace (Push/Pop states, links with a
    Size field) that triva3d reads in strict mode; returns the number of lines."""
    from ..output import write_lines
    from ..paje.defs import START_LINK, standard_header
    p = program
    alias = [a for _, a in p.levels]
    head = [standard_header(extra={START_LINK: ["Size"]}).rstrip("\n")]
    parent_alias = "0"
    for name, a in p.levels:
        head.append(f'0 {a} {parent_alias} "{name}"')
        parent_alias = a
    st, lt = p.state_alias, p.link_alias
    head.append(f'2 {st} {alias[-1]} "{p.state_type}"')
    for i, (v, c) in enumerate(zip(p.values, p.colors)):
        head.append(f'5 v{i} {st} "{v}" "{c}"')
    link_level = p.link_level()
    if link_level >= 0:
        la = alias[link_level]
        head.append(f'4 {lt} 0 {la} {la} "{p.link_type}"')
    # body: (time, order, tiebreak, text); at one time: creations, pops, pushes,
    # links, destructions (leaves first)
    n = len(p.names)
    c_alias = np.array([f"c{i}" for i in range(n)], dtype=object)
    parent = np.where(p.parent < 0, 0, p.parent)
    p_alias = np.where(p.parent < 0, "0", c_alias[parent]).astype(object)
    lvl = np.array(alias, dtype=object)[p.level]
    zero, end = seconds([0])[0], seconds([p.end])[0]
    creates = "6 " + zero + " " + c_alias + " " + lvl + " " + p_alias + " " + _names(p.names)
    destroys = "7 " + end + " " + lvl + " " + c_alias
    sc = c_alias[p.state_container]
    pushes = "12 " + seconds(p.state_start) + " " + sc + f" {st} v" + \
        p.state_value.astype(str).astype(object)
    pops = "13 " + seconds(p.state_end) + " " + sc + f" {st}"
    key = np.arange(len(p.link_src)).astype(str).astype(object)
    starts = "15 " + seconds(p.link_start) + f" 0 {lt} " + c_alias[p.link_src] + \
        f" {p.link_value} k" + key + " " + p.link_size.astype(str).astype(object)
    ends = "16 " + seconds(p.link_end) + f" 0 {lt} " + c_alias[p.link_dst] + \
        f" {p.link_value} k" + key
    idx, nl = np.arange(n), len(key)
    parts = [(np.zeros(n, np.int64), 0, idx, creates),
             (p.state_end, 1, np.arange(len(pops)), pops),
             (p.state_start, 2, np.arange(len(pushes)), pushes),
             (p.link_start, 3, np.arange(nl), starts),
             (p.link_end, 3, np.arange(nl) + nl, ends),
             (np.full(n, p.end), 4, -p.level, destroys)]
    time = np.concatenate([t for t, *_ in parts]).astype(np.int64)
    order = np.concatenate([np.full(len(t), o) for t, o, *_ in parts])
    tie = np.concatenate([k for _, _, k, _ in parts])
    text = np.concatenate([np.asarray(x, dtype=object) for *_, x in parts])
    body = text[np.lexsort((tie, order, time))]
    write_lines(path, head + body.tolist())
    return len(body)
