"""Hostile surroundings (issue 26): what the process is started with, and what is
left behind, gets one line and a non-zero exit, never a traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import HEADER, TYPES

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples" / "small.trace"


@pytest.mark.parametrize("command", [["stats"], ["dump"], ["topology", "info"]])
def test_a_closed_standard_output_is_one_line(command, data):
    """`triva3d stats T >&-` was an AttributeError traceback (issue 26.6)."""
    target = str(data / "platforms/small_platform.xml") if command[0] == "topology" \
        else str(SMALL)
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", *command, target],
                       stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if "compiling numba" not in ln]
    assert lines == ["triva3d: error: standard output: closed (the command started "
                     "without it)"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                        min_size=1, max_size=12), min_size=2, max_size=4, unique=True))
def test_dot_names_come_back_identical_or_are_refused(names):
    """The DOT writer doubled backslashes and wrote line breaks as `\\n`, which Graphviz
    reads as two characters (issue 26.1): a name comes back identical, or the write
    is refused in one line."""
    import io
    import tempfile
    from triva3d.bases.dotfile import read_dot, write_dot
    from triva3d.bases.topology import Topology
    from triva3d.errors import TraceError
    topo = Topology("g", "test")
    for n in names:
        topo.add_node(n, "host", note=n)
    topo.add_edge(names[0], names[1], 1e9, 1e-6)
    out = io.StringIO()
    try:
        write_dot(topo, out)
    except TraceError as e:
        assert "cannot be written in DOT" in str(e) and "\n" not in str(e)
        return
    with tempfile.NamedTemporaryFile("w", suffix=".dot", encoding="utf-8") as f:
        f.write(out.getvalue())
        f.flush()
        back = read_dot(f.name)
    assert sorted(back.names) == sorted(names)
    assert {back.node_attrs[back.index[n]]["note"] for n in names} == set(names)


@pytest.mark.parametrize("option", ["--mapping", "--colors", "--state"])
def test_an_endless_side_file_is_one_line(option, data, tmp_path):
    """`--mapping /dev/zero` was read until the kernel killed the process (issue
    26.3): side files are read up to a limit."""
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(SMALL),
                        "--topology", str(ROOT / "topologies/two_site_grid.dot"), option,
                        "/dev/zero", "-o", str(tmp_path / "x.png")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and not (tmp_path / "x.png").exists()
    lines = [ln for ln in r.stderr.splitlines() if "compiling numba" not in ln]
    assert len(lines) == 1 and lines[0].startswith("triva3d: error: /dev/zero: larger than "
                                                   "256 MiB")


def test_a_fifo_nobody_writes_to_is_one_line_and_one_written_later_is_read(tmp_path,
                                                                          monkeypatch):
    """A FIFO with no writer waited forever in open() (issue 26.3)."""
    import threading
    import time
    from triva3d import errors, load
    from triva3d.errors import TraceError, read_text
    monkeypatch.setattr(errors, "FIFO_WAIT", 0.5)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for read in (lambda: load(fifo), lambda: read_text(fifo, "the mapping")):
        with pytest.raises(TraceError, match="a FIFO no process wrote to in 0.5 s"):
            read()

    def write_later():
        time.sleep(0.2)
        with open(fifo, "wb") as f:
            f.write(SMALL.read_bytes())
    threading.Thread(target=write_later).start()
    assert len(load(fifo).states) == len(load(SMALL).states)


def test_otf2_events_before_the_clock_start_are_refused_or_spanned(tmp_path):
    """Definitions whose clock starts after some events (a mutated global offset) put
    states at negative times while the span said 0 .. end (issue 26.9): strict
    refuses with one line; lenient keeps them, counts them, and the span covers them."""
    import otf2
    from triva3d import load
    from triva3d.errors import TraceError
    path = tmp_path / "early"
    with otf2.writer.open(str(path), timer_resolution=1000) as w:
        d = w.definitions
        group = d.location_group("P", system_tree_parent=d.system_tree_node("node"))
        ev = w.event_writer("thread", group=group)
        for t0, t1 in ((1000, 1500), (2000, 3000)):
            ev.enter(t0, d.region("main"))
            ev.leave(t1, d.region("main"))
        w._first_timestamp = 1800  # the clock starts at tick 1800: 0.8 s after the first
    with pytest.raises(TraceError, match="before the clock's start at tick 1800") as e:
        load(path, cache=False)
    assert e.value.lenient_reads
    t = load(path, lenient=True, cache=False)
    assert sorted(t.states.start.tolist()) == pytest.approx([-0.8, 0.2])
    assert t.start_time == pytest.approx(-0.8) and t.states.start.min() >= t.start_time
    assert t.report_lines() == [
        "recovered: events before the clock's start (its global offset), kept: the trace "
        "starts with them: once, in 0.evt: location 0 ('thread'): event 0 at tick 1000, "
        "before the clock's start at tick 1800"]


def test_lenient_time_moves_say_the_span_they_made(trace_file):
    """A mutated time of 4e9 moved every later event of its container there: the
    recovery line says the span, so an empty-looking picture is explained (26.10)."""
    from conftest import HEADER, TYPES
    from triva3d import load
    path = trace_file(HEADER + TYPES + "11 1 p1 S run\n11 4000000000 p1 S io\n"
                                      "11 2 p1 S run\n11 3 p2 S run\n")
    t = load(path, lenient=True, cache=False)
    line = len((HEADER + TYPES).splitlines()) + 3  # the event at 2 s
    assert t.report_lines() == ["recovered: out-of-order events moved to the time of the "
                                "previous entity (the trace spans 0 .. 4e+09): once, at "
                                f"line {line}"]


@pytest.mark.parametrize("reader", ["colours", "keyframes", "configuration"])
def test_json_side_files_fail_in_one_line(tmp_path, reader):
    """Colours, keyframes and a generator's configuration are read by one JSON reader:
    bad JSON names its line; nesting beyond what json reads and an integer of 5000
    digits were tracebacks."""
    from triva3d.colors import read_colors
    from triva3d.errors import TraceError
    from triva3d.generate.hierarchy import read_config
    from triva3d.movie.paths import Keyframes
    read = {"colours": read_colors, "keyframes": Keyframes.load,
            "configuration": read_config}[reader]
    path = tmp_path / "x.json"
    for text, message in (("{\n\n,", r"x.json:3: not JSON: Expecting"),
                          ("[" * 100_000, r"x.json: nested too deeply to read"),
                          ("1" * 5000, r"x.json: not JSON: Exceeds the limit")):
        path.write_text(text)
        with pytest.raises(TraceError, match=message):
            read(path)


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """A Pajé trace of 1.5e6 states (55 MB), and its store."""
    from triva3d import load
    from triva3d.store import ingest
    path = tmp_path_factory.mktemp("big") / "big.trace"
    with open(path, "w") as f:
        f.write(HEADER + TYPES)
        f.writelines(f"11 {i} p1 S run\n13 {i}.5 p1 S\n" for i in range(1_500_000))
    ingest(load(path, cache=False), path.parent / "store")
    return path


@pytest.mark.parametrize("room_mb,store", [(4, False), (16, False), (64, False),
                                           (16, True)])
def test_a_trace_too_big_for_memory_is_one_line(room_mb, store, big_trace):
    """A trace or a store read where memory runs out (the process's address space
    capped a few MB above what it holds once the command has run on a small trace,
    4 to 64: a thread for the lexer may not start, an array may not grow) is one
    line naming it, exit 2."""
    path = big_trace.parent / "store" if store else big_trace
    code = f"""
import resource, sys
from triva3d import cli
from triva3d.paje import reader
reader.INTERPRET_BELOW = 0  # (the command, its kernels and Parquet loaded before the cap)
assert cli.main(["dump", "--no-cache", {str(SMALL)!r}]) == 0
import glob, pyarrow.parquet as pq
for f in glob.glob({str(big_trace.parent / "store" / "states" / "*" / "*.parquet")!r}):
    pq.ParquetFile(f).read_row_groups([0])  # (Arrow's threads started)
with open("/proc/self/status") as f:
    size = next(int(line.split()[1]) for line in f if line.startswith("VmSize")) * 1024
cap = size + {room_mb} * 2 ** 20
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
sys.exit(cli.main(["dump", "--no-cache", {str(path)!r}]))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (2, f"triva3d: error: {path}: ran out of memory "
                                           "reading it: too big for this machine's memory\n")


def test_running_out_of_memory_anywhere_is_one_line(monkeypatch, capsys):
    """A command that runs out of memory past the read (here the summary of `stats`)
    says so in one line, exit 2."""
    from triva3d import cli, stats

    def short(*a, **k):
        raise MemoryError()
    monkeypatch.setattr(stats, "summary", short)
    assert cli.main(["stats", "--no-cache", str(SMALL)]) == 2
    assert capsys.readouterr().err == ("triva3d: error: ran out of memory: what was asked "
                                       "is too big for this machine's memory\n")
