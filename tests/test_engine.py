"""Reductions over the store as Dask tasks (issue 34.2): the Time-Slice of the states
reduced bucket by bucket equals the in-memory one, in this process and on a real
cluster (a scheduler and two worker processes on 127.0.0.1)."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from triva3d.analysis.timeslice import Slicer
from triva3d.engine import state_slice
from triva3d.errors import OptionsError, TraceError
from triva3d.store import ingest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from synth import make_trace  # noqa: E402

WINDOWS = (None, (0.0, 3.5), (2.25, 2.75), (7.9, 100.0))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """20 000 states on 500 processes (every 10th slot nested) in 64 buckets."""
    tr = make_trace(20_000, 0, n_procs=500, nest=10, seed=3)
    path = tmp_path_factory.mktemp("store") / "s"
    ingest(tr, path)
    return tr, str(path)


def same(tr, store, address=None):
    sl = Slicer(tr)
    for window in WINDOWS:
        got, values = state_slice(store, window, address=address)
        want = sl.slice(window)
        assert values.tolist() == sl.state_values.tolist()
        assert np.allclose(got, want.states, atol=1e-9), window


def test_the_store_slices_as_the_trace(stored):
    tr, store = stored
    assert tr.states.imbrication.max() == 1
    same(tr, store)


def test_the_store_s_utilization_is_the_overview_s(tmp_path):
    """examples/small.trace (states nested two deep, a container a bucket): per bin
    and state value, the containers in it (deepest state) summed over the buckets
    equal analysis.overview's on the loaded trace: the whole run in 300 bins, and 7
    uneven bins inside it; edges that do not increase are one line."""
    from triva3d import load
    from triva3d.analysis.overview import Overview
    from triva3d.engine import utilization
    tr = load(Path(__file__).parents[1] / "examples" / "small.trace", cache=False)
    assert tr.states.imbrication.max() == 2
    ingest(tr, tmp_path / "s")
    over = Overview(tr)
    for edges in (np.linspace(tr.start_time, tr.end_time, 301),
                  [0.02, 0.021, 0.0215, 0.03, 0.05, 0.125, 0.2, 0.25]):
        got, values = utilization(str(tmp_path / "s"), edges)
        assert values.tolist() == over.values.tolist()
        want = over.counts().means(np.asarray(edges))
        assert np.allclose(got, want, atol=1e-9) and want.sum() > 0
    with pytest.raises(OptionsError, match="two or more increasing edges"):
        utilization(str(tmp_path / "s"), [1.0, 1.0])


@pytest.mark.parametrize("which", ["small.trace", "OTF2 ring"])
def test_the_store_s_message_pairs_are_the_trace_s(which, tmp_path):
    """examples/small.trace (291 links, no sizes) and an OTF2 ring (otf2gen.mpi_ring,
    sized messages): per (sender, receiver) the messages and bytes the loaded trace's
    links give (platform links left out), whole and in a window (links overlapping
    it), from the links' buckets by sender."""
    import otf2gen

    from triva3d import load
    from triva3d.analysis.metrics import link_bytes
    from triva3d.analysis.roles import platform_link_types
    from triva3d.engine import comm_pairs
    if which == "small.trace":
        tr = load(Path(__file__).parents[1] / "examples" / "small.trace", cache=False)
    else:
        otf2gen.mpi_ring(tmp_path / "ring")
        tr = load(tmp_path / "ring", cache=False)
        assert np.nansum(link_bytes(tr)) > 0
    ingest(tr, tmp_path / "s")
    ln = tr.links
    msg = ~platform_link_types(tr)[ln.type]
    span = tr.end_time - tr.start_time
    for window in (None, (tr.start_time + 0.2 * span, tr.start_time + 0.4 * span)):
        keep = msg if window is None else msg & (ln.start <= window[1]) & (ln.end >= window[0])
        want = {}
        for a, b, size in zip(ln.start_container[keep], ln.end_container[keep],
                              np.nan_to_num(link_bytes(tr)[keep])):
            n, total = want.get((a, b), (0, 0.0))
            want[(int(a), int(b))] = (n + 1, total + size)
        src, dst, count, nbytes = comm_pairs(str(tmp_path / "s"), window)
        got = {(int(a), int(b)): (int(n), float(x))
               for a, b, n, x in zip(src, dst, count, nbytes)}
        assert got.keys() == want.keys() and len(got) >= 2
        for k, (n, total) in want.items():
            assert got[k][0] == n and got[k][1] == pytest.approx(total)


def test_on_a_real_cluster(stored, tmp_path):
    """A scheduler and two worker processes on 127.0.0.1: the Time-Slice equals the
    trace's, the utilization and the messages per pair the ones reduced on threads
    here; `render STORE --window --dask` draws the communication graph as without."""
    import dask
    import imageio.v3 as iio
    from distributed import LocalCluster

    from triva3d import cli
    from triva3d.engine import comm_pairs, utilization
    tr, store = stored
    edges = np.linspace(tr.start_time, tr.end_time, 101)
    talk = str(tmp_path / "talk")
    ingest(make_trace(3_000, 300, n_procs=40, nest=10, seed=4), talk)
    render = ["render", talk, "--window", "1:3", "--base", "appgraph", "--size", "320x200"]
    assert cli.main(render + ["-o", str(tmp_path / "here.png")]) == 0
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None, local_directory=str(tmp_path)) as cluster:
        same(tr, store, address=cluster.scheduler_address)
        there = utilization(store, edges, address=cluster.scheduler_address)[0]
        pairs = comm_pairs(talk, (1.0, 3.0), address=cluster.scheduler_address)
        assert cli.main(render + ["-o", str(tmp_path / "there.png"), "--dask",
                                  cluster.scheduler_address]) == 0
    assert np.array_equal(there, utilization(store, edges)[0]) and there.sum() > 0
    order = [np.lexsort(p[:2]) for p in (pairs, comm_pairs(talk, (1.0, 3.0)))]
    for a, b in zip(pairs, comm_pairs(talk, (1.0, 3.0))):
        assert np.array_equal(a[order[0]], b[order[1]])
    assert len(pairs[0]) > 10
    assert np.array_equal(iio.imread(tmp_path / "here.png"), iio.imread(tmp_path / "there.png"))


def test_dask_draws_only_a_store_s_window(stored, tmp_path, capsys):
    """`render --dask` reaches the scheduler of a store's window (one line where it
    cannot be reached, as for `view --dask`); on a trace, or a store without a
    window, it is refused."""
    from triva3d import cli
    _, store = stored
    small = str(Path(__file__).resolve().parents[1] / "examples" / "small.trace")
    out = ["-o", str(tmp_path / "x.png"), "--dask", "tcp://127.0.0.1:9"]
    assert cli.main(["render", store, "--window", "1:2", "--base", "appgraph"] + out) == 2
    assert "Dask scheduler tcp://127.0.0.1:9: cannot be reached" in capsys.readouterr().err
    assert cli.main(["view", store, "--dask", "tcp://127.0.0.1:9"]) == 2  # (no window)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Dask scheduler tcp://127.0.0.1:9: cannot be reached" in err
    for src, more in ((small, ["--window", "0:0.1"]), (store, [])):
        assert cli.main(["render", src, *more] + out) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--dask reduces the messages per pair of a store" in err


def test_an_unreachable_scheduler_and_a_damaged_partition(stored, tmp_path, monkeypatch):
    tr, store = stored
    monkeypatch.setattr("triva3d.engine.CONNECT_S", 1)
    with pytest.raises(OptionsError, match=r"Dask scheduler tcp://127.0.0.1:9: cannot be "
                                           r"reached"):
        state_slice(store, address="tcp://127.0.0.1:9")
    import shutil
    bad = tmp_path / "bad"
    shutil.copytree(store, bad)
    part = next((bad / "states").glob("bucket=*/part-0.parquet"))
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(TraceError, match=r"part-0.parquet: not a readable store partition"):
        state_slice(str(bad))
    (bad / "values.parquet").write_bytes(b"PAR1")
    with pytest.raises(TraceError, match=r"bad: not a readable triva3d store"):
        state_slice(str(bad))
    with pytest.raises(TraceError, match="not a triva3d store"):
        state_slice(str(tmp_path))
    # a bucket's file gone: every read names it, none reads the others as if whole
    gone = tmp_path / "gone"
    shutil.copytree(store, gone)
    lost = sorted((gone / "links").glob("bucket=*/part-0.parquet"))[-1]
    lost.unlink()
    from triva3d.engine import comm_pairs, read_part
    from triva3d.store import read_store
    for read in (read_store, lambda s: read_part(s, (0.0, 1.0)), comm_pairs):
        with pytest.raises(TraceError, match=re.escape(f"{lost}: missing: the store is "
                                                       "incomplete, ingest again")):
            read(str(gone))
    # another bucket's file in its place, codes out of range: one line, never an answer
    stale = tmp_path / "stale"
    shutil.copytree(store, stale)
    a, b = sorted((stale / "states").glob("bucket=*/part-0.parquet"))[:2]
    b.write_bytes(a.read_bytes())
    for read in (read_store, state_slice):
        with pytest.raises(TraceError, match=re.escape(f"{b}: not the partition its store "
                                                       "wrote: ")):
            read(str(stale))
    import pyarrow as pa
    import pyarrow.parquet as pq
    codes = tmp_path / "codes"
    shutil.copytree(store, codes)
    f = sorted((codes / "states").glob("bucket=*/part-0.parquet"))[0]
    t = pq.read_table(f)
    t = t.set_column(t.schema.get_field_index("value"), "value",
                     pa.array(np.full(t.num_rows, 99999, np.int32)))
    pq.write_table(t, f, row_group_size=1 << 20)
    with pytest.raises(TraceError, match=re.escape(f"{f}: not a readable store partition: "
                                                   "its value codes run from 99999 to "
                                                   "99999, the store has")):
        state_slice(str(codes))
    with pytest.raises(OptionsError, match="time window 2:1 ends before it starts"):
        state_slice(store, (2.0, 1.0))
