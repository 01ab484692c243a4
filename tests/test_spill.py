"""Ingest in bounded memory (spill.py): a Pajé trace simulated while its finished rows
are handed over and spilled writes the very store that the trace read whole does,
file by file, while the simulation holds a bounded number of rows."""
import glob
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import conftest
import otf2gen
from conftest import DATA, HEADER, SIZED_LINK, mutate_bytes
from test_fuzz import mutated
from triva3d import load
from triva3d.ahead import THREAD
from triva3d.errors import Triva3dError
from triva3d.otf2 import reader as otf2_reader
from triva3d.paje import reader
from triva3d.paje.simulator import SimState
from triva3d.spill import ingest_file
from triva3d.store import ingest, read_store

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def small_batches(monkeypatch):
    """Lexed batches of 16 lines: a hand-over can come after every 16 lines."""
    monkeypatch.setattr(reader, "LEX_LINES", 16)


def stores_differ(a, b):
    """What differs between the stores in folders `a` and `b` (every Parquet file's
    columns and row groups, store.json but its source), or None."""
    files = [sorted(os.path.relpath(p, d) for p in glob.glob(f"{d}/**/*.parquet",
                                                               recursive=True))
             for d in (a, b)]
    if files[0] != files[1]:
        return f"files {set(files[0]) ^ set(files[1])}"
    for f in files[0]:
        x, y = (pq.ParquetFile(os.path.join(d, f)) for d in (a, b))
        if x.metadata.num_row_groups != y.metadata.num_row_groups:
            return f"{f}: row groups"
        x, y = x.read(), y.read()
        if x.column_names != y.column_names:
            return f"{f}: columns {x.column_names} {y.column_names}"
        for c in x.column_names:
            u, v = (t.column(c).to_numpy(zero_copy_only=False) for t in (x, y))
            if not (len(u) == len(v) and np.array_equal(u, v, equal_nan=u.dtype.kind == "f")):
                return f"{f}: column {c}"
    meta = [json.loads(Path(d, "store.json").read_text()) for d in (a, b)]
    for m in meta:
        del m["source"]
    return None if meta[0] == meta[1] else "store.json"


def both_ways(path, tmp_path, lenient=False, rows=1):
    """The error both give (asserted the same, but for which of a trace's refusals
    by trace.check comes first), else what differs between the stores of `path` read
    whole and streamed, holding `rows` rows (None: nothing). An OTF2 archive is read
    whole in one thread, streamed a location ahead in a second one."""
    errors = []
    for way, out in (("whole", tmp_path / "whole"), ("streamed", tmp_path / "streamed")):
        try:
            with pytest.MonkeyPatch.context() as m:
                if way == "whole":
                    m.setattr(otf2_reader, "AHEAD_ABOVE", 1 << 62)
                    ingest(load(path, lenient=lenient, cache=False), out)
                else:
                    m.setattr(otf2_reader, "AHEAD_ABOVE", 0)
                    ingest_file(path, out, lenient=lenient, cache=False, rows=rows)
            errors.append(None)
        except Triva3dError as e:
            errors.append(str(e))
        assert not (out / ".spill").exists()
    refused = [e is not None and "cannot be stored:" in e for e in errors]
    assert errors[0] == errors[1] or all(refused)  # (which refusal first: its order)
    return errors[0] or stores_differ(tmp_path / "whole", tmp_path / "streamed")


PAJE = sorted(p.name for p in (DATA / "paje").glob("*.trace")) if DATA.is_dir() else []


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@pytest.mark.parametrize("name", PAJE + ["multiple_files/root.trace"])
@pytest.mark.parametrize("lenient", [False, True])
def test_a_streamed_trace_is_the_store_of_the_trace_read_whole(name, lenient, tmp_path,
                                                               small_batches):
    """Every Pajé trace of the shared data (native_paje.trace: both refuse it in strict
    mode, with the same error), strict and lenient, handed over every 16 lines."""
    got = both_ways(DATA / "paje" / name, tmp_path, lenient)
    assert got is None or (name == "native_paje.trace" and not lenient and "legacy" in got)


TYPES = conftest.TYPES + '4 LP P P P "Self"\n'  # (processes p1, p2 from the start)


@st.composite
def runs(draw):
    """A Pajé trace of processes made and destroyed along the run, with nested
    states, variables changed at the same time or later, events, and messages whose
    ends come in either order (an end first: its start at once, at the same time),
    some sized, some pending when their container goes (lenient: dropped), keys
    never reused."""
    lines, alive, made, t, key = [], [], 0, 0.0, 0
    depth, valued = {}, set()
    pending = {}  # key -> (link type, its container)
    for _ in range(draw(st.integers(1, 200))):
        t += draw(st.sampled_from([0.0, 0.0, 0.25, 1.0]))
        op = draw(st.sampled_from(["create", "destroy", "push", "pop", "set", "var", "add",
                                   "event", "start", "end"] if alive else ["create"]))
        p = draw(st.sampled_from(alive)) if alive else None
        v = draw(st.integers(0, 3))
        if op == "create":
            made += 1
            alive.append(made)
            depth[made] = 0
            lines.append(f'6 {t} q{made} P 0 "Q{made}"')
        elif op == "destroy":
            alive.remove(p)
            lines.append(f"7 {t} P q{p}")
        elif op in ("push", "set"):
            depth[p] = depth[p] + 1 if op == "push" else 1
            lines.append(f"{12 if op == 'push' else 11} {t} q{p} S s{v}")
        elif op == "pop" and depth[p]:
            depth[p] -= 1
            lines.append(f"13 {t} q{p} S")
        elif op == "var" or op == "add" and p in valued:
            valued.add(p)
            lines.append(f"{8 if op == 'var' else 9} {t} q{p} V {v}")
        elif op == "event":
            lines.append(f"17 {t} q{p} E e{v}")
        elif op == "start" or op == "end" and not pending:
            key += 1
            kind, owner = draw(st.sampled_from([("L", "0"), ("LP", f"q{p}")]))
            first = draw(st.sampled_from(["15", "16", "20"]))
            size = f" {draw(st.sampled_from(['8', '1e6', 'x']))}" if first == "20" else ""
            lines.append(f"{first} {t} {owner} {kind} q{p} m k{key}{size}")
            if first == "16":
                lines.append(f"15 {t} {owner} {kind} q{p} m k{key}")
            else:
                pending[key] = kind, owner
        elif op == "end":
            k = draw(st.sampled_from(sorted(pending)))
            kind, owner = pending.pop(k)
            lines.append(f"16 {t} {owner} {kind} q{p} m k{k}")
    return HEADER + SIZED_LINK + TYPES + "\n".join(lines) + "\n"


@settings(max_examples=60)
@given(runs(), st.booleans(), st.sampled_from([1, 8, 1 << 21]))
def test_generated_runs_stream_to_the_store_of_the_trace_read_whole(tmp_path_factory, trace,
                                                                    lenient, rows):
    reader.LEX_LINES, saved = 4, reader.LEX_LINES  # (a fixture is not per example)
    try:
        tmp = tmp_path_factory.mktemp("run")
        (tmp / "t.trace").write_text(trace)
        got = both_ways(tmp / "t.trace", tmp, lenient, rows)
    finally:
        reader.LEX_LINES = saved
    assert got is None or "t.trace" in got, got  # (an error names the file)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@settings(max_examples=60)
@given(mutated())
def test_mutated_traces_stream_as_they_read_whole(tmp_path_factory, data):
    """Lenient, on damaged traces: the same store or the same error."""
    reader.LEX_LINES, saved = 8, reader.LEX_LINES
    try:
        tmp = tmp_path_factory.mktemp("mutated")
        (tmp / "t.trace").write_bytes(data)
        got = both_ways(tmp / "t.trace", tmp, lenient=True)
        assert got is None or "t.trace" in got, got  # (an error names the file)
    finally:
        reader.LEX_LINES = saved


def test_a_key_reused_after_its_link_was_handed_over_is_found(tmp_path, small_batches, capsys):
    """Link keys reused after their link left the simulation (a short one, one of
    more than 8 bytes), beside one reused while its link was held, a long key that
    differs from another only after 8 bytes, and a key shared across link types:
    strict, the whole read's error at the first reuse's line; lenient, the same
    store, its report counting the three reuses from that line."""
    def link(t, key, kind="L", owner="0"):
        return [f"15 {t} {owner} {kind} p1 m {key}", f"16 {t + 0.5} {owner} {kind} p2 m {key}"]
    body = (link(1, "k1") + link(2, "longkey-0001") + link(3, "longkey-0002")
            + link(4, "k1", "LP", "p1") + sum((link(5 + i, f"f{i}") for i in range(20)), [])
            + link(30, "k1") + link(31, "longkey-0001") + link(32, "k9") + link(33, "k9"))
    header = HEADER + TYPES
    trace = tmp_path / "t.trace"
    trace.write_text(header + "\n".join(body) + "\n")
    first = header.count("\n") + body.index("15 30 0 L p1 m k1") + 1
    for lenient in (False, True):
        got = both_ways(trace, tmp_path / str(lenient), lenient)
        if lenient:
            assert got is None, got
        else:
            assert got == (f"{trace}:{first}: link key already used for another link of this "
                           "type and container")
    t = load(trace, lenient=True, cache=False)
    assert ("reused link keys started new links", 3, first) in t.report
    from triva3d import cli  # (which says so)
    capsys.readouterr()
    assert cli.main(["ingest", "--lenient", str(trace), "-o", str(tmp_path / "cli")]) == 0
    assert (f"triva3d: recovered: reused link keys started new links: 3 times, the first at "
            f"line {first}\n") in capsys.readouterr().err
    # reused in an included file (PajeTraceFile): its name and line; or before it, in
    # the including file, unseen, while the included file's reuse is seen at once
    include = "%EventDef PajeTraceFile 99\n% Container string\n% Type string\n" \
              "% Filename string\n%EndEventDef\n"
    (tmp_path / "part.trace").write_text("\n".join(link(40, "g") + link(41, "k1")) + "\n")
    for n, where in ((48, f"{tmp_path / 'part.trace'}:3"), (50, f"{trace}:{first + 5}")):
        trace.write_text(header + include + "\n".join(body[:n]) + "\n99 0 0 part.trace\n")
        assert both_ways(trace, tmp_path / f"included{n}", False) == (
            f"{where}: link key already used for another link of this type and container")
    # an error without a line after an unseen reuse (the included file unreadable)
    from triva3d.errors import TraceError
    from triva3d.paje.reader import open_input

    def refuse(path, what):
        if str(path).endswith("part.trace"):
            raise TraceError(path, None, "cannot read the trace")
        return open_input(path, what)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reader, "open_input", refuse)
        assert both_ways(trace, tmp_path / "unreadable", False) == \
            f"{trace}:{first + 5}: link key already used for another link of this type and container"


@pytest.mark.parametrize("end", ["15 40 0 L p1 m k1", "16 40 0 L p2 m k1",
                                 "15 40 q1 LP q1 m k1\n7 41 P q1"])
def test_a_key_reused_by_a_link_never_completed_is_found(end, tmp_path, small_batches):
    """An unseen reuse whose new link stays pending (to the end, or until its
    container goes): strict, the reuse's line, not the incomplete link; lenient, both
    counted, as in the whole read."""
    owner, kind = ("q1", "LP") if "q1" in end else ("0", "L")
    lines = ['6 0 q1 P 0 "Q1"'] + [
        x for i, key in enumerate(["k1"] + [f"f{i}" for i in range(20)])
        for x in (f"15 {1 + i} {owner} {kind} q1 m {key}", f"16 {1.5 + i} {owner} {kind} p2 m {key}")]
    trace = tmp_path / "t.trace"
    trace.write_text(HEADER + TYPES + "\n".join(lines) + "\n" + end + "\n")
    line = (HEADER + TYPES).count("\n") + len(lines) + 1
    assert both_ways(trace, tmp_path / "strict", False) == \
        f"{trace}:{line}: link key already used for another link of this type and container"
    assert both_ways(trace, tmp_path / "lenient", True) is None
    assert ("reused link keys started new links", 1, line) in \
        load(trace, lenient=True, cache=False).report


def test_a_refused_trace_leaves_the_store_there_and_no_spill(tmp_path, small_batches):
    """A trace refused late (a state ending before it starts, found as a bucket is
    written; an incomplete link, found at the end) is one line naming the trace; the
    store ingested before into the same folder stays whole, and nothing spilled
    stays; into a new folder, no folder stays."""
    from triva3d import cli
    good = ROOT / "examples" / "small.trace"
    ingest_file(good, tmp_path / "s", cache=False)
    before = read_store(tmp_path / "s")
    bodies = {"ending before it starts": '5 r S "run" "1 0 0"\n11 0 p1 S r\n11 3 p1 S r\n'
                             '15 1 0 L p1 r m\n16 2 0 L p2 r m\n',
              "incomplete link": "".join(f"11 {t} p1 S s{t % 3}\n" for t in range(200)) +
                                 "15 300 0 L p1 m k\n"}
    for why, body in bodies.items():
        bad = tmp_path / "bad.trace"
        bad.write_text(HEADER + TYPES + body)
        for out in (tmp_path / "s", tmp_path / "new"):
            err = subprocess.run([sys.executable, "-m", "triva3d.cli", "ingest", "--no-cache",
                                  str(bad), "-o", str(out)], capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONPATH=str(ROOT))).stderr
            assert len(err.strip().splitlines()) == 1 and str(bad) in err and why in err, err
        assert not (tmp_path / "new").exists() and not (tmp_path / "s" / ".spill").exists()
        after = read_store(tmp_path / "s")
        assert [len(getattr(after, t)) for t in ("states", "links")] == \
            [len(getattr(before, t)) for t in ("states", "links")]
    assert cli.main(["ingest", str(good), "-o", str(tmp_path / "s")]) == 0


def rows_held(monkeypatch):
    """The rows the simulation holds each time it may hand over (a list, filled)."""
    held, spill_if_full = [], SimState.spill_if_full

    def watch(sim):
        held.append(sim.held())
        spill_if_full(sim)
    monkeypatch.setattr(SimState, "spill_if_full", watch)
    return held


def test_the_simulation_holds_a_bounded_number_of_rows(tmp_path, monkeypatch):
    """Streamed, a run of 20 000 entities (4 processes: nested states, variables,
    events, messages between them) never has more than a few hundred rows held
    (`rows` 256, batches of 16 lines), where read whole it holds them all; what it
    writes is the store of the trace read whole."""
    monkeypatch.setattr(reader, "LEX_LINES", 16)
    lines = [f'6 0 p{k} P 0 "P{k}"' for k in range(3, 5)]
    for i in range(4000):
        p, q = f"p{1 + i % 4}", f"p{1 + (i + 1) % 4}"
        lines += [f"12 {i} {p} S s{i % 3}", f"12 {i + 0.2} {p} S t", f"13 {i + 0.4} {p} S",
                  f"8 {i} {p} V {i % 7}", f"17 {i + 0.1} {p} E e",
                  f"15 {i + 0.5} 0 L {p} m k{i}", f"16 {i + 0.9} 0 L {q} m k{i}",
                  f"13 {i + 0.95} {p} S"]
    path = tmp_path / "t.trace"
    path.write_text(HEADER + TYPES + "\n".join(lines) + "\n")
    held = rows_held(monkeypatch)
    assert both_ways(path, tmp_path, rows=256) is None
    whole = load(path, cache=False)
    assert sum(len(getattr(whole, t)) for t in ("states", "links", "variables", "events")) \
        == 20000
    assert len(held) > 100 and max(held) < 256 + 8 * 16


def test_ingest_says_what_it_wrote(tmp_path, capsys):
    """`triva3d ingest TRACE -o DIR` of a Pajé trace says the rows of each table and
    the files written, and DIR reads as the trace does."""
    from triva3d import cli
    from conftest import dump_lines
    small = ROOT / "examples" / "small.trace"
    assert cli.main(["ingest", "--no-cache", str(small), "-o", str(tmp_path / "s")]) == 0
    err = capsys.readouterr().err
    files = len(list((tmp_path / "s").glob("**/*.parquet"))) + 1
    assert "a store of 1066 states, 291 links, 364 variable pieces, 226 events in " \
        f"{files} files" in err, err
    assert dump_lines(read_store(tmp_path / "s")) == dump_lines(load(small, cache=False))
    read, written = [], []
    ingest_file(small, tmp_path / "s", cache=False, progress=lambda *a: read.append(a),
                writing=lambda *a: written.append(a))
    size = small.stat().st_size
    buckets = len(json.loads((tmp_path / "s" / "store.json").read_text())["bucket_starts"]) - 1
    assert read[-1] == (size, size) and written[-1] == (buckets, buckets) and buckets > 1
    assert [d for d, _ in written] == sorted(d for d, _ in written)


def test_short_lived_containers_are_let_go_and_odd_field_names_spill(tmp_path, monkeypatch):
    """4000 processes made, given a state, a variable piece, an event and a
    user-defined field named 'bytes/s' (a file name could not hold it), then
    destroyed: the rows of the destroyed ones are handed over (nothing reads them
    again), so the simulation holds a few hundred rows at most; the store is the one
    of the trace read whole."""
    monkeypatch.setattr(reader, "LEX_LINES", 16)
    event = ("%EventDef PajeNewEvent 21\n% Time date\n% Container string\n% Type string\n"
             "% Value string\n% bytes/s string\n%EndEventDef\n")
    lines = []
    for i in range(4000):
        lines += [f'6 {i} q{i} P 0 "Q{i}"', f"11 {i} q{i} S s", f"8 {i} q{i} V {i}",
                  f"21 {i} q{i} E e {i % 5}", f"7 {i + 0.5} P q{i}"]
    path = tmp_path / "t.trace"
    path.write_text(HEADER + event + TYPES + "\n".join(lines) + "\n")
    held = rows_held(monkeypatch)
    assert both_ways(path, tmp_path, rows=256) is None
    assert len(held) > 100 and max(held) < 256 + 16
    assert list(read_store(tmp_path / "streamed").events.extra) == ["bytes/s"]


#: OTF2 archives written as their tools write them (otf2gen), each with what it holds.
WRITTEN = {"ring": otf2gen.mpi_ring,  # MPI messages, collectives
           "scorep_collectives": otf2gen.scorep_collectives,  # held by MPI calls or not
           "threads": lambda p: otf2gen.threads(p, 3),  # OpenMP teams, forks
           "accelerator": otf2gen.accelerator, "metrics": otf2gen.metrics_only,
           "openmp_io_rma": otf2gen.openmp_io_rma,  # tasks, I/O, RMA puts and gets
           "apex": otf2gen.apex_tasks,  # tasks' GUIDs: dependencies across threads
           "fields_met_late": otf2gen.fields_met_late}  # each table's fields in one order
SHARED_OTF2 = sorted(p.parent.name for p in (DATA / "otf2").glob("*/traces.otf2")) \
    if DATA.is_dir() else []


@pytest.mark.parametrize("name", sorted(WRITTEN))
@pytest.mark.parametrize("lenient", [False, True])
def test_an_archive_streamed_is_the_store_of_the_archive_read_whole(name, lenient, tmp_path):
    """An OTF2 archive read a location at a time (each its own batch: its messages'
    ends a partition of their own) writes the very store of the archive read whole."""
    WRITTEN[name](tmp_path / "a")
    assert both_ways(tmp_path / "a", tmp_path, lenient) is None


def test_each_table_keeps_its_fields_in_the_order_met(tmp_path):
    """otf2gen.fields_met_late read whole: the events' fields as the locations meet
    them (t0's threads, then t1's task ids; `creator`, never given, left out); the
    links' Size and Tag, then the attributes as the locations meet them, a location's
    sends before its receives (t2's S, then R), whichever partition holds the message
    (streamed a location at a time, R's is t0's: test above)."""
    otf2gen.fields_met_late(tmp_path / "a")
    t = load(tmp_path / "a", cache=False)
    assert list(t.events.extra) == ["threads", "task"]
    assert list(t.links.extra) == ["Size", "Tag", "S", "R"]
    assert list(t.states.extra) == ["task"]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@pytest.mark.parametrize("name", SHARED_OTF2)
def test_shared_archives_stream_to_the_store_of_the_archive_read_whole(name, tmp_path):
    """Score-P's archives of the shared data (messages, PAPI counters), a location at
    a time."""
    assert both_ways(DATA / "otf2" / name, tmp_path) is None


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_archives_stream_as_they_read_whole(tmp_path_factory, data):
    """An archive's event file overwritten, cut or grown: the same store or the same
    error, strict and lenient, read whole or a location at a time. (Its definitions
    are read by the OTF2 library alike both ways; damaged, they once read differently
    from one read to the next in a long run of such tests.)"""
    root = tmp_path_factory.mktemp("mutated")
    data.draw(st.sampled_from([otf2gen.mpi_ring, otf2gen.openmp_io_rma]))(root / "a")
    files = sorted((root / "a").rglob("*.evt"))
    path = data.draw(st.sampled_from(files))
    path.write_bytes(mutate_bytes(data.draw, path.read_bytes()))
    for lenient in (False, True):
        got = both_ways(root / "a", root, lenient)
        assert got is None or "a" in got, got


def test_an_archive_is_handed_over_a_batch_of_locations_at_a_time(tmp_path, monkeypatch):
    """16 ranks of 2496 records each, batches of 5000 records (a batch: the locations
    that start within its records): each of the 8 hand-overs holds three locations'
    rows at most, the messages' ends are kept in 8 partitions (their senders'
    batches), and the store is the archive's read whole."""
    from triva3d.spill import Spill
    otf2gen.big(tmp_path / "a", 40000, ranks=16)
    handed, partitions = [], set()
    spill, add = Spill.__call__, otf2_reader._Messages.add

    def watch(self, tables, keys=None, dropped=None):
        handed.append({name: len(t["row"]) for name, t in tables.items()})
        spill(self, tables, keys, dropped)

    def kept(self, side, partition, ends):
        partitions.update(partition.tolist())
        add(self, side, partition, ends)
    monkeypatch.setattr(Spill, "__call__", watch)
    monkeypatch.setattr(otf2_reader._Messages, "add", kept)
    assert both_ways(tmp_path / "a", tmp_path, rows=5000) is None
    whole = load(tmp_path / "a", cache=False)
    per_location = np.bincount(whole.states.container).max()
    states = [h["states"] for h in handed if "states" in h]
    assert len(states) == 8 and max(states) <= 3 * per_location
    assert sum(states) == len(whole.states) and partitions == set(range(8))
    assert sum(h.get("links", 0) for h in handed) == len(whole.links) > 0


def test_messages_to_ranks_outside_their_communicator_stream(tmp_path):
    """A send to rank 5 and a receive from rank 7 of a 2-rank communicator, and a
    message in OTF2's undefined communicator (reference 2^32 - 1, negative where it
    is packed in a record): no partition holds them (they are counted unmatched),
    streamed as read whole; the message between them is matched."""
    import types
    import otf2
    undefined = types.SimpleNamespace(_ref=0xFFFFFFFF)
    with otf2.writer.open(str(tmp_path / "a"), timer_resolution=1_000_000_000) as w:
        d, e0, e1, comm = otf2gen.two_ranks(w)
        e0.mpi_send(10, 5, comm, 0, 8)
        e1.mpi_recv(20, 7, comm, 0, 8)
        e0.mpi_send(30, 1, undefined, 0, 8)
        e0.mpi_send(40, 1, comm, 0, 8)
        e1.mpi_recv(50, 0, undefined, 0, 8)
        e1.mpi_recv(60, 0, comm, 0, 8)
    assert both_ways(tmp_path / "a", tmp_path) is None
    assert ["MPI messages without their other end (not drawn)", 4, None] in \
        json.loads((tmp_path / "streamed" / "store.json").read_text())["report"]
    links = load(tmp_path / "a", cache=False).links
    assert links.start.tolist() == pytest.approx([30e-9]) and \
        links.end.tolist() == pytest.approx([50e-9])  # (from the first event, at 10)


def test_an_archive_read_ahead_holds_two_locations_and_stops_its_thread(tmp_path, monkeypatch):
    """Read a location ahead by a second thread: when it starts reading one, the
    locations started but not yet built are that one and at most one other (taken
    from it, its slot freed: the thread reads one ahead); a progress callback that
    raises ends the read, its thread gone, once the thread has run."""
    otf2gen.big(tmp_path / "a", 40000, ranks=16)
    monkeypatch.setattr(otf2_reader, "AHEAD_ABOVE", 0)
    started, taken, ahead, threads = [0], [0], [], []
    read, take = otf2_reader._read_location, otf2_reader._Builder.take

    def reading(*args):
        started[0] += 1
        ahead.append((started[0] - taken[0], threading.current_thread().name))
        return read(*args)

    def building(self, *args):
        taken[0] += 1
        return take(self, *args)
    monkeypatch.setattr(otf2_reader, "_read_location", reading)
    monkeypatch.setattr(otf2_reader._Builder, "take", building)
    assert len(load(tmp_path / "a", cache=False).containers) > 16
    assert taken == started == [16] and max(n for n, _ in ahead) <= 2
    assert {name for _, name in ahead} == {THREAD}

    def stop(done, total):
        threads.extend(t.name for t in threading.enumerate() if t.name == THREAD)
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        otf2_reader.read_otf2(tmp_path / "a", progress=stop)
    assert threads == [THREAD] and taken[0] == 17
    assert not [t for t in threading.enumerate() if t.name == THREAD]


def test_key_records_of_long_keys_are_exact_a_block_at_a_time(tmp_path, monkeypatch):
    """Keys longer than a block of bytes (hashed a block of positions at a time), keys
    sharing their first 8 bytes, NUL bytes: the second hash is the same whatever
    the block, and tells such keys apart."""
    from triva3d import spill
    keys = [b"a" * 20, b"a" * 19 + b"b", b"abcdefgh\0\0\0", b"abcdefgh\0\0\0\0", b"x" * 9]
    lengths = np.array([len(k) for k in keys], np.int64)
    text = np.frombuffer(b"".join(keys), np.uint8)
    starts = np.cumsum(lengths) - lengths
    whole = spill._hash2(lengths, starts, text)
    assert len(set(whole.tolist())) == len(keys)
    for block in (1, 3, 7):
        monkeypatch.setattr(spill, "KEY_BLOCK", block)
        assert (spill._hash2(lengths, starts, text) == whole).all()
