"""The compiled number formatter prints exactly what C's printf("%f") prints."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from triva3d.dump import _put_f6

OUT = np.zeros(400, np.uint8)


def f6(x):
    return OUT[:_put_f6(OUT, 0, x)].tobytes().decode()


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=False))
def test_any_double_formats_like_printf(x):
    assert f6(x) == "%f" % x  # Python's %f is exact, as glibc's


def test_ties_and_edges():
    # exact binary values decide ties: 2.5e-6 is just above, 0.0078125 is an exact tie
    for x in [2.5e-6, 1.5e-6, 5e-7, 0.0078125, -0.0, -1e-9, 2.0 ** 63, 1e308, 4e10 + 0.5]:
        assert f6(x) == "%f" % x
    assert [f6(x) for x in (np.nan, np.inf, -np.inf)] == ["nan", "inf", "-inf"]
    grid = np.arange(200000) * 5e-7
    assert all(f6(x) == "%f" % x for x in grid)


def test_states_before_time_zero_have_their_duration(paje):
    """A state from -5 to -1 was dumped with duration 0 (issue 17)."""
    import io

    from triva3d.dump import dump
    t = paje("11 -5 p1 S run\n11 -1 p1 S io\n11 2 p1 S run\n")
    out = io.BytesIO()
    dump(t, out)
    states = [line.split(", ") for line in out.getvalue().decode().splitlines()
              if line.startswith("State")]
    assert [(s[3], s[4], s[5]) for s in states] == [
        ("-5.000000", "-1.000000", "4.000000"), ("-1.000000", "2.000000", "3.000000"),
        ("2.000000", "2.000000", "0.000000")]
