"""The Parquet store (issue 34.1): a trace ingested reads back as the very same Trace,
dump for dump, user-defined fields included; its layout is the one documented."""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import HEADER, SIZED_LINK, TYPES, dump_lines
from triva3d import load
from triva3d.errors import Triva3dError
from triva3d.store import ENTITIES, ingest, read_store
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["small", "ping-pong"])
def test_a_store_reads_back_as_the_same_trace(name, data, tmp_path):
    src = (ROOT / "examples" / "small.trace" if name == "small"
           else data / "otf2" / "ping-pong-otf2-papi")
    tr = load(src, cache=False)
    ingest(tr, tmp_path / "s")
    back = load(tmp_path / "s", cache=False)
    assert dump_lines(back, user_defined=True) == dump_lines(tr, user_defined=True)
    assert back.time_unit == tr.time_unit and back.report == tr.report
    from triva3d.trace import SCHEMA  # every table's fields, also the types' (OTF2's
    for t in SCHEMA:                  # metric classes: metrics drawn when chosen)
        want, got = getattr(tr, t).extra, getattr(back, t).extra
        assert want.keys() == got.keys() and all(np.array_equal(got[k], want[k])
                                                 for k in want), t
    assert load(tmp_path / "s" / "store.json").source == str(tmp_path / "s")


def test_the_layout_partitions_sorts_and_compresses(tmp_path):
    import pyarrow.parquet as pq
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    meta = json.loads((tmp_path / "s" / "store.json").read_text())
    starts = meta["bucket_starts"]
    parts = sorted((tmp_path / "s" / "states").glob("bucket=*/part-0.parquet"))
    assert len(parts) > 1
    rows = groups = 0
    slices, t0, t1 = meta["time_slices"], tr.containers.start[0], tr.containers.end[0]
    for part in parts:
        b = int(part.parent.name.split("=")[1])
        f = pq.ParquetFile(part)
        t = f.read()
        cont = t.column("container").to_numpy()
        assert ((cont >= starts[b]) & (cont < starts[b + 1])).all()  # the bucket's only
        last = -1
        for g in range(f.num_row_groups):  # a time slice each, in time order
            rg = f.read_row_group(g)
            c, start = rg.column("container").to_numpy(), rg.column("start").to_numpy()
            k = np.unique(np.clip((start - t0) * (slices / (t1 - t0)), 0, slices - 1)
                          .astype(int))
            assert len(k) == 1 and k[0] > last
            last = k[0]
            key = c * 1e9 + start
            assert (key[1:] >= key[:-1]).all()  # by container, then start
            col = f.metadata.row_group(g).column(0)
            assert col.compression == "ZSTD" and col.statistics.has_min_max
        groups += f.num_row_groups
        rows += len(t)
    assert rows == len(tr.states) and groups > len(parts)


@pytest.mark.parametrize("name", ["examples/small.trace", "paje/ms.trace",
                                  "paje/simu-mardi.trace", "paje/native_sample.trace",
                                  "otf2/ping-pong-otf2-papi"])
def test_stats_of_a_store_are_the_trace_s_without_reading_an_entity(name, data, tmp_path,
                                                                     monkeypatch, capsys):
    """`stats --json STORE` says what `stats --json TRACE` says, counts per type and
    value, seconds per state value, deepest imbrication and the trace's bytes
    included, from the store's small tables (no entity is read: reading one fails;
    the partition files are only checked whole). The seconds are summed bucket by
    bucket in the store: equal to a few ulps."""
    from triva3d import cli, store
    src = ROOT / name if name.startswith("examples") else data / name
    ingest(load(src, cache=False), tmp_path / "s")
    for reader in ("read_meeting", "_entities"):
        monkeypatch.setattr(store, reader, lambda *a, **k: 1 / 0)
    said = []
    for path in (src, tmp_path / "s"):
        assert cli.main(["stats", "--json", "--no-cache", str(path)]) == 0
        s = json.loads(capsys.readouterr().out)
        assert s.pop("from_store") is (path != src)
        for k in ("source", "load_seconds", "from_cache"):
            del s[k]
        said.append(s)
    assert _close(said[0], said[1]) and said[0]["counts"]["states"] + said[0]["counts"]["links"] > 0


def _close(a, b):
    """Whether JSON values `a` and `b` are equal, their floats to 1e-12 relative."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_close, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-300, nan_ok=True)
    return a == b and type(a) is type(b)


def test_a_damaged_store_is_a_one_line_error(tmp_path):
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    (tmp_path / "s" / "names.parquet").write_bytes(b"PAR1 nothing")
    with pytest.raises(Triva3dError, match="not a readable triva3d store"):
        read_store(tmp_path / "s")
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", str(tmp_path / "s")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "not a readable triva3d store" in r.stderr


@pytest.mark.parametrize("damage, why", [("truncated", "not a readable store partition"),
                                         ("deleted", "missing: the store is incomplete")])
def test_stats_and_place_check_every_partition(tmp_path, damage, why):
    """`stats STORE` and `place STORE` read no entity, but a partition file cut short
    or deleted is one line naming it (a review found them answering from store.json)."""
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    part = sorted((tmp_path / "s" / "states").glob("*/part-0.parquet"))[3]
    if damage == "truncated":
        part.write_bytes(part.read_bytes()[:100])
    else:
        part.unlink()
    for command in ("stats", "place"):
        r = subprocess.run([sys.executable, "-m", "triva3d.cli", command,
                            str(tmp_path / "s")], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert f"{part}: {why}" in r.stderr


def test_ingest_and_render_from_the_store(tmp_path):
    out = tmp_path / "s"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "ingest",
                        str(ROOT / "examples" / "small.trace"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "a store of 1066 states" in r.stderr
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(out), "--base",
                        "treemap", "-o", str(tmp_path / "r.png")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "1066 states" in r.stderr


def test_a_treemap_reduced_over_the_store_is_the_trace_s(tmp_path, monkeypatch):
    """`treemap STORE` reduces the states bucket by bucket (engine.StoreSlicer, the
    store's skeleton and palette) and writes what the trace's own treemap writes:
    the same CSV, and the same SVG but for the title's name; a window too. --dask
    where the engine cannot serve, or an unreachable scheduler: one line."""
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")

    def treemap(src, out, *more):
        r = subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap", src, "-o",
                            str(tmp_path / out), "--no-cache", *more],
                           capture_output=True, text=True)
        return r, (tmp_path / out).read_text() if r.returncode == 0 else None
    for more in ((), ("--slice", "0.05:0.2", "--level", "Host")):
        a, b = treemap(str(tmp_path / "s"), "a.csv", *more), treemap(small, "b.csv", *more)
        assert a[0].returncode == 0 and a[1] == b[1] and a[1].count("\n") > 30
    a, b = treemap(str(tmp_path / "s"), "a.svg")[1], treemap(small, "b.svg")[1]
    assert a.splitlines()[3:] == b.splitlines()[3:]  # (the title and the width it takes)
    # the engine's path, never the whole store (read_store fails here), from store.json too
    from triva3d import cli, store
    monkeypatch.setattr(store, "read_store", lambda *a, **k: 1 / 0)
    cli.main(["treemap", str(tmp_path / "s" / "store.json"), "-o", str(tmp_path / "e.csv")])
    assert (tmp_path / "e.csv").read_text() == treemap(small, "w.csv")[1]
    r, _ = treemap(str(tmp_path / "s"), "c.csv", "--cells", "link", "--dask", "127.0.0.1:1")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--dask reduces a store" in r.stderr
    r, _ = treemap(str(tmp_path / "s"), "c.csv", "--dask", "tcp://127.0.0.1:1")
    assert r.returncode == 2 and r.stderr == ("triva3d: error: Dask scheduler "
                                              "tcp://127.0.0.1:1: cannot be reached (OSError)\n")


def test_place_on_a_store_is_the_trace_s(tmp_path, monkeypatch, capsys):
    """`place STORE` reads only the store's containers (the whole store never: read_store
    fails here), with whether something is drawn on each as ingest found it, and the
    messages per pair reduced over its links (engine.comm_pairs): it writes what
    `place TRACE` writes on every base (the topology of small.trace, its treemap and
    timeline, its communication graph at the default level and at Host in a window).
    --dask on the tasktree base: one line."""
    from triva3d import cli, store
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")
    cases = [("--topology", str(ROOT / "topologies" / "two_site_grid.dot"), "--mapping",
              str(ROOT / "examples" / "small_on_two_site_grid.csv")),
             ("--base", "treemap"), ("--base", "timeline"), ("--base", "appgraph"),
             ("--base", "appgraph", "--graph-level", "Host", "--graph-window", "0.05:0.2")]
    want = []
    for i, more in enumerate(cases):
        assert cli.main(["place", small, "--no-cache", "--csv", str(tmp_path / f"t{i}.csv"),
                         *more]) == 0
        want.append(((tmp_path / f"t{i}.csv").read_text(), capsys.readouterr().out))
    monkeypatch.setattr(store, "read_store", lambda *a, **k: 1 / 0)
    for i, more in enumerate(cases):
        assert cli.main(["place", str(tmp_path / "s"), "--csv", str(tmp_path / f"s{i}.csv"),
                         *more]) == 0
        got = ((tmp_path / f"s{i}.csv").read_text(), capsys.readouterr().out)
        assert got == want[i] and got[0].count("\n") > 20
    assert want[3] != want[4]  # (the level and the window change the graph)
    assert cli.main(["place", str(tmp_path / "s"), "--base", "tasktree", "--dask",
                     "127.0.0.1:1"]) == 2
    assert "--dask places a store's containers" in capsys.readouterr().err


def test_a_store_ingested_over_another_replaces_it_whole(paje, tmp_path):
    """Ingest into a store's folder leaves none of the old store (its 43 containers'
    buckets would hold rows of containers the new two-container trace has not); a
    folder holding other files is refused in one line."""
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    tr = paje("11 1 p1 S run\n12 2 p2 S io\n13 3 p1 S\n13 4 p2 S\n")
    ingest(tr, tmp_path / "s")
    assert dump_lines(read_store(tmp_path / "s")) == dump_lines(tr)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(Triva3dError, match="holding other files than a store"):
        ingest(tr, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


@pytest.mark.parametrize("name", ["small", "ms"])
def test_a_part_of_a_store_holds_the_window_s_entities_and_the_whole_run_s_facts(
        name, data, tmp_path):
    """engine.read_part: the entities meeting the window (states, links, variable
    pieces overlapping it, events in it), in the trace's order, all the containers;
    and what the whole run says, read from the store, equals what the loaded trace
    computes: the palette's usage, the containers drawn on, the variable pairs (so
    the profiles' capacities), the platform's link types, the constant variables and
    the messages per pair. small.trace; SimGrid's ms.trace (profiles, platform
    links)."""
    from triva3d.analysis import roles
    from triva3d.bases.appgraph import message_pairs
    from triva3d.colors import scene_palette, usage
    from triva3d.engine import read_part
    tr = load(ROOT / "examples" / "small.trace" if name == "small"
              else data / "paje" / "ms.trace", cache=False)
    ingest(tr, tmp_path / "s")
    span = tr.end_time - tr.start_time
    window = (tr.start_time + 0.3 * span, tr.start_time + 0.5 * span)
    part = read_part(tmp_path / "s", window)
    t0, t1 = window
    for table, time in (("states", "start"), ("links", "start"), ("variables", "start"),
                        ("events", "time")):
        whole, got = getattr(tr, table), getattr(part, table)
        meets = (whole.time >= t0) & (whole.time <= t1) if table == "events" else \
            (whole.start <= t1) & (whole.end >= t0)
        for c in whole.columns:
            assert np.array_equal(got.columns[c], whole.columns[c][meets]), (table, c)
    sizes = [(len(getattr(part, t)), len(getattr(tr, t))) for t in ENTITIES]
    assert 0 < sum(a for a, _ in sizes) < sum(b for _, b in sizes)
    assert dump_lines(part)[:len(tr.containers)] == dump_lines(tr)[:len(tr.containers)]
    (seconds, *counts), (want, *want_counts) = usage(part), usage(tr)
    assert np.allclose(seconds, want, rtol=1e-12, atol=0)  # (summed bucket by bucket)
    for a, b in zip(counts, want_counts):
        assert np.array_equal(a, b)
    for f in (roles.entity_containers, roles.drawn_containers, roles.platform_link_types,
              roles.constant_types):
        assert np.array_equal(f(part), f(tr)), f.__name__
    for a, b in zip(roles.variable_pairs(part), roles.variable_pairs(tr)):
        assert np.array_equal(a, b)
    assert all(np.array_equal(a, b) for a, b in zip(scene_palette(part)[:2],
                                                    scene_palette(tr)[:2]))
    for w in (None, window):
        assert all(np.array_equal(a, b) for a, b in zip(message_pairs(part, w),
                                                        message_pairs(tr, w)))
    # the overview strip: the whole run's activity, exact on bins on the stored ones
    from triva3d.analysis.overview import FINE_BINS, Overview
    assert part.whole.window == window
    for n in (FINE_BINS, FINE_BINS // 4):
        got, want = Overview(part).activity(n)[0], Overview(tr).activity(n)[0]
        assert got.shape == want.shape and (want.max() > 0 if name == "small" else
                                            want.shape[1] == 0)  # (ms.trace: no states)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * want.max(initial=1))


def test_a_window_skips_row_groups_and_keeps_every_entity_meeting_it(tmp_path, monkeypatch):
    """Row groups of 7 rows (store.ROW_GROUP): the part of every window, those ending or
    starting on an entity's time, an instant, one before the run and one after it,
    holds exactly the entities meeting it, in the trace's order; and reading it
    skipped row groups (their statistics) where the window is short."""
    import pyarrow.parquet as pq
    from triva3d import store
    from triva3d.engine import read_part
    monkeypatch.setattr(store, "ROW_GROUP", 7)
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    assert pq.ParquetFile(next((tmp_path / "s" / "states").rglob("*.parquet"))) \
        .metadata.num_row_groups > 3
    st = tr.states
    span = tr.end_time - tr.start_time
    read = []
    real = pq.ParquetFile.read_row_groups
    monkeypatch.setattr(pq.ParquetFile, "read_row_groups",
                        lambda self, g, *a, **k: read.extend(g) or real(self, g, *a, **k))
    windows = [(tr.start_time + 0.4 * span, tr.start_time + 0.45 * span),
               (st.end[10], st.start[200]), (st.start[77], st.start[77]),
               (tr.start_time - 2, tr.start_time - 1), (tr.end_time + 1, tr.end_time + 2),
               (tr.start_time, tr.end_time)]
    for t0, t1 in windows:
        read.clear()
        part = read_part(tmp_path / "s", (t0, t1))
        for table in ENTITIES:
            whole, got = getattr(tr, table), getattr(part, table)
            meets = (whole.time >= t0) & (whole.time <= t1) if table == "events" else \
                (whole.start <= t1) & (whole.end >= t0)
            for c in whole.columns:
                assert np.array_equal(got.columns[c], whole.columns[c][meets]), (t0, t1, c)
        if (t0, t1) == windows[0]:
            groups = sum(pq.ParquetFile(f).metadata.num_row_groups
                         for t in ENTITIES for f in (tmp_path / "s" / t).rglob("*.parquet"))
            assert 0 < len(read) < groups / 2
    assert len(read_part(tmp_path / "s", windows[3]).states) == 0


@pytest.mark.parametrize("table,column,dtype", [("states", "value", "int64"),
                                                 ("states", "start", "int64"),
                                                 ("containers", "parent", "float64")])
def test_a_store_column_of_another_type_is_a_one_line_error(table, column, dtype, tmp_path):
    """A partition or small table whose column is not of the type a store writes
    (value codes as int64 past 2^31 would wrap to other values; float codes would
    index nothing) is refused in one line naming it, by a read and by a reduction
    (of the states)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from triva3d.engine import state_slice
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    files = sorted((tmp_path / "s").glob(f"{table}/*/*.parquet")) or \
        [tmp_path / "s" / f"{table}.parquet"]
    for f in files:
        t = pq.read_table(f)
        x = t.column(column).to_numpy().astype(dtype)
        if column == "value":
            x += 2 ** 32  # (the same codes once cast to int32)
        t = t.set_column(t.schema.get_field_index(column), column, pa.array(x))
        pq.write_table(t, f)
    reads = [read_store] + [state_slice] * (table != "containers")  # (its span alone)
    for read in reads:
        with pytest.raises(Triva3dError) as e:
            read(tmp_path / "s")
        assert f"{column} holds" in str(e.value) and "\n" not in str(e.value)


def test_a_store_read_reports_each_file_and_stops_where_its_report_raises(tmp_path,
                                                                            monkeypatch):
    """read_store and read_window call progress(files read, files) after each
    partition file; what it raises comes out as it is (never "not a readable store")
    and no file is read after it."""
    from triva3d import store
    from triva3d.store import read_window
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    files = sum(len(store.meta_of(tmp_path / "s")["files"][t]) for t in ENTITIES)
    for read in (lambda p: read_store(tmp_path / "s", progress=p),
                 lambda p: read_window(tmp_path / "s", (0.1, 0.2), None, p)):
        said = []
        read(lambda done, total: said.append((done, total)))
        assert said == [(k, files) for k in range(1, files + 1)] and files > 4

        class Stop(Exception):
            pass

        def stop(done, total):
            if done == 2:
                raise Stop()
        opened, real = [], store.read_meeting
        monkeypatch.setattr(store, "read_meeting", lambda *a: opened.append(a) or real(*a))
        with pytest.raises(Stop):
            read(stop)
        assert len(opened) == 2
        monkeypatch.undo()


def test_numbers_reads_arrow_columns_as_numpy_does():
    """store.numbers: every numeric and boolean type, sliced and in several chunks,
    equals pyarrow's to_numpy; strings or nulls are refused."""
    import pyarrow as pa
    from triva3d.store import numbers
    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.float32, np.float64,
                  bool):
        x = (rng.integers(-100, 100, 37) if dtype != bool else rng.random(37) < 0.5) \
            .astype(dtype)
        arr = pa.array(x)
        for col in (arr, arr.slice(5, 20), pa.chunked_array([arr.slice(3, 11), arr.slice(17)]),
                    pa.chunked_array([], arr.type)):
            got = numbers(col)
            assert got.dtype == np.dtype(dtype) and np.array_equal(
                got, col.to_numpy(zero_copy_only=False) if isinstance(col, pa.Array) else
                np.concatenate([c.to_numpy(zero_copy_only=False) for c in col.chunks] or
                               [np.zeros(0, dtype)]))
    for bad in (pa.array(["a"]), pa.array([1, None])):
        with pytest.raises(ValueError):
            numbers(bad)


def test_reading_a_store_never_imports_pandas(tmp_path):
    """A part of a store, its treemap and its whole read go without pandas (pyarrow
    imports it for read_table and to_numpy where installed: 50 MB more)."""
    pytest.importorskip("pandas")
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    code = ("import sys; from triva3d.engine import comm_pairs, read_part, state_slice; "
            "from triva3d.store import read_store; "
            f"s = {str(tmp_path / 's')!r}; read_part(s, (0.1, 0.2)); read_store(s); "
            "state_slice(s, (0.1, 0.2), threads=1); comm_pairs(s); print('pandas' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "False\n", r.stderr


def test_the_overview_a_store_keeps_has_fewer_bins_for_many_values(tmp_path, monkeypatch):
    """A store keeps its run's overview in fewer bins where its state values are many
    (here at most 1000 cells: 128 bins, a power of two, of small.trace's 5 values); a
    part's strip is still the trace's own on bins on those."""
    from triva3d.analysis import overview
    from triva3d.engine import read_part
    monkeypatch.setattr(overview, "FINE_CELLS", 1000)
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    part = read_part(tmp_path / "s", (0.1, 0.2))
    assert part.whole.overview.shape == (128, 5) == (overview.fine_bins(5), 5)
    import pyarrow.parquet as pq  # (one column: a column a value made a footer too big)
    assert pq.read_schema(tmp_path / "s" / "overview.parquet").names == ["means"]
    for n in (128, 32):
        np.testing.assert_allclose(overview.Overview(part).activity(n)[0],
                                   overview.Overview(tr).activity(n)[0], atol=1e-9)
    # within the cap: 16 bins for 250 000 values, one from 4 million values on
    monkeypatch.setattr(overview, "FINE_CELLS", 1 << 22)
    assert [overview.fine_bins(n) for n in (1, 1000, 65_536, 250_000, 1 << 22, 10**7)] == \
        [4096, 4096, 64, 16, 1, 1]


def test_the_memory_a_window_needs_counts_the_states_it_meets(tmp_path, paje):
    """store.read_bytes guesses a window's rows from the entities counted by the
    time slices of their start and of their end (store.json): a state over the whole
    run (OTF2's main) does not stretch the others' (a guess 16 times too low), a
    narrow window guesses few, entities before the run's start are counted."""
    from triva3d import store
    from triva3d.engine import read_part
    body = "12 0 p1 S main\n12 0 p2 S main\n" + "".join(
        f"12 {t:g} p1 S work\n12 {t:g} p2 S work\n13 {t + 0.01:g} p1 S\n"
        f"13 {t + 0.01:g} p2 S\n" for t in np.arange(1600) / 16) + "13 100 p1 S\n13 100 p2 S\n"
    tr = paje(body)
    ingest(tr, tmp_path / "s")
    path = str(tmp_path / "s")
    whole = store.read_bytes(path)
    for window in ((0.0, 6.25), (50.0, 56.25), (99.0, 100.0), (0.0, 0.5), (53.1, 53.11)):
        meets = len(read_part(path, window).states)  # (a narrow window: a few)
        guess = store.read_bytes(path, window) / whole * len(tr.states)
        assert 0.9 * meets <= guess <= 1.1 * meets + 2, window
    # entities outside the run's span are counted in its first (last) slice
    tr = paje("".join(f"12 {t:.4f} p1 S work\n13 {t + 0.001:.4f} p1 S\n"
                      for t in -10 + np.arange(1000) / 100) + "12 1 p1 S work\n13 2 p1 S\n")
    assert tr.containers.start[0] == 0 and tr.states.start.min() == -10
    ingest(tr, tmp_path / "out")
    path = str(tmp_path / "out")
    meets = len(read_part(path, (-10, -0.5)).states)
    assert meets == 951 and store.read_bytes(path, (-10, -0.5)) >= \
        store.read_bytes(path) * meets / len(tr.states)


def test_a_store_keeps_every_link_whenever_it_is(tmp_path, paje):
    """The messages per pair of a whole store are every link's, those before the
    root container's start too (it filtered them by the root's span)."""
    from triva3d.bases.appgraph import message_pairs
    from triva3d.engine import comm_pairs
    tr = paje('5 r S "run" "1 0 0"\n11 -5 p1 S r\n15 -4 0 L p1 1 m1\n16 -3 0 L p2 1 m1\n'
              '11 -2 p1 S r\n7 1 P p1\n7 1 P p2\n')
    ingest(tr, tmp_path / "s")
    want = message_pairs(tr)
    assert len(want[0]) == 1 and tr.links.start[0] < tr.containers.start[0]
    assert all(np.array_equal(a, b) for a, b in zip(comm_pairs(str(tmp_path / "s")), want))


def test_a_store_opens_whole_or_on_its_first_entities(tmp_path, monkeypatch):
    """engine.read_for_view (what the window opens): the whole store where reading it
    fits in store.OPEN_BYTES and in the memory free; else the part of about
    PART_ROWS entities from the start (store.first_window: whole time slices, as
    counted here from the trace, end on a slice's edge), fewer where they would not
    fit in the memory free; a window whose part would not fit in the memory free is
    refused in one line."""
    from triva3d import store
    from triva3d.engine import read_for_view, read_part
    from triva3d.errors import TraceError
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    path = str(tmp_path / "s")
    ingest(tr, path)
    assert read_for_view(path).whole is None
    t0, t1 = tr.start_time, tr.end_time
    slot = {t: np.clip(((getattr(tr, t).time if t == "events" else getattr(tr, t).start)
                        - t0) * (store.TIME_SLICES / (t1 - t0)), 0, store.TIME_SLICES - 1)
            .astype(int) for t in ENTITIES}
    for k in (1, 3, 10):
        first = sum(int((s < k).sum()) for s in slot.values())
        assert store.first_window(path, first) == pytest.approx(
            (t0, t0 + k * (t1 - t0) / store.TIME_SLICES))
    assert store.first_window(path, 10 ** 9) == (t0, t1)
    whole = store.read_bytes(path)  # the memory a window's read is guessed to take
    assert store.read_bytes(path, (t0, t1)) == whole
    windows = [(t0 + 0.4 * (t1 - t0), t0 + f * (t1 - t0)) for f in (0.41, 0.45, 0.5, 0.7)]
    guesses = [store.read_bytes(path, w) for w in windows]
    assert 0 < guesses[0] < guesses[1] < guesses[2] < guesses[3] < whole
    for w, guess in zip(windows, guesses):  # (a little high: states across slices)
        part = read_part(path, w)
        share = sum(len(getattr(part, t)) for t in ENTITIES) / \
            sum(len(getattr(tr, t)) for t in ENTITIES)
        assert 0.9 * share <= guess / whole <= 1.7 * share
    monkeypatch.setattr(store, "PART_ROWS", 500)
    monkeypatch.setattr(store, "OPEN_BYTES", store.read_bytes(path) - 1)
    part = read_for_view(path)
    assert part.whole.window == store.first_window(path, 500)
    assert 0 < len(part.states) < len(tr.states)
    # short of memory, the first part holds fewer entities (halved), so that it fits
    monkeypatch.setattr(store, "MIN_PART_ROWS", 50)
    need = store.read_bytes(path, part.whole.window)
    monkeypatch.setattr(store, "_free_bytes", lambda: need // 3)
    short = store.first_window(path, 500)
    assert short[1] < part.whole.window[1] and store.read_bytes(path, short) <= need // 3
    assert read_for_view(path).whole.window == short
    monkeypatch.setattr(store, "_free_bytes", lambda: 200_000)
    with pytest.raises(TraceError, match=r"reading the window 0:0.2 needs about 0\.\d MB, "
                                         r"0\.2 MB are free: choose a shorter one$"):
        read_part(path, (0.0, 0.2))


def test_a_part_draws_only_what_it_holds(tmp_path):
    """A View of a store's part refuses (one line) to draw the whole run, a window it
    does not hold, or what needs the whole run whatever the window."""
    from triva3d import ViewState
    from triva3d.engine import read_part
    from triva3d.errors import OptionsError
    from triva3d.view import View
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    part = read_part(tmp_path / "s", (0.1, 0.2))
    View(part, ViewState(window=(0.12, 0.2))).update()
    # a second run named, colours by value: drawn (the second run unused)
    View(part, ViewState(window=(0.12, 0.2), compare=str(tmp_path / "s"))).update()
    for state, why in ((ViewState(), "the whole run is not read, only the window 0.1:0.2"),
                       (ViewState(window=(0.1, 0.25)), "the window 0.1:0.25 is not read"),
                       (ViewState(window=(0.1, 0.2), compare=str(tmp_path / "s"),
                                  color_by="difference:state:Computing"),
                        "only a window of it is read, colours by difference:state:Computing needs "
                        "the whole run")):
        with pytest.raises(OptionsError, match=re.escape(why)):
            View(part, state).update()


def test_render_of_a_store_s_window_reads_only_the_window(tmp_path, monkeypatch):
    """`render STORE --window T0:T1` reads the entities meeting the window (never the
    whole store: read_store fails here) and draws the very picture `render TRACE
    --window T0:T1` draws (but for the title's name): on small.trace's treemap, its
    topology with the mapping, its timeline and its communication graph. A state
    that needs the whole run (colour by duration) reads the store whole."""
    import imageio.v3 as iio

    from triva3d import cli, store
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")
    cases = [(), ("--topology", str(ROOT / "topologies" / "two_site_grid.dot"), "--mapping",
                  str(ROOT / "examples" / "small_on_two_site_grid.csv")),
             ("--base", "timeline"), ("--base", "appgraph")]

    def render(src, out, *more):
        assert cli.main(["render", src, "--no-cache", "--window", "0.05:0.1", "--size",
                         "480x300", "-o", str(tmp_path / out), *more]) == 0
        return iio.imread(tmp_path / out)[25:]  # (below the title)
    want = [render(small, f"t{i}.png", *more) for i, more in enumerate(cases)]
    whole = render(small, "d.png", "--color-by", "duration")
    real = store.read_store
    monkeypatch.setattr(store, "read_store", lambda *a, **k: 1 / 0)
    for i, more in enumerate(cases):
        assert np.array_equal(render(str(tmp_path / "s"), f"s{i}.png", *more), want[i])
    assert any(not np.array_equal(want[0], w) for w in want[1:])
    monkeypatch.setattr(store, "read_store", real)
    assert np.array_equal(render(str(tmp_path / "s"), "e.png", "--color-by", "duration"),
                          whole)


def _group_trace():
    """1100 processes in 11 groups; the last two groups' states all after t = 8."""
    lines = ['0 G 0 "Group"', '0 P G "Process"', '2 S P "State"']
    for g in range(11):
        lines.append(f'6 0 g{g} G 0 "G{g}"')
        lines += [f'6 0 p{g}_{p} P g{g} "P{g}_{p}"' for p in range(100)]
    lines += [f"11 {0 if g < 9 else 8} p{g}_{p} S run" for g in range(11) for p in range(100)]
    lines += [f"13 10 p{g}_{p} S" for g in range(11) for p in range(100)]
    return "\n".join(lines) + "\n"


TWO_TYPES = TYPES.replace('2 S P "State"\n', '2 S P "State"\n2 S2 P "State2"\n')
SENT = "20 1 0 L p1 m k1 100\n16 2 0 L p2 m k1\n15 7 0 L p1 m k2\n16 8 0 L p2 m k2\n"


@pytest.mark.parametrize("name,types,body,window,more", [
    # what lies outside the window still shapes what is drawn in it:
    ("lanes of a state type seen only later", TWO_TYPES,
     "11 0 p1 S run\n11 0 p2 S run\n11 8 p1 S2 io\n13 9 p1 S2\n13 10 p1 S\n13 10 p2 S\n",
     "1:3", ()),
    ("a profile's lane set only later", TYPES,
     "11 0 p1 S run\n11 0 p2 S run\n8 8 p1 V 1\n8 9 p1 V 3\n13 10 p1 S\n13 10 p2 S\n",
     "1:3", ()),
    ("aggregated shares of a container idle in the window", TYPES,
     "11 0 p1 S run\n11 8 p2 S io\n13 9 p2 S\n13 10 p1 S\n", "1:3", ("--aggregate", "0")),
    ("the level aggregation chooses", None, _group_trace(), "1:3", ()),
    ("no state in the window, some in the trace", TYPES,
     "11 0 p1 S run\n13 1 p1 S\n11 8 p2 S io\n13 10 p2 S\n", "3:5", ()),
    ("the traffic's unit: a sized message in, an unsized one out", TYPES,
     "11 0 p1 S run\n11 0 p2 S run\n" + SENT + "13 10 p1 S\n13 10 p2 S\n", "0.5:3",
     ("--base", "appgraph")),
])
def test_a_window_of_a_store_draws_what_the_whole_run_shapes(
        name, types, body, window, more, tmp_path, capsys):
    """Traces where the entities outside the window decide the columns' lanes, the
    aggregation, a warning or the traffic's unit (found by a review): `render STORE
    --window` (engine.read_part) draws the very picture and says the very notes and
    warnings, and sums up what it drew as, `render TRACE --window` does."""
    import imageio.v3 as iio

    from triva3d import cli
    path = tmp_path / "t.trace"
    path.write_text(HEADER + SIZED_LINK + (types or "") + body)
    ingest(load(path, cache=False), tmp_path / "s")
    got = []
    for src in (path, tmp_path / "s"):
        out = tmp_path / f"{src.name}.png"
        assert cli.main(["render", str(src), "--no-cache", "--window", window, "--size",
                         "400x260", "-o", str(out), *more]) == 0
        said = [re.sub(r" in [0-9.]+ s$", "", line.split(": ", 1)[1])  # (path, time)
                for line in capsys.readouterr().err.splitlines()]
        got.append((iio.imread(out)[25:], said))
    assert np.array_equal(got[0][0], got[1][0]) and got[0][1] == got[1][1]


def test_an_interrupted_ingest_leaves_no_store_and_can_be_run_again(tmp_path, monkeypatch):
    """Ingest over a store that stops half way (here: in its tenth bucket, the
    first nine's files written) leaves a folder that is no store (a one-line error, never
    the rows written so far), and ingest into what it left works."""
    from triva3d.analysis import metrics
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    calls = []

    def stop(*a, **k):
        calls.append(1)
        if len(calls) == 10:
            raise KeyboardInterrupt
        return link_bytes(*a, **k)
    link_bytes = metrics.link_bytes
    with monkeypatch.context() as m:
        m.setattr(metrics, "link_bytes", stop)
        with pytest.raises(KeyboardInterrupt):
            ingest(tr, tmp_path / "s")
    assert any((tmp_path / "s" / t).is_dir() for t in ENTITIES)
    with pytest.raises(Triva3dError, match="not a triva3d store"):
        load(tmp_path / "s", cache=False)
    ingest(tr, tmp_path / "s")
    assert dump_lines(read_store(tmp_path / "s")) == dump_lines(tr)


def test_a_movie_of_a_store_s_window_reads_only_the_window(tmp_path, monkeypatch):
    """`animate STORE --window` on the orbit and on the rise (unfolding, particles
    coloured by size), paths that keep the window, reads only the entities meeting
    it (read_store fails here) and writes the frames `animate TRACE` writes (but for
    the title's name)."""
    import imageio.v3 as iio

    from triva3d import cli, store
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")

    def frames(src, out, *more):
        assert cli.main(["animate", src, "--no-cache", "--window", "0.05:0.1", "--size",
                         "320x200", "--duration", "0.3", "--fps", "10", "-o",
                         str(tmp_path / out) + "/", *more]) == 0
        return [iio.imread(f)[25:] for f in sorted((tmp_path / out).glob("*.png"))]
    cases = [("--path", "orbit"), ("--path", "rise", "--unfold", "--particles", "size")]
    want = [frames(small, f"t{i}", *more) for i, more in enumerate(cases)]
    monkeypatch.setattr(store, "read_store", lambda *a, **k: 1 / 0)
    for i, more in enumerate(cases):
        got = frames(str(tmp_path / "s"), f"s{i}", *more)
        assert len(got) == len(want[i]) >= 3
        assert all(np.array_equal(a, b) for a, b in zip(got, want[i]))


def test_a_store_too_big_to_read_whole_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """Where reading a store whole would take more memory than is free (here: 0.1 MB
    free), `dump STORE` says so in one line and exits 2, before reading a row; a
    window of it (read_part), the treemap and the stats still read it in parts."""
    from triva3d import cli, store
    ingest(load(ROOT / "examples" / "small.trace", cache=False), tmp_path / "s")
    assert store.read_bytes(str(tmp_path / "s")) > 1e5
    monkeypatch.setattr(store, "_free_bytes", lambda: 100_000)
    with monkeypatch.context() as m:
        m.setattr(store, "_read", lambda *a, **k: 1 / 0)  # (no row is read)
        assert cli.main(["dump", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "reading it whole needs about 0.3 MB, 0.1 MB are free" in err
    from triva3d.engine import read_part
    assert len(read_part(tmp_path / "s", (0.05, 0.1)).states) == 245
    assert cli.main(["treemap", str(tmp_path / "s"), "-o", str(tmp_path / "t.csv")]) == 0
    assert cli.main(["stats", str(tmp_path / "s")]) == 0


@pytest.mark.parametrize("more", [("--cells", "link:time"), ("--cells", "variable"),
                                  ("--cells", "event"), ("--nested", "inclusive"),
                                  ("--cells", "link:peers", "--level", "Host")])
def test_a_treemap_of_a_store_s_slice_reads_only_the_slice(more, tmp_path, monkeypatch):
    """`treemap STORE --slice T0:T1` of what the engine does not reduce (links,
    variables, events, inclusive time) reads only the entities meeting the slice
    (read_store fails here) and writes the trace's own CSV."""
    from triva3d import cli, store
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")

    def treemap(src, out):
        assert cli.main(["treemap", src, "--no-cache", "--slice", "0.05:0.1", "-o",
                         str(tmp_path / out), *more]) == 0
        return (tmp_path / out).read_text()
    want = treemap(small, "t.csv")
    monkeypatch.setattr(store, "read_store", lambda *a, **k: 1 / 0)
    assert treemap(str(tmp_path / "s"), "s.csv") == want and want.count("\n") > 10


def test_ingest_refuses_what_a_store_could_not_read_back(tmp_path, paje):
    """A trace that breaks what a read checks (trace.check: here a state ending before
    it starts, as PajeNG closes it at its last event's time, a link's, written
    after the state's start) is refused in one line, no store written."""
    from triva3d.errors import TraceError
    body = ('5 r S "run" "1 0 0"\n11 0 p1 S r\n11 3 p1 S r\n15 1 0 L p1 r m\n'
            '16 2 0 L p2 r m\n')
    tr = paje(body)
    assert (tr.states.end < tr.states.start).any()
    with pytest.raises(TraceError, match="cannot be stored: states has an entity ending "
                                         "before it starts"):
        ingest(tr, tmp_path / "s")
    assert not (tmp_path / "s").exists()


def test_what_a_part_cannot_draw_is_taken_back_alone():
    """ViewState.undo_whole_run: from a state a part draws, only the changes that
    made the state need the whole run are taken back."""
    from triva3d import ViewState
    good = ViewState(window=(0.1, 0.2))
    assert good.copy(base="timeline", color_by="duration").undo_whole_run(good) == \
        {"color_by": "value"}
    assert good.copy(heat=True, call_path="main", scale=2.0).undo_whole_run(good) == \
        {"heat": False, "call_path": None}
    assert good.copy(base="tasktree").undo_whole_run(good) == {"base": good.base}
    assert good.copy(compare="b.trace").undo_whole_run(good) == {}


def test_a_part_says_and_refuses_what_the_whole_run_does(tmp_path, capsys):
    """Where the window holds no message but the run has some, a part of the store
    warns as the trace does (no message in the window, not 'the trace has no
    messages'), gives link cells the unit the run's sizes give, and refuses link
    bytes of a run without sizes as the trace does (found by a review)."""
    from triva3d import cli
    small = str(ROOT / "examples" / "small.trace")
    ingest(load(small, cache=False), tmp_path / "s")
    said = []
    for src in (small, str(tmp_path / "s")):
        assert cli.main(["animate", src, "--no-cache", "--window", "0.26:0.3", "--size",
                         "320x200", "--particles", "value", "--duration", "0.1", "--fps",
                         "10", "-o", str(tmp_path / "m") + "/"]) == 0
        assert cli.main(["treemap", src, "--no-cache", "--slice", "0.26:0.3", "--cells",
                         "link:bytes", "-o", str(tmp_path / "t.csv")]) == 2
        said.append([line.replace(src, "TRACE") for line in
                     capsys.readouterr().err.splitlines() if "frames of" not in line])
    assert said[0] == said[1] and any("no message is drawn in the window" in s
                                      for s in said[0])
    assert any("carry no Size field, so no link bytes" in s for s in said[0])


def test_buckets_hold_about_equal_rows():
    """bucket_starts: ranges of containers of about equal rows, a container never
    split, BUCKETS at most, every container in one; the hosts holding most rows
    (as gen_trace's variables) no longer make one bucket most of the trace."""
    from triva3d.store import BUCKETS, bucket_of, bucket_starts
    rows = np.r_[np.zeros(5, int), np.full(100, 12_000), np.full(3200, 1_000)]
    starts = bucket_starts(rows)
    assert starts[0] == 0 and starts[-1] == len(rows) and (np.diff(starts) > 0).all()
    assert len(starts) - 1 <= BUCKETS
    per = np.bincount(bucket_of(starts, np.arange(len(rows))), weights=rows)
    assert per.max() <= rows.sum() / BUCKETS + rows.max()
    assert per.max() < 2.5 * rows.sum() / BUCKETS
    assert list(bucket_starts(np.array([0, 10**9, 0, 0]))) == [0, 2, 4]
    assert list(bucket_starts(np.zeros(3, int))) == [0, 3]
