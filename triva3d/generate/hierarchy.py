"""The hierarchy and communication-pattern generators of the Triva thesis (Listings
6.1 and 6.2): nested levels of containers whose leaves split the run between two
states along a cosine, and messages in a ring, all-to-all, star or hierarchical star.

The configuration, JSON or a Python dict's text, in either of two forms. triva3d's:

    {"levels": [{"count": 5, "name": "Site", "alias": "S"},
                {"count": 3, "name": "Cluster", "alias": "C"},
                {"count": 100, "name": "Machine", "alias": "M"},
                {"count": 4, "name": "Processor", "alias": "P"}],
     "duration": 20, "cosine-max-x-axis-value": 7.5}

or the thesis's (Listings 6.1 and 6.2), levels nested by `child`, each with its
`container` count per parent, the state and link types named, and for 6.2 the
communication pattern (`apppattern`, hstar's `nchildren`) between the containers of
the type `linksource` (= `linkdest`, a type's name or alias):

    {'appduration': 20, 'cosine-max-x-axis-value': 7.5,
     'statename': 'State', 'statealias': 'ST',
     'child': {'container': 5, 'name': 'Site', 'alias': 'S',
               'child': {'container': 3, 'name': 'Cluster', 'alias': 'C', ...}},
     'apppattern': 'ring', 'nchildren': 2, 'linkname': 'Link', 'linkalias': 'LT',
     'linksource': 'P', 'linkdest': 'P'}

`count` is per parent. Leaf i of N sits at x = i / N * max_x and spends the first
(1 + cos x) / 2 of the run in "State-0", the rest in "State-1" (`states` renames
them). Containers are named `NAME-K`, K counting across the whole level.
"""
import ast
import math
import re

import numpy as np

from ..errors import OptionsError, TraceError, read_json, read_text
from .program import MAX_CONTAINERS, MAX_LINKS, NS, Program

PATTERNS = ("ring", "full", "star", "hstar")
#: A pattern's rounds of messages, and an hstar's children per node, unless told.
COUNT, NCHILDREN = 1, 2
KEYS = {"levels", "duration", "cosine-max-x-axis-value", "states", "state", "link",
        "pattern"}
#: (name, Pajé alias) of the state and link types, unless told.
STATE, LINK = ["State", "ST"], ["Communication", "LT"]
#: The thesis's keys (Listings 6.1 and 6.2): at the top, and in each nested level.
LISTING_KEYS = {"appduration", "cosine-max-x-axis-value", "child", "statename",
                "statealias", "states", "apppattern", "nchildren", "linkname", "linkalias",
                "linksource", "linkdest"}
LISTING_LEVEL = {"container", "name", "alias", "child"}
STATE_COLORS = ["0.25 0.55 0.95", "0.95 0.6 0.15"]
ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def read_config(path):
    """The checked configuration at `path`, JSON or a Python dict's text (TraceError
    naming what is wrong)."""
    try:
        cfg = read_json(path, "the configuration")
    except TraceError as e:
        if not e.line:  # (not a JSON syntax error)
            raise
        try:
            cfg = ast.literal_eval(read_text(path, "the configuration"))
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            raise e from None
    return check_config(cfg, path)


def from_listing(cfg, fail):
    """The thesis's nested configuration (Listings 6.1, 6.2) in triva3d's form."""
    unknown = sorted(set(cfg) - LISTING_KEYS)
    if unknown:
        fail(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(LISTING_KEYS))})")
    levels, node = [], cfg.get("child")
    while node is not None:
        if not isinstance(node, dict) or not {"container", "name", "alias"} <= set(node) \
                or set(node) - LISTING_LEVEL:
            fail(f"level {len(levels) + 1}: expected the keys container, name, alias "
                 "and maybe child")
        levels.append({"count": node["container"], "name": node["name"],
                       "alias": node["alias"]})
        node = node.get("child")
    out = {"levels": levels,
           "state": [cfg.get("statename", STATE[0]), cfg.get("statealias", STATE[1])]}
    for key, to in (("appduration", "duration"), ("cosine-max-x-axis-value", None),
                    ("states", None)):
        if key in cfg:
            out[to or key] = cfg[key]
    if "apppattern" in cfg:
        ends = cfg.get("linksource"), cfg.get("linkdest")
        if ends[0] != ends[1]:
            fail(f"linksource {ends[0]!r} and linkdest {ends[1]!r} differ: a pattern "
                 "joins containers of one level")
        out["pattern"] = {"shape": cfg["apppattern"], "nchildren": cfg.get("nchildren", NCHILDREN),
                          "between": ends[0]}
    if {"linkname", "linkalias"} & set(cfg):
        out["link"] = [cfg.get("linkname", LINK[0]), cfg.get("linkalias", LINK[1])]
    return out


def check_config(cfg, source="configuration"):
    def fail(message):
        raise TraceError(source, None, message)
    if not isinstance(cfg, dict):
        fail("expected a JSON object with \"levels\", or the thesis's with \"child\"")
    if "levels" not in cfg and "child" in cfg:
        cfg = from_listing(cfg, fail)
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
        if not isinstance(alias, str) or not ALIAS.match(alias):
            fail(f"level {i + 1}: alias {alias!r} must be a word (letters, digits, _)")
        total *= count
        if total > MAX_CONTAINERS:
            fail(f"more than {MAX_CONTAINERS} containers at level {i + 1}")
        out.append((name, alias))
    state = _named_type(cfg, "state", STATE, fail)
    link = _named_type(cfg, "link", LINK, fail)
    types = out + [state, link]
    if len({a for _, a in types}) < len(types) or len({n for n, _ in types}) < len(types):
        fail("two levels, or a level and the state or link type, share a name or an alias")
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
            "max_x": max_x, "states": states, "state": state, "link": link,
            "pattern": _pattern(cfg.get("pattern"), out, fail), "source": str(source)}


def _named_type(cfg, key, default, fail):
    """(name, alias) of the state or link type."""
    v = cfg.get(key, default)
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)
            and v[0].strip() and not any(c in v[0] for c in '"\n\r') and ALIAS.match(v[1])):
        fail(f"{key} must be [name, alias]: a name without quotes, an alias word, "
             f"not {v!r}")
    return tuple(v)


def _pattern(p, levels, fail):
    """The checked pattern of the file ({shape, nchildren, between, count}), or None."""
    if p is None:
        return None
    keys = {"shape", "nchildren", "between", "count", "sequential"}
    if not isinstance(p, dict) or "shape" not in p or set(p) - keys:
        fail(f"pattern must be an object with shape and maybe {', '.join(sorted(keys - {'shape'}))}")
    if p["shape"] not in PATTERNS:
        fail(f"pattern {p['shape']!r} is none of {', '.join(PATTERNS)}")
    for key in ("nchildren", "count"):
        v = p.get(key, 1)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            fail(f"{key} must be a positive integer, not {v!r}")
    between = p.get("between")
    if between is not None:
        hits = [name for name, alias in levels if between in (name, alias)]
        if not hits:
            fail(f"the pattern's containers {between!r} are no level's name or alias")
        between = hits[0]
    if not isinstance(p.get("sequential", False), bool):
        fail(f"sequential must be true or false, not {p['sequential']!r}")
    return {"shape": p["shape"], "nchildren": p.get("nchildren", NCHILDREN),
            "count": p.get("count", COUNT), "between": between,
            "sequential": p.get("sequential", False)}


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
                   colors=STATE_COLORS, state_type=cfg["state"][0], state_alias=cfg["state"][1],
                   link_type=cfg["link"][0], link_alias=cfg["link"][1],
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


def pattern(program, kind, level=None, count=COUNT, nchildren=NCHILDREN, seed=0,
            sequential=False):
    """Add `count` rounds of messages in the pattern `kind` between the containers of
    `level` (a level name; default the leaves). Round k of D/count seconds: each
    message leaves at 10-30 % of the round and takes 20-50 % of it, 1 KB to 1 MB.
    `sequential` (a ring only): a container forwards only after it receives, so the
    round's n messages follow one another, each leaving 5-10 % of a hop (the round
    over n) after the one before arrives and taking 50-80 % of a hop."""
    names = [name for name, _ in program.levels]
    k = len(names) - 1 if level is None else _level(names, level)
    members = np.flatnonzero(program.level == k)
    if nchildren < 1 or count < 1:
        raise OptionsError("count and nchildren must be positive")
    if sequential and kind != "ring":
        raise OptionsError(f"only a ring forwards what it receives, not {kind}")
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
    if sequential and len(a):
        hop = slot / len(a)
        gap = hop * rng.uniform(0.05, 0.1, m)
        length = np.maximum((hop * rng.uniform(0.5, 0.8, m)).astype(np.int64), 1)
        step = (gap + length).reshape(count, -1)  # each after the one before arrives
        start = (rounds * slot + (np.cumsum(step, axis=1) - length.reshape(count, -1))
                 .ravel()).astype(np.int64)
    else:
        start = rounds * slot + (slot * rng.uniform(0.1, 0.3, m)).astype(np.int64)
        length = np.maximum((slot * rng.uniform(0.2, 0.5, m)).astype(np.int64), 1)
    program.link_src = members[np.tile(a, count)]
    program.link_dst = members[np.tile(b, count)]
    program.link_start, program.link_end = start, start + length
    program.link_size = np.rint(2 ** rng.uniform(10, 20, m)).astype(np.int64)
    program.link_value = kind
    return program


def configured_pattern(program, cfg, seed=0, **given):
    """`pattern` with the options `given` (shape, count, nchildren, between,
    sequential; None: not given), else those of the configuration `cfg` (Listing
    6.2's apppattern)."""
    p = {**(cfg["pattern"] or {}), **{k: v for k, v in given.items() if v is not None}}
    if "shape" not in p:
        raise OptionsError(f"{cfg['source']}: no pattern (apppattern) in the configuration: "
                           "name its shape")
    return pattern(program, p["shape"], level=p.get("between"), count=p.get("count", COUNT),
                   nchildren=p.get("nchildren", NCHILDREN), seed=seed,
                   sequential=p.get("sequential", False))


def _level(names, level):
    if level not in names:
        raise OptionsError(f"no level named {level!r} (levels: {', '.join(names)})")
    return names.index(level)
