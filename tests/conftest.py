"""Shared fixtures: the real data beside the clone, a private cache, trace writers."""
import io
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from triva3d import TraceError, load
from triva3d.dump import dump
from triva3d.otf2 import reader as otf2_reader
from triva3d.paje import reader
from triva3d.paje.defs import standard_header

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Files smaller than this run the Pajé kernel as Python outside the tests (and OTF2
#: archives of fewer events their tasks' kernels).
INTERPRET_BELOW = reader.INTERPRET_BELOW
OTF2_INTERPRET_BELOW = otf2_reader.INTERPRET_BELOW

# Standard definitions (ids as Poti writes them); bodies in tests use these ids:
# 0-5 type and value definitions, 6/7 create/destroy, 8/9/10 Set/Add/SubVariable,
# 11-14 Set/Push/Pop/ResetState, 15/16 Start/EndLink, 17 NewEvent.
HEADER = standard_header()

# A second StartLink (id 20) that carries the link's Size, as Poti writes it.
SIZED_LINK = """\
%EventDef PajeStartLink 20
% Time date
% Container string
% Type string
% StartContainer string
% Value string
% Key string
% Size string
%EndEventDef
"""

# Two processes P1, P2 under the root, with a state, a variable, an event and a link type.
TYPES = """\
0 P 0 "Process"
2 S P "State"
1 V P "Var" "1 0 0"
3 E P "Mark"
4 L 0 P P "Msg"
6 0 p1 P 0 "P1"
6 0 p2 P 0 "P2"
"""


def pytest_configure(config):
    """Every cache (traces, layouts) and the GUI's settings of the whole run,
    module-scoped fixtures and subprocesses included, go to one temporary folder,
    removed at the end. Hypothesis has no deadline per example, keeps no example
    database (nothing written outside the temporary folder) and, in CI, draws the
    same examples every run (the fuzz suites fail for a reason, never by luck)."""
    from hypothesis import HealthCheck, settings
    settings.register_profile("triva3d", deadline=None,  # no duration asserted: a busy
                              suppress_health_check=[HealthCheck.too_slow],  # machine is slow
                              database=None, derandomize=bool(os.environ.get("CI")))
    settings.load_profile("triva3d")
    config.triva3d_cache = tempfile.mkdtemp(prefix="triva3d-tests-")
    from hypothesis.configuration import set_hypothesis_home_dir  # its unicode tables...
    set_hypothesis_home_dir(os.path.join(config.triva3d_cache, "hypothesis"))
    os.environ["TRIVA3D_CACHE_DIR"] = config.triva3d_cache
    reader.INTERPRET_BELOW = 0  # in-process loads run the compiled Pajé kernel; the
    # semantics, conformance and fuzz tests run both
    otf2_reader.INTERPRET_BELOW = 0  # (and the OTF2 tasks' kernels compiled)
    os.environ["XDG_CONFIG_HOME"] = os.path.join(config.triva3d_cache, "config")  # QSettings


def pytest_unconfigure(config):
    shutil.rmtree(config.triva3d_cache, ignore_errors=True)


@pytest.fixture
def data():
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA


@pytest.fixture
def trace_file(tmp_path):
    """Write a trace (str or bytes) to a file; returns its path."""
    count = iter(range(1000))

    def write(text, name=None):
        p = tmp_path / (name or f"t{next(count)}.trace")
        p.write_bytes(text.encode() if isinstance(text, str) else text)
        return p
    return write


@pytest.fixture
def paje(trace_file):
    """Load HEADER + TYPES + body (no cache)."""
    def run(body, lenient=False, types=TYPES):
        return load(trace_file(HEADER + types + body), lenient=lenient, cache=False)
    return run


def assert_same_trace(a, b):
    """Both Traces hold the same columns, names, colours and report."""
    from triva3d.trace import SCHEMA
    for table in SCHEMA:
        ta, tb = getattr(a, table), getattr(b, table)
        for c in ta.columns:
            np.testing.assert_array_equal(ta.columns[c], tb.columns[c])
        assert list(ta.extra) == list(tb.extra)
        for c in ta.extra:
            np.testing.assert_array_equal(ta.extra[c], tb.extra[c])
    np.testing.assert_array_equal(a.names.arena, b.names.arena)
    np.testing.assert_array_equal(a.value_colors, b.value_colors)
    np.testing.assert_array_equal(a.type_colors, b.type_colors)
    assert a.report == b.report


#: Ways to read a Pajé trace (reader settings): the kernel compiled, run as Python,
#: and compiled with a second thread tokenizing ahead, one line a batch.
WAYS = {"compiled": dict(INTERPRET_BELOW=0), "as Python": dict(INTERPRET_BELOW=1 << 40),
        "tokenized ahead": dict(INTERPRET_BELOW=0, AHEAD_ABOVE=0, LEX_LINES=1)}


def read_every_way(path, lenient=False, ways=WAYS):
    """{way: the Trace, or the error text} of the Pajé trace at `path` read each way
    of `ways` (name: the reader's settings)."""
    got = {}
    for way, settings in ways.items():
        saved = {k: getattr(reader, k) for k in settings}
        try:
            for k, v in settings.items():
                setattr(reader, k, v)
            try:
                got[way] = reader.read_paje(path, lenient)
            except TraceError as e:
                got[way] = str(e)
        finally:
            for k, v in saved.items():
                setattr(reader, k, v)
    return got


def assert_same_every_way(got):
    """The same Trace, or the same error, from every way of read_every_way."""
    (first, expected), *others = got.items()
    for way, value in others:
        if isinstance(expected, str) or isinstance(value, str):
            assert (way, value) == (way, expected)
        else:
            assert_same_trace(value, expected)


def dump_lines(trace, user_defined=False):
    out = io.BytesIO()
    dump(trace, out, user_defined=user_defined)
    return out.getvalue().decode().splitlines()


def mutate_bytes(draw, raw):
    """`raw` with 1 to 4 runs of bytes overwritten, inserted or cut (hypothesis `draw`)."""
    from hypothesis import strategies as st
    raw = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, max(len(raw) - 1, 0)))
        op = draw(st.sampled_from(["set", "insert", "cut"]))
        junk = draw(st.binary(min_size=1, max_size=8))
        if op == "set":
            raw[k:k + len(junk)] = junk
        elif op == "insert":
            raw[k:k] = junk
        else:
            del raw[k:k + len(junk)]
    return bytes(raw)
