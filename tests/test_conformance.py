"""`triva3d dump` against PajeNG's pj_dump on every real trace with a reference."""
import re
from collections import Counter

import numpy as np
import pytest

from conftest import DATA, assert_same_every_way, dump_lines, read_every_way
from triva3d import TraceError, load
from triva3d.paje import reader

REFS = sorted(p.name[:-len(".pj_dump.csv")]
              for p in (DATA / "paje-reference").glob("*.trace.pj_dump.csv")) if DATA.is_dir() else []
NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[-+]?\d+)?$")


def normalized(lines):
    """Lines as tuples of fields, numbers to 6 significant digits (PajeNG keeps variable
    values as 32-bit floats)."""
    return Counter(tuple(float(f"{float(f):.6g}") if NUMBER.match(f) else f
                         for f in line.split(", ")) for line in lines)


@pytest.mark.parametrize("name", REFS)
def test_dump_equals_pj_dump(data, name):
    trace = load(data / "paje" / name, cache=False)
    ours = dump_lines(trace)
    ref = (data / "paje-reference" / f"{name}.pj_dump.csv").read_text().splitlines()
    assert normalized(ours) == normalized(ref)


@pytest.mark.parametrize("name", [n for n in REFS if (DATA / "paje" / n).stat().st_size < 400e3])
def test_the_kernel_run_as_python_gives_the_compiled_trace(data, name):
    """A file under reader.INTERPRET_BELOW runs the kernel as Python: on every real
    trace (but g5k's 800 KB: 12 s), strict and lenient, the same Trace or the same
    error as compiled, and as tokenized by a second thread one line a batch ahead."""
    for lenient in (False, True):
        assert_same_every_way(read_every_way(data / "paje" / name, lenient))


@pytest.mark.parametrize("name", REFS)
def test_a_trace_tokenized_ahead_in_batches_of_any_size_is_the_same_trace(data, name):
    """A big file is tokenized by a second thread, a batch of lines ahead of the
    simulation: every real trace, strict and lenient, reads the same through batches
    of 1 and 7 lines and of the default size, threaded or not."""
    ways = dict(compiled={}, **{f"{n} lines ahead": dict(AHEAD_ABOVE=0, LEX_LINES=n)
                                for n in (1, 7, reader.LEX_LINES)},
                inline=dict(AHEAD_ABOVE=1 << 40, LEX_LINES=7))
    for lenient in (False, True):
        got = read_every_way(data / "paje" / name, lenient, ways)
        assert_same_every_way(got)


@pytest.mark.parametrize("name", REFS)
def test_convert_gives_back_pj_dumps_reference(data, name, tmp_path):
    """A converted trace dumps exactly as the original's pj_dump reference: names and
    keys as written, zero-length states at their depth, accumulated variables as the
    same doubles (issue 16). The user-defined fields come back too (dump -u)."""
    from triva3d.paje.writer import write_paje
    trace = load(data / "paje" / name, cache=False)
    write_paje(trace, tmp_path / name)
    again = load(tmp_path / name, cache=False)
    ref = (data / "paje-reference" / f"{name}.pj_dump.csv").read_text().splitlines()
    assert normalized(dump_lines(again)) == normalized(ref)
    assert Counter(dump_lines(again, user_defined=True)) == \
        Counter(dump_lines(trace, user_defined=True))
    for table in ("values", "types"):
        colors = getattr(trace, table[:-1] + "_colors")
        np.testing.assert_array_equal(getattr(again, table[:-1] + "_colors"), colors)


def test_references_cover_the_data(data):
    assert len(REFS) >= 15


def test_native_paje_is_rejected_like_pajeng_then_recovered_when_lenient(data):
    path = data / "paje" / "native_paje.trace"
    with pytest.raises(TraceError) as e:
        load(path, cache=False)
    assert e.value.line == 5 and "lacks Type" in e.value.message  # legacy 'ContainerType'
    t = load(path, lenient=True, cache=False)
    assert t.report[0][0].startswith("legacy field names accepted")
    (what, count, line), = [r for r in t.report if "out-of-order" in r[0]]
    assert (count, line) == (1, 1936)  # where pj_dump -n stops: not time-ordered
    assert len(t.containers) == 34 and len(t.states) > 0


def test_a_file_that_includes_itself_reads_once(data):
    t = load(data / "paje" / "multiple_files" / "root.trace", cache=False)
    assert len(t.containers) == 1
    assert any("already being read" in r[0] for r in t.report)
