"""Hostile surroundings (issue 26): what the process is started with, and what is
left behind, gets one line and a non-zero exit, never a traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

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
