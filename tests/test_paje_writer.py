"""`convert`'s writer: its text does not depend on how it is cut into time windows and
chunks; names are written as `_token` says."""
from collections import Counter

import numpy as np
import pytest
from conftest import dump_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from triva3d import TraceError, load
from triva3d.paje import writer
from triva3d.trace import Names


def test_windows_and_chunks_do_not_change_the_text(data, tmp_path, monkeypatch):
    """Tiny windows and chunks (many of each, cut inside runs of equal times) give the
    bytes of one window and one chunk, on traces with zero-length and nested states,
    accumulated variables, shared link keys and extra fields."""
    for name in ("ms.trace", "simu-mardi.trace", "native_sample.trace", "categories.trace"):
        trace = load(data / "paje" / name, cache=False)
        writer.write_paje(trace, tmp_path / "whole")
        monkeypatch.setattr(writer, "WINDOW", 97)
        monkeypatch.setattr(writer, "CHUNK", 13)
        writer.write_paje(trace, tmp_path / "cut")
        windows = sum(1 for _ in writer._Body(trace)._windows())
        monkeypatch.undo()
        assert (tmp_path / "cut").read_bytes() == (tmp_path / "whole").read_bytes(), name
        assert windows >= 3, (name, windows)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.binary(max_size=6) | st.text(" \t\"#ab\u00e9\u3000\x85", max_size=6).map(
    str.encode), min_size=1, max_size=8))
def test_plain_names_are_their_own_token(raw):
    """The compiled check that keeps a name's bytes agrees with `token` (on printable
    ASCII; other names go through `token`)."""
    offsets = np.cumsum([0] + [len(r) for r in raw])
    names = Names(np.frombuffer(b"".join(raw), np.uint8), offsets)
    plain = writer._plain(names.arena, names.offsets)
    for i, r in enumerate(raw):
        printable = r.isascii() and r.decode().isprintable()
        assert plain[i] == (printable and writer.token(r) == r), r


def _round_trip(trace, path):
    """dump lines of `trace`, and of `trace` written by convert and read back."""
    writer.write_paje(trace, path)
    return Counter(dump_lines(trace)), Counter(dump_lines(load(path, cache=False)))


@st.composite
def _stacks(draw):
    """A Pajé body of Push/Pop/SetState on two containers at a few times, many of
    them at one time: zero-length states at several depths, inside states that end,
    start or go on then (as SMPI writes `Push X`/`Pop` at one time over and over)."""
    lines, depth, t = [], {"p1": 0, "p2": 0}, 0
    for _ in range(draw(st.integers(1, 40))):
        t += draw(st.sampled_from([0, 0, 0, 1]))
        c = draw(st.sampled_from(["p1", "p2"]))
        op = draw(st.sampled_from(["push", "push", "pop", "pop", "set"]))
        value = draw(st.sampled_from("abc"))
        if op == "pop" and depth[c]:
            lines.append(f"13 {t} {c} S")
            depth[c] -= 1
        elif op == "set":
            lines.append(f"11 {t} {c} S {value}")
            depth[c] = 1
        elif op == "push":
            lines.append(f"12 {t} {c} S {value}")
            depth[c] += 1
    for c, n in depth.items():  # closed at the end or left open (closed by the end)
        lines += [f"13 {t + 1} {c} S"] * draw(st.integers(0, n))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_stacks())
def test_zero_length_states_keep_their_depth(tmp_path_factory, body):
    """Every state, zero-length ones at one time at several depths included, comes back
    from convert at its start, end and depth (issue 25): the dump of the converted
    trace is the original's."""
    from conftest import HEADER, TYPES
    d = tmp_path_factory.mktemp("z")
    (d / "a.trace").write_text(HEADER + TYPES + body)
    trace = load(d / "a.trace", cache=False)
    ours, back = _round_trip(trace, d / "b.trace")
    assert back == ours


def test_smpi_pushes_and_pops_at_one_time(paje, tmp_path):
    """SMPI's `PMPI_Irecv` Push/Pop three times at one instant, under a state that goes
    on: depths 1, 1, 1 (they came back 1, 2, 3)."""
    t = paje("12 1 p1 S run\n" + "12 2 p1 S irecv\n13 2 p1 S\n" * 3 + "13 3 p1 S\n")
    writer.write_paje(t, tmp_path / "b.trace")
    states = load(tmp_path / "b.trace", cache=False).states
    assert sorted(zip(states.start, states.imbrication)) == [(1, 0), (2, 1), (2, 1), (2, 1)]


def test_a_key_reused_when_read_leniently_converts_to_a_trace_pajeng_reads(paje, tmp_path):
    """A key completed, then used again (lenient: a new link): its two links, each
    with its own key name of the same text, are written with keys told apart, so the
    converted trace reads strictly, both links as they were: their keys numbered
    after '#', in quotes (out of quotes, PajeNG reads '#' as a comment's start, even
    within a word: where it is installed, pj_dump reads the trace too)."""
    import shutil
    import subprocess
    t = paje("15 0 0 L p1 m k0\n16 1 0 L p2 m k0\n15 2 0 L p1 m k0\n16 3 0 L p2 m k0\n",
             lenient=True)
    assert t.names.displays(t.links.key) == ["k0", "k0"]
    writer.write_paje(t, tmp_path / "b.trace")
    back = load(tmp_path / "b.trace", cache=False)
    assert sorted(zip(back.links.start, back.links.end)) == [(0, 1), (2, 3)]
    assert sorted(back.names.displays(back.links.key)) == ["k0#0", "k0#1"]
    assert '"k0#1"' in (tmp_path / "b.trace").read_text()
    if shutil.which("pj_dump"):
        out = subprocess.run(["pj_dump", str(tmp_path / "b.trace")], capture_output=True,
                             text=True)
        assert out.returncode == 0 and out.stdout.count("Link,") == 2, out.stderr


def test_a_hash_within_a_word_begins_a_comment_as_pajeng_reads_it(paje):
    """`12 0 p1 S a#b`: pj_dump reads the state value "a" (the rest a comment); in
    quotes, "a#b" is the value."""
    t = paje('12 0 p1 S a#b\n13 1 p1 S\n12 2 p1 S "a#b"\n13 3 p1 S\n')
    assert [t.display_name("values", v) for v in t.states.value] == ["a", "a#b"]


def test_every_real_paje_trace_converts_to_its_own_dump(data, tmp_path):
    """dump(load(convert(T))) == dump(load(T)) for each Pajé trace of the data (native_paje
    read leniently, as PajeNG refuses it)."""
    for path in sorted((data / "paje").glob("**/*.trace")):
        trace = load(path, lenient=path.name == "native_paje.trace", cache=False)
        ours, back = _round_trip(trace, tmp_path / path.name)
        assert back == ours, path.name


def _named_archive(path, host, thread, region):
    """An OTF2 archive (otf2.writer) with these names: on `host`, location `thread`
    enters `region` over [0, 100] ns and, at 50, "z" twice at one instant, the first
    time with "z" inside it (zero-length states at depths 1, 1, 2, listed by Leave)."""
    import otf2
    with otf2.writer.open(str(path), timer_resolution=1_000_000_000) as w:
        d = w.definitions
        group = d.location_group("process", system_tree_parent=d.system_tree_node(host))
        outer, z = d.region(region), d.region("z")
        ev = w.event_writer(thread, group=group)
        ev.enter(0, outer)
        for t, enter, reg in [(50, 1, z), (50, 1, z), (50, 0, z), (50, 0, z), (50, 1, z),
                              (50, 0, z), (100, 0, outer)]:
            (ev.enter if enter else ev.leave)(t, reg)
    return path


EVIL = "evil\n6 0 evil P 0 evil"
NAMES = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\0"),
                max_size=6) | st.sampled_from([EVIL, 'a "b"', '"q"', '"', '#c', 'x\ty', ''])


@settings(max_examples=150, deadline=None)
@given(NAMES, NAMES, NAMES)
def test_any_name_survives_convert_or_is_refused(tmp_path_factory, host, thread, region):
    """Whatever the names of an OTF2 archive (Unicode, line breaks, quotes), convert
    writes a Pajé trace that dumps as the archive does, or, where Pajé cannot hold a
    name, refuses in one line naming it (issue 26); dump prints one line per entity."""
    d = tmp_path_factory.mktemp("n")
    trace = load(_named_archive(d / "a", host, thread, region), cache=False)
    used = [trace.names.raw(c) for c in np.r_[trace.containers.name[1:], trace.values.name]]
    lines = dump_lines(trace)
    assert len(lines) == sum(len(t) for t in (trace.containers, trace.states, trace.links,
                                              trace.variables, trace.events))
    assert sorted(trace.states.imbrication.tolist()) == [0, 1, 1, 2]
    try:
        ours, back = _round_trip(trace, d / "b.trace")
    except TraceError as e:
        assert "\n" not in str(e) and "cannot be written in a Pajé trace" in str(e)
        assert any(writer.token(raw) is None for raw in used)
        return
    assert all(writer.token(raw) is not None for raw in used)
    assert back == ours


@pytest.mark.parametrize("name", [EVIL, 'a "b"', '"', '#x"y'])
def test_names_pajé_cannot_hold_have_no_token(paje, trace_file, name):
    """What `token` refuses reads back as something else both as written and quoted."""
    assert writer.token(name.encode()) is None
    for text in (name, f'"{name}"'):
        try:
            trace = paje(f"6 0 c P 0 {text}\n")
        except TraceError:
            continue
        assert name not in [trace.names.display(c) for c in trace.containers.name], text


def test_convert_and_dump_of_a_location_named_like_a_line(tmp_path):
    """The issue's location `evil\\n6 0 evil P 0 evil`: dump prints no line of its
    own making, convert refuses in one line naming it and writes nothing."""
    import subprocess
    import sys
    archive = _named_archive(tmp_path / "a", "node", EVIL, "main")
    run = [sys.executable, "-m", "triva3d.cli"]
    out = subprocess.run(run + ["dump", str(archive), "--no-cache"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4 + 4
    assert {line.split(", ")[0] for line in lines} == {"Container", "State"}
    assert "Container, process, CPU_THREAD, 0, 1e-07, 1e-07, evil\\n6 0 evil P 0 evil" in lines
    target = tmp_path / "b.trace"
    out = subprocess.run(run + ["convert", str(archive), "-o", str(target), "--no-cache"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and not target.exists()
    assert out.stderr == (f"triva3d: error: {archive / 'traces.otf2'}: container "
                          "\"evil\\n6 0 evil P 0 evil\": a name with a line break cannot be "
                          "written in a Pajé trace (Pajé has no escape in names)\n")
