"""The hierarchy and communication-pattern generators of the Triva thesis (Listings
6.1 and 6.2): nested levels of containers whose leaves split the run between two
states along a cosine, and messages in a ring, all-to-all, star or hierarchical star.

The configuration (JSON):

    {"levels": [{"count": 5, "name": "Site", "alias": "S"},
                {"count": 3, "name": "Cluster", "alias": "C"},
                {"count": 100, "name": "Machine", "alias": "M"},
                {"count": 4, "name": "Processor", "alias": "P"}],
     "duration": 20, "cosine-max-x-axis-value": 7.5}

`count` is per parent. Leaf i of N sits at x = i / N * max_x and spends the first
(1 + cos x) / 2 of the run in "State-0", the rest in "State-1" (`states` renames
them). Containers are named `NAME-K`, K counting across the whole level.
"""
import math
import re

import numpy as np

from ..errors import OptionsError, TraceError, read_json
from .program import NS, Program

#: At most this many containers (the thesis's largest run has 150 000 leaves).
MAX_CONTAINERS = 10_000_000
#: At most this many messages in a pattern.
MAX_LINKS = 10_000_000
PATTERNS = ("ring", "full", "star", "hstar")
#: A pattern's rounds of messages, and an hstar's children per node, unless told.
COUNT, NCHILDREN = 1, 2
KEYS = {"levels", "duration", "cosine-max-x-axis-value", "states"}
STATE_COLORS = ["0.25 0.55 0.95", "0.95 0.6 0.15"]
ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def read_config(path):
    """The checked configuration at `path` (TraceError naming what is wrong)."""
    return check_config(read_json(path, "the configuration"), path)


def check_config(cfg, source="configuration"):
    def fail(message):
        raise TraceError(source, None, message)
    if not isinstance(cfg, dict):
        fail("expected a JSON object with \"levels\"")
    unknown = sorted(set(cfg) - KEYS)
    if unknown:
        fail(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS))})")
    levels = cfg.get("levels")
    if not isinstance(levels, list) or not levels:
        fail("\"levels\" must be a non-empty list of {count, name, alias}")
    total, out = 1, []
    for i, lv in enumerate(levels):
        if not isinstance(lv, dict) or set(lv) != {"count", "name", "alias"}:
            fail(f"level {i + 1}: expected exactly the keys count, name, alias")
        count, name, alias = lv["count"], lv["name"], lv["alias"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            fail(f"level {i + 1}: count must be a positive integer, not {count!r}")
        if not isinstance(name, str) or not name.strip() or any(c in name for c in '"\n\r'):
            fail(f"level {i + 1}: name must be text without quotes or line breaks")
        if not isinstance(alias, str) or not ALIAS.match(alias) or alias in ("ST", "LT"):
            fail(f"level {i + 1}: alias {alias!r} must be a word (letters, digits, _) "
                 "other than ST and LT")
        total *= count
        if total > MAX_CONTAINERS:
            fail(f"more than {MAX_CONTAINERS} containers at level {i + 1}")
        out.append((name, alias))
    if len({a for _, a in out}) < len(out) or len({n for n, _ in out}) < len(out):
        fail("two levels share a name or an alias")
    duration = _number(cfg, "duration", 20.0, fail)
    if not 1e-9 <= duration <= 9e6:  # nanoseconds, exact in doubles (2^53 ns)
        fail(f"duration must be in [1e-9, 9e6] seconds, not {duration}")
    max_x = _number(cfg, "cosine-max-x-axis-value", 2 * math.pi, fail)
    if not 0 <= max_x < 1e15:
        fail(f"cosine-max-x-axis-value must be finite and >= 0, not {max_x}")
    states = cfg.get("states", ["State-0", "State-1"])
    if not (isinstance(states, list) and len(states) == 2 and len(set(states)) == 2 and
            all(isinstance(s, str) and s.strip() and not any(c in s for c in '"\n\r')
                for s in states)):
        fail("\"states\" must be two different names without quotes")
    return {"levels": out, "counts": [lv["count"] for lv in levels], "duration": duration,
            "max_x": max_x, "states": states}


def _number(cfg, key, default, fail):
    v = cfg.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        fail(f"{key} must be a finite number, not {v!r}")
    return float(v)


def hierarchy(cfg):
    """The Program of a checked configuration: the containers and the cosine states."""
    parent, level, names = [], [], []
    first_prev, n_prev = -1, 1
    for k, ((name, _), count) in enumerate(zip(cfg["levels"], cfg["counts"])):
        n = n_prev * count
        first = len(names)
        parent.append(np.full(n, -1) if k == 0 else first_prev + np.arange(n) // count)
        level.append(np.full(n, k))
        names.extend(f"{name}-{i}" for i in range(n))
        first_prev, n_prev = first, n
    leaves = np.arange(len(names) - n_prev, len(names))
    end = round(cfg["duration"] * NS)
    x = np.arange(n_prev) / n_prev * cfg["max_x"]
    split = np.rint((1 + np.cos(x)) / 2 * end).astype(np.int64)
    return Program(levels=cfg["levels"], parent=np.concatenate(parent),
                   level=np.concatenate(level), names=names, values=cfg["states"],
                   colors=STATE_COLORS,
                   state_container=np.r_[leaves, leaves],
                   state_value=np.repeat([0, 1], n_prev),
                   state_start=np.r_[np.zeros(n_prev, np.int64), split],
                   state_end=np.r_[split, np.full(n_prev, end)], end=end)


def pattern_edges(kind, n, nchildren=NCHILDREN):
    """(senders, receivers) among n containers: ring i -> i+1, full i -> j for every
    i != j, star 0 -> i, hstar (a tree, nchildren per node, breadth first) parent -> child."""
    i = np.arange(n)
    if kind == "ring":
        return (i, (i + 1) % n) if n > 1 else (i[:0], i[:0])
    if kind == "full":
        a, b = np.divmod(np.arange(n * n), n)
        keep = a != b
        return a[keep], b[keep]
    if kind == "star":
        return np.zeros(n - 1, np.int64), i[1:]
    if kind == "hstar":
        return (i[1:] - 1) // nchildren, i[1:]
    raise ValueError(kind)


def pattern(program, kind, level=None, count=COUNT, nchildren=NCHILDREN, seed=0):
    """Add `count` rounds of messages in the pattern `kind` between the containers of
    `level` (a level name; default the leaves). Round k of D/count seconds: each
    message leaves at 10-30 % of the round and takes 20-50 % of it, 1 KB to 1 MB."""
    names = [name for name, _ in program.levels]
    k = len(names) - 1 if level is None else _level(names, level)
    members = np.flatnonzero(program.level == k)
    if nchildren < 1 or count < 1:
        raise OptionsError("count and nchildren must be positive")
    n = len(members)
    n_edges = n * (n - 1) if kind == "full" else n
    if n_edges * count > MAX_LINKS:
        raise OptionsError(f"{kind} over {n} containers x {count} rounds is more than "
                           f"{MAX_LINKS} messages")
    a, b = pattern_edges(kind, n, nchildren)
    rng = np.random.default_rng(seed)
    slot = program.end // count
    rounds = np.repeat(np.arange(count), len(a))
    m = len(rounds)
    start = rounds * slot + (slot * rng.uniform(0.1, 0.3, m)).astype(np.int64)
    length = (slot * rng.uniform(0.2, 0.5, m)).astype(np.int64)
    program.link_src = members[np.tile(a, count)]
    program.link_dst = members[np.tile(b, count)]
    program.link_start, program.link_end = start, start + np.maximum(length, 1)
    program.link_size = np.rint(2 ** rng.uniform(10, 20, m)).astype(np.int64)
    program.link_type, program.link_value = "Communication", kind
    return program


def _level(names, level):
    if level not in names:
        raise OptionsError(f"no level named {level!r} (levels: {', '.join(names)})")
    return names.index(level)
