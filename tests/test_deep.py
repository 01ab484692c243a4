"""Deep hierarchies cost linear memory and time (issue 26.2): a chain of nested
containers, each of its own type, was quadratic in stats' text, in the Time-Slice's
containers x types arrays and in the depth of every container."""
import numpy as np
from hypothesis import given, settings, strategies as st

from conftest import HEADER
from triva3d import load
from triva3d.analysis.timeslice import Slicer
from triva3d.panels.treemap import TimeSliceTreemap
from triva3d.stats import MAX_INDENT, render, summary
from triva3d.trace import depth_of


def chain(n):
    """n nested containers c0 > c1 > ..., container ci of type Ti; a state and a
    variable on the deepest."""
    lines = [HEADER, '0 T0 0 "T0"\n']
    lines += [f'0 T{i} T{i - 1} "T{i}"\n' for i in range(1, n)]
    lines += [f'2 S T{n - 1} "S"\n', f'1 V T{n - 1} "V" "1 0 0"\n', '6 0 c0 T0 0 "c0"\n']
    lines += [f'6 0 c{i} T{i} c{i - 1} "c{i}"\n' for i in range(1, n)]
    lines += [f'12 1 c{n - 1} S "run"\n', f'8 1 c{n - 1} V 3\n', f'13 2 c{n - 1} S\n']
    return "".join(lines)


def test_a_deep_chain_is_linear(trace_file):
    n = 3000
    tr = load(trace_file(chain(n)), cache=False)
    assert len(tr.types) > n and len(tr.containers) == n + 1
    assert (tr.depth == np.arange(n + 1)).all()
    sl = Slicer(tr).slice()
    assert sl.integral.shape == (n + 1, 1) and sl.states.shape == (n + 1, 1)
    assert sl.metric("variable:V")[0][-1] == 3.0  # 3 from t=1 to the end, t=2
    tm = TimeSliceTreemap(tr)
    assert len(tm.cell_rects) == 1 and tm.numbers[0, 0] == 1.0  # the state, seen at the root
    text = render(summary(tr))
    assert max(len(line) for line in text.splitlines()) < 2 * MAX_INDENT + 40
    assert f"[{n + 2}] S: state, 1" in text  # root, then T0 at 2  # the depth is written where indents stop


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_depth_of_any_forest_in_any_order(data):
    n = data.draw(st.integers(1, 60))
    parent = [-1] + [data.draw(st.integers(-1, i - 1)) for i in range(1, n)]
    perm = data.draw(st.permutations(range(n)))
    where = {old: new for new, old in enumerate(perm)}
    shuffled = np.array([where[parent[old]] if parent[old] >= 0 else -1 for old in perm])

    def walk(i):
        d = 0
        while shuffled[i] >= 0:
            i, d = shuffled[i], d + 1
        return d
    assert depth_of(shuffled).tolist() == [walk(i) for i in range(n)]
