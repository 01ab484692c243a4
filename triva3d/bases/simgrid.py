"""SimGrid platform XML (version 4.x) into a Topology, named as SimGrid names things.

Hosts, routers and links become nodes (links are nodes, as in the platform traces
SimGrid writes and Viva draws); every declared route and zoneRoute joins its
consecutive elements (source, links..., destination) by edges. Clusters expand as
SimGrid expands them:

- flat: hosts `prefix+radical+suffix`, private links `ID_link_RADICAL` (`_UP`/`_DOWN`
  when split-duplex, the default), `ID_backbone`, loopback `ID_link_RADICAL_loopback`,
  limiter `ID_link_RADICAL_limiter`, router `prefix+ID+"_router"+suffix`; routes
  host - up link - backbone - router and back through the down link;
- TORUS: one link per host and dimension, `ID_link_from_RANK_to_NEIGHBOUR`;
- FAT_TREE: switches `ID_switch_LEVEL_POSITION` and SimGrid's cables
  `link_from_CHILD_PARENT_N` (N counts the file's fat-tree cables);
- DRAGONFLY: routers `ID_router_GROUP_CHASSIS_BLADE` and SimGrid's local, green,
  black and blue links (SimGrid's names, counted over the file's dragonfly links).

Switch and dragonfly router names are triva3d's: SimGrid keeps those internal.
"""
import math
import xml.parsers.expat

from ..errors import TraceError
from . import recursion_room, units
from .routing import ROUTED, Routing
from .topology import MAX_NODES, Topology, edges_from_link_nodes

SPLIT = "SPLITDUPLEX"


class _Elem:
    __slots__ = ("tag", "attrib", "line", "children")

    def __init__(self, tag, attrib, line):
        self.tag, self.attrib, self.line, self.children = tag, attrib, line, []


def _parse(path):
    """A small element tree with line numbers (ElementTree has none)."""
    root = _Elem("#document", {}, 0)
    stack = [root]
    p = xml.parsers.expat.ParserCreate()

    def start(tag, attrib):
        e = _Elem(tag, attrib, p.CurrentLineNumber)
        stack[-1].children.append(e)
        stack.append(e)

    p.StartElementHandler = start
    p.EndElementHandler = lambda tag: stack.pop()
    try:
        with open(path, "rb") as f:
            p.ParseFile(f)
    except xml.parsers.expat.ExpatError as e:
        raise TraceError(path, e.lineno, f"malformed XML: {xml.parsers.expat.ErrorString(e.code)}") from None
    except LookupError as e:  # an encoding Python does not know
        raise TraceError(path, 1, f"malformed XML: {e}") from None
    platform = [e for e in root.children if e.tag == "platform"]
    if not platform:
        raise TraceError(path, None, "not a SimGrid platform (no <platform> element)")
    return platform[0]


#: Deepest nesting of zones read.
MAX_ZONE_DEPTH = 5000


def read_platform(path):
    """The Topology of the SimGrid platform file at `path`."""
    return _Reader(path).run()


def radicals(text):
    """SimGrid radicals '0-99' or '1-5,7,9-12' as a list of ints (ValueError saying
    why for an empty range or more hosts than a topology holds)."""
    ranges = []
    for part in str(text).split(","):
        lo, _, hi = part.strip().partition("-")
        lo, hi = int(lo), int(hi or lo)
        if hi < lo:
            raise ValueError(f"the range {lo}-{hi} is empty")
        ranges.append(range(lo, hi + 1))
    if sum(len(r) for r in ranges) > MAX_NODES:
        raise ValueError(f"more than {MAX_NODES} hosts")
    return [i for r in ranges for i in r]


class _Reader:
    def __init__(self, path):
        self.path = path
        self.topo = Topology(path.rsplit("/", 1)[-1], path)
        self.routing = self.topo.routing = Routing(self.topo)
        self.current = self.routing.add_zone("", "None")  # the platform: holds the top zones
        self.split = {}           # declared link id -> split-duplex?
        self.skipped = {}         # tag -> count
        self.fat_tree_cables = 0  # SimGrid counts these over the whole platform
        self.dragonfly_links = 0
        self.loopbacks = {}       # the cluster being read: host -> [its loopback link]

    def error(self, e, message):
        raise TraceError(self.path, e.line, f"<{e.tag}>: {message}")

    def need(self, e, key):
        if key not in e.attrib:
            self.error(e, f"missing attribute {key!r}")
        return e.attrib[key]

    def number(self, e, key, parse, default=None):
        if key not in e.attrib:
            return default
        try:
            return parse(e.attrib[key])
        except ValueError as ex:
            self.error(e, str(ex))

    def run(self):
        root = _parse(self.path)
        stack, deepest = [(root, 0)], 0
        while stack:  # the zones' depth, before walking them by recursion
            e, d = stack.pop()
            deepest = max(deepest, d)
            stack.extend((c, d + 1) for c in e.children if c.tag in ("zone", "AS"))
        if deepest > MAX_ZONE_DEPTH:
            raise TraceError(self.path, None, f"zones nested {deepest} deep; this reader "
                             f"takes {MAX_ZONE_DEPTH} levels at most")
        with recursion_room(4 * MAX_ZONE_DEPTH + 200):  # zones recurse
            self.zone(root, [])
        for tag, n in sorted(self.skipped.items()):
            self.topo.notes.append(f"{n} <{tag}> elements not part of the topology, skipped")
        self.topo.dedup_edges()
        edges_from_link_nodes(self.topo)
        return self.topo

    # -- zones ---------------------------------------------------------------
    def zone(self, z, path):
        """Read zone `z` (its routing zone is self.current)."""
        zone_name = "/".join(path)
        handlers = {"zone": self.subzone, "AS": self.subzone, "host": self.host,
                    "router": self.router, "link": self.link, "backbone": self.link,
                    "cluster": self.cluster, "route": self.route, "zoneRoute": self.route,
                    "ASroute": self.route, "host_link": self.host_link, "peer": self.peer}
        for e in z.children:
            h = handlers.get(e.tag)
            if h is None:
                self.skipped[e.tag] = self.skipped.get(e.tag, 0) + 1
            elif e.tag in ("zone", "AS"):
                h(e, path)
            else:
                h(e, zone_name)
        if z.attrib.get("routing") == "Cluster":
            self.cluster_zone_backbone(z)

    def subzone(self, e, path):
        zid = self.need(e, "id")
        outer = self.current
        kind = e.attrib.get("routing", "None")
        kind = next((k for k in ROUTED if k.lower() == kind.lower()), kind)
        self.current = self.new_zone(zid, kind)
        self.zone(e, path + [zid])
        self.current = outer

    def new_zone(self, name, kind):
        """A routing zone in the current one; routes across a kind not routed are
        the fewest hops (noted)."""
        if kind not in ROUTED:
            self.topo.notes.append(f"zone {name!r} routes by {kind}: routes across it "
                                   "are the fewest hops in the graph")
        return self.routing.add_zone(name, kind, self.current)

    def declare(self, e, name, kind, **attrs):
        """A new node: an id declared twice (a host and a link named alike) would
        silently become one node."""
        if name in self.topo.index:
            kind = self.topo.kinds[self.topo.index[name]]
            self.error(e, f"{name!r} is already declared (as a {kind})")
        self.routing.place(self.topo.add_node(name, kind, **attrs), self.current)

    def host(self, e, zone):
        attrs = {"zone": zone}
        if "speed" in e.attrib or "power" in e.attrib:
            attrs["speed"] = repr(self.number(e, "speed" if "speed" in e.attrib else "power",
                                              lambda s: units.speed(s.split(",")[0])))
        self.declare(e, self.need(e, "id"), "host", **attrs)

    def router(self, e, zone):
        self.declare(e, self.need(e, "id"), "router", zone=zone)

    def peer(self, e, zone):
        self.declare(e, self.need(e, "id"), "host", zone=zone)

    def new_link(self, name, bw, lat, split, zone):
        """Declare a link; split-duplex links are two nodes NAME_UP and NAME_DOWN."""
        self.split[name] = split
        attrs = {"zone": zone}
        if bw is not None and not math.isnan(bw):
            attrs["bandwidth"] = repr(bw)
        if lat is not None and not math.isnan(lat):
            attrs["latency"] = repr(lat)
        for n in ((name + "_UP", name + "_DOWN") if split else (name,)):
            self.topo.add_node(n, "link", **attrs)
        return (name + "_UP", name + "_DOWN") if split else (name, name)

    def link(self, e, zone):
        bw = self.number(e, "bandwidth", lambda s: units.bandwidth(s.split(",")[0]))
        lat = self.number(e, "latency", units.latency, 0.0)
        if bw is None:
            self.error(e, "missing attribute 'bandwidth'")
        lid, split = self.need(e, "id"), e.attrib.get("sharing_policy") == SPLIT
        for name in ((lid + "_UP", lid + "_DOWN") if split else (lid,)):
            if name in self.topo.index or lid in self.split:
                self.error(e, f"link {lid!r}: {name!r} is already declared")
        self.new_link(lid, bw, lat, split, zone)

    def link_name(self, ctn, reverse):
        lid = self.need(ctn, "id")
        if lid not in self.split:
            self.error(ctn, f"unknown link {lid!r}")
        if not self.split[lid]:
            return lid
        direction = ctn.attrib.get("direction", "NONE").upper()
        if direction not in ("UP", "DOWN"):
            self.error(ctn, f"link {lid!r} is split-duplex: give direction=\"UP\" or \"DOWN\"")
        if reverse:
            direction = "DOWN" if direction == "UP" else "UP"
        return f"{lid}_{direction}"

    def route(self, e, zone):
        """A route or zoneRoute: joins its consecutive elements (but a node's route
        to itself, through a loopback that may serve many) and is kept for routing."""
        if e.tag == "route":
            ends = self.need(e, "src"), self.need(e, "dst")
        else:
            ends = self.need(e, "gw_src"), self.need(e, "gw_dst")
        for end in ends:  # an undeclared end would become a node of its own
            if end not in self.topo.index:
                self.error(e, f"{end!r} is not declared before this route")
        ctns = [c for c in e.children if c.tag in ("link_ctn", "link_ctn_ref")]
        forward = [self.link_name(c, False) for c in ctns]
        back = None
        if e.attrib.get("symmetrical", "YES").upper() in ("YES", "TRUE"):
            back = [self.link_name(c, True) for c in reversed(ctns)]
        if ends[0] != ends[1]:
            self.chain([ends[0], *forward, ends[1]])
            if back is not None:
                self.chain([ends[1], *back, ends[0]])
        ix = self.topo.index
        links = [[ix[n] for n in names] if names is not None else None for names in (forward, back)]
        if e.tag == "route":
            self.routing.add_route(self.current, ix[ends[0]], ix[ends[1]], *links)
            return
        zones = []
        for key in ("src", "dst"):
            name = self.need(e, key)
            if name not in self.routing.by_name:
                self.error(e, f"zone {name!r} is not declared before this route")
            zones.append(~self.routing.by_name[name])
        self.routing.add_route(self.current, *zones, *links, ix[ends[0]], ix[ends[1]])

    def chain(self, names):
        for a, b in zip(names, names[1:]):
            if a != b:
                self.topo.add_edge(a, b)

    def host_link(self, e, zone):
        host = self.need(e, "id")
        for key in ("up", "down"):
            lid = self.need(e, key)
            if lid not in self.split:
                self.error(e, f"unknown link {lid!r}")
            self.chain([host, lid + ("_UP" if self.split[lid] else "")])

    def cluster_zone_backbone(self, z):
        """In a <zone routing="Cluster">, host links meet at the backbone, and
        route a host up its link and the backbone, down the backbone and its link."""
        backbones = [b.attrib["id"] for b in z.children if b.tag == "backbone" and "id" in b.attrib]
        ix = self.topo.index
        for hl in (c for c in z.children if c.tag == "host_link"):
            ways = []
            for key in ("up", "down"):
                lid = hl.attrib.get(key)
                link = lid + ("_UP" if self.split[lid] else "")
                for bb in backbones:
                    self.chain([link, bb])
                ways.append(ix[link])
            bb = [ix[b] for b in backbones[:1] if b in ix]
            self.routing.add_host_links(self.current, ix[hl.attrib["id"]], [ways[0], *bb],
                                        [*bb, ways[1]])

    # -- clusters ------------------------------------------------------------
    def cluster(self, e, zone):
        cid = self.need(e, "id")
        prefix, suffix = e.attrib.get("prefix", ""), e.attrib.get("suffix", "")
        try:
            rads = radicals(self.need(e, "radical"))
        except ValueError as ex:
            self.error(e, f"bad radical {e.attrib['radical']!r}: {ex}")
        czone = f"{zone}/{cid}" if zone else cid
        bw = self.number(e, "bw", units.bandwidth)
        lat = self.number(e, "lat", units.latency, 0.0)
        if bw is None:
            self.error(e, "missing attribute 'bw'")
        speed = self.number(e, "speed", lambda s: units.speed(s.split(",")[0]))
        topology = e.attrib.get("topology", "FLAT").upper()
        params = e.attrib.get("topo_parameters", "")
        expand = {"FLAT": self.flat, "TORUS": self.torus, "FAT_TREE": self.fat_tree,
                  "DRAGONFLY": self.dragonfly}.get(topology)
        if expand is None:
            self.error(e, f"unknown topology {topology!r} (expected FLAT, TORUS, FAT_TREE "
                          "or DRAGONFLY)")
        outer = self.current
        self.current = self.new_zone(cid, "Cluster" if topology == "FLAT" else topology)
        hosts = [prefix + str(r) + suffix for r in rads]
        for h in hosts:
            self.routing.place(self.topo.add_node(
                h, "host", zone=czone, **({"speed": repr(speed)} if speed else {})), self.current)
        split = e.attrib.get("sharing_policy", SPLIT) == SPLIT
        lb_bw = self.number(e, "loopback_bw", units.bandwidth, 0.0)
        lb_lat = self.number(e, "loopback_lat", units.latency, 0.0)
        self.loopbacks = {}
        for h, r in zip(hosts, rads):
            if lb_bw > 0 or lb_lat > 0:
                lb = self.new_link(f"{cid}_link_{r}_loopback", lb_bw, lb_lat, False, czone)[0]
                self.chain([h, lb])
                self.loopbacks[h] = [lb]
        limiter_bw = self.number(e, "limiter_link", units.bandwidth, 0.0)
        try:
            expand(e, cid, czone, hosts, rads, bw, lat, split, limiter_bw, params)
        except (ValueError, IndexError, ZeroDivisionError):
            self.error(e, f"bad topo_parameters {params!r} for a {topology} cluster "
                          f"of {len(hosts)} hosts")
        self.current = outer

    def limiter(self, cid, i, bw, czone):
        return self.new_link(f"{cid}_link_{i}_limiter", bw, math.nan, False, czone)[0]

    def flat(self, e, cid, czone, hosts, rads, bw, lat, split, limiter_bw, params):
        prefix, suffix = e.attrib.get("prefix", ""), e.attrib.get("suffix", "")
        backbone = []
        bb_bw = self.number(e, "bb_bw", units.bandwidth, 0.0)
        bb_lat = self.number(e, "bb_lat", units.latency, 0.0)
        if bb_bw > 0 or bb_lat > 0:
            backbone = [self.new_link(f"{cid}_backbone", bb_bw, bb_lat,
                                      e.attrib.get("bb_sharing_policy") == SPLIT, czone)[0]]
        router = e.attrib.get("router_id") or f"{prefix}{cid}_router{suffix}"
        self.topo.add_node(router, "router", zone=czone)
        ix = self.topo.index
        for h, r in zip(hosts, rads):
            up, down = self.new_link(f"{cid}_link_{r}", bw, lat, split, czone)
            lim = [self.limiter(cid, r, limiter_bw, czone)] if limiter_bw > 0 else []
            self.chain([h] + lim + [up] + backbone + [router])
            self.chain([router] + backbone + [down] + lim + [h])
            self.routing.add_host_links(
                self.current, ix[h], [ix[n] for n in lim + [up] + backbone],
                [ix[n] for n in backbone + [down] + lim], [ix[n] for n in self.loopbacks.get(h, [])])
        self.routing.place(ix[router], self.current)  # after the hosts, as SimGrid

    def torus(self, e, cid, czone, hosts, rads, bw, lat, split, limiter_bw, params):
        dims = [int(d) for d in params.split(",")]
        if math.prod(dims) != len(hosts) or min(dims) <= 0:
            raise ValueError
        for i, h in enumerate(hosts):
            if limiter_bw > 0:
                self.chain([h, self.limiter(cid, i, limiter_bw, czone)])
            product = 1
            for d in dims:
                nb = i - (d - 1) * product if (i // product) % d == d - 1 else i + product
                for name in dict.fromkeys(self.new_link(f"{cid}_link_from_{i}_to_{nb}",
                                                        bw, lat, split, czone)):
                    self.chain([h, name, hosts[nb]])
                product *= d

    def fat_tree(self, e, cid, czone, hosts, rads, bw, lat, split, limiter_bw, params):
        parts = params.split(";")
        levels = int(parts[0])
        down, up, count = ([int(x) for x in p.split(",")] for p in parts[1:4])
        if len(parts) != 4 or not (len(down) == len(up) == len(count) == levels) \
                or min(down + up + count) <= 0 or math.prod(down) != len(hosts):
            raise ValueError
        by_level = [len(hosts)] + [math.prod(up[:i + 1]) * math.prod(down[i + 1:])
                                   for i in range(levels)]
        if sum(by_level) > MAX_NODES or \
                sum(a * b for a, b in zip(by_level, by_level[1:])) > MAX_NODES * 100:
            self.error(e, f"a fat-tree of {sum(by_level)} nodes: more than a topology holds "
                          f"({MAX_NODES} nodes)")
        # SimGrid's ids: hosts 0..n-1, switches numbered down from 2n-1.
        ids, names, k = [], [], 2 * len(hosts)
        for level, n in enumerate(by_level):
            for pos in range(n):
                if level == 0:
                    ids.append(pos)
                    names.append(hosts[pos])
                else:
                    k -= 1
                    ids.append(k)
                    names.append(f"{cid}_switch_{level}_{pos}")
                    self.topo.add_node(names[-1], "switch", zone=czone)
                    if limiter_bw > 0:
                        self.chain([names[-1], self.limiter(cid, k, limiter_bw, czone)])
        labels = []
        for level, n in enumerate(by_level):
            biggest = [down[j] if j >= level else up[j] for j in range(levels)]
            label = [0] * levels
            for _ in range(n):
                labels.append(list(label))
                for p in range(levels):
                    label[p] += 1
                    if label[p] < biggest[p]:
                        break
                    label[p] = 0
        if limiter_bw > 0:
            for i, h in enumerate(hosts):
                self.chain([h, self.limiter(cid, i, limiter_bw, czone)])
        first = [sum(by_level[:lv]) for lv in range(levels + 1)]
        for level in range(levels):
            for c in range(first[level], first[level + 1]):
                for p in range(first[level + 1], first[level + 1] + by_level[level + 1]):
                    if all(labels[p][j] == labels[c][j] or j + 1 == level + 1
                           for j in range(levels)):
                        for _ in range(count[level]):
                            lid = f"link_from_{ids[c]}_{ids[p]}_{self.fat_tree_cables}"
                            self.fat_tree_cables += 1
                            for name in dict.fromkeys(self.new_link(lid, bw, lat, split, czone)):
                                self.chain([names[c], name, names[p]])

    def dragonfly(self, e, cid, czone, hosts, rads, bw, lat, split, limiter_bw, params):
        parts = params.split(";")
        (groups, blue), (chassis, black), (blades, green) = (
            [int(x) for x in p.split(",")] for p in parts[:3])
        per_blade = int(parts[3])
        if len(parts) != 4 or groups * chassis * blades * per_blade != len(hosts):
            raise ValueError
        routers = []
        for g in range(groups):
            for c in range(chassis):
                for b in range(blades):
                    routers.append(f"{cid}_router_{g}_{c}_{b}")
                    self.topo.add_node(routers[-1], "switch", zone=czone)

        def cable(lid, n_links, a, b):
            name = f"{lid}_{self.dragonfly_links}"
            self.dragonfly_links += 1
            for node in dict.fromkeys(self.new_link(name, bw * n_links, lat, split, czone)):
                self.chain([a, node, b])

        for i, r in enumerate(routers):
            for j in range(per_blade):
                h = hosts[i * per_blade + j]
                if limiter_bw > 0:
                    self.chain([h, self.limiter(cid, i * per_blade + j, limiter_bw, czone)])
                cable(f"local_link_from_router_{i}_to_node_{j}", 1, r, h)
        for i in range(groups * chassis):
            for j in range(blades):
                for k in range(j + 1, blades):
                    cable(f"green_link_in_chassis_{i % chassis}_between_routers_{j}_and_{k}",
                          green, routers[i * blades + j], routers[i * blades + k])
        for i in range(groups):
            for j in range(chassis):
                for k in range(j + 1, chassis):
                    for b in range(blades):
                        cable(f"black_link_in_group_{i}_between_chassis_{j}_and_{k}_blade_{b}",
                              black, routers[(i * chassis + j) * blades + b],
                              routers[(i * chassis + k) * blades + b])
        for i in range(groups):
            for j in range(i + 1, groups):
                ri, rj = i * blades * chassis + j, j * blades * chassis + i
                cable(f"blue_link_between_group_{i}_and_{j}_routers_{ri}_and_{rj}", blue,
                      routers[ri], routers[rj])
