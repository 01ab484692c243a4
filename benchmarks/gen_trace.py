"""Write a synthetic Pajé trace of about N events.

Hierarchy Site > Host > Process (3-level, 3200 processes by default); Set/Push/Pop
states on processes (nesting up to 2), links between processes (unique keys),
Set/Add/Sub variables on hosts, events on processes, then containers destroyed.
Time-ordered, deterministic for a given seed.

    python benchmarks/gen_trace.py N OUT.trace [--sites 4 --hosts 25 --procs 32 --seed 1]
"""
import argparse
import sys

import numba as nb
import numpy as np

from triva3d.dump import _put_f6
from triva3d.paje import defs as D
from triva3d.paje.defs import standard_header
from triva3d.textbuf import put_uint as _put_uint

HEADER = "# Synthetic trace written by triva3d's benchmarks/gen_trace.py\n" + standard_header() + """\
0 SITE 0 "Site"
0 HOST SITE "Host"
0 PROC HOST "Process"
2 ST PROC "Process State"
1 LOAD HOST "Load" "0.9 0.3 0.1"
3 MARK PROC "Marker"
4 COMM 0 PROC PROC "Communication"
5 run ST "Running" "0.2 0.8 0.2"
5 comp ST "Computing" "0.1 0.4 0.9"
5 wait ST "Waiting" "0.9 0.2 0.2"
5 io ST "I/O" "0.9 0.8 0.1"
5 mpi ST "MPI" "0.6 0.3 0.8"
"""

def _lit(b):
    return np.frombuffer(b, np.uint8).copy()


LOAD, COMM, MSG, MARK, ST_, ST = (_lit(b" LOAD "), _lit(b"0 COMM "), _lit(b" msg "),
                                  _lit(b" MARK "), _lit(b" ST "), _lit(b" ST"))
VALUES = _lit(b"runcompwaitiompi")
VALUE_OFF = np.array([0, 3, 7, 11, 13, 16])
# line kinds of the body: their ids in the standard header
SET, PUSH, POP, VSET, VADD, VSUB, EVENT, START, END = (
    D.STANDARD_ID[k] for k in (D.SET_STATE, D.PUSH_STATE, D.POP_STATE, D.SET_VARIABLE,
                               D.ADD_VARIABLE, D.SUB_VARIABLE, D.NEW_EVENT, D.START_LINK,
                               D.END_LINK))


@nb.njit(cache=True)
def _put_text(out, p, text):
    out[p:p + text.shape[0]] = text
    return p + text.shape[0]


@nb.njit(cache=True)
def _format(out, i, kind, time, proc, other, host, value, key, procs_per_host):
    """Body lines i.. into `out` until it is nearly full; returns (next i, bytes)."""
    p = 0
    n = kind.shape[0]
    while i < n and p < out.shape[0] - 256:
        k = kind[i]
        p = _put_uint(out, p, k)
        out[p] = 32
        p = _put_f6(out, p + 1, time[i])
        out[p] = 32
        p += 1
        if k == VSET or k == VADD or k == VSUB:
            out[p] = 104  # h
            p = _put_uint(out, p + 1, host[i])
            p = _put_text(out, p, LOAD)
            p = _put_f6(out, p, float(value[i]))
        elif k == START or k == END:
            p = _put_text(out, p, COMM)
            out[p] = 112  # p
            p = _put_uint(out, p + 1, other[i])
            p = _put_text(out, p, MSG)
            p = _put_uint(out, p, key[i])
        else:
            out[p] = 112
            p = _put_uint(out, p + 1, proc[i])
            if k == EVENT:
                p = _put_text(out, p, MARK)
                out[p] = 109  # m
                p = _put_uint(out, p + 1, value[i] % 8)
            elif k == POP:
                p = _put_text(out, p, ST)
            else:
                p = _put_text(out, p, ST_)
                v = value[i] % 5
                p = _put_text(out, p, VALUES[VALUE_OFF[v]:VALUE_OFF[v + 1]])
        out[p] = 10
        p += 1
        i += 1
    return i, p


def _cumcount(groups):
    """Position of each element within its group, in array order."""
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, len(g)])
    pos = np.arange(len(g)) - np.repeat(starts, counts)
    out = np.empty_like(pos)
    out[order] = pos
    return out


def generate(n_events, path, sites=4, hosts=25, procs=32, seed=1):
    """Write the trace; returns the number of event lines (definitions excluded)."""
    rng = np.random.default_rng(seed)
    nh, nproc = sites * hosts, sites * hosts * procs
    ncreate = sites + nh + nproc
    n = max(int(n_events) - 2 * ncreate, 1000)
    # actions in time order: 60% states, 10% link pairs (20% of lines), 12% variables, 8% events
    nlinks = n // 10
    nact = n - nlinks
    time = np.cumsum(rng.exponential(1e-4, nact))
    roll = rng.random(nact)
    is_link = np.zeros(nact, bool)
    is_link[rng.choice(nact, nlinks, replace=False)] = True
    proc = rng.integers(0, nproc, nact)
    kind = np.where(roll < 0.75, SET, np.where(roll < 0.9, VSET, EVENT))
    kind[is_link] = START
    # states follow Set, Push, Push, Pop, Pop per process (nesting up to 2)
    st = kind == SET
    kind[st] = np.array([SET, PUSH, PUSH, POP, POP])[_cumcount(proc[st]) % 5]
    # variables: first Set per host, then Add and Sub in turn
    host = proc // procs
    va = kind == VSET
    vk = _cumcount(host[va])
    kind[va] = np.where(vk == 0, VSET, np.where(vk % 2 == 1, VADD, VSUB))
    value = rng.integers(0, 1000, nact)
    value[va] = np.where(kind[va] == VSET, 100, 7)
    key = np.arange(nact, dtype=np.int64)
    other = rng.integers(0, nproc, nact)
    # each link: StartLink now, EndLink a little later
    li = np.flatnonzero(is_link)
    end_time = time[li] + rng.exponential(5e-4, len(li))
    kind = np.r_[kind, np.full(len(li), END)]
    time = np.r_[time, end_time]
    proc, host, value, key = (np.r_[a, a[li]] for a in (proc, host, value, key))
    other = np.r_[proc[:nact], other[li]]  # StartLink names the sender, EndLink the receiver
    order = np.argsort(time, kind="stable")
    kind, time, proc, host, value, key, other = (a[order] for a in
                                                 (kind, time, proc, host, value, key, other))
    t_end = float(time[-1]) + 1e-3
    with open(path, "wb") as f:
        f.write(HEADER.encode())
        lines = []
        for s in range(sites):
            lines.append(f"6 0 s{s} SITE 0 \"site-{s}\"\n")
        for h in range(nh):
            lines.append(f"6 0 h{h} HOST s{h // hosts} \"host-{h}\"\n")
        for q in range(nproc):
            lines.append(f"6 0 p{q} PROC h{q // procs} \"rank-{q}\"\n")
        f.write("".join(lines).encode())
        buf = np.empty(16 << 20, np.uint8)
        i = 0
        kind = kind.astype(np.int64)
        while i < len(kind):
            i, p = _format(buf, i, kind, time, proc, other, host, value, key, procs)
            f.write(memoryview(buf)[:p])
        f.write("".join(f"7 {t_end:.6f} SITE s{s}\n" for s in range(sites)).encode())
    return ncreate + len(kind) + sites


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("events", type=float, help="about how many events (e.g. 1e6)")
    p.add_argument("out", help="output .trace file")
    p.add_argument("--sites", type=int, default=4)
    p.add_argument("--hosts", type=int, default=25, help="hosts per site")
    p.add_argument("--procs", type=int, default=32, help="processes per host")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    n = generate(int(a.events), a.out, a.sites, a.hosts, a.procs, a.seed)
    print(f"{a.out}: {n} events", file=sys.stderr)


if __name__ == "__main__":
    main()
