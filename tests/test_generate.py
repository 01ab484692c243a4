"""The thesis generators (`triva3d generate`): counts, the cosine split, the pattern
edges, the work-stealing invariants, seeds, and Pajé and OTF2 that read back
entity for entity; each expected value is worked out here, apart from the code."""
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from triva3d import load
from triva3d.analysis.aggregate import aggregate
from triva3d.analysis.timeslice import Slicer
from triva3d.bases.readers import read_topology
from triva3d.errors import OptionsError, Triva3dError
from triva3d.generate import check_config, hierarchy, pattern, workstealing, write

ROOT = Path(__file__).resolve().parents[1]
TWO_SITES = str(ROOT / "topologies" / "two_site_grid.dot")
THESIS = {"levels": [{"count": 5, "name": "Site", "alias": "S"},
                     {"count": 3, "name": "Cluster", "alias": "C"},
                     {"count": 100, "name": "Machine", "alias": "M"},
                     {"count": 4, "name": "Processor", "alias": "P"}],
          "duration": 20, "cosine-max-x-axis-value": 7.5}
SMALL = {"levels": [{"count": 2, "name": "Site", "alias": "S"},
                    {"count": 2, "name": "Machine", "alias": "M"},
                    {"count": 2, "name": "Processor", "alias": "P"}],
         "duration": 10, "cosine-max-x-axis-value": 6}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "triva3d.cli", *map(str, args)],
                          capture_output=True, text=True)


def states_of(trace, value):
    """{container name: total seconds in `value`}."""
    st = trace.states
    out = Counter()
    for v in trace.find("values", value).tolist():
        for c, d in zip(st.container[st.value == v], (st.end - st.start)[st.value == v]):
            out[trace.display_name("containers", int(c))] += float(d)
    return out


def test_the_thesis_hierarchy_and_its_cosine_split(tmp_path):
    path = tmp_path / "h.trace"
    write(hierarchy(check_config(THESIS)), path)
    t = load(path, cache=False)  # strict
    types = Counter(t.display_name("types", int(x)) for x in t.containers.type[1:])
    assert types == {"Site": 5, "Cluster": 15, "Machine": 1500, "Processor": 6000}
    s0 = states_of(t, "State-0")
    # leaf 4000 of 6000 sits at x = 4000 / 6000 * 7.5 = 5; cos 5 = 0.2837: 64.2 % of 20 s
    assert s0["Processor-4000"] == pytest.approx(20 * (1 + math.cos(5)) / 2, abs=1e-9)
    assert s0["Processor-4000"] == pytest.approx(12.84, abs=0.01)
    s1 = states_of(t, "State-1")
    for i in range(0, 6000, 37):
        name = f"Processor-{i}"
        assert s0[name] + s1[name] == pytest.approx(20, abs=1e-9)
        assert s0[name] == pytest.approx(10 * (1 + math.cos(i * 7.5 / 6000)), abs=1e-9)
    # every processor lies under its machine (4 each) under its cluster (100 each)
    parent = t.containers.parent
    name = lambda c: t.display_name("containers", c)  # noqa: E731
    row = {name(c): c for c in range(len(t.containers))}
    assert name(int(parent[row["Processor-4000"]])) == "Machine-1000"
    assert name(int(parent[row["Machine-1000"]])) == "Cluster-10"
    assert name(int(parent[row["Cluster-10"]])) == "Site-3"


def test_the_listings_forms_of_the_configuration(tmp_path):
    """Listing 6.1 (examples/thesis/listing_6_1.py.txt, a Python dict nesting its
    levels by `child`) writes the very bytes of the same hierarchy in triva3d's form;
    Listing 6.2's pattern (examples/thesis/listing_6_2.json: hstar of 3 children
    between the 40 processors, the link type `Link` aliased LT) is taken from the
    file by `generate pattern` unless an option says otherwise."""
    from triva3d.generate import read_config
    listing = read_config(ROOT / "examples" / "thesis" / "listing_6_1.py.txt")
    write(hierarchy(listing), tmp_path / "a.trace")
    write(hierarchy(check_config(THESIS)), tmp_path / "b.trace")
    assert (tmp_path / "a.trace").read_bytes() == (tmp_path / "b.trace").read_bytes()
    r = cli("generate", "pattern", ROOT / "examples" / "thesis" / "listing_6_2.json",
            "-o", tmp_path / "p.trace")
    assert r.returncode == 0, r.stderr
    t = load(tmp_path / "p.trace", cache=False)
    p = [f"Processor-{i}" for i in range(40)]
    assert sorted(links_of(t)) == sorted((p[(i - 1) // 3], p[i]) for i in range(1, 40))
    assert t.display_name("types", int(t.links.type[0])) == "Link"
    assert '4 LT 0 P P "Link"' in (tmp_path / "p.trace").read_text()
    r = cli("generate", "pattern", ROOT / "examples" / "thesis" / "listing_6_2.json",
            "--shape", "ring", "--between", "Machine", "-o", tmp_path / "r.trace")
    assert r.returncode == 0, r.stderr
    assert len(load(tmp_path / "r.trace", cache=False).links) == 4
    r = cli("generate", "pattern", ROOT / "examples" / "thesis" / "listing_6_1.py.txt",
            "-o", tmp_path / "x.trace")
    assert r.returncode == 2 and "listing_6_1.py.txt: no pattern (apppattern)" in r.stderr
    bad = {"child": {"container": 2, "name": "Site", "alias": "S"},
           "apppattern": "ring", "linksource": "S", "linkdest": "P"}
    with pytest.raises(Triva3dError, match="linksource 'S' and linkdest 'P' differ"):
        check_config(bad)
    with pytest.raises(Triva3dError, match="level 1: expected the keys container, name"):
        check_config({"child": {"count": 2, "name": "Site", "alias": "S"}})
    with pytest.raises(Triva3dError, match="share a name or an alias"):
        check_config({"child": {"container": 2, "name": "Site", "alias": "ST"}})


def links_of(trace):
    ln = trace.links
    return [(trace.display_name("containers", int(a)), trace.display_name("containers", int(b)))
            for a, b in zip(ln.start_container, ln.end_container)]


@pytest.mark.parametrize("kind", ["ring", "full", "star", "hstar"])
def test_pattern_edges(tmp_path, kind):
    path = tmp_path / f"{kind}.trace"
    prog = pattern(hierarchy(check_config(SMALL)), kind, count=2, nchildren=3)
    write(prog, path)
    t = load(path, cache=False)
    got = Counter(links_of(t))
    p = [f"Processor-{i}" for i in range(8)]
    want = {"ring": [(p[i], p[(i + 1) % 8]) for i in range(8)],
            "full": [(a, b) for a in p for b in p if a != b],
            "star": [(p[0], b) for b in p[1:]],
            # three children each, breadth first: 0 -> 1,2,3; 1 -> 4,5,6; 2 -> 7
            "hstar": [(p[0], p[1]), (p[0], p[2]), (p[0], p[3]), (p[1], p[4]),
                      (p[1], p[5]), (p[1], p[6]), (p[2], p[7])]}[kind]
    assert got == Counter(want * 2)
    # two rounds of 5 s: one message of each pair leaves in [0.5, 1.5], the other in [5.5, 6.5]
    starts = np.sort(t.links.start)
    assert ((starts >= 0.5) & (starts <= 1.5)).sum() == len(want)
    assert ((starts >= 5.5) & (starts <= 6.5)).sum() == len(want)
    assert (t.links.end > t.links.start).all() and t.links.end.max() <= 10


def test_hosts_are_taken_in_turn_from_each_zone_named():
    """Three processes on 3 hosts of siteA and siteB: two of one site, one of the
    other (the first N of the zones' own, in turn), not three of the first site."""
    topo = read_topology(TWO_SITES)
    prog = workstealing(topo, processes=3, hosts=3, zones=["siteB", "siteA"], work=1.0)
    hosts = [prog.names[p] for p in prog.parent[prog.level == len(prog.levels) - 1]]
    assert sorted(set(hosts)) == ["a-1", "b-1", "b-2"]


def test_cpu_overload_stretches_the_work_by_processes_over_cpus():
    """Thesis Fig. 6.21: 8 processes on 2 hosts of 2 CPUs run at half speed: the
    RUN seconds of the whole run (work moves but is never lost) are twice the work,
    8 x 2 s on average; without the limit they are the work itself."""
    topo = read_topology(TWO_SITES)
    for cpus, factor in ((None, 1), (2, 2), (4, 1)):
        prog = workstealing(topo, processes=8, hosts=2, work=2.0, seed=4, cpus=cpus)
        run = prog.state_value == 0
        total = (prog.state_end[run] - prog.state_start[run]).sum() / 1e9
        assert total == pytest.approx(8 * 2.0 * factor, rel=1e-6), cpus
    with pytest.raises(OptionsError, match="cpus per host must be a positive integer"):
        workstealing(topo, processes=8, hosts=2, cpus=0)


def test_a_sequential_ring_forwards_only_after_it_receives(tmp_path):
    """Thesis Fig. 6.8's ring: in each round container i + 1 sends only once the
    message from i has arrived, and the round's last message ends in the round."""
    cfg = {"levels": [{"count": 5, "name": "Process", "alias": "P"}], "duration": 10}
    prog = pattern(hierarchy(check_config(cfg)), "ring", count=2, sequential=True, seed=3)
    write(prog, tmp_path / "r.trace")
    t = load(tmp_path / "r.trace", cache=False)
    ln = t.links
    order = np.argsort(ln.start)
    senders = [t.display_name("containers", int(c)) for c in ln.start_container[order]]
    assert senders == [f"Process-{i}" for i in range(5)] * 2
    s, e = ln.start[order], ln.end[order]
    for r in range(2):
        k = slice(5 * r, 5 * r + 5)
        assert (s[k][1:] > e[k][:-1]).all()  # each leaves after the one before arrives
        assert s[k][0] >= 5 * r and e[k][-1] <= 5 * (r + 1)
        # the receiver of each is the sender of the next
        rec = ln.end_container[order][k][:-1]
        assert (rec == ln.start_container[order][k][1:]).all()
    with pytest.raises(OptionsError, match="only a ring forwards"):
        pattern(hierarchy(check_config(cfg)), "star", sequential=True)


def test_pattern_between_an_upper_level(tmp_path):
    prog = pattern(hierarchy(check_config(SMALL)), "ring", level="Machine")
    write(prog, tmp_path / "m.trace")
    t = load(tmp_path / "m.trace", cache=False)
    assert sorted(links_of(t)) == sorted((f"Machine-{i}", f"Machine-{(i + 1) % 4}")
                                         for i in range(4))
    with pytest.raises(Triva3dError, match="Pajé"):
        write(prog, tmp_path / "m.otf2", "otf2")


def canonical(trace):
    """What must agree between the Pajé and the OTF2 variant: each container's name
    with its parent's (the location under its same-named process collapsed), the
    states and the messages with exact times and sizes."""
    parent = trace.containers.parent
    name = lambda c: trace.display_name("containers", c)  # noqa: E731
    cont = set()
    for c in range(1, len(trace.containers)):
        p = int(parent[c])
        if name(p) == name(c):  # OTF2: the thread inside its process
            continue
        cont.add((name(c), name(p)))
    st = trace.states
    states = Counter((name(int(c)), trace.display_name("values", int(v)), s, e)
                     for c, v, s, e in zip(st.container, st.value, st.start, st.end))
    ln = trace.links
    sizes = ln.extra["Size"]
    links = Counter((name(int(a)), name(int(b)), s, e, trace.names.display(int(z)))
                    for a, b, s, e, z in zip(ln.start_container, ln.end_container, ln.start,
                                             ln.end, sizes))
    return cont, states, links


def test_paje_and_otf2_variants_are_equal_entity_for_entity(tmp_path):
    prog = pattern(hierarchy(check_config(SMALL)), "full", count=3, seed=5)
    write(prog, tmp_path / "a.trace")
    write(prog, tmp_path / "a.otf2", "otf2", seed=5)
    a = canonical(load(tmp_path / "a.trace", cache=False))
    b = canonical(load(tmp_path / "a.otf2", cache=False))
    assert a[0] == b[0] and len(a[0]) == 14
    assert a[1] == b[1] and sum(a[1].values()) == 15   # 8 leaves, leaf 0 all State-0
    assert a[2] == b[2] and sum(a[2].values()) == 8 * 7 * 3


def test_workstealing_paje_and_otf2_are_equal(tmp_path):
    prog = workstealing(read_topology(TWO_SITES), processes=20, work=2.0, seed=9)
    write(prog, tmp_path / "w.trace")
    write(prog, tmp_path / "w.otf2", "otf2")
    a = canonical(load(tmp_path / "w.trace", cache=False))
    b = canonical(load(tmp_path / "w.otf2", cache=False))
    assert a == b
    assert len(a[0]) == 2 + 16 + 20 and sum(a[2].values()) == len(prog.link_src) > 20


def test_seeds_give_identical_bytes(tmp_path):
    def run(kind, seed, fmt, name):
        out = tmp_path / name
        args = {"pattern": ["pattern", tmp_path / "c.json", "--shape", "ring",
                            "--count", "4"],
                "workstealing": ["workstealing", "--topology", TWO_SITES,
                                 "--processes", "24"]}[kind]
        r = cli("generate", *args, "--seed", seed, "--format", fmt, "-o", out)
        assert r.returncode == 0, r.stderr
        files = sorted(p for p in out.rglob("*") if p.is_file()) if out.is_dir() else [out]
        return [(p.relative_to(out) if out.is_dir() else "", p.read_bytes()) for p in files]
    (tmp_path / "c.json").write_text(json.dumps(SMALL))
    for kind in ("pattern", "workstealing"):
        for fmt in ("paje", "otf2"):
            a = run(kind, 3, fmt, f"{kind}-a-{fmt}")
            assert a == run(kind, 3, fmt, f"{kind}-b-{fmt}")
            assert a != run(kind, 4, fmt, f"{kind}-c-{fmt}")


def test_workstealing_conserves_work_and_tiles_time(tmp_path):
    topo = read_topology(TWO_SITES)
    write(workstealing(topo, processes=32, work=5.0, seed=2), tmp_path / "w.trace")
    t = load(tmp_path / "w.trace", cache=False)
    types = Counter(t.display_name("types", int(x)) for x in t.containers.type[1:])
    assert types == {"Site": 2, "Host": 16, "Process": 32}
    # two processes per host, consecutive ranks: P0, P1 on a-1 ... P16, P17 on b-1
    row = {t.display_name("containers", c): c for c in range(len(t.containers))}
    host = lambda p: t.display_name("containers", int(t.containers.parent[row[p]]))  # noqa: E731
    assert [host(p) for p in ("P0", "P1", "P2", "P16", "P31")] == \
        ["a-1", "a-1", "a-2", "b-1", "b-8"]
    assert t.display_name("containers", int(t.containers.parent[row["b-3"]])) == "siteB"
    run, idle, steal = (states_of(t, v) for v in ("RUN", "IDLE", "RSTEAL"))
    assert sum(run.values()) == pytest.approx(5.0 * 32, rel=1e-9)   # no work lost
    end = t.end_time
    for r in range(32):
        p = f"P{r}"
        assert run[p] + idle[p] + steal[p] == pytest.approx(end, abs=1e-6)
    assert end < 5.0 * 1.1          # the uneven shares (up to 7.5 s) were balanced
    # a steal request between sites crosses the 10 ms wide-area link
    site = lambda p: host(p)[0]  # noqa: E731
    ln = t.links
    d = ln.end - ln.start
    cross = np.array([site(a) != site(b) for a, b in links_of(t)])
    assert cross.any() and (~cross).any()
    assert d[cross].min() >= 0.01 and d[~cross].max() < 0.001
    # nobody runs out before half of the work (the smallest share); then steals come
    assert ln.start.min() == pytest.approx(2.5, abs=1e-6)


def site_share(path, value, window):
    """Mean share of `window` each site's processes spent in `value` (a Time-Slice
    aggregated to the sites)."""
    t = load(path, cache=False)
    values, carriers = Slicer(t).slice(window).metric(f"state%:{value}")
    agg = aggregate(t, values, carriers, "mean")
    return {t.display_name("containers", c): agg[c] for c in range(len(t.containers))}


def rsteal_shares(tmp_path, **slow):
    """Each site's RSTEAL share of 32 processes stealing on the two sites, as they
    are and with `slow` (written to tmp_path/n.trace and s.trace)."""
    topo = read_topology(TWO_SITES)
    write(workstealing(topo, processes=32, work=20.0, seed=2), tmp_path / "n.trace")
    write(workstealing(topo, processes=32, work=20.0, seed=2, **slow), tmp_path / "s.trace")
    return (site_share(tmp_path / "n.trace", "RSTEAL", None),
            site_share(tmp_path / "s.trace", "RSTEAL", None))


def test_a_planted_slow_site_shows_in_a_time_slice(tmp_path):
    normal, slow = rsteal_shares(tmp_path, slow_site="siteB", slow_latency=5.0)
    assert normal["siteA"] < 0.05 and normal["siteB"] < 0.05
    # every steal of siteB's processes takes 10 s; siteA's only when they cross
    assert slow["siteB"] > 0.25 and slow["siteB"] > 1.3 * slow["siteA"]
    t = load(tmp_path / "s.trace", cache=False)
    d = t.links.end - t.links.start
    assert d.max() == pytest.approx(5.0, abs=0.1) and d.min() < 0.001


def test_a_planted_slow_link_shows_in_a_time_slice(tmp_path):
    """The wide-area link made slow: steals across it take 2 x 3 s, so both sites
    spend a visible share of the run in RSTEAL where they spent almost none."""
    normal, slow = rsteal_shares(tmp_path, slow_link="routerA,routerB", slow_latency=3.0)
    for site in ("siteA", "siteB"):
        assert normal[site] < 0.02 and slow[site] > 5 * normal[site] and slow[site] > 0.05


def test_routes_count_each_link_once_whatever_the_format(tmp_path):
    """A link node's latency was counted on the node and again on its edges: the
    SimGrid platform and its converted .dot gave different delays."""
    from triva3d.generate.workstealing import routes
    xml = read_topology(str(ROOT / "topologies" / "src" / "two_site_grid.xml"))
    dot = read_topology(TWO_SITES)
    lat = [routes(t, [t.index[n] for n in ("a-1", "a-2", "b-1")])[0] for t in (xml, dot)]
    np.testing.assert_allclose(lat[0], lat[1])
    # private link 50 us, backbone 10 us, private link 50 us; across: + 10 us + 10 ms
    assert lat[0][0, 1] == pytest.approx(110e-6) and lat[0][0, 2] == pytest.approx(0.01012)


def test_a_slow_link_by_name(tmp_path):
    topo = read_topology(TWO_SITES)
    prog = workstealing(topo, processes=16, work=2.0, seed=1, slow_link="routerA,routerB",
                        slow_latency=3.0)
    d = (prog.link_end - prog.link_start) / 1e9
    assert d.max() == pytest.approx(3.0 + 0.01, abs=0.01)
    with pytest.raises(OptionsError, match="no edge joins them"):
        workstealing(topo, slow_link="a-1,b-1")
    with pytest.raises(OptionsError, match="'nowhere' is not in the topology"):
        workstealing(topo, slow_link="nowhere")


@pytest.mark.parametrize("config, message", [
    ({"levels": []}, "non-empty list"),
    ({"levels": [{"count": 0, "name": "A", "alias": "A"}]}, "positive integer"),
    ({"levels": [{"count": 2, "name": "A", "alias": "ST"}]}, "the state or link type, share"),
    ({"levels": [{"count": 2, "name": "A", "alias": "A"}], "pattern": {"shape": "tree"}},
     "pattern 'tree' is none of ring"),
    ({"levels": [{"count": 2, "name": 'A"', "alias": "A"}]}, "without quotes"),
    ({"levels": [{"count": 1000, "name": "A", "alias": "A"}] * 3}, "more than 10000000"),
    ({"levels": [{"count": 2, "name": "A", "alias": "A"}], "duration": -1}, "duration"),
    ({"levels": [{"count": 2, "name": "A", "alias": "A"}], "durtion": 1}, "unknown key"),
    # beyond 2^53 ns, Pajé and OTF2 no longer read back the same doubles
    ({"levels": [{"count": 2, "name": "A", "alias": "A"}], "duration": 1e7}, "[1e-9, 9e6]"),
    ({"levels": [{"count": 2, "name": "A", "alias": "A"}, {"count": 2, "name": "A",
                                                          "alias": "B"}]}, "share a name"),
])
def test_bad_configurations_are_one_line(tmp_path, config, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(config))
    r = cli("generate", "hierarchy", path, "-o", tmp_path / "out.trace")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert message in r.stderr and str(path) in r.stderr
    assert not (tmp_path / "out.trace").exists()


def test_an_otf2_output_does_not_replace_other_files(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(SMALL))
    keep = tmp_path / "results"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    r = cli("generate", "hierarchy", tmp_path / "c.json", "--format", "otf2", "-o", keep)
    assert r.returncode == 2 and "not replaced" in r.stderr
    assert (keep / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("args, message", [
    (["--topology", "missing.dot"], "no such topology file"),
    (["--topology", TWO_SITES, "--zones", "nowhere"], "no host to run on in the zones nowhere"),
    (["--topology", TWO_SITES, "--slow-site", "nowhere"], "no node has this zone"),
    (["--topology", "quoted.dot"], "holds a quote"),
])
def test_workstealing_errors_are_one_line(tmp_path, args, message):
    (tmp_path / "quoted.dot").write_text('graph { "a\\"b" [kind=host]; "c" [kind=host]; '
                                         '"a\\"b" -- "c"; }\n')
    args = [str(tmp_path / a) if a.endswith(".dot") and a != TWO_SITES else a for a in args]
    r = cli("generate", "workstealing", *args, "-o", tmp_path / "w.trace")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "w.trace").exists()


def test_otf2_output_is_bounded_and_appears_whole(tmp_path):
    cfg = check_config({"levels": [{"count": 10001, "name": "P", "alias": "P"}]})
    with pytest.raises(Triva3dError, match="at most 10000"):
        write(hierarchy(cfg), tmp_path / "big.otf2", "otf2")
    assert not list(tmp_path.iterdir())        # nothing half-written
    write(hierarchy(check_config(SMALL)), tmp_path / "a.otf2", "otf2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.otf2"]


def test_task_workers_are_named_on_their_locality():
    """Worker W of locality L read "worker 1 of 0" (as if 1 of no workers)."""
    from triva3d.generate import tasks
    p = tasks(n_tasks=20, localities=2, workers=2)
    assert p.names[2:] == ["worker 0 on locality 0", "worker 1 on locality 0",
                           "worker 0 on locality 1", "worker 1 on locality 1"]


def test_disparate_needs_a_fourth_node():
    """Every fourth node of 16 ranks is slow: 32 ranks have none, and drew one band."""
    from triva3d.generate import sigovan
    with pytest.raises(OptionsError, match="49 ranks at least, not 32"):
        sigovan("disparate", ranks=32)
    assert len(sigovan("disparate", ranks=49, iterations=1).names) == 4 + 49
