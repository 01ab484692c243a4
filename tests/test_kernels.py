"""The first run after an install compiles numba kernels: said once, and only then."""
import os
import subprocess
import sys

from conftest import HEADER, TYPES
from triva3d.kernels import MESSAGE

NOTE = f"triva3d: note: {MESSAGE}"


def run(code_or_args, numba_cache, cli=False):
    """stdout and stderr of a fresh Python process whose numba cache is `numba_cache`."""
    cmd = [sys.executable] + (["-m", "triva3d.cli", *code_or_args] if cli
                              else ["-c", code_or_args])
    p = subprocess.run(cmd, capture_output=True, text=True, check=True,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache)))
    return p.stdout, p.stderr


def test_a_cold_kernel_cache_is_announced_once_before_the_compile(tmp_path):
    """Someone else's numba function compiles silently; the first of triva3d's kernels
    to compile is announced (before it runs), a second signature is not; with the cache
    warm nothing is said."""
    code = """if 1:
        import numba, numpy as np
        from triva3d.kernels import on_first_compile
        from triva3d.bases.matcher import _inherit
        on_first_compile(lambda m: print("told:", m))
        numba.njit(lambda x: x + 1)(1)
        print("theirs compiled")
        parent = np.array([-1, 0, 1], np.int32)
        node, rule = np.array([-1, 3, -1], np.int32), np.zeros(3, np.int8)
        _inherit(parent, node, rule)
        print("placed", node.tolist(), rule.tolist())
        _inherit(parent.astype(np.int64), node, rule)
        print("again")
    """
    placed = "placed [-1, 3, 3] [0, 0, 4]"  # node 2 inherits its parent's node (rule 4)
    out, _ = run(code, tmp_path)
    assert out.splitlines() == ["theirs compiled", f"told: {MESSAGE}", placed, "again"]
    out, _ = run(code, tmp_path)
    assert out.splitlines() == ["theirs compiled", placed, "again"]


def test_the_command_says_it_compiles_only_on_a_cold_cache(tmp_path):
    """`triva3d stats` of a cached trace with an empty numba cache compiles its kernel
    and says so once on stderr; the next run, warm, says nothing of it."""
    trace = tmp_path / "t.trace"
    trace.write_text(HEADER + TYPES + "11 1 p1 S run\n13 2 p1 S\n")
    subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", str(trace)], check=True,
                   capture_output=True)  # the trace's cache, with the usual kernels
    cold = tmp_path / "numba"
    out, err = run(["stats", str(trace)], cold, cli=True)
    assert err.splitlines().count(NOTE) == 1 and "1 states" in out
    out, err = run(["stats", str(trace)], cold, cli=True)
    assert NOTE not in err and "1 states" in out


def test_the_pajé_kernel_unpacks_its_groups_in_the_order_the_simulator_packs_them():
    """K.ARGS names the arrays of each tuple `process` takes; its first lines unpack
    them by position: a swap of two arrays of one dtype would compile and run wrong."""
    import ast
    import inspect

    from triva3d.paje import kernel as K
    fn = ast.parse(inspect.getsource(K.process.py_func)).body[0]
    groups = [a.arg for a in fn.args.args[3:]]
    assert groups == list(K.ARGS)
    unpacked = {}
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) \
                and stmt.value.id in K.ARGS:
            unpacked[stmt.value.id] = tuple(e.id for e in stmt.targets[0].elts)
    assert unpacked == K.ARGS
