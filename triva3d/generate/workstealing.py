"""A work-stealing run on a topology, like the KAAPI experiments of the Triva thesis.

Processes sit on the topology's hosts (consecutive ranks share a host) and start
with uneven shares of the work (from half to 1.5 times `work` seconds, in a seeded
order). One that runs out (RUN ends) becomes a thief: in RSTEAL it sends a steal
request (a link) to a random victim, in its own site four times out of five
(hierarchical stealing, as KAAPI does on grids); on arrival the victim gives half of
what it has left, if that is at least `MIN_CHUNK`, and the reply travels back. The
thief then RUNs, or after a failed steal stays IDLE for a backoff (doubling from
1 ms up to 0.5 s) and tries again. Once all work is done, everyone is IDLE to the
end. Steals therefore crowd the end of the run.

A message's delay along the fewest-hops route is the sum of the latencies of the
edges and link nodes it crosses (1e-4 s per hop where none is known) plus its size
over the smallest bandwidth (1.25e8 B/s where none is known); between processes of
one host it is 1 µs. A message that crosses a planted slow link, or that starts,
ends or passes in a planted slow site, takes `slow_latency` seconds more: a steal
then takes twice that, which the 3D view shows as long slanted lines and tall
RSTEAL bars.
"""
import heapq
import math
from collections import deque

import numpy as np

from ..errors import OptionsError, TraceError
from .program import NS, Program

RUN, IDLE, RSTEAL = range(3)
VALUES = ["RUN", "IDLE", "RSTEAL"]
COLORS = ["0.2 0.7 0.3", "0.75 0.75 0.75", "0.9 0.2 0.15"]
MIN_CHUNK = 0.01
#: How often a thief picks its victim in its own site (else anywhere).
OWN_SITE = 0.8
BACKOFF = (0.001, 0.5)
HOP_LATENCY, BANDWIDTH, SAME_HOST = 1e-4, 1.25e8, 1e-6
#: At most this many processes, and hosts (one breadth-first pass over the topology each).
MAX_PROCESSES, MAX_HOSTS = 100_000, 5000
#: Seconds of work per process on average, and what a slow link adds to each
#: crossing, unless told.
WORK, SLOW_LATENCY = 30.0, 20.0


def _hosts(topo, zones, n_hosts):
    """The hosts to run on: those of the `zones` named (all without), at most
    `n_hosts` of them taken in turn from each zone, in the topology's order."""
    hosts = [i for i, k in enumerate(topo.kinds) if k == "host"]
    zones = [z for z in zones or [] if z]
    if zones:
        of = {}  # zone named -> its hosts
        for i in hosts:
            path = topo.node_attrs[i].get("zone", "").split("/")
            hit = next((z for z in zones if z in path), None)
            if hit is not None:
                of.setdefault(hit, []).append(i)
        queues = [of[z] for z in zones if z in of]
        hosts = [q[k] for k in range(max(map(len, queues), default=0))
                 for q in queues if k < len(q)]
        if n_hosts is None:
            hosts = sorted(hosts)
    if n_hosts is not None:
        hosts = sorted(hosts[:n_hosts])
    if not hosts and zones:
        raise OptionsError(f"{topo.source}: no host to run on in the zones {', '.join(zones)}")
    if not hosts:
        raise TraceError(topo.source, None, "no host to run on")
    return hosts


def _check_names(topo, hosts):
    """Host and zone names become Pajé names: no quote or line break."""
    for h in hosts:
        for name in [topo.names[h]] + topo.node_attrs[h].get("zone", "").split("/"):
            if any(c in name for c in '"\r\n'):
                raise TraceError(topo.source, None, f"the name {name!r} holds a quote or a "
                                 "line break, which a Pajé trace cannot")


def _zone_levels(topo, hosts):
    """Zone names per host below the zones all share: (level names, rows)."""
    paths = [topo.node_attrs[h].get("zone", "").split("/") for h in hosts]
    common = 0
    while all(len(p) > common + 1 for p in paths) and len({p[common] for p in paths}) == 1:
        common += 1
    rows = [p[common:] for p in paths]
    if len({len(r) for r in rows}) > 1 or rows[0] == [""]:
        rows = [r[:1] for r in rows] if all(r != [""] for r in rows) else [[] for _ in rows]
    if len(rows[0]) == 1 and len({r[0] for r in rows}) == 1:
        rows = [[] for _ in rows]  # one zone above every host: no level
    depth = len(rows[0])
    names = {0: [], 1: ["Site"], 2: ["Site", "Cluster"]}.get(
        depth, [f"Zone{k + 1}" for k in range(depth)])
    return names, rows


def _slow_elements(topo, slow_link, slow_site):
    """Edges (index pairs) and link nodes that are slow."""
    edges, nodes = set(), set()
    if slow_link:
        names = slow_link.split(",")
        missing = [n for n in names if n not in topo.index]
        if missing or len(names) > 2:
            raise OptionsError(f"{topo.source}: slow link {slow_link!r}: give a node or two "
                               "joined nodes NAME,NAME" + (f" ({missing[0]!r} is not in the "
                                                           "topology)" if missing else ""))
        ids = [topo.index[n] for n in names]
        if len(ids) == 1:
            nodes.add(ids[0])
        elif not any({a, b} == set(ids) for a, b in zip(topo.src.tolist(), topo.dst.tolist())):
            raise OptionsError(f"{topo.source}: slow link {slow_link!r}: no edge joins them")
        else:
            edges.add(frozenset(ids))
    if slow_site:
        inside = {i for i, a in enumerate(topo.node_attrs)
                  if slow_site in a.get("zone", "").split("/")}
        if not inside:
            raise OptionsError(f"{topo.source}: slow site {slow_site!r}: no node has this "
                               "zone")
        nodes |= inside
    return edges, nodes


def routes(topo, hosts, slow=(set(), set())):
    """Between the given host nodes, along fewest-hops routes (a breadth-first tree
    from each): (H, H) arrays of latency (s), smallest bandwidth (B/s) and whether
    the route touches a slow element."""
    n = len(topo)
    src, dst = topo.src.tolist(), topo.dst.tolist()
    adj = [[] for _ in range(n)]
    for e, (a, b) in enumerate(zip(src, dst)):
        adj[a].append((b, e))
        adj[b].append((a, e))
    e_lat, e_bw = topo.latency.tolist(), topo.bandwidth.tolist()
    # an edge touching a link node carries that link's latency (SimGrid readers copy
    # it) unless it is a folded link of its own (`links`): count each link once
    is_link = [k == "link" for k in topo.kinds]
    e_lat_own = [math.nan if (is_link[a] or is_link[b]) and "links" not in attrs else lat
                 for a, b, lat, attrs in zip(src, dst, e_lat, topo.edge_attrs)]
    n_lat = [float(a.get("latency", "nan")) for a in topo.node_attrs]
    n_bw = [float(a.get("bandwidth", "nan")) for a in topo.node_attrs]
    slow_edges, slow_nodes = slow
    e_slow = [frozenset(e) in slow_edges for e in zip(src, dst)]
    n_slow = [i in slow_nodes for i in range(n)]
    size = len(hosts)
    lat, bw, hit = np.zeros((size, size)), np.full((size, size), np.inf), np.zeros((size, size),
                                                                                    bool)
    for i, h in enumerate(hosts):
        # per node reached: known latency sum, elements with one, hops, bandwidth, slow
        seen = [False] * n
        L, K, H, B, S = [0.0] * n, [0] * n, [0] * n, [math.inf] * n, [False] * n
        seen[h], S[h] = True, n_slow[h]
        queue = deque([h])
        while queue:
            u = queue.popleft()
            via = [] if u == h else [(n_lat[u], n_bw[u])]  # u is crossed on the way on
            for v, e in adj[u]:
                if seen[v]:
                    continue
                seen[v] = True
                l, k, b = L[u], K[u], B[u]
                for x_lat, x_bw in via + [(e_lat_own[e], e_bw[e])]:
                    if x_lat == x_lat:  # not NaN
                        l, k = l + x_lat, k + 1
                    if x_bw == x_bw and x_bw > 0:
                        b = min(b, x_bw)
                L[v], K[v], H[v], B[v] = l, k, H[u] + 1, b
                S[v] = S[u] or e_slow[e] or n_slow[v]
                queue.append(v)
        for j, k in enumerate(hosts):
            if not seen[k]:
                raise TraceError(topo.source, None, f"no route from {topo.names[h]} to "
                                 f"{topo.names[k]}")
            lat[i, j] = L[k] if K[k] else HOP_LATENCY * H[k]
            bw[i, j], hit[i, j] = B[k], S[k]
    return lat, np.where(np.isinf(bw), BANDWIDTH, bw), hit


def delays(route, size, slow_latency):
    """Seconds for a message of `size` bytes on `routes`; 1 µs within a host."""
    lat, bw, hit = route
    out = lat + size / bw + slow_latency * hit
    np.fill_diagonal(out, SAME_HOST)
    return out


def workstealing(topo, processes=None, hosts=None, zones=None, work=WORK, seed=0,
                 slow_link=None, slow_site=None, slow_latency=SLOW_LATENCY, request=1024,
                 reply=65536, cpus=None):
    """The Program of a work-stealing run on `topo` (a Topology): `processes` (default
    one per host) on the first `hosts` hosts (of the `zones` named, if given). With
    `cpus` per host, a host holding k > cpus processes is overloaded: each runs at
    cpus / k of the speed, so its work (in CPU seconds) takes k / cpus as long (the
    thesis's Fig. 6.21: 400 processes on 50 two-CPU machines)."""
    host_ids = _hosts(topo, zones, hosts)
    n_proc = len(host_ids) if processes is None else processes
    if not 1 <= n_proc <= MAX_PROCESSES:
        raise OptionsError(f"processes must be 1..{MAX_PROCESSES}")
    if not (0 < work <= 1e6 and 0 <= slow_latency <= 1e6):
        raise OptionsError("work must be in (0, 1e6] s and the slow latency in [0, 1e6] s")
    if cpus is not None and not (isinstance(cpus, int) and cpus >= 1):
        raise OptionsError(f"cpus per host must be a positive integer, not {cpus!r}")
    host_ids = host_ids[:n_proc]  # no host without a process
    if len(host_ids) > MAX_HOSTS:
        raise OptionsError(f"{topo.source}: {len(host_ids)} hosts: at most {MAX_HOSTS} "
                           "(choose fewer hosts, or some zones)")
    _check_names(topo, host_ids)
    host_of = np.arange(n_proc) * len(host_ids) // n_proc
    slow = _slow_elements(topo, slow_link, slow_site)
    route = routes(topo, host_ids, slow)
    zone_names, zone_rows = _zone_levels(topo, host_ids)
    site_of_host = np.unique([r[:1] for r in zone_rows], axis=0, return_inverse=True)[1]
    per_host = np.bincount(host_of)[host_of]
    speed = np.ones(n_proc) if cpus is None else np.minimum(1.0, cpus / per_host)
    states, links = _simulate(work, delays(route, request, slow_latency),
                              delays(route, reply, slow_latency), host_of,
                              site_of_host.reshape(-1)[host_of], np.random.default_rng(seed),
                              speed.tolist())
    levels = [(n, f"Z{k}") for k, n in enumerate(zone_names)] + [("Host", "H"),
                                                                  ("Process", "P")]
    parent, level, names, row = [], [], [], {}
    for h, zones_of in zip(host_ids, zone_rows):  # zones, then the host, parents first
        up = -1
        for k, z in enumerate(zones_of):
            key = tuple(zones_of[:k + 1])
            if key not in row:
                row[key] = len(names)
                parent.append(up)
                level.append(k)
                names.append(z)
            up = row[key]
        row[h] = len(names)
        parent.append(up)
        level.append(len(zone_names))
        names.append(topo.names[h])
    first = len(names)
    parent += [row[host_ids[h]] for h in host_of.tolist()]
    level += [len(zone_names) + 1] * n_proc
    names += [f"P{r}" for r in range(n_proc)]
    st, ln = np.array(states).reshape(-1, 4), np.array(links).reshape(-1, 4)
    ticks = lambda s: np.rint(s * NS).astype(np.int64)  # noqa: E731
    return Program(levels=levels, parent=parent, level=level, names=names, values=VALUES,
                   colors=COLORS, state_container=first + st[:, 0].astype(np.int64),
                   state_value=st[:, 1].astype(np.int64), state_start=ticks(st[:, 2]),
                   state_end=ticks(st[:, 3]), link_src=first + ln[:, 0].astype(np.int64),
                   link_dst=first + ln[:, 1].astype(np.int64), link_start=ticks(ln[:, 2]),
                   link_end=ticks(ln[:, 3]), link_size=np.full(len(ln), request, np.int64),
                   state_type="Worker state", link_type="Steal request", link_value="steal")


def _simulate(work, req, rep, host, site, rng, speed):
    """Events of the run: states (process, value, start, end) and steal requests
    (thief, victim, sent, arrived), in seconds. `req`, `rep`: delays between hosts;
    `host`, `site`: each process's host and site; `speed`: CPU seconds each runs
    per second (work is in CPU seconds)."""
    n = len(site)
    members = [np.flatnonzero(site == s) for s in range(site.max() + 1)]
    states, links = [], []
    mode = [RUN] * n
    since = [0.0] * n                 # when the current state began
    run_end = [0.0] * n
    version = [0] * n                 # bumps when a steal shortens a run
    backoff = [BACKOFF[0]] * n
    heap, seq = [], 0
    busy, in_transit = n, 0           # processes running, replies carrying work

    def push(t, what, p, x=0.0):
        nonlocal seq
        heapq.heappush(heap, (t, seq, what, p, x))
        seq += 1

    def close(p, t):
        if t > since[p]:
            states.append((p, mode[p], since[p], t))
        since[p] = t

    def steal(p, t):
        close(p, t)
        mode[p] = RSTEAL
        mates = members[site[p]]
        if len(mates) > 1 and rng.random() < OWN_SITE:
            v = int(mates[rng.integers(len(mates) - 1)])
            v = v if v != p else int(mates[-1])
        else:
            v = int(rng.integers(n - 1))
            v += v >= p
        d = req[host[p], host[v]]
        links.append((p, v, t, t + d))
        push(t + d, "arrive", p, v)

    share = work * (0.5 + np.arange(n) / max(n - 1, 1))  # from half to 1.5 x work
    for p, w in enumerate(rng.permutation(share).tolist() if n > 1 else [work]):
        mode[p], run_end[p] = RUN, w / speed[p]
        push(run_end[p], "finish", p, 0)
    while heap:
        t, _, what, p, x = heapq.heappop(heap)
        if what == "finish":
            if x != version[p]:
                continue
            close(p, t)
            busy -= 1
            mode[p] = IDLE
            if busy or in_transit:
                steal(p, t)
        elif what == "arrive":  # at the victim x: half of what it has left
            v = int(x)
            left = (run_end[v] - t) * speed[v] if mode[v] == RUN else 0.0  # CPU seconds
            give = left / 2 if left >= 2 * MIN_CHUNK else 0.0
            if give:
                run_end[v] -= give / speed[v]
                version[v] += 1
                push(run_end[v], "finish", v, version[v])
                in_transit += 1
            push(t + rep[host[v], host[p]], "reply", p, give)
        elif what == "reply":
            close(p, t)
            if x:
                in_transit -= 1
                busy += 1
                mode[p], run_end[p], backoff[p] = RUN, t + x / speed[p], BACKOFF[0]
                version[p] += 1
                push(run_end[p], "finish", p, version[p])
            else:
                mode[p] = IDLE
                if busy or in_transit:
                    push(t + backoff[p], "retry", p)
                    backoff[p] = min(2 * backoff[p], BACKOFF[1])
        elif what == "retry" and mode[p] == IDLE and (busy or in_transit):
            steal(p, t)
    end = max(max(s[3] for s in states), max((ln[3] for ln in links), default=0.0))
    for p in range(n):
        close(p, end)
    return states, links
