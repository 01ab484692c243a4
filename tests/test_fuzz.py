"""Mutated real traces: only TraceError comes out, in one line, and what loads
satisfies the Trace's invariants (no duration asserted: a busy machine is slow)."""
import json
import math
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import (DATA, HEADER, TYPES, assert_same_every_way, mutate_bytes,
                      read_every_way)
from triva3d import TraceError, load
from triva3d.trace import check

TRACES = ["states.trace", "links.trace", "variables.trace", "events.trace", "gattaca.trace",
          "ms.trace", "simgrid-fg126.trace", "containers.trace", "categories.trace"]
OPS = ["drop", "swap", "duplicate", "field", "truncate", "bytes", "utf8", "header", "body"]


@st.composite
def mutated(draw):
    data = (DATA / "paje" / draw(st.sampled_from(TRACES))).read_bytes()
    for op in draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=3)):
        lines = data.split(b"\n")
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        j = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "drop":
            del lines[i]
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "duplicate":
            lines.insert(j, lines[i])
        elif op == "field":
            words = lines[i].split()
            if words:
                del words[draw(st.integers(0, len(words) - 1))]
            lines[i] = b" ".join(words)
        elif op == "header":
            lines = [x for x in lines if x.startswith(b"%")]
        elif op == "body":
            lines = [x for x in lines if not x.startswith(b"%")]
        data = b"\n".join(lines)
        k = draw(st.integers(0, len(data)))
        if op == "truncate":
            data = data[:k]
        elif op == "bytes":
            data = data[:k] + draw(st.binary(min_size=1, max_size=16)) + data[k:]
        elif op == "utf8":
            data = data[:k] + b"\xff\xfe\xc3(" + data[k:]
    return data


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_traces_raise_only_trace_error(data):
    fd, path = tempfile.mkstemp(suffix=".trace")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        for lenient in (False, True):
            try:
                trace = load(path, lenient=lenient, cache=False)
            except TraceError as e:
                assert "\n" not in str(e) and e.file == path
            else:  # what loads holds together (indices in range, times finite...)
                assert check(trace) is None
    finally:
        os.unlink(path)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.booleans())
def test_mutated_traces_read_the_same_with_the_kernel_as_python(data, lenient):
    """The Pajé kernel run as Python (a small file), and compiled with a second thread
    tokenizing ahead, give the compiled kernel's Trace, or its error, line and reason,
    on damaged input too."""
    assert_same_every_way(every_way(data, lenient))


def every_way(data, lenient=False):
    """read_every_way of the Pajé bytes `data`."""
    fd, path = tempfile.mkstemp(suffix=".trace")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return read_every_way(path, lenient)
    finally:
        os.unlink(path)


@settings(max_examples=300)
@given(st.one_of(st.just(0.0), st.floats(min_value=1e-290, allow_infinity=False)),
       st.sampled_from(["{:.15e}", "{:.3e}", "{!r}", "{:.0e}"]))
def test_times_in_any_notation_read_the_same_as_python(x, form):
    """Exponents beyond 10^22 (powers not exact in a double) and numbers near the
    ends of the doubles' range parse the same every way, within two ulps of
    Python's correctly rounded float() (down to 1e-290: no trace times there). Zero
    with an exponent beyond the doubles' is zero."""
    text = form.format(x) if x else "0e400"
    got = every_way((HEADER + TYPES + f"17 {text} p1 E x\n").encode())
    assert_same_every_way(got)
    compiled = got["compiled"]
    if isinstance(compiled, str):
        assert "not a number in range" in compiled
    else:
        t = compiled.events.time[0]
        assert abs(t - float(text)) <= 2 * math.ulp(float(text))


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data not found at {DATA}")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_caches_never_break_a_load(data):
    """Bytes of a cache overwritten, inserted or cut: the load still gives a Trace
    that holds together (from the cache, or parsed again)."""
    from triva3d import cache
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.trace")
        with open(path, "wb") as f:
            f.write((DATA / "paje" / data.draw(st.sampled_from(TRACES))).read_bytes())
        load(path)
        where = cache.paths(path, "strict")[0]
        raw = mutate_bytes(data.draw, open(where, "rb").read())
        stat = os.stat(where)
        with open(where, "wb") as f:
            f.write(raw)
        os.utime(where, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert check(load(path)) is None


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPOLOGY_FILES = [os.path.join(ROOT, "topologies", n) for n in
                  ("two_site_grid.dot", "fat_tree_k4.dot", "src/two_site_grid.xml",
                   "src/fat_tree_k4.xml", "src/dragonfly_small.xml")]
HIERARCHY = json.dumps({"name": "grid", "children": [
    {"name": f"site{s}", "children": [{"name": f"h{s}-{h}", "size": h + 1} for h in range(3)]}
    for s in range(2)]}, indent=1).encode()


def mutate(draw, raw):
    """Lines dropped, swapped or duplicated, then bytes overwritten, inserted or cut."""
    for op in draw(st.lists(st.sampled_from(["drop", "swap", "dup"]), max_size=3)):
        lines = raw.split(b"\n")
        i, j = (draw(st.integers(0, len(lines) - 1)) for _ in range(2))
        if op == "drop":
            del lines[i]
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(j, lines[i])
        raw = b"\n".join(lines)
    return mutate_bytes(draw, raw)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_topologies_and_mappings_raise_only_our_errors(data):
    """.dot, SimGrid XML, JSON hierarchies and mapping CSVs, mutated: a topology (or
    layout) or one Triva3dError line."""
    from triva3d import Triva3dError
    from triva3d.bases.matcher import read_mapping
    from triva3d.bases.readers import read_topology
    from triva3d.bases.treemap import read_hierarchy
    kind = data.draw(st.sampled_from(["topology", "json", "csv"]))
    if kind == "topology":
        source = data.draw(st.sampled_from(TOPOLOGY_FILES))
        raw, suffix = open(source, "rb").read(), os.path.splitext(source)[1]
    elif kind == "json":
        raw, suffix = HIERARCHY, ".json"
    else:
        raw = open(os.path.join(ROOT, "examples", "small_on_two_site_grid.csv"), "rb").read()
        suffix = ".csv"
    raw = mutate(data.draw, raw)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input" + suffix)
        with open(path, "wb") as f:
            f.write(raw)
        try:
            if kind == "topology":
                read_topology(path)
            elif kind == "json":
                read_hierarchy(path)
            else:
                read_mapping(path, {f"{s}-{h}": 0 for s in "ab" for h in range(1, 9)})
        except Triva3dError as e:
            assert "\n" not in str(e)
