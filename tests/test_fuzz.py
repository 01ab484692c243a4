"""Mutated real traces: only TraceError comes out, quickly, in one line, and what
loads satisfies the Trace's invariants."""
import os
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
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
            t = time.perf_counter()
            try:
                trace = load(path, lenient=lenient, cache=False)
            except TraceError as e:
                assert "\n" not in str(e) and e.file == path
            else:  # what loads holds together (indices in range, times finite...)
                assert check(trace) is None
            assert time.perf_counter() - t < 5
    finally:
        os.unlink(path)


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
        raw = bytearray(open(where, "rb").read())
        for _ in range(data.draw(st.integers(1, 4))):
            k = data.draw(st.integers(0, len(raw) - 1))
            op = data.draw(st.sampled_from(["set", "insert", "cut"]))
            junk = data.draw(st.binary(min_size=1, max_size=8))
            if op == "set":
                raw[k:k + len(junk)] = junk
            elif op == "insert":
                raw[k:k] = junk
            else:
                del raw[k:k + len(junk)]
        stat = os.stat(where)
        with open(where, "wb") as f:
            f.write(bytes(raw))
        os.utime(where, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert check(load(path)) is None
