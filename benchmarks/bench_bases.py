"""Bases benchmarks: Graphviz layout of a 10k-node topology, squarified treemap of
1e5 leaves, matching 1e5 containers onto a topology. Prints its figures.

Usage: python benchmarks/bench_bases.py [--nodes 10000] [--leaves 100000] [--containers 100000]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

from triva3d import load
from triva3d.bases import graphlayout, matcher
from triva3d.bases.topology import Topology
from triva3d.bases.treemap import treemap
from triva3d.paje.defs import standard_header


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times))


def machine(nodes):
    """`nodes` nodes: switches of 99 hosts each, switches in a ring with chords."""
    topo = Topology("bench")
    n_sw = max(1, nodes // 100)
    for s in range(n_sw):
        topo.add_node(f"sw-{s}", "switch")
    for s in range(n_sw):
        topo.add_edge(s, (s + 1) % n_sw, 1.25e9, 1e-6)
        topo.add_edge(s, (s * 7 + 3) % n_sw, 1.25e9, 1e-6)
    for h in range(nodes - n_sw):
        topo.add_edge(topo.add_node(f"host-{h}", "host"), h % n_sw, 1.25e8, 1e-5)
    return topo


def bench_layout(nodes):
    topo = machine(nodes)
    prog = graphlayout.default_program(len(topo))
    t = time.perf_counter()
    pos = graphlayout.layout(topo, use_cache=False)
    took = time.perf_counter() - t
    t = time.perf_counter()
    graphlayout.layout(topo)                       # writes the cache
    t = time.perf_counter()
    graphlayout.layout(topo)
    cached = time.perf_counter() - t
    print(f"layout     {len(topo)} nodes, {topo.n_edges} edges with {prog}: {took:.2f} s "
          f"(fresh process, no cache); from the cache {cached * 1e3:.0f} ms; "
          f"extent {np.ptp(pos, axis=0).round().tolist()} pt   [target < 10 s]")


def bench_treemap(leaves):
    rng = np.random.default_rng(1)
    groups = int(np.sqrt(leaves))
    parent = np.r_[-1, np.zeros(groups, np.int64), 1 + rng.integers(0, groups, leaves)]
    order = np.r_[0, 1 + np.argsort(parent[1:], kind="stable")]
    remap = np.empty_like(order)
    remap[order] = np.arange(len(order))
    parent = np.where(parent[order] >= 0, remap[parent[order].clip(0)], -1)
    size = np.r_[np.zeros(groups + 1), rng.pareto(1.5, leaves) + 0.01][order]
    treemap(parent, size, 1000.0, 1000.0, 1.0)     # compile (or load the numba cache)
    lo, med = best(lambda: treemap(parent, size, 1000.0, 1000.0, 1.0), 7)
    print(f"treemap    {leaves} leaves in {groups} groups: best {lo * 1e3:.1f} ms, "
          f"median {med * 1e3:.1f} ms after compilation   [target < 50 ms]")


def containers_trace(path, n_procs, per_host=40, sites=2):
    hosts = n_procs // per_host
    with open(path, "w") as f:
        f.write(standard_header())
        f.write('0 SITE 0 "Site"\n0 HOST SITE "Host"\n0 PROC HOST "Process"\n')
        for s in range(sites):
            f.write(f'6 0 s{s} SITE 0 "site-{s}"\n')
        for h in range(hosts):
            f.write(f'6 0 h{h} HOST s{h % sites} "host-{h}"\n')
        for p in range(n_procs):
            f.write(f'6 0 p{p} PROC h{p // per_host} "rank-{p}"\n')
    return hosts


def bench_match(n):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "containers.trace")
        hosts = containers_trace(path, n)
        trace = load(path, cache=False)
    topo = Topology("hosts")
    for h in range(hosts):
        topo.add_node(f"host-{h}", "host")
    centers = np.random.default_rng(0).random((hosts, 2)) * 1000

    def run():
        node, rule, _ = matcher.match(trace, topo.index)
        _, _, count = matcher.cells_per_node(trace, node, hosts)
        matcher.arrange(trace, node, rule, centers, 18.0 * np.sqrt(np.maximum(count, 1)))
    run()                                          # compile
    lo, med = best(run, 5)
    print(f"match      {len(trace.containers) - 1} containers onto {hosts} hosts "
          f"(rules, cells, footprints): best {lo * 1e3:.0f} ms, median {med * 1e3:.0f} ms   "
          f"[target < 500 ms]")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--leaves", type=int, default=100_000)
    ap.add_argument("--containers", type=int, default=100_000)
    a = ap.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    bench_treemap(a.leaves)
    bench_match(a.containers)
    bench_layout(a.nodes)


if __name__ == "__main__":
    main()
