"""The synthetic generator: counts checked by a plain text scan, deterministic, and the
bundled example is exactly its output."""
import sys
from collections import Counter
from pathlib import Path

from triva3d import load

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from gen_trace import generate  # noqa: E402


def test_counts_match_an_independent_scan(tmp_path):
    path = tmp_path / "g.trace"
    n = generate(20000, path, sites=2, hosts=3, procs=5, seed=7)
    lines = [l.split() for l in path.read_text().splitlines() if l and l[0].isdigit()]
    kinds = Counter(int(w[0]) for w in lines)
    body = [w for w in lines if int(w[0]) >= 6]
    assert n == len(body)
    var_pieces = {(w[2], w[1]) for w in lines if int(w[0]) in (8, 9, 10)}
    t = load(path, cache=False)
    assert len(t.containers) - 1 == kinds[6] == 2 + 6 + 30
    assert len(t.states) == kinds[11] + kinds[12]         # Set + Push
    assert len(t.links) == kinds[15] == kinds[16]
    assert len(t.events) == kinds[17]
    assert len(t.variables) == len(var_pieces)            # same-time updates merge
    assert t.states.imbrication.max() == 2


def test_deterministic_and_the_example_is_its_output(tmp_path):
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    generate(3000, a, sites=2, hosts=4, procs=4)
    generate(3000, b, sites=2, hosts=4, procs=4)
    assert a.read_bytes() == b.read_bytes() == (ROOT / "examples" / "small.trace").read_bytes()
