"""Interval histograms, outliers and counter box plots (issue 31.5), worked by hand."""
import subprocess
import sys

import numpy as np
import pytest

from triva3d.analysis.intervals import box_plot, durations
from triva3d.errors import OptionsError

# P1 runs 1 s five times, then 1000 s; P2 runs 2 s three times. V on P1 is 10 over
# [0, 5], 20 after; on P2 30 from 0.
RUNS = '5 r S "run" "0 1 0"\n' + "".join(sorted(
    [f"12 {t} p1 S r\n" for t in (0, 2, 4, 6, 8, 10)] +
    [f"13 {t} p1 S\n" for t in (1, 3, 5, 7, 9, 1010)] +
    [f"12 {t} p2 S r\n" for t in (0, 3, 6)] + [f"13 {t} p2 S\n" for t in (2, 5, 8)] +
    ["8 0 p1 V 10\n", "8 5 p1 V 20\n", "8 0 p2 V 30\n"],
    key=lambda line: float(line.split()[1])))  # in time order, as Pajé wants


def test_durations_histogram_and_far_outliers(paje):
    """Log durations 0 (x5), ln 2 (x3), ln 1000: quartiles 0 and ln 2, the upper far
    fence ln 2 + 3 ln 2 = ln 16: only the 1000 s run is beyond."""
    tr = paje(RUNS)
    d = durations(tr, "run", bins=10)
    assert sorted(d.seconds.tolist()) == [1] * 5 + [2] * 3 + [1000]
    assert d.counts.sum() == 9 and d.edges[0] == 1 and d.edges[-1] == pytest.approx(1000)
    assert np.allclose(np.log10(d.edges), np.linspace(0, 3, 11))  # log-spaced
    assert d.counts[0] == 5 and d.counts[1] == 3 and d.counts[-1] == 1  # 2 s: log 0.30
    (out,) = d.outliers
    assert tr.states.end[out] - tr.states.start[out] == 1000
    assert sorted(tr.states.end[d.within(1.5, 2.5)] - tr.states.start[d.within(1.5, 2.5)]) \
        == [2, 2, 2]
    with pytest.raises(OptionsError, match="no state valued 'walk'"):
        durations(tr, "walk")
    # zero-length intervals are counted apart (a brush from 0 takes them), not binned
    zero = durations(paje('5 r S "run" "0 1 0"\n12 1 p1 S r\n13 1 p1 S\n12 2 p1 S r\n'
                          '13 5 p1 S\n'), "run")
    assert zero.zeros == 1 and zero.counts.sum() == 1 and len(zero.within(0, 1)) == 1
    # the window's intervals dock: in the unit a person names (--time-unit), else the trace's
    from triva3d.panels.intervals import histogram_svg
    for unit, shown in ((None, "s"), ("ms", "ms")):
        svg = histogram_svg(d, tr, (0, 255, 0), (1.5, 2.5), unit=unit)
        assert f"median 1 {shown}," in svg and f"duration ({shown}, log scale)" in svg
        assert f"3 within 1.5..2.5 {shown}" in svg



def test_one_length_rounded_apart_has_no_outliers(paje):
    """320 runs of 0.2 ms, which end - start rounds to 13 values 1e-19 apart: no
    outlier (84 "far outliers" before, the quartiles being equal; sigovan's 320 waits
    had 64)."""
    starts = [0.0062 * k + 0.0001 * (k % 7) for k in range(320)]
    d = durations(paje('5 r S "run" "0 1 0"\n' + "".join(
        f"12 {t!r} p1 S r\n13 {t + 0.0002!r} p1 S\n" for t in starts)), "run")
    assert len(d.seconds) == 320 and len(set(d.seconds.tolist())) > 10
    assert np.allclose(d.seconds, 2e-4, rtol=1e-9, atol=0) and len(d.outliers) == 0



def test_a_counters_box_plot_across_containers(paje):
    """Over [0, 5]: P1 10, P2 30: min 10, max 30, mean 20, std 10; over [5, 10]:
    20 and 30: 20, 30, 25, 5."""
    bp = box_plot(paje(RUNS), "Var", bins=2, window=(0, 10))
    assert bp.containers == 2
    assert bp.low.tolist() == [10, 20] and bp.high.tolist() == [30, 30]
    assert bp.mean.tolist() == [20, 25] and bp.std.tolist() == [10, 5]


def test_the_intervals_command(paje, tmp_path, trace_file):
    path = trace_file(__import__("conftest").HEADER + __import__("conftest").TYPES + RUNS)
    run = [sys.executable, "-m", "triva3d.cli", "intervals", "--no-cache", str(path)]
    r = subprocess.run(run + ["--value", "run", "-o", str(tmp_path / "o.csv")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "o.csv").read_text().splitlines()
    assert rows == ["container,value,start,end,duration,unit", "P1,run,10.0,1010.0,1000.0,s"]
    r = subprocess.run(run + ["--value", "run", "--range", "1.5:2.5", "-o",
                              str(tmp_path / "r.csv")], capture_output=True, text=True)
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 4  # P2's three runs
    for extra, out in ((["--value", "run"], "h.svg"), (["--counter", "Var"], "b.png")):
        r = subprocess.run(run + extra + ["-o", str(tmp_path / out)], capture_output=True,
                           text=True)
        assert r.returncode == 0 and (tmp_path / out).stat().st_size > 0, r.stderr
    assert "1 far outliers" in (tmp_path / "h.svg").read_text()
    for extra, why in ((["--counter", "Var", "-o", str(tmp_path / "b.csv")],
                        "a box plot is written as .svg or .png"),
                       (["--counter", "Var", "--range", "1:2", "-o", str(tmp_path / "b.svg")],
                        "--range brushes a histogram's durations"),
                       (["--value", "run", "--range", "2:1", "-o", str(tmp_path / "h.svg")],
                        "range '2:1' ends before it starts"),
                       (["--value", "run", "--range", "nan:1", "-o", str(tmp_path / "h.csv")],
                        "expected LO:HI (durations)")):
        r = subprocess.run(run + extra, capture_output=True, text=True)
        assert r.returncode == 2 and why in r.stderr, r.stderr


def test_an_axis_title_is_never_under_a_tick_label():
    """A long tick label in the middle of the y axis stood on the rotated axis title
    ("5e+07" over "PAPI_TOT_CYC", read as 1e+07): it is left out there, its tick kept."""
    from triva3d.panels.distribution import axes
    out = "\n".join(axes((80, 34, 880, 320), (0, 1), (0, 9.581e7), "time", "PAPI_TOT_CYC",
                         "#fff"))
    assert "5e+07</text>" not in out and out.count('stroke="#fff"/>') >= 4
    short = "\n".join(axes((80, 34, 880, 320), (0, 1), (0, 100), "time", "count", "#fff"))
    assert "50</text>" in short
