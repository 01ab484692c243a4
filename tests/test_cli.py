"""The command line: output, exit codes, one-line errors."""
import json
import subprocess
import stat
import sys
from pathlib import Path

import pytest

from conftest import HEADER, TYPES
from triva3d import load

BODY = "11 1 p1 S run\n12 2 p1 S io\n17 2 p2 E x\n13 3 p1 S\n"


def run(*args, tmp_path):
    env_cache = {"TRIVA3D_CACHE_DIR": str(tmp_path / "cache")}
    import os
    return subprocess.run([sys.executable, "-m", "triva3d.cli", *map(str, args)],
                          capture_output=True, text=True, env={**os.environ, **env_cache})


def test_stats_text_and_json(trace_file, tmp_path):
    path = trace_file(HEADER + TYPES + BODY)
    p = run("stats", path, tmp_path=tmp_path)
    assert p.returncode == 0
    assert "2 containers, 2 states, 0 variable pieces, 0 links, 1 events" in p.stdout
    # io (1 s) nested in run (2 s): run's 2 s hold io's (the treemap says 1 s): said
    assert "State: state, 2, max imbrication 1 (times inclusive: a nested state's also " \
           "in its parents')" in p.stdout
    s = json.loads(run("stats", "--json", path, tmp_path=tmp_path).stdout)
    state = next(t for t in s["types"] if t["name"] == "State")
    assert {v["name"]: (v["count"], v["time"]) for v in state["values"]} == {"run": (1, 2.0),
                                                                             "io": (1, 1.0)}
    assert s["start"] == 0 and s["end"] == 3 and s["from_cache"] is True


def test_dump_prints_pj_dump_lines(trace_file, tmp_path):
    p = run("dump", trace_file(HEADER + TYPES + BODY), tmp_path=tmp_path)
    assert p.returncode == 0
    assert sorted(p.stdout.splitlines()) == sorted([
        "Container, 0, 0, 0, 3, 3, 0",
        'Container, 0, "Process", 0, 3, 3, "P1"',
        'Container, 0, "Process", 0, 3, 3, "P2"',
        'State, "P1", "State", 1.000000, 3.000000, 2.000000, 0.000000, run',
        'State, "P1", "State", 2.000000, 3.000000, 1.000000, 1.000000, io',
        'Event, "P2", "Mark", 2.000000, x'])


@pytest.mark.parametrize("text,message", [
    ("11 1 p1 S run\n", "event id '11' has no complete %EventDef"),
    (HEADER + TYPES + "13 1 p1 S\n", "PajePopState with no state pushed"),
    (b"\xff\xfe%EventDef\n", "has no complete %EventDef"),
])
def test_bad_input_is_one_line_and_exit_2(trace_file, tmp_path, text, message):
    path = trace_file(text)
    for cmd in ("dump", "stats"):
        p = run(cmd, path, tmp_path=tmp_path)
        assert p.returncode == 2
        assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
        assert p.stderr.startswith(f"triva3d: error: {path}:") and message in p.stderr


def test_missing_file(tmp_path):
    p = run("stats", tmp_path / "nope.trace", tmp_path=tmp_path)
    assert p.returncode == 2 and "No such file or directory" in p.stderr


def test_lenient_reports_recoveries(trace_file, tmp_path):
    path = trace_file(HEADER + TYPES + "13 1 p1 S\n")
    p = run("dump", "--lenient", path, tmp_path=tmp_path)
    assert p.returncode == 0
    line = HEADER.count("\n") + TYPES.count("\n") + 1
    assert said(p) == ["triva3d: recovered: PajePopState with nothing pushed ignored: once, "
                       f"at line {line}"]


@pytest.mark.parametrize("command", [
    ["convert", "{t}", "-o", "{t}"],
    ["topology", "convert", "{g}", "-o", "{g}"],
    ["place", "{t}", "--topology", "{g}", "--mapping", "{m}", "--csv", "{m}"],
    ["render", "{t}", "--topology", "{g}", "--state", "{v}", "--save-state", "{v}",
     "-o", "{dir}/x.png"],
    ["animate", "{t}", "--path", "{v}", "--script", "{v}", "-o", "{dir}/x.gif"],
])
def test_an_output_naming_an_input_is_refused(trace_file, tmp_path, command):
    """`convert T -o T` wrote over the trace: every output is checked against every
    input before any work (issue 17), through links too."""
    t = trace_file(HEADER + TYPES + BODY)
    g = tmp_path / "g.dot"
    g.write_text('graph g { "p1" [kind=host]; "p2" [kind=host]; "p1" -- "p2"; }\n')
    m = tmp_path / "m.csv"
    m.write_text("container,node\nP1,p1\n")
    v = tmp_path / "v.json"
    v.write_text('{"format": 1}\n')
    (tmp_path / "link.trace").symlink_to(t)
    names = {"t": t, "g": g, "m": m, "v": v, "dir": tmp_path}
    before = {p: p.read_bytes() for p in (t, g, m, v)}
    args = [a.format(**names) for a in command]
    if command[0] == "convert":
        args[-1] = str(tmp_path / "link.trace")  # the same file under another name
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == 2 and "this is also an input" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in before} == before


def test_unwritable_outputs_and_a_full_disk_are_one_line(trace_file, tmp_path):
    """No OSError handling at all gave tracebacks (issue 17)."""
    import os
    t = trace_file(HEADER + TYPES + BODY)
    g = tmp_path / "g.dot"
    g.write_text('graph g { "p1" -- "p2"; }\n')
    nowhere = tmp_path / "missing" / "out"
    for args, where in ((["topology", "convert", g, "-o", f"{nowhere}.dot"], f"{nowhere}.dot"),
                        (["place", t, "--csv", f"{nowhere}.csv"], f"{nowhere}.csv")):
        p = run(*args, tmp_path=tmp_path)
        assert p.returncode == 2 and p.stderr.strip() == \
            f"triva3d: error: {where}: cannot write: the folder {nowhere.parent} does not exist"
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    for command in ("dump", "stats"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([sys.executable, "-m", "triva3d.cli", command, str(t)],
                               stdout=full, stderr=subprocess.PIPE, text=True)
        assert p.returncode == 2
        assert p.stderr.strip() == "triva3d: error: standard output: No space left on device"


def test_errors_never_echo_escape_sequences_or_huge_lines(trace_file, tmp_path):
    """An input's terminal escape sequences are escaped, and a 100 000-character
    token is cut: the error stays one safe line (issue 17)."""
    evil = trace_file(HEADER + TYPES + "\x1b[31mEVIL\x1b[0m 1 p1\n")
    p = run("stats", evil, "--no-cache", tmp_path=tmp_path)
    assert p.returncode == 2 and "\x1b" not in p.stderr and "\\x1b[31mEVIL" in p.stderr
    huge = trace_file(HEADER + TYPES + "9" * 100_000 + " 1 p1\n")
    p = run("stats", huge, "--no-cache", tmp_path=tmp_path)
    line, = said(p)
    assert p.returncode == 2 and line.endswith("...") and len(line) <= len("triva3d: error: ") + 400


@pytest.mark.parametrize("name, data, command, message", [
    ("latin.dot", b'graph g { "h\xe9te" [kind=host]; "b" -- "h\xe9te"; }\n',
     ["topology", "info", "{f}"], "latin.dot:1: not UTF-8 text (byte 0xe9): save it as UTF-8"),
    ("latin.csv", b"container,node\nP1,a-\xe91\n", ["place", "{t}", "--topology", "{g}",
                                                   "--mapping", "{f}"],
     "latin.csv:2: not UTF-8 text (byte 0xe9): save it as UTF-8"),
    ("big.csv", b"container,node\nP1," + b"x" * 200_000 + b"\n",
     ["place", "{t}", "--topology", "{g}", "--mapping", "{f}"],
     "big.csv:2: not a CSV row: field larger than field limit (131072)"),
    ("enc.xml", b'<?xml version="1.0" encoding="klingon"?>\n<platform version="4.1"/>\n',
     ["topology", "info", "{f}"], "enc.xml:1: malformed XML: unknown encoding: klingon"),
])
def test_topology_and_mapping_files_that_are_not_utf8_or_csv(trace_file, tmp_path, name, data,
                                                             command, message):
    """Four tracebacks of issue 17, each one line now, naming the file and line."""
    f = tmp_path / name
    f.write_bytes(data)
    g = tmp_path / "g.dot"
    g.write_text('graph g { "p1" [kind=host]; "a-1" [kind=host]; "p1" -- "a-1"; }\n')
    t = trace_file(HEADER + TYPES + BODY)
    p = run(*[a.format(f=f, g=g, t=t) for a in command], tmp_path=tmp_path)
    assert p.returncode == 2 and p.stderr.strip() == f"triva3d: error: {f.parent}/{message}"


def test_hierarchies_thousands_deep(trace_file, tmp_path):
    """2000 nested container types and containers: stats recursed past Python's
    limit and the treemap divided by zero once sizes underflowed (issue 17)."""
    lines = [HEADER]
    parent = "0"
    for i in range(2000):
        lines.append(f'0 T{i} {parent} "T{i}"\n')
        parent = f"T{i}"
    lines.append('2 S T1999 "S"\n')
    parent = "0"
    for i in range(2000):
        lines.append(f'6 0 c{i} T{i} {parent} "c{i}"\n')
        parent = f"c{i}"
    lines.append("11 1 c1999 S run\n11 2 c1999 S io\n")
    t = trace_file("".join(lines))
    p = run("stats", t, tmp_path=tmp_path)
    assert p.returncode == 0 and "T1999: container, 1" in p.stdout
    for args in (["render", t, "-o", tmp_path / "r.png"], ["treemap", t, "-o", tmp_path / "t.png"]):
        p = run(*args, tmp_path=tmp_path)
        assert p.returncode == 0, p.stderr


def test_hierarchy_files_with_bad_sizes_or_very_deep(tmp_path):
    """NaN and 1e400 sizes were a ValueError traceback, 500-deep JSON a
    RecursionError (issue 17): 600 levels now read, 6000 are one line."""
    small = Path(__file__).resolve().parents[1] / "examples/small.trace"
    bad = tmp_path / "nan.json"
    bad.write_text('{"name": "r", "children": [{"name": "a", "size": NaN}]}')
    p = run("render", small, "--topology", bad, "-o", tmp_path / "x.png", tmp_path=tmp_path)
    assert p.returncode == 2 and said(p) == [
        f"triva3d: error: {bad}: a: size must be a finite non-negative number, not nan"]
    for depth, ok in ((600, True), (6000, False)):
        deep = tmp_path / f"deep{depth}.json"
        deep.write_text('{"name": "n", "children": [' * depth + '{"name": "leaf"}'
                        + "]}" * depth)
        p = run("render", small, "--topology", deep, "-o", tmp_path / "x.png", tmp_path=tmp_path)
        assert (p.returncode == 0) == ok, p.stderr
        if not ok:
            assert said(p) == [f"triva3d: error: {deep}: nested deeper than 5000 levels"]


def test_platform_zones_nested_deep(tmp_path):
    """Zones 600 deep were a RecursionError (issue 17): they read now; beyond 5000
    levels it is one line."""
    for depth, ok in ((600, True), (6000, False)):
        xml = tmp_path / f"z{depth}.xml"
        xml.write_text('<?xml version="1.0"?>\n<platform version="4.1">\n'
                       + "".join(f'<zone id="z{i}" routing="Full">\n' for i in range(depth))
                       + '<host id="h" speed="1Gf"/>\n' + "</zone>\n" * depth + "</platform>\n")
        p = run("topology", "info", xml, tmp_path=tmp_path)
        assert (p.returncode == 0) == ok, p.stderr
        if not ok:
            assert p.stderr.strip() == (f"triva3d: error: {xml}: zones nested 6000 deep; this "
                                        "reader takes 5000 levels at most")


def test_a_file_without_newlines_is_refused_not_buffered(trace_file, monkeypatch):
    """/dev/zero grew a buffer without bound (issue 17): a line longer than
    MAX_LINE is an error (here MAX_LINE is made small; /dev/zero meets the real one)."""
    from triva3d import TraceError, load
    from triva3d.paje import reader
    monkeypatch.setattr(reader, "MAX_LINE", 1000)
    path = trace_file(HEADER + "x" * 5000)
    with pytest.raises(TraceError, match=r":\d+: a line longer than 0 MiB: not a Pajé trace"):
        load(path, cache=False)


def test_outputs_are_replaced_whole_or_not_at_all(tmp_path):
    """Outputs were written in place: a failure (or kill -9) left half a file over
    the old one (issue 17)."""
    import os
    from triva3d.output import writing
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    with pytest.raises(RuntimeError):
        with writing(out) as f:
            f.write("half a line")
            raise RuntimeError("interrupted")
    assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["out.csv"]
    with writing(out) as f:
        f.write("new\n")
    assert out.read_text() == "new\n" and os.listdir(tmp_path) == ["out.csv"]
    assert os.stat(out).st_mode & 0o777 == 0o640   # the file's mode is kept


@pytest.mark.parametrize("cluster, message", [
    ('radical="0-9999999"', "more than 500000 hosts"),             # 150 bytes, 1e7 hosts
    ('radical="9-0"', "the range 9-0 is empty"),                    # was a cluster of 0 hosts
    ('radical="0-999999" topology="FAT_TREE" topo_parameters="2;1000,1000;1000,1000;1,1"',
     "more than 500000 hosts"),
    ('radical="0-9999" topology="FAT_TREE" topo_parameters="2;100,100;1000,1000;1,1"',
     "a fat-tree of 1110000 nodes"),  # 1e4 hosts + 1e5 + 1e6 switches
])
def test_huge_platforms_are_refused_before_allocating(tmp_path, cluster, message):
    path = tmp_path / "huge.xml"
    path.write_text('<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="z" '
                    f'routing="Full">\n<cluster id="c" prefix="h" suffix="" {cluster} '
                    'speed="1Gf" bw="1GBps" lat="1us"/>\n</zone>\n</platform>\n')
    p = run("topology", "info", path, tmp_path=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert message in p.stderr and f"{path}:4:" in p.stderr


def test_pipes_and_fifos_are_read_whole(trace_file, tmp_path):
    """The format sniffer ate the first block of a pipe (an error at line 1), and
    a FIFO was opened twice, so the second open waited forever (issue 17)."""
    import os
    import threading
    text = (HEADER + TYPES + BODY).encode()
    p = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", "/dev/stdin"],
                       input=text, capture_output=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    direct = run("stats", trace_file(text), tmp_path=tmp_path)
    assert p.stdout.decode().split("\n")[1:3] == direct.stdout.split("\n")[1:3]
    fifo = tmp_path / "fifo.trace"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(text))
    writer.start()
    p = run("stats", fifo, tmp_path=tmp_path)
    writer.join(timeout=30)
    assert p.returncode == 0 and p.stdout.split("\n")[1:3] == direct.stdout.split("\n")[1:3]
    cached = os.listdir(tmp_path / "cache")
    assert cached and not [n for n in cached if "fifo" in n]   # the file was cached, not the FIFO


def said(p):
    """The lines of a run's stderr, less the note of a cold numba cache."""
    from triva3d.kernels import MESSAGE
    return [x for x in p.stderr.splitlines() if MESSAGE not in x]


def one_line_error(p):
    """The error line of a run that must fail as a user's error: exit 2, one line."""
    lines = said(p)
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr and lines[0].startswith("triva3d: error: ")
    return lines[0]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
@pytest.mark.parametrize("command", ["render", "stats", "dump"])
def test_a_trace_holding_nothing_is_refused(trace_file, tmp_path, text, command):
    """An empty file rendered a blank picture, exit 0 (issue 25.13)."""
    path = trace_file(text)
    out = ["-o", tmp_path / "x.png"] if command == "render" else []
    line = one_line_error(run(command, path, *out, tmp_path=tmp_path))
    why = "an empty file" if not text else "no Pajé definitions or events"
    assert line == f"triva3d: error: {path}: holds nothing: {why}"
    assert not (tmp_path / "x.png").exists()


def test_dev_null_holds_nothing(tmp_path):
    line = one_line_error(run("render", "/dev/null", "-o", tmp_path / "x.png", tmp_path=tmp_path))
    assert line == "triva3d: error: /dev/null: holds nothing: an empty file"
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("option", [["--mapping", "{m}"], ["--pattern", "(P)"]])
@pytest.mark.parametrize("command", [["render", "-o", "{dir}/x.png"], ["place"],
                                     ["render", "--base", "timeline", "-o", "{dir}/x.png"]])
def test_a_mapping_without_a_topology_is_refused(trace_file, tmp_path, option, command):
    """--mapping or --pattern without a topology were silently ignored: the
    treemap of the trace has no nodes to map onto (issue 25.13)."""
    t = trace_file(HEADER + TYPES + BODY)
    m = tmp_path / "m.csv"
    m.write_text("container,node\nP1,p1\n")
    args = [a.format(m=m, t=t, dir=tmp_path) for a in [command[0], "{t}"] + command[1:] + option]
    line = one_line_error(run(*args, tmp_path=tmp_path))
    what = "mapping" if option[0] == "--mapping" else "pattern"
    base = "timeline" if "timeline" in command else "treemap"
    assert line == (f"triva3d: error: a {what} places containers on the nodes of a topology "
                    "or of the communication graph, and there is no topology to map onto "
                    f"(the {base} base draws the trace's own containers)")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("name, content", [
    ("README.md", b"# triva3d\n\nDraw traces in 3D.\n\n```bash\ntriva3d render T -o x.png\n```\n"),
    ("tool", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4),
    ("empty.trace", b""),
])
def test_a_topology_that_is_no_topology_says_what_is_read(trace_file, tmp_path, name, content):
    """README.md or a binary file as --topology got a Pajé parser message
    ("event id '```bash' has no complete %EventDef") (issue 25.13)."""
    f = tmp_path / name
    f.write_bytes(content)
    t = trace_file(HEADER + TYPES + BODY)
    for args in (["render", t, "--topology", f, "-o", tmp_path / "x.png"],
                 ["topology", "info", f]):
        line = one_line_error(run(*args, tmp_path=tmp_path))
        assert line == (f"triva3d: error: {f}: not a topology file: triva3d reads Graphviz "
                        "(.dot, .gv), SimGrid platform XML, SimGrid platform traces (Pajé) "
                        "and, for a treemap base, JSON resource hierarchies (.json)")
    assert not (tmp_path / "x.png").exists()


def test_a_directory_as_topology(trace_file, tmp_path):
    t = trace_file(HEADER + TYPES + BODY)
    for args in (["render", t, "--topology", tmp_path, "-o", tmp_path / "x.png"],
                 ["topology", "info", tmp_path]):
        line = one_line_error(run(*args, tmp_path=tmp_path))
        assert line == f"triva3d: error: {tmp_path}: is a directory, not a topology file"


@pytest.mark.parametrize("command, output", [
    (["render", "{t}", "-o", "{o}.png"], "{o}.png"),
    (["render", "{t}", "-o", "{dir}/x.png", "--save-state", "{o}.json"], "{o}.json"),
    (["treemap", "{t}", "-o", "{o}.svg"], "{o}.svg"),
    (["convert", "{t}", "-o", "{o}.trace"], "{o}.trace"),
    (["place", "{t}", "--csv", "{o}.csv"], "{o}.csv"),
    (["animate", "{t}", "-o", "{dir}/x.gif", "--script", "{o}.json"], "{o}.json"),
    (["animate", "{t}", "-o", "{o}/"], "{o}/"),
    (["topology", "convert", "{g}", "-o", "{o}.dot"], "{o}.dot"),
])
def test_an_output_into_a_missing_folder_is_refused_before_any_work(tmp_path, command, output):
    """`-o missing/x.png` failed after the whole render, and `--save-state
    missing/v.json` after writing the picture (issue 25.13). The trace is not even
    read: a broken one gives the output's error, not its own."""
    t = tmp_path / "broken.trace"
    t.write_text("not a trace\n")
    g = tmp_path / "g.dot"
    g.write_text('graph g { "p1" -- "p2"; }\n')
    names = {"t": t, "g": g, "o": tmp_path / "missing" / "out", "dir": tmp_path}
    line = one_line_error(run(*[a.format(**names) for a in command], tmp_path=tmp_path))
    assert line == (f"triva3d: error: {output.format(**names)}: cannot write: the folder "
                    f"{tmp_path / 'missing'} does not exist")
    assert {p.name for p in tmp_path.iterdir()} - {"cache"} == {"broken.trace", "g.dot"}


def test_an_output_under_a_file_is_refused(trace_file, tmp_path):
    t = trace_file(HEADER + TYPES + BODY)
    line = one_line_error(run("render", t, "-o", t / "x.png", tmp_path=tmp_path))
    assert line == f"triva3d: error: {t}/x.png: cannot write: the folder {t} is not a folder"


LENIENT = "; --lenient reads past this"


@pytest.mark.parametrize("body, lenient_reads", [
    ("13 1 p1 S\n", True),                       # PopState with nothing pushed
    ("11 2 p1 S run\n11 1 p1 S io\n", True),     # not time-ordered
    ("15 1 0 L p1 m k\n", True),                 # a link that never ends
    ("11 1 nobody S run\n", True),               # an unknown container
    ("99 1 p1 S run\n", False),                  # an event id with no definition
])
def test_a_strict_refusal_says_whether_lenient_reads_past_it(trace_file, tmp_path, body,
                                                              lenient_reads):
    """A strict refusal that --lenient would read says so in its line (issue 25.12)."""
    path = trace_file(HEADER + TYPES + body)
    line = one_line_error(run("stats", path, tmp_path=tmp_path))
    assert line.endswith(LENIENT) == lenient_reads, line
    p = run("stats", "--lenient", path, tmp_path=tmp_path)
    assert (p.returncode == 0) == lenient_reads
    if not lenient_reads:   # and --lenient does not send the user round in a circle
        assert LENIENT not in p.stderr


def test_native_paje_strict_names_the_legacy_field_lenient_reads_it(data, tmp_path):
    """StarPU's native_paje.trace: strict refuses its old field names (as pj_dump
    does without -n) and says that --lenient reads it; lenient's report says what
    it recovered, once per kind, in words (issue 25.12)."""
    import re
    path = data / "paje/native_paje.trace"
    line = one_line_error(run("stats", path, tmp_path=tmp_path))
    assert line == (f"triva3d: error: {path}:5: definition of PajeDefineContainerType (line 1) "
                    "lacks Type, given by the legacy name ContainerType" + LENIENT)
    p = run("dump", "--lenient", path, tmp_path=tmp_path)
    assert p.returncode == 0
    lines = path.read_text().splitlines()
    legacy = [i for i, x in enumerate(lines, 1) if re.match(
        r"%\s*(ContainerType|EntityType|SourceContainerType|DestContainerType|"
        r"SourceContainer|DestContainer)\s", x)]
    report = [x for x in said(p) if x.startswith("triva3d: recovered: ")]
    # line 1936: where pj_dump -n stops ("not time-ordered", see MANIFEST.tsv)
    assert report == [
        "triva3d: recovered: legacy field names accepted (as pj_dump -n): "
        f"{len(legacy)} times, the first at line {legacy[0]}",
        "triva3d: recovered: out-of-order events moved to the time of the previous entity "
        f"(the trace spans 0 .. {load(path, lenient=True).end_time:.9g}): once, at line 1936"]


def test_lenient_report_lines_are_one_per_kind_and_end_in_words(tmp_path):
    """Two locations without their event files: strict says --lenient reads it;
    lenient said '2.evt: ...: 1' and '3.evt: ...: 1', now one line for both
    (issue 25.12)."""
    import re
    import shutil
    import otf2gen
    a = tmp_path / "a"
    otf2gen.mpi_ring(a)
    for k in (2, 3):
        (a / f"traces/{k}.evt").unlink()
    line = one_line_error(run("stats", a, tmp_path=tmp_path))
    assert line == (f"triva3d: error: {a}/traces/2.evt: location 2 ('Master thread'): its "
                    "event file is missing" + LENIENT)
    p = run("dump", "--lenient", a, tmp_path=tmp_path)
    report = [x for x in said(p) if x.startswith("triva3d: recovered: ")]
    assert report[0] == ("triva3d: recovered: event files missing, their locations drawn empty: "
                         "2 times, the first in 2.evt: location 2 ('Master thread'): its event "
                         "file is missing")
    assert len(set(report)) == len(report) and not [x for x in report if re.search(r"\d$", x)]
    shutil.rmtree(a)


def test_a_repeated_remark_is_one_line(trace_file, tmp_path):
    """A file including itself twice: the remark was printed twice (issue 25.12)."""
    include = HEADER + ("%EventDef PajeTraceFile 20\n% Container string\n% Type string\n"
                        "% Filename string\n%EndEventDef\n")
    path = trace_file(include + '20 0 0 "self.trace"\n20 0 0 "self.trace"\n', "self.trace")
    p = run("stats", path, tmp_path=tmp_path)
    first = include.count("\n") + 1
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == (
        "  PajeTraceFile naming a file already being read (self.trace) ignored: 2 times, "
        f"the first at line {first}")


def test_particles_on_a_trace_without_messages_warn(data, trace_file, tmp_path):
    """--particles drew nothing, silently, on a trace without messages (issue 25.11)."""
    movie = ["--duration", "0.2", "--fps", "5", "--size", "64x64", "-o", tmp_path / "m.gif"]
    p = run("animate", data / "paje/states.trace", "--particles", *movie, tmp_path=tmp_path)
    assert p.returncode == 0 and ("triva3d: warning: the trace has no messages (links between "
                                  "containers): no particles fly\n") in p.stderr
    # messages, but none in the window: said so too; in the window: no warning
    t = trace_file(HEADER + TYPES + "15 1 0 L p1 m k\n16 2 0 L p2 m k\n11 3 p1 S run\n"
                                    "11 5 p1 S io\n")
    p = run("animate", t, "--particles", "--heat", "--window", "3:5", *movie, tmp_path=tmp_path)
    assert p.returncode == 0 and ("triva3d: warning: no message is drawn in the window 3..5: "
                                  "no particles fly and no edge heats up\n") in p.stderr
    p = run("animate", t, "--particles", *movie, tmp_path=tmp_path)
    assert p.returncode == 0 and not [x for x in said(p) if "warning" in x]


def _options(p, command=()):
    """(command, option string, dest) of every option of every subcommand of `p`
    (not the hidden ones: old spellings that name the new)."""
    import argparse
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, command + (name,))
        if action.dest != argparse.SUPPRESS:
            for option in action.option_strings:
                yield command, option, action.dest


def test_one_option_word_one_meaning():
    """An option spelled alike in two commands sets the same thing (issue 27.8:
    --metric, --level, --window and --pattern each meant two things)."""
    from triva3d.cli import parser
    dests = {}
    for command, option, dest in _options(parser()):
        dests.setdefault(option, {}).setdefault(dest, []).append(" ".join(command))
    assert {o: d for o, d in dests.items() if len(d) > 1} == {}


def test_every_view_setting_is_set_by_an_option():
    """Each ViewState Setting's option is a dest of the scene commands: else its
    flag would set nothing, silently."""
    from triva3d.cli import parser
    from triva3d.viewstate import SETTINGS
    for command in (["render", "t", "-o", "x.png"], ["animate", "t", "-o", "x.gif"],
                    ["view"]):
        args = parser().parse_args(command)
        assert [s.option for s in SETTINGS if s.option and not hasattr(args, s.option)] == []


def test_the_base_options_reach_the_view_state():
    """--graph-level and --leaf-size once set no field (their Settings named the old
    dests): the value given must arrive in the state."""
    from triva3d.cli import _state, parser
    args = parser().parse_args(["render", "t", "-o", "x.png", "--graph-level", "Host",
                                "--leaf-size", "state:Running", "--base", "appgraph"])
    state = _state(args)
    assert (state.level, state.metric, state.base) == ("Host", "state:Running", "appgraph")
    assert state.base_options()["level"] == "Host"


@pytest.mark.parametrize("args, new", [
    (["place", "t", "--metric", "containers"], "--leaf-size"),
    (["render", "t", "--level", "Host", "-o", "x.png"], "--graph-level"),
    (["place", "t", "--window", "0:1"], "--graph-window"),
    (["treemap", "t", "--metric", "link", "-o", "x.png"], "--cells"),
    (["generate", "pattern", "c.json", "--pattern", "ring", "-o", "x"], "--shape"),
])
def test_a_renamed_option_names_its_new_spelling(tmp_path, args, new):
    p = run(*args, tmp_path=tmp_path)
    assert f"is now {new} (see triva3d {args[0]}" in one_line_error(p)


def test_what_the_bad_input_sweep_found_is_one_line(tmp_path):
    """A sweep of bad inputs (a review) found tracebacks, usage blocks and a device
    replaced: each is one line and exit 2 now, before any work where it can be, and
    an output that is a named pipe is written through, not replaced."""
    import os
    import threading
    small = Path(__file__).resolve().parents[1] / "examples" / "small.trace"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    png = str(tmp_path / "x.png")
    for args, why in (
            (["render", small, "--window", "1:0", "-o", png], "argument --window: window "
                                                             "'1:0' ends before it starts"),
            (["render", small, "--state", deep, "-o", png], "nested too deeply to read"),
            (["animate", small, "--duration", "1e300", "-o", str(tmp_path / "a.gif")],
             "frames a second): 1,000,000 at most"),
            (["steps", small, "-o", ""], "an output file name is empty"),
            (["generate", "sigovan", "--shape", "noisy", "--ranks", "100000000", "-o",
              tmp_path / "s.trace"], "10,000,000 rank-iterations at most"),
            (["generate", "tasks", "--format", "otf2", "--tasks", "100000000", "-o",
              tmp_path / "t"],
             "10,000,000 of each at most"),
            (["steps", small, "-o", tmp_path / ("a" * 300 + ".csv")], "cannot write: its name")):
        assert why in one_line_error(run(*args, tmp_path=tmp_path)), args
    # a folder where a file goes is refused before any work (it failed after rendering);
    # a folder is an output of ingest, animate's frames and an OTF2 archive
    folder = tmp_path / "out.png"
    folder.mkdir()
    for args in (["render", small, "-o", folder], ["treemap", small, "-o", folder],
                 ["place", small, "--csv", folder], ["convert", small, "-o", folder],
                 ["generate", "sigovan", "--shape", "noisy", "-o", folder]):
        assert one_line_error(run(*args, tmp_path=tmp_path)) == \
            f"triva3d: error: {folder}: cannot write: this is a folder; name a file", args
    assert run("generate", "sigovan", "--shape", "noisy", "--format", "otf2", "-o", folder,
               tmp_path=tmp_path).returncode == 0 and (folder / "traces.otf2").exists()
    p = subprocess.run(f"{sys.executable} -m triva3d.cli stats {small} 2>&-", shell=True,
                       capture_output=True, text=True,
                       env={**os.environ, "TRIVA3D_CACHE_DIR": str(tmp_path / "cache")})
    assert p.returncode == 0 and "291" in p.stdout  # (stderr closed: no traceback)
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    p = run("steps", small, "-o", fifo, tmp_path=tmp_path)
    reader.join(timeout=60)
    assert p.returncode == 0 and got and got[0].startswith(b"container,")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # (written through, still a pipe)
