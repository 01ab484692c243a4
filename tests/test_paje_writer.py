"""`convert`'s writer: its text does not depend on how it is cut into time windows and
chunks; names are written as `_token` says."""
from collections import Counter

import numpy as np
from conftest import dump_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from triva3d import load
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
@given(st.lists(st.binary(max_size=6) | st.text(" \t\"ab\u00e9\u3000\x85", max_size=6).map(
    str.encode), min_size=1, max_size=8))
def test_plain_names_are_their_own_token(raw):
    """The compiled check that keeps a name's bytes agrees with `_token`."""
    offsets = np.cumsum([0] + [len(r) for r in raw])
    names = Names(np.frombuffer(b"".join(raw), np.uint8), offsets)
    plain = writer._plain(names.arena, names.offsets)
    for i, r in enumerate(raw):
        if plain[i]:
            assert writer._token(names[i]).encode() == r, r
        else:
            assert not (r.isascii() and r.decode().isprintable() and writer._token(r.decode())
                        == r.decode()), r


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


def test_every_real_paje_trace_converts_to_its_own_dump(data, tmp_path):
    """dump(load(convert(T))) == dump(load(T)) for each Pajé trace of the data (native_paje
    read leniently, as PajeNG refuses it)."""
    for path in sorted((data / "paje").glob("**/*.trace")):
        trace = load(path, lenient=path.name == "native_paje.trace", cache=False)
        ours, back = _round_trip(trace, tmp_path / path.name)
        assert back == ours, path.name
