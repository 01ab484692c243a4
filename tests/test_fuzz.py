"""Mutated real traces: only TraceError comes out, quickly, in one line."""
import os
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
from triva3d import TraceError, load

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
                load(path, lenient=lenient, cache=False)
            except TraceError as e:
                assert "\n" not in str(e) and e.file == path
            assert time.perf_counter() - t < 5
    finally:
        os.unlink(path)
