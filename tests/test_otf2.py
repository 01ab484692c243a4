"""OTF2 input: real Score-P archives counted against the `otf2` package's own reader,
archives written here with `otf2.writer` checked exactly, conversion to Pajé and
back, and broken archives."""
import hashlib
import os
import platform
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import otf2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import otf2gen
from conftest import dump_lines, mutate_bytes
from triva3d import load
from triva3d.errors import OptionsError, TraceError
from triva3d.otf2.reader import read_otf2

NS = 1e-9  # the generated archives tick in nanoseconds, from the first event (500 ns)
T0 = 500


def names(tr, table, col):
    codes = getattr(tr, table).columns[col] if col in getattr(tr, table).columns else \
        getattr(tr, table).extra[col]
    ref = {"value": tr.values.name, "type": tr.types.name}.get(col)
    if col in ("container", "start_container", "end_container"):
        ref = tr.containers.name[codes]
        return [tr.names.display(c) for c in ref]
    return [tr.names.display(ref[c] if ref is not None else c) for c in codes]


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    path = tmp_path_factory.mktemp("ring") / "ring"
    otf2gen.mpi_ring(path)
    return path


def reference_counts(anchor):
    """Per location: events by kind, as the otf2 package's reader sees them."""
    counts = Counter()
    sends, metric_events = [], Counter()
    with otf2.reader.open(str(anchor)) as tr:
        for loc, ev in tr.events:
            kind = type(ev).__name__
            counts[kind] += 1
            if kind in ("MpiSend", "MpiIsend"):
                sends.append(ev.msg_length)
            if kind == "Metric":
                metric_events[loc._ref] += 1
        members = {m._ref: len(m.members) for m in tr.definitions.metric_classes}
    return counts, sorted(sends), metric_events, members


@pytest.mark.parametrize("archive", ["ping-pong-otf2", "ping-pong-otf2-papi"])
def test_scorep_archives_match_the_otf2_reader(data, archive):
    anchor = data / "otf2" / archive / "traces.otf2"
    counts, sends, metric_events, members = reference_counts(anchor)
    tr = load(anchor.parent)
    assert tr.source.endswith("traces.otf2")
    assert len(tr.states) == counts["Enter"] == counts["Leave"]
    assert len(tr.links) == counts["MpiSend"] == counts["MpiRecv"]
    assert sorted(float(tr.names.display(s)) for s in tr.links.extra["Size"]) == sends
    # one metric class: each member a variable piece per sample, and (accumulated
    # PAPI counters) a rate piece per sample
    assert len(members) <= 1
    assert len(tr.variables) == 2 * sum(members.values()) * sum(metric_events.values())
    assert tr.other_records == {"ProgramBegin": 2, "ProgramEnd": 2}
    st_names = Counter(names(tr, "states", "value"))
    assert st_names["MPI_Send"] == st_names["MPI_Recv"] == 16
    assert set(names(tr, "containers", "type")) >= {"machine", "node", "PROCESS", "CPU_THREAD"}
    assert "quartz10" in names(tr, "containers", "name")
    # every message goes forward in time between the two ranks' threads
    ln = tr.links
    assert (ln.end >= ln.start).all() and (ln.start_container != ln.end_container).all()


def test_generated_ring_exactly(ring):
    tr = load(ring, cache=False)
    cont = dict(zip(range(len(tr.containers)), names(tr, "containers", "name")))
    typ = names(tr, "containers", "type")
    assert [cont[c] for c in range(1, len(cont))] == [
        "cluster", "node-A", "node-B", "MPI Rank 0", "MPI Rank 1", "MPI Rank 2", "MPI Rank 3",
        "GPU 0", "MPI Rank 0 / Master thread", "MPI Rank 1 / Master thread",
        "MPI Rank 2 / Master thread", "MPI Rank 3 / Master thread", "Worker thread",
        "stream 0"]
    assert typ[1:] == ["system tree node", "node", "node"] + ["PROCESS"] * 4 + [
        "ACCELERATOR"] + ["CPU_THREAD"] * 5 + ["GPU"]
    parent = tr.containers.parent
    assert cont[parent[13]] == "MPI Rank 0" and cont[parent[14]] == "GPU 0"  # threads, stream
    # links: rank r -> r+1, Isend at t0+105, Irecv completes at t0+150+(r+1)
    ln = tr.links
    threads = {r: 9 + r for r in range(4)}
    got = sorted((int(s), int(e), round(a / NS) + T0, round(b / NS) + T0,
                  int(tr.names.display(z)), int(tr.names.display(g)))
                 for s, e, a, b, z, g in zip(ln.start_container, ln.end_container, ln.start,
                                             ln.end, ln.extra["Size"], ln.extra["Tag"]))
    want = sorted((threads[r], threads[(r + 1) % 4], 1000 * (k + 1) + 105,
                   1000 * (k + 1) + 150 + (r + 1) % 4, 1000 * (k + 1) + r, k)
                  for r in range(4) for k in range(3))
    assert got == want
    # states: per rank 3 x (compute, MPI_Isend, MPI_Irecv), the collective; worker, kernel
    st = tr.states
    values = Counter(zip(names(tr, "states", "container"), names(tr, "states", "value")))
    for r in range(4):  # 3 compute states and the collective on each rank
        rank = f"MPI Rank {r} / Master thread"
        assert values[(rank, "compute")] == 3 and values[(rank, "ALLREDUCE")] == 1
    assert values[("Worker thread", "worker")] == 1 and values[("stream 0", "saxpy")] == 1
    par = dict(zip(names(tr, "states", "value"), names(tr, "states", "paradigm")))
    assert par == {"compute": "USER", "MPI_Isend": "MPI", "MPI_Irecv": "MPI", "worker": "USER",
                   "saxpy": "CUDA", "ALLREDUCE": "MPI"}
    saxpy = names(tr, "states", "value").index("saxpy")
    assert (round(st.start[saxpy] / NS) + T0, round(st.end[saxpy] / NS) + T0) == (2000, 2500)
    # the collective: a state [9000, 9100 + r] and an event at its end with root and sizes
    ev = tr.events
    assert sorted(round(t / NS) + T0 for t in ev.time) == [9100, 9101, 9102, 9103]
    assert set(names(tr, "events", "value")) == {"ALLREDUCE"}
    assert set(names(tr, "events", "root")) == {"0"} and set(names(tr, "events", "sent")) == {"8"}
    # metrics on rank 0: temperature 40.5, 41.5, 42.5; cycles 0, 1000, 2000 and its rate
    var = tr.variables
    by = {}
    for ty, s, e, v in zip(names(tr, "variables", "type"), var.start, var.end, var.value):
        by.setdefault(ty, []).append((round(s / NS) + T0, round(e / NS) + T0, v))
    end = 9103
    assert by["temperature"] == [(1000, 2000, 40.5), (2000, 3000, 41.5), (3000, end, 42.5)]
    assert by["cycles"] == [(1000, 2000, 0), (2000, 3000, 1000), (3000, end, 2000)]
    assert [(s, e) for s, e, _ in by["cycles rate"]] == [(1000, 2000), (2000, 3000), (3000, end)]
    assert [v for _, _, v in by["cycles rate"]] == pytest.approx([1e9, 1e9, 0])  # per second
    assert tr.end_time == pytest.approx((end - T0) * NS)


def same_tables(a, b):
    """Both Traces hold the same entities (times to a few ulps, variables to float32)."""
    def rows(tr, table):
        t = getattr(tr, table)
        cname = names(tr, table, "container") if table != "links" else None
        if table == "states":
            key = list(zip(cname, names(tr, table, "value"), t.imbrication.tolist()))
            return key, np.c_[t.start, t.end]
        if table == "links":
            key = list(zip(names(tr, table, "start_container"), names(tr, table, "end_container"),
                           names(tr, table, "Size")))
            return key, np.c_[t.start, t.end]
        if table == "variables":
            key = list(zip(cname, names(tr, table, "type")))
            return key, np.c_[t.start, t.end, t.value.astype(np.float32)]
        return list(zip(cname, names(tr, table, "value"))), np.c_[t.time]
    for table in ("states", "links", "variables", "events"):
        (ka, va), (kb, vb) = rows(a, table), rows(b, table)
        oa = sorted(range(len(ka)), key=lambda i: (ka[i], tuple(va[i])))
        ob = sorted(range(len(kb)), key=lambda i: (kb[i], tuple(vb[i])))
        assert [ka[i] for i in oa] == [kb[i] for i in ob], table
        np.testing.assert_allclose(va[oa], vb[ob], rtol=1e-6 if table == "variables" else 1e-14,
                                   atol=1e-15, err_msg=table)
    assert names(a, "containers", "name") == names(b, "containers", "name")


def test_convert_round_trip(ring, tmp_path, data):
    for source in [ring, data / "otf2/ping-pong-otf2-papi"]:
        out = tmp_path / (Path(source).name + ".trace")
        r = subprocess.run([sys.executable, "-m", "triva3d.cli", "convert", str(source), "-o",
                            str(out), "--no-cache"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        same_tables(load(source, cache=False), load(out, cache=False))


def test_wrong_counts_missing_and_truncated_files(tmp_path):
    base = tmp_path / "a"
    otf2gen.mpi_ring(base)
    more = tmp_path / "b"
    otf2gen.mpi_ring(more, extra_event_on=1)
    def swap_definitions(events, definitions, name):
        out = tmp_path / name
        shutil.copytree(events, out)
        shutil.copy(definitions / "traces.def", out / "traces.def")
        return out
    # b's events with a's definitions: location 1 has two events more than defined
    mixed = swap_definitions(more, base, "mixed")
    with pytest.raises(TraceError, match=r"1\.evt: location 1 \('Master thread'\): 34 events "
                                         r"in the file, its definition says 32"):
        read_otf2(mixed)
    lenient = read_otf2(mixed, lenient=True)  # reads them all and says so
    assert lenient.report and len(lenient.states) == len(load(base, cache=False).states) + 1
    # a's events with b's definitions: location 1 has fewer events than defined, in a
    # file that ends whole: all read, strictly, with one note (as APEX writes them)
    fewer = swap_definitions(base, more, "fewer")
    t = read_otf2(fewer)
    assert len(t.states) == len(load(base, cache=False).states)
    assert [(what, n) for what, n, _ in t.report] == [
        ("locations whose definition declares more events than their file holds (as APEX "
         "writes them), read to the file's end record", 1)]
    # ... but not where the file does not end whole: its last 3 bytes gone
    short = swap_definitions(base, more, "short")
    evt = short / "traces/1.evt"
    evt.write_bytes(evt.read_bytes()[:-3])
    with pytest.raises(TraceError, match=r"1\.evt.*location 1"):
        read_otf2(short)
    # a missing event file
    gone = tmp_path / "gone"
    shutil.copytree(base, gone)
    (gone / "traces/2.evt").unlink()
    with pytest.raises(TraceError, match=r"2\.evt.*location 2 .*missing"):
        read_otf2(gone)
    partial = read_otf2(gone, lenient=True)
    assert "MPI Rank 2 / Master thread" in names(partial, "containers", "name")
    assert len(partial.states) == len(load(base, cache=False).states) - 10  # rank 2: 9 + 1
    # a truncated one
    cut = tmp_path / "cut"
    shutil.copytree(base, cut)
    evt = cut / "traces/1.evt"
    evt.write_bytes(evt.read_bytes()[: evt.stat().st_size // 2])
    with pytest.raises(TraceError, match=r"1\.evt.*location 1"):
        read_otf2(cut)
    assert len(read_otf2(cut, lenient=True).states) < len(load(base, cache=False).states)
    # one location's local definitions missing where the others have theirs: its
    # communicators' mappings lost, Score-P's messages went unmatched with one remark
    nodef = tmp_path / "nodef"
    shutil.copytree(base, nodef)
    (nodef / "traces/1.def").unlink()
    (nodef / "traces/4.def").unlink()
    with pytest.raises(TraceError, match=r"1\.def: missing \(2 of 6 locations' local "):
        read_otf2(nodef)
    assert ("local definitions missing, ignored", 2) in [
        r[:2] for r in read_otf2(nodef, lenient=True).report]
    # an event file that is a FIFO: refused (the C library waited for a writer for ever)
    fifo = tmp_path / "fifo"
    shutil.copytree(base, fifo)
    (fifo / "traces/3.evt").unlink()
    os.mkfifo(fifo / "traces/3.evt")
    with pytest.raises(TraceError, match=r"3\.evt: not a regular file"):
        read_otf2(fifo)


def test_a_record_buffer_beyond_memory_is_a_memory_error():
    """The record buffers are anonymous maps: one the system refuses is a
    MemoryError, which load reports as such (an OSError read as the output's)."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "from triva3d.otf2 import capi\n"
            "try: capi.new_buffer(10 ** 9)\n"
            "except MemoryError as e: print('MemoryError', e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.startswith("MemoryError 48000001"), out.stderr  # (48 B a record)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's M_PERTURB is glibc's")
def test_memory_allocated_while_otf2_reads_holds_end_of_chunk_bytes(monkeypatch):
    """OTF2 takes a short read at a file's end for a whole chunk, so it parses past a
    damaged file's data into memory it allocated: what that memory held (an earlier
    read's chunk) made one archive read differently with the heap's history and the
    thread (test_spill's mutated archives, 2 runs of 5 before). While it reads, what
    is allocated, in any thread, holds END_OF_CHUNK bytes (past the data: a chunk
    without a header, an error); outside, what the user asked for (MALLOC_PERTURB_)."""
    import ctypes
    import threading

    from triva3d.otf2 import capi
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = libc.free.argtypes = [ctypes.c_void_p]
    size = 1 << 16  # (beyond glibc's per-thread cache, below its mmap threshold)

    def allocated():
        p = libc.malloc(size)
        ctypes.memset(p, 0x57, size)  # (what it held once freed: 0x57)
        libc.free(p)
        p = libc.malloc(size)
        got = ctypes.string_at(p, size)
        libc.free(p)
        return got
    users = capi._PERTURB
    monkeypatch.setattr(capi, "_PERTURB", 0xAA)  # (a user's MALLOC_PERTURB_=170)
    try:
        with capi.filled():
            with capi.filled():  # (nested: the outer one still fills)
                pass
            inside = [allocated()]
            t = threading.Thread(target=lambda: inside.append(allocated()))
            t.start()
            t.join()
        after = allocated()
    finally:
        capi._mallopt(-6, users)
    assert inside == [b"\x01" * size] * 2
    assert after == b"\x55" * size  # (the user's fill again: 0xAA ^ 0xFF)


def test_corrupted_anchor(tmp_path, ring):
    bad = tmp_path / "bad"
    shutil.copytree(ring, bad)
    anchor = bad / "traces.otf2"
    raw = bytearray(anchor.read_bytes())
    raw[16:] = b"\xff" * (len(raw) - 16)
    anchor.write_bytes(bytes(raw))
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "traces.otf2" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1


def test_stats_and_render_of_an_archive(ring, tmp_path):
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", str(ring), "--no-cache"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "MPI message: link, 12" in r.stdout and "Region: state" in r.stdout
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(ring), "--base",
                        "treemap", "--size", "320x200", "-o",
                        str(tmp_path / "r.png"), "--no-cache"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "12 links" in r.stderr


@pytest.mark.parametrize("n_threads", [1, 4])
def test_archives_without_messages_load_strictly(tmp_path, n_threads):
    """A serial run and an OpenMP-like run (no MPI at all) were an IndexError in
    the message matcher in every command."""
    path = tmp_path / "run"
    otf2gen.threads(path, n_threads)
    tr = load(path, cache=False)
    assert len(tr.links) == 0 and len(tr.states) == 2 * n_threads
    st = tr.states
    by_value = Counter(names(tr, "states", "value"))
    assert by_value == {"main": n_threads, "loop": n_threads}
    loops = np.flatnonzero(np.array(names(tr, "states", "value")) == "loop")
    assert (st.imbrication[loops] == 1).all()
    # thread t: loop [100, 600 + 100 t] ns after the first event (at 0)
    assert sorted(np.round((st.end[loops] - st.start[loops]) / NS)) == \
        [500 + 100 * t for t in range(n_threads)]
    for args in (["stats"], ["render", "-o", tmp_path / "run.png"]):
        r = subprocess.run([sys.executable, "-m", "triva3d.cli", args[0], str(path), "--no-cache",
                            *map(str, args[1:])], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_strings_that_are_not_utf8_are_replaced_and_reported(tmp_path):
    """One Latin-1 region name made the archive unreadable, with the otf2 package's
    traceback printed (issues 16 and 17)."""
    otf2gen.mpi_ring(tmp_path / "a")
    defs = tmp_path / "a" / "traces.def"
    raw = defs.read_bytes()
    assert raw.count(b"compute") == 1
    defs.write_bytes(raw.replace(b"compute", b"comput\xe9"))   # same length, Latin-1
    p = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", "--no-cache",
                        str(tmp_path / "a")], capture_output=True, text=True)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    t = load(tmp_path / "a", cache=False)
    assert ("strings of the definitions not in UTF-8, decoded with replacement", 1,
            None) in t.report
    assert "comput\ufffd" in names(t, "values", "name")


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_archives_raise_only_trace_error(tmp_path_factory, data):
    """Bytes of an archive's files overwritten, cut or inserted: a Trace that holds
    together, or one TraceError."""
    from triva3d.trace import check
    root = tmp_path_factory.mktemp("mutated")
    otf2gen.mpi_ring(root / "a")
    files = sorted(p for p in (root / "a").rglob("*") if p.is_file())
    path = data.draw(st.sampled_from(files))
    path.write_bytes(mutate_bytes(data.draw, path.read_bytes()))
    for lenient in (False, True):
        try:
            trace = load(root / "a", lenient=lenient, cache=False)
        except TraceError as e:
            assert "\n" not in str(e)
        else:
            assert check(trace) is None



def test_accelerator_and_metrics_only_archives_load_strictly(tmp_path):
    """OTF2 from GPU tracing and from counters alone (issue 16): no MPI at all."""
    otf2gen.accelerator(tmp_path / "gpu")
    t = load(tmp_path / "gpu", cache=False)
    assert Counter(names(t, "containers", "name")) == {"0": 1, "node-A": 1, "GPU 0": 1,
                                                      "stream 0": 1, "stream 1": 1}
    ns = np.rint(np.c_[t.states.start, t.states.end] * 1e9).astype(int).tolist()
    assert sorted((v, a, b) for v, (a, b) in zip(names(t, "states", "value"), ns)) == \
        [("memcpy HtoD", 0, 100)] * 2 + [("saxpy", 150, 800)] * 2  # from the first, 100
    assert set(names(t, "states", "paradigm")) == {"CUDA"}
    otf2gen.metrics_only(tmp_path / "metrics")
    t = load(tmp_path / "metrics", cache=False)
    assert len(t.states) == 0 and list(t.variables.value) == [40, 41, 42, 43, 44]
    assert list(t.variables.start * 1e9) == pytest.approx([0, 100, 200, 300, 400])


def _one_thread(path, events, resolution=1_000_000_000):
    """An archive of one thread whose events are (time, "enter"|"leave") on "main"."""
    with otf2.writer.open(str(path), timer_resolution=resolution) as w:
        d = w.definitions
        group = d.location_group("Process", system_tree_parent=d.system_tree_node("node"))
        main = d.region("main")
        ev = w.event_writer("Master thread", group=group)
        for t, what in events:
            (ev.enter if what == "enter" else ev.leave)(t, main)


def test_what_the_clock_and_the_nesting_cannot_hold(tmp_path):
    """Timer resolution 0 gave NaN times, ticks past 2^63 an OverflowError traceback
    (tick 2^63 - 1, the reader's own, refused alike), regions nested past the
    imbrication column's range wrapped around (issue 16)."""
    _one_thread(tmp_path / "res0", [(10, "enter"), (20, "leave")], resolution=0)
    with pytest.raises(TraceError, match="timer resolution 0"):
        load(tmp_path / "res0", cache=False)
    t = load(tmp_path / "res0", lenient=True, cache=False)
    assert list(t.states.end - t.states.start) == pytest.approx([1e-8])
    _one_thread(tmp_path / "late", [(2 ** 63 + 5, "enter"), (2 ** 63 + 10, "leave")])
    with pytest.raises(TraceError, match="beyond 2\\^63 - 1 ticks"):
        load(tmp_path / "late", lenient=True, cache=False)
    # tick 2^63 - 1 marks what ends with the trace while an archive is read: refused too
    _one_thread(tmp_path / "last", [(2 ** 63 - 11, "enter"), (2 ** 63 - 1, "leave")])
    with pytest.raises(TraceError, match="beyond 2\\^63 - 1 ticks"):
        load(tmp_path / "last", lenient=True, cache=False)
    deep = 32768
    _one_thread(tmp_path / "deep", [(k, "enter") for k in range(deep + 1)] +
                [(deep + 1 + k, "leave") for k in range(deep + 1)])
    with pytest.raises(TraceError, match="nested more than 32767 deep"):
        load(tmp_path / "deep", cache=False)


def test_io_operations_and_thread_teams_nested_too_deep_are_refused(tmp_path):
    """I/O operations open at once and thread teams nested past the imbrication
    column's range wrapped around to negative depths, silently; now one line, as for
    regions, and one fewer level reads."""
    from otf2.enums import (GroupType, IoOperationFlag, IoOperationMode, IoParadigmClass,
                            IoParadigmFlag, Paradigm)

    def archive(path, n, what):
        with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
            d = w.definitions
            group = d.location_group("Process", system_tree_parent=d.system_tree_node("node"))
            loc = d.location("Master thread", group=group)
            ev = w.event_writer_from_location(loc)
            if what == "io":
                posix = d.io_paradigm("POSIX", "POSIX I/O", IoParadigmClass.SERIAL,
                                      IoParadigmFlag.NONE)
                handle = d.io_handle("f", d.io_regular_file("f", scope=d.system_tree_node("n")),
                                     posix)
                for k in range(n):
                    ev.io_operation_begin(k, handle, IoOperationMode.READ, IoOperationFlag.NONE,
                                          1, k)
                for k in range(n):
                    ev.io_operation_complete(n + k, handle, 1, n - 1 - k)
            else:
                team = d.comm("team", group=d.group("team", group_type=GroupType.COMM_LOCATIONS,
                                                    paradigm=Paradigm.OPENMP, members=[loc]))
                for k in range(n):
                    ev.thread_team_begin(k, team)
                for k in range(n):
                    ev.thread_team_end(n + k, team)
    for what, words in (("io", "I/O operations"), ("teams", "thread teams")):
        archive(tmp_path / what, 32769, what)
        with pytest.raises(TraceError, match=f"{words} nested more than 32767 deep"):
            load(tmp_path / what, cache=False)
        archive(tmp_path / f"{what}-ok", 32768, what)
        t = load(tmp_path / f"{what}-ok", cache=False)
        assert len(t.states) == 32768 and t.states.imbrication.max() == 32767


def test_event_counts_beyond_the_file_are_refused_before_allocating(tmp_path):
    """Definitions declaring more events than the file can hold (1e15 was a
    MemoryError) are one line, before any buffer is taken (issue 16), where the file
    is not whole; a whole one is read (the buffer sized by the file) with a note."""
    _one_thread(tmp_path / "many", [(k, what) for k in range(0, 20000, 2)
                                    for what in ("enter", "leave")])
    _one_thread(tmp_path / "few", [(0, "enter"), (1, "leave")])
    liar = tmp_path / "liar"
    shutil.copytree(tmp_path / "few", liar)
    shutil.copy(tmp_path / "many" / "traces.def", liar / "traces.def")
    t = load(liar, cache=False)
    assert len(t.states) == 1 and any("its definition says 20000" in r[2] for r in t.report)
    evt = liar / "traces" / "0.evt"
    evt.write_bytes(evt.read_bytes()[:-1])
    with pytest.raises(TraceError, match=r"declares 20000 events, its file holds at most"):
        load(liar, cache=False)
    t = load(liar, lenient=True, cache=False)
    assert len(t.states) == 1 and any("declares 20000" in r[2] for r in t.report)


def test_openmp_tasks_io_rma_and_samples_are_drawn(tmp_path):
    """Thread teams, tasks, fork/join, I/O operations, RMA and samples (otf2gen's
    openmp_io_rma; times from the clock's offset, 100 ns): what each becomes."""
    otf2gen.openmp_io_rma(tmp_path / "omp")
    t = load(tmp_path / "omp", cache=False)  # strict: an open operation is reported
    ns = lambda x: pytest.approx((x - 100) * 1e-9)  # noqa: E731

    def rows(table, type_name):
        tab = getattr(t, table)
        ty = [i for i in range(len(t.types)) if t.display_name("types", i) == type_name]
        return [i for i in range(len(tab)) if tab.type[i] in ty]

    def where(table, i):
        return t.display_name("containers", getattr(t, table).container[i])

    def extra(table, name, i):
        code = getattr(t, table).extra[name][i]
        return t.names[code] if code >= 0 else None
    team = rows("states", "Thread team")
    assert sorted(where("states", i) for i in team) == ["T0", "T1"]
    assert all((t.states.start[i], t.states.end[i]) == (ns(110), ns(200)) for i in team)
    assert {t.display_name("values", t.states.value[i]) for i in team} == {"team A"}
    tasks = rows("states", "Task")  # a task switched away from and back: two pieces
    assert [(where("states", i), t.states.start[i], t.states.end[i], extra("states", "task", i),
             extra("states", "creator", i)) for i in tasks] == [
        ("T0", ns(130), ns(180), "1", "1"), ("T1", ns(230), ns(240), "42", None),
        ("T1", ns(240), ns(250), "43", None), ("T1", ns(250), ns(260), "42", None)]
    io = rows("states", "I/O")  # the read never completed: not drawn, reported
    assert [(t.states.start[i], t.states.end[i], t.states.imbrication[i],
             t.display_name("values", t.states.value[i]), extra("states", "bytes", i),
             extra("states", "handle", i)) for i in io] == [
        (ns(300), ns(350), 0, "write", "4000", "out.dat"),
        (ns(320), ns(340), 1, "write", "8", "out.dat")]
    assert ("I/O operations never completed (not drawn)", 1, None) in t.report
    fj = rows("events", "Thread fork/join")
    assert [(t.display_name("values", t.events.value[i]), t.events.time[i],
             extra("events", "threads", i)) for i in fj] == [
        ("fork", ns(100), "2"), ("join", ns(210), None)]
    made = rows("events", "Task created")
    assert [(where("events", i), extra("events", "task", i), extra("events", "creator", i))
            for i in made] == [("T1", "1", "1"), ("T1", "42", None), ("T1", "43", None)]
    (sample,) = rows("events", "Sample")
    assert t.display_name("values", t.events.value[sample]) == "compute"
    ln = t.links
    got = sorted((t.display_name("types", ln.type[i]),
                  t.display_name("containers", ln.start_container[i]),
                  t.display_name("containers", ln.end_container[i]), ln.start[i], ln.end[i],
                  t.names[ln.extra["Size"][i]]) for i in range(len(ln)))
    assert got == [("RMA get", "T0", "R1", ns(500), ns(500), "32"),
                   ("RMA put", "T0", "R1", ns(400), ns(450), "64")]
    assert t.other_records == {}


def test_an_enum_value_this_otf2_does_not_know_is_named_by_its_number(tmp_path):
    """A collective operation 250 (a newer writer's) was a KeyError: it is a value
    "operation 250"."""
    with otf2.writer.open(str(tmp_path / "coll"), timer_resolution=10**9) as w:
        d = w.definitions
        loc = d.location("main", group=d.location_group(
            "P", system_tree_parent=d.system_tree_node("n")))
        ev = w.event_writer_from_location(loc)
        comm = otf2gen._world(d, [loc])
        ev.mpi_collective_begin(10)
        ev.mpi_collective_end(20, 250, comm, 0, 8, 8)
    t = load(tmp_path / "coll", cache=False)
    assert [t.display_name("values", v) for v in t.states.value] == ["operation 250"]


def test_broken_definitions_are_one_line_and_nothing_else(tmp_path, capfd):
    """A byte changed in the global definitions made the otf2 package print a
    traceback from its callbacks on stderr before triva3d's line (issue 26.5): the
    load raises one TraceError and stderr stays empty."""
    import random
    otf2gen.mpi_ring(tmp_path / "a")
    defs = tmp_path / "a" / "traces.def"
    raw = defs.read_bytes()
    unknown = 0
    for seed in range(30):
        rng = random.Random(seed)
        b = bytearray(raw)
        b[rng.randrange(len(b))] = rng.randrange(256)
        defs.write_bytes(bytes(b))
        try:
            load(tmp_path / "a", cache=False)
        except TraceError as e:
            assert "\n" not in str(e)
            unknown += "refers to one never defined" in str(e)
        assert capfd.readouterr().err == ""
    assert unknown >= 3  # the mutations did reach the package's callbacks


def test_a_load_reports_the_event_files_read(tmp_path):
    """OTF2 progress (issue 27.3): after each location, its event file's bytes, up to
    the sum of every .evt file; a report that raises stops the load."""
    otf2gen.big(tmp_path / "a", 4000, ranks=4)
    total = sum(p.stat().st_size for p in (tmp_path / "a").rglob("*.evt"))
    calls = []
    load(tmp_path / "a", cache=False, progress=lambda done, all_: calls.append((done, all_)))
    assert len(calls) == 4 and calls[-1] == (total, total)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[0][0] > 0

    class Stop(Exception):
        pass

    def stop(done, all_):
        raise Stop
    with pytest.raises(Stop):
        load(tmp_path / "a", cache=False, progress=stop)


def _text(value):
    """An attribute value as the otf2 package reads it, written as triva3d shows it."""
    if isinstance(value, float):
        return str(np.float64(value))
    return getattr(value, "name", None) or str(value)


def test_attributes_sharing_a_name_and_one_named_like_a_link_kind(tmp_path):
    """Two attribute definitions named "A" (on two Enters) are one field with both
    values (the second overwrote the first); an attribute named "what" on a send is
    the link's field, its value (the reader's own link kind, 0, took its place)."""
    from otf2.enums import Type
    with otf2.writer.open(str(tmp_path / "a"), timer_resolution=1_000_000_000) as w:
        d, e0, e1, comm = otf2gen.two_ranks(w)
        a1, a2, what = (d.attribute(n, about, Type.INT32) for n, about in
                        (("A", "one"), ("A", "two"), ("what", "")))  # (two definitions)
        region = d.region("f")
        e0.enter(10, region, attributes={a1: 1})
        e0.leave(20, region)
        e0.enter(30, region, attributes={a2: 2})
        e0.mpi_send(35, 1, comm, 0, 8, attributes={what: 7})
        e0.leave(40, region)
        e1.mpi_recv(50, 0, comm, 0, 8)
    t = load(tmp_path / "a", cache=False)
    assert [t.names[c] if c >= 0 else None for c in t.states.extra["A"]] == ["1", "2"]
    assert [t.names[c] for c in t.links.extra["what"]] == ["7"]


def test_attributes_are_the_fields_the_otf2_package_reads(tmp_path):
    """Every attribute of an Enter (a state's start) or a send (a link) is a
    user-defined field whose text is the value the otf2 package's own reader gives."""
    otf2gen.apex_tasks(tmp_path / "apex")
    t = load(tmp_path / "apex", cache=False)
    expected_states, expected_links = {}, {}
    with otf2.reader.open(str(tmp_path / "apex" / "traces.otf2")) as ref:
        t0 = ref.definitions.clock_properties.global_offset
        for loc, ev in ref.events:
            at = {a.name: _text(v) for a, v in (ev.attributes or {}).items()}
            key = (loc.name, ev.time - t0)
            if type(ev).__name__ == "Enter":
                expected_states[key] = at
            elif type(ev).__name__ == "MpiSend":
                expected_links[key] = at
    st = t.states
    got = {(t.display_name("containers", st.container[i]), round(st.start[i] / NS)):
           {k: t.names[c[i]] for k, c in st.extra.items()
            if c[i] >= 0 and k not in ("paradigm", "role")} for i in range(len(st))}
    assert got == expected_states
    assert expected_states[("worker 2", 500)] == {
        "GUID": "6", "Parent GUID": "1", "depth": "-1", "load": "0.25", "where": "worker 0",
        "note": "far"}
    mpi = [i for i in range(len(t.links)) if t.display_name("types", t.links.type[i]) ==
           "MPI message"]
    assert {(t.display_name("containers", t.links.start_container[i]),
             round(t.links.start[i] / NS)):
            {"note": t.names[t.links.extra["note"][i]]} for i in mpi} == expected_links


@pytest.mark.parametrize("otf2_type,value,text", [
    ("UINT8", 255, "255"), ("INT8", -128, "-128"), ("UINT16", 65535, "65535"),
    ("INT16", -2, "-2"), ("UINT32", 2 ** 32 - 1, "4294967295"), ("INT32", -7, "-7"),
    ("UINT64", 2 ** 64 - 1, "18446744073709551615"), ("INT64", -2 ** 63, str(-2 ** 63)),
    ("FLOAT", 0.1, "0.1"), ("DOUBLE", 1e-300, "1e-300"), ("STRING", "far", "far"),
    ("REGION", "f", "f"), ("LOCATION", "t", "t")])
def test_attribute_values_of_every_width(tmp_path, otf2_type, value, text):
    """Each type at its width; references (32 bits, but a location's 64) by name,
    whatever lies in the rest of OTF2's 8-byte union (strings defined after 2^16
    others, and a region referred to by many states)."""
    from otf2.enums import Type
    with otf2.writer.open(str(tmp_path / "a"), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        for k in range(70000 if otf2_type == "STRING" else 0):  # references above 2^16
            d._string(f"s{k}")
        loc = d.location("t", group=d.location_group("p", system_tree_parent=(
            d.system_tree_node("n"))))
        ev = w.event_writer_from_location(loc)
        a = d.attribute("x", "", getattr(Type, otf2_type))
        r = d.region("f")
        given = {"REGION": r, "LOCATION": loc}.get(otf2_type, value)
        for k in range(50):
            ev.enter(10 + 20 * k, r, {a: given})
            ev.leave(20 + 20 * k, r, {a: given})  # the Enter's value is the state's
    t = load(tmp_path / "a", cache=False)
    assert [t.names[c] for c in t.states.extra["x"]] == [text] * 50


def test_task_dependencies_counted_by_hand(tmp_path):
    """otf2gen.apex_tasks: dependencies 1->2 (worker 0 at 150 to worker 1 at 150, the
    parent running), 1->3 (worker 0 at 300), 2->4 (the parent ended at 250, the child
    began at 260), 1->6 (worker 0 to worker 2 at 600); tasks 1 and 5 without parent.
    Trace time starts at 100 ns."""
    from triva3d.analysis.tasks import tasks
    otf2gen.apex_tasks(tmp_path / "apex")
    t = load(tmp_path / "apex", cache=False)  # strict: a root is no error, only counted
    assert "2 tasks without their parent in the trace (its roots, or parents not traced)" \
        in t.notes and not t.report
    ln = t.links
    dep = [i for i in range(len(ln)) if t.display_name("types", ln.type[i]) == "Task dependency"]
    got = sorted((t.names[ln.extra["Task"][i]], t.display_name("containers", ln.start_container[i]),
                  round(ln.start[i] / NS) + 100, t.display_name("containers", ln.end_container[i]),
                  round(ln.end[i] / NS) + 100) for i in dep)
    assert got == [("2", "worker 0", 150, "worker 1", 150), ("3", "worker 0", 300, "worker 0", 300),
                   ("4", "worker 1", 250, "worker 1", 260), ("6", "worker 0", 600, "worker 2", 600)]
    tk = tasks(t)
    assert [tk.id_text(i) for i in range(len(tk))] == ["1", "2", "3", "4", "5", "6"]
    assert tk.missing_parents == 2
    assert tk.pieces.tolist() == [1, 1, 2, 1, 1, 1]  # task 3 resumed on worker 1
    three = tk.find(3)
    assert tk.busy[three] == pytest.approx(100 * NS)
    assert (tk.start[three], tk.end[three]) == (pytest.approx(200 * NS), pytest.approx(350 * NS))
    assert [t.display_name("containers", t.states.container[r])
            for r in tk.piece_rows[tk.offsets[three]:tk.offsets[three + 1]]] == \
        ["worker 0", "worker 1"]
    assert tk.depth.tolist() == [0, 1, 1, 2, 0, 1]
    # hpx_main ran [100, 900] less task 3's piece nested in it [300, 350]; its MPI_Send
    # (no task) is its own work
    assert tk.busy[tk.find(1)] == pytest.approx(750 * NS)
    assert [tk.id_text(i) for i in tk.lineage(tk.find(2))] == ["1", "2", "4"]
    assert [tk.id_text(i) for i in tk.lineage(tk.find(1))] == ["1", "2", "3", "4", "6"]


def test_attributes_survive_dump_and_convert(tmp_path):
    """`dump -u` prints the attributes (fields by name, as pj_dump); a Pajé
    conversion keeps them, blanks in field names becoming '_'."""
    otf2gen.apex_tasks(tmp_path / "apex")
    run = [sys.executable, "-m", "triva3d.cli"]
    out = subprocess.run(run + ["dump", "-u", "--no-cache", str(tmp_path / "apex")],
                         capture_output=True, text=True, check=True).stdout
    remote = [line for line in out.splitlines() if ", remote" in line]
    # fields sorted by name: GUID, Parent GUID, depth, load, note, paradigm, role, where
    assert remote and remote[0].endswith("remote, 6, 1, -1, 0.25, far, USER, FUNCTION, "
                                         '"worker 0"'), remote
    subprocess.run(run + ["convert", "--no-cache", str(tmp_path / "apex"), "-o",
                          str(tmp_path / "apex.paje")], check=True, capture_output=True)
    back = load(tmp_path / "apex.paje", cache=False)
    assert {"GUID", "Parent_GUID", "depth", "load", "note", "where"} <= set(back.states.extra)
    assert "Task" in back.links.extra
    from triva3d.analysis.tasks import tasks
    a, b = tasks(load(tmp_path / "apex", cache=False)), tasks(back)  # the same tree
    assert [(a.id_text(i), a.parent[i]) for i in range(len(a))] == \
        [(b.id_text(i), b.parent[i]) for i in range(len(b))]
    assert b.parent.tolist() == [-1, 0, 0, 1, -1, 0]


def test_tasks_command_and_task_chain(tmp_path, ring):
    """`tasks` writes a row per task (worked by hand for otf2gen.apex_tasks) and the
    execution tree; `render --task` keeps the chain's colours and dims the rest; a
    trace without GUIDs, or a GUID not in it, is one line."""
    from triva3d import ViewState
    from triva3d.view import View
    otf2gen.apex_tasks(tmp_path / "apex")
    run = [sys.executable, "-m", "triva3d.cli"]
    r = subprocess.run(run + ["tasks", "--no-cache", str(tmp_path / "apex"), "-o",
                              str(tmp_path / "t.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0] == "guid,parent,region,container,start,end,busy,pieces,depth,unit"
    assert {x.rsplit(",", 1)[1] for x in rows[1:]} == {"s"}  # (APEX's ns, read as s)
    cut = [",".join(x.split(",")[i] for i in (0, 1, 2, 3, 7, 8)) for x in rows[1:]]
    assert cut == ["1,0,hpx_main,worker 0,1,0", "2,1,fib,worker 1,1,1", "3,1,fib,worker 0,2,1",
                   "4,2,fib,worker 1,1,2", "5,99,orphan,worker 1,1,0", "6,1,remote,worker 2,1,1"]
    r = subprocess.run(run + ["tasks", "--no-cache", "--task", "4", str(tmp_path / "apex"),
                              "-o", str(tmp_path / "t.dot")], capture_output=True, text=True)
    assert r.returncode == 0 and "3 tasks of 6" in r.stderr, r.stderr
    dot = (tmp_path / "t.dot").read_text()
    assert dot.count("->") == 2 and "hpx_main" in dot and "orphan" not in dot
    for args, why in ((["--task", "7", str(tmp_path / "apex")], "task 7: no such GUID"),
                      ([str(ring)], "no state has a 'GUID' field")):
        r = subprocess.run(run + ["tasks", "--no-cache", *args, "-o", str(tmp_path / "x.csv")],
                           capture_output=True, text=True)
        errors = [line for line in r.stderr.splitlines() if "error" in line]
        assert r.returncode == 2 and len(errors) == 1 and why in errors[0], r.stderr
    t = load(tmp_path / "apex", cache=False)
    v = View(t, ViewState(base="timeline", task="2"), use_cache=False)
    g = v.scene.geometry
    guid = t.states.extra["GUID"]
    kept = {t.names[guid[i]] if guid[i] >= 0 else t.display_name("values", t.states.value[i])
            for i in np.flatnonzero(g.chosen.states)}
    assert kept == {"1", "2", "4", "MPI_Send"}  # task 2, its parent (and its MPI_Send), child
    dep = [t.names[c] for c in t.links.extra["Task"][g.chosen.links]]
    assert sorted(dep) == ["2", "4"]
    texts = [text for text, _ in g.legend_entries()]
    at = texts.index("task 2's chain (3 tasks, their dependencies)")
    assert texts[at + 1] == "the rest dimmed"
    v.close()


def test_the_aggregated_gantt_worked_by_hand(tmp_path):
    """otf2gen.apex_tasks (ns, trace from 100): at depth 1 the subtrees of tasks 2
    ({2, 4}: [150, 280]), 3 ([300, 450], two pieces) and 6 ([600, 700]) fill one row;
    inside, one worker at a time, none between the pieces. At depth 0, task 1's tree
    [100, 900] and the orphan 5 [500, 520] in a second row; task 1's tree has two
    workers busy at 200 (hpx_main, task 2) and one at 320 (task 3 nested in
    hpx_main: each worker counted once) and 555 (its MPI_Send, its own work)."""
    from triva3d.analysis.tasks import gantt, tasks
    otf2gen.apex_tasks(tmp_path / "apex")
    t = load(tmp_path / "apex", cache=False)
    tk = tasks(t)
    ns = lambda x: (x - 100) * NS  # noqa: E731
    g = gantt(tk, t, 1)
    assert [tk.id_text(r) for r in g.root] == ["2", "3", "6"]
    assert np.allclose(g.start, [ns(150), ns(300), ns(600)])
    assert np.allclose(g.end, [ns(280), ns(450), ns(700)])
    assert g.row.tolist() == [0, 0, 0]
    at = np.array([ns(x) for x in (200, 255, 270, 320, 375, 420, 650)])
    use = g.use(np.sort(np.r_[at - 1e-12, at + 1e-12]))[::2]
    assert np.allclose(use, [[1, 0, 0], [0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0],
                             [0, 1, 0], [0, 0, 1]])
    g0 = gantt(tk, t, 0)
    assert [tk.id_text(r) for r in g0.root] == ["1", "5"] and g0.row.tolist() == [0, 1]
    at = np.array([ns(x) for x in (200, 320, 555)])
    use = g0.use(np.sort(np.r_[at - 1e-12, at + 1e-12]))[::2]
    assert np.allclose(use[:, 0], [2, 1, 1])
    from triva3d.panels.gantt import svg
    text = svg(g, tk, t, chosen=tk.lineage(tk.find(4)))
    assert text.count('stroke-width="2"') == 1  # the bar of 4's chain: task 2's
    with pytest.raises(OptionsError, match="no task at depth 3: the execution tree's depths "
                                           "are 0 to 2"):
        gantt(tk, t, 3)


def test_brushed_intervals_in_the_gantt_worked_by_hand(tmp_path):
    """otf2gen.apex_tasks: "fib" intervals last 100 (task 2), 20 (task 4) and 50 ns
    (task 3's two pieces); brushing 40-60 ns chooses task 3's pieces alone. At depth
    1 only task 3's bar holds them, one worker at 320 and 420, none at 200; at depth
    0 task 1's tree holds them (fib nested in hpx_main counts once) and the orphan's
    not. The SVG outlines that bar and draws one line; the CLI does the same."""
    from triva3d.analysis.intervals import durations
    from triva3d.analysis.tasks import gantt, tasks
    from triva3d.panels.gantt import svg
    otf2gen.apex_tasks(tmp_path / "apex")
    t = load(tmp_path / "apex", cache=False)
    tk = tasks(t)
    brushed = durations(t, "fib").mask(40 * NS, 60 * NS, len(t.states))
    assert [tk.id_text(i) for i in tk.running(brushed)] == ["3"]
    ns = lambda x: (x - 100) * NS  # noqa: E731
    at = np.array([ns(x) for x in (200, 320, 420)])
    edges = np.sort(np.r_[at - 1e-12, at + 1e-12])
    g = gantt(tk, t, 1, brushed)
    assert g.holds.tolist() == [False, True, False]
    assert np.allclose(g.chosen_use(edges)[::2], [[0, 0, 0], [0, 1, 0], [0, 1, 0]])
    assert np.allclose(g.use(edges)[::2], [[1, 0, 0], [0, 1, 0], [0, 1, 0]])
    g0 = gantt(tk, t, 0, brushed)
    assert g0.holds.tolist() == [True, False]
    assert np.allclose(g0.chosen_use(edges)[::2, 0], [0, 1, 1])
    text = svg(g, tk, t, tk.running(brushed), chosen_text="fib 40-60 ns")
    assert text.count("<polyline") == 1 and text.count('stroke-width="2"') == 1
    assert "white line: fib 40-60 ns" in text
    out = tmp_path / "g.svg"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "tasks", str(tmp_path / "apex"),
                        "--gantt", "1", "--intervals", "fib:4e-8:6e-8", "-o", str(out),
                        "--no-cache"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 tasks of 6" in r.stderr and out.read_text().count("<polyline") == 1
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "tasks", str(tmp_path / "apex"),
                        "--task", "3", "--intervals", "fib:0:1", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "not allowed with argument" in r.stderr


def test_a_task_run_cut_by_task_worked_by_hand(tmp_path):
    """otf2gen.apex_tasks cut by task: six containers by depth then start (1, 5; 2, 3,
    6; 4); task 3's two pieces on its own container, each with the worker that ran
    it; MPI_Send nested in hpx_main stays in task 1 at depth 1, task 3 nested in
    hpx_main on worker 0 is at depth 0 on its own; the MPI_Recv of no task and the
    message are left out (notes); dependencies 1->2 at 150, 2->4 from 250 (task 2
    ended) to 260, 1->3 at 300, 1->6 at 600. `render --base tasktree` draws it."""
    from triva3d.analysis.tasks import task_trace
    from triva3d.trace import check
    otf2gen.apex_tasks(tmp_path / "apex")
    t = task_trace(load(tmp_path / "apex", cache=False))
    assert check(t) is None
    assert t.display_names("containers", t.level("Task")) == [
        "hpx_main 1", "orphan 5", "fib 2", "fib 3", "remote 6", "fib 4"]
    st = t.states
    rows = [(t.display_name("containers", c), t.display_name("values", v), round(a / NS) + 100,
             round(b / NS) + 100, int(i), t.names[w]) for c, v, a, b, i, w in
            zip(st.container, st.value, st.start, st.end, st.imbrication, st.extra["Worker"])]
    assert rows == [("hpx_main 1", "hpx_main", 100, 900, 0, "worker 0"),
                    ("hpx_main 1", "MPI_Send", 550, 560, 1, "worker 0"),
                    ("orphan 5", "orphan", 500, 520, 0, "worker 1"),
                    ("fib 2", "fib", 150, 250, 0, "worker 1"),
                    ("fib 3", "fib", 300, 350, 0, "worker 0"),
                    ("fib 3", "fib", 400, 450, 0, "worker 1"),
                    ("remote 6", "remote", 600, 700, 0, "worker 2"),
                    ("fib 4", "fib", 260, 280, 0, "worker 1")]
    ln = t.links
    deps = [(t.display_name("containers", a), t.display_name("containers", b),
             round(s0 / NS) + 100, round(s1 / NS) + 100)
            for a, b, s0, s1 in zip(ln.start_container, ln.end_container, ln.start, ln.end)]
    assert deps == [("hpx_main 1", "fib 2", 150, 150), ("fib 2", "fib 4", 250, 260),
                    ("hpx_main 1", "fib 3", 300, 300), ("hpx_main 1", "remote 6", 600, 600)]
    assert [n for n in t.notes if n.startswith("by task")] == [
        "by task: 6 tasks as containers, 4 dependencies",
        "by task: 1 states of no task left out", "by task: 1 messages left out",
        "by task: 1 pieces of tasks ran nested in another task's piece, whose column "
        "counts their time too"]  # task 3's first, in hpx_main
    assert "2 tasks without their parent in the trace" in " ".join(t.notes)  # the source's
    out = tmp_path / "tree.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(tmp_path / "apex"),
                        "--base", "tasktree", "-o", str(out), "--no-cache"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "8 states (exact), 4 links, 0 events on 6 tasktree nodes" in r.stderr
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(tmp_path / "apex"),
                        "--base", "tasktree", "-o", str(out), "--no-cache", "--save-state",
                        str(tmp_path / "s.json")], capture_output=True, text=True)
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(tmp_path / "apex"),
                        "--state", str(tmp_path / "s.json"), "-o", str(out), "--no-cache"],
                       capture_output=True, text=True)  # the saved base cuts by task again
    assert r.returncode == 0 and "on 6 tasktree nodes" in r.stderr, r.stderr


def test_cut_by_task_nesting_across_tasks_and_concurrent_pieces(paje):
    """On p1 task 1 "a" [0, 10] holds task 2 "c" [2, 8], which holds a timer of task 1
    [3, 4]: on task 1's container that timer is at depth 1 (inside [0, 10]), task 2's
    piece at depth 0 (a note says it ran inside task 1's piece); task 3 runs on p1
    [11, 13] and on p2 [12, 14] at once: a note. A trace whose GUIDs name no task: one
    line."""
    from triva3d.analysis.tasks import task_trace
    from conftest import TYPES
    head = TASKS_PAJE + TYPES + '5 a S "a" "1 0 0"\n5 c S "c" "1 1 0"\n'
    body = ('30 0 p1 S a 1 ""\n30 2 p1 S c 2 1\n30 3 p1 S a 1 ""\n13 4 p1 S\n13 8 p1 S\n'
            '13 10 p1 S\n30 11 p1 S c 3 1\n30 12 p2 S c 3 1\n13 13 p1 S\n13 14 p2 S\n')
    t = task_trace(paje(body, types=head))
    st = t.states
    rows = [(t.display_name("containers", c), a, b, int(i))
            for c, a, b, i in zip(st.container, st.start, st.end, st.imbrication)]
    assert rows == [("a 1", 0, 10, 0), ("a 1", 3, 4, 1), ("c 2", 2, 8, 0),
                    ("c 3", 11, 13, 0), ("c 3", 12, 14, 0)]
    notes = " | ".join(t.notes)
    assert "1 pieces of tasks ran nested in another task's piece" in notes
    assert "1 pieces overlap another piece of their task" in notes
    with pytest.raises(TraceError, match="no state names a task"):
        task_trace(paje('30 0 p1 S a "" ""\n13 1 p1 S\n', types=head))


TASKS_PAJE = """%EventDef PajePushState 30
% Time date
% Container string
% Type string
% Value string
% GUID string
% Parent_GUID string
%EndEventDef
"""


def test_tasks_of_a_paje_trace_worked_by_hand(paje):
    """A converted trace's fields (Parent_GUID, "" for none): on P1 task 1 "a" [0, 10]
    with its own timer "b" [1, 2] inside (the same GUID: no second piece), a wait
    (no task) [3, 6] holding task 2 [4, 5], and task 2^64 - 1 [7, 8]: task 1 ran
    10 - 1 - 1 = 8 s; a parent cycle is one line."""
    from triva3d.analysis.tasks import tasks
    from conftest import TYPES
    head = TASKS_PAJE + TYPES + ('5 a S "a" "1 0 0"\n5 b S "b" "0 1 0"\n'
                                 '5 w S "wait" "0 0 1"\n5 c S "c" "1 1 0"\n')
    top = 2 ** 64 - 1
    body = (f'30 0 p1 S a 1 0\n30 1 p1 S b 1 0\n13 2 p1 S\n12 3 p1 S w\n30 4 p1 S c 2 1\n'
            f'13 5 p1 S\n13 6 p1 S\n30 7 p1 S c {top} 1\n13 8 p1 S\n13 10 p1 S\n')
    tk = tasks(paje(body, types=head))
    assert [tk.id_text(i) for i in range(len(tk))] == ["1", "2", str(top)]
    assert tk.pieces.tolist() == [1, 1, 1] and tk.busy.tolist() == [8, 1, 1]
    assert tk.parent.tolist() == [-1, 0, 0] and tk.missing_parents == 1
    assert [tk.id_text(i) for i in tk.lineage(tk.find(top))] == ["1", str(top)]
    cycle = '30 0 p1 S a 1 2\n13 1 p1 S\n30 2 p1 S c 2 1\n13 3 p1 S\n'
    with pytest.raises(TraceError, match="task parents form a cycle"):
        tasks(paje(cycle, types=head))


def test_a_collective_inside_its_mpi_call_is_counted_once(tmp_path):
    """otf2gen.scorep_collectives: a collective inside its MPI call's region (also when
    its begin was written before the Enter at the same time) is no second state (a 200
    ns slice held 390 ns, BARRIER a call path beside main), the region's state has its
    operation as the field `collective`, and the event stays; one inside main alone or
    outside any region stays a state. Logical time joins the ranks' MPI_Barrier calls,
    and their MPI_Comm_dup calls, and keeps P1's two other collectives."""
    from triva3d.analysis.calltree import CallPaths
    from triva3d.analysis.logical import COLLECTIVE, steps
    from triva3d.analysis.timeslice import Slicer
    otf2gen.scorep_collectives(tmp_path / "a")
    tr = load(tmp_path / "a", cache=False)
    field = tr.states.extra["collective"]
    got = sorted(zip(names(tr, "states", "container"), names(tr, "states", "value"),
                     np.round(tr.states.start / NS), np.round(tr.states.end / NS),
                     [tr.names.display(int(x)) if x >= 0 else "" for x in field]))
    assert got == [
        ("P0 / t", "MPI_Barrier", 100, 300, "BARRIER"),
        ("P0 / t", "MPI_Comm_dup", 400, 500, "CREATE_HANDLE"), ("P0 / t", "main", 0, 1000, ""),
        ("P1 / t", "BARRIER", 600, 700, ""), ("P1 / t", "BARRIER", 1100, 1200, ""),
        ("P1 / t", "MPI_Barrier", 200, 300, "BARRIER"),
        ("P1 / t", "MPI_Comm_dup", 400, 500, "CREATE_HANDLE"), ("P1 / t", "main", 0, 1000, "")]
    assert sorted(zip(names(tr, "events", "container"), np.round(tr.events.time / NS))) == \
        [("P0 / t", 290), ("P0 / t", 490), ("P1 / t", 290), ("P1 / t", 490), ("P1 / t", 700),
         ("P1 / t", 1200)]
    sl = Slicer(tr).slice()
    values = [tr.display_name("values", int(v)) for v in sl.slicer.state_values]
    per = {tr.display_name("containers", c): dict(zip(values, np.round(sl.states[c] / NS)))
           for c in np.unique(tr.states.container).tolist()}
    assert per["P0 / t"] == {"main": 700, "MPI_Barrier": 200, "MPI_Comm_dup": 100, "BARRIER": 0}
    assert per["P1 / t"] == {"main": 800, "MPI_Barrier": 100, "MPI_Comm_dup": 100, "BARRIER": 200}
    paths = CallPaths(tr)
    assert {paths.text(int(p)) for p in paths.path} == \
        {"main", "main;MPI_Barrier", "main;MPI_Comm_dup", "BARRIER"}
    s = steps(tr)
    coll = np.flatnonzero(s.kind == COLLECTIVE)
    ends = np.round(s.end[coll] / NS).tolist()
    assert sorted(ends) == [300, 300, 500, 500, 700, 1200]
    step = {e: {int(x) for x, y in zip(s.step[coll], ends) if y == e} for e in (300, 500)}
    assert all(len(v) == 1 for v in step.values()) and step[300] != step[500]


def nest_by_stack(kind, time, a, b, c, d, end_time, begin=1, end=2):
    """_nest's result the plain way: one stack of Enters, one of collective begins."""
    states, coll, stack, cstack, ignored, other = [], [], [], [], 0, 0
    for i, k in enumerate(kind):
        if k == begin:
            stack.append(i)
        elif k == end and not stack:
            ignored += 1
        elif k == end:
            j = stack.pop()
            other += a[j] != a[i]
            states.append((a[j], time[j], time[i], len(stack), j, i))
        elif k == 9:
            cstack.append(i)
        elif k == 10 and cstack:
            j = cstack.pop()
            coll.append((a[i], b[i], c[i], d[i], time[j], time[i], i))
    still = len(stack)
    while stack:
        j = stack.pop()
        states.append((a[j], time[j], max(end_time, time[j]), len(stack), j, -1))
    return states, coll, ignored, other, still


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 2, 9, 10, 3, 14, 15]), st.integers(0, 2)),
                max_size=60), st.integers(0, 100), st.booleans(), st.booleans())
def test_regions_and_collectives_nest_as_a_stack_would(records, end_time, teams, compiled):
    """Enter/Leave (or thread teams' begin and end) and collective begin/end paired by
    the reader's walk, compiled or as Python, as a stack pairs them: Leaves on an empty
    stack or of another region counted, open regions closed at the end, innermost
    first."""
    from triva3d.kernels import interpreted
    from triva3d.otf2.reader import _nest
    kind = np.array([k for k, _ in records], np.int64)
    a = np.array([r for _, r in records], np.int64)
    time = np.arange(len(kind), dtype=np.int64) * 3
    b, c, d = a + 10, a + 20, a + 30
    pair = (14, 15) if teams else (1, 2)
    with interpreted(not compiled):
        reg, t0, t1, dep, i0, i1, coll, ignored, other, still = _nest(
            np.column_stack([kind, time, a, b, c, d]), end_time, *pair)
    states, expected_coll, *counts = nest_by_stack(kind, time, a, b, c, d, end_time, *pair)
    assert list(zip(reg.tolist(), t0.tolist(), t1.tolist(), dep.tolist(), i0.tolist(),
                    i1.tolist())) == [tuple(int(x) for x in s) for s in states]
    assert coll.tolist() == [[int(x) for x in row] for row in expected_coll]
    assert coll.shape == (len(expected_coll), 7)
    assert (ignored, other, still) == tuple(counts)


def test_the_callbacks_machine_code_is_kept_checked_and_rebuilt_when_damaged(ring, tmp_path):
    """The callbacks' machine code is kept in the user cache folder with its checksum;
    a damaged copy (it could crash LLVM's loader) or a FIFO is compiled again and
    written over, an unwritable folder only means compiling, and every read gives the
    same dump."""
    code = """if 1:
        import sys
        from triva3d.otf2.reader import read_otf2
        from conftest import dump_lines
        print(len(dump_lines(read_otf2(sys.argv[1]))))
    """
    folder = tmp_path / "cache"

    def read():
        env = dict(os.environ, TRIVA3D_CACHE_DIR=str(folder),
                   PYTHONPATH=str(Path(__file__).parent))
        return subprocess.run([sys.executable, "-c", code, str(ring)], env=env, text=True,
                              capture_output=True, check=True).stdout
    lines = read()
    assert int(lines) == len(dump_lines(read_otf2(ring)))
    (kept,) = (folder / "otf2").iterdir()
    good = kept.read_bytes()
    assert hashlib.sha256(good[32:]).digest() == good[:32]
    kept.write_bytes(good[:32] + bytes([good[32] ^ 0xFF]) + good[33:])
    assert read() == lines and kept.read_bytes() == good
    kept.write_bytes(good[:100])
    assert read() == lines and kept.read_bytes() == good
    kept.unlink()
    os.mkfifo(kept)  # (opened, it would wait for a writer)
    assert read() == lines and kept.read_bytes() == good
    shutil.rmtree(folder / "otf2")
    (folder / "otf2").write_text("a file where the folder goes")  # (root writes anywhere)
    assert read() == lines
