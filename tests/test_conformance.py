"""`triva3d dump` against PajeNG's pj_dump on every real trace with a reference."""
import re
from collections import Counter

import pytest

from conftest import DATA, dump_lines
from triva3d import TraceError, load

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
