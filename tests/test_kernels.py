"""The first run after an install compiles numba kernels: said once, and only then."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import otf2gen
from conftest import (HEADER, INTERPRET_BELOW, OTF2_INTERPRET_BELOW, TYPES,
                      assert_same_trace)
from triva3d import load
from triva3d.kernels import MESSAGE

NOTE = f"triva3d: note: {MESSAGE}"


def run(code_or_args, cache, cli=False):
    """stdout and stderr of a fresh Python process whose numba cache is `cache`, and
    triva3d's (the kernels' machine code) within it."""
    cmd = [sys.executable] + (["-m", "triva3d.cli", *code_or_args] if cli
                              else ["-c", code_or_args])
    p = subprocess.run(cmd, capture_output=True, text=True, check=True,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(cache),
                                TRIVA3D_CACHE_DIR=str(Path(cache) / "triva3d")))
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


def trace_of(path, states):
    """A trace of `states` states of p1, one a second; returns `path`."""
    path.write_text(HEADER + TYPES + "".join(f"11 {t} p1 S run\n" for t in range(states))
                    + f"13 {states} p1 S\n")
    return path


def test_the_command_says_it_compiles_only_on_a_cold_cache(tmp_path):
    """`triva3d stats --no-cache` (it parses a file too big to parse as Python) with
    an empty numba cache compiles its kernels and says so once on stderr; the next
    run, warm, says nothing of it."""
    trace = trace_of(tmp_path / "t.trace", 2000)
    assert trace.stat().st_size >= INTERPRET_BELOW
    cold = tmp_path / "numba"
    out, err = run(["stats", str(trace), "--no-cache"], cold, cli=True)
    assert err.splitlines().count(NOTE) == 1 and "2000 states" in out
    out, err = run(["stats", str(trace), "--no-cache"], cold, cli=True)
    assert NOTE not in err and "2000 states" in out


def test_the_pajé_kernel_unpacks_its_groups_in_the_order_the_simulator_packs_them():
    """K.ARGS (and K.LEXED, for the batch `lex` fills) names the arrays of each tuple
    `process` takes; its first lines unpack them by position: a swap of two arrays of
    one dtype would compile and run wrong."""
    import ast
    import inspect

    from triva3d.paje import kernel as K
    fn = ast.parse(inspect.getsource(K.process.py_func)).body[0]
    groups = [a.arg for a in fn.args.args[3:]]
    assert groups == ["lexed"] + list(K.ARGS)
    unpacked = {}
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) \
                and stmt.value.id in groups:
            unpacked[stmt.value.id] = tuple(e.id for e in stmt.targets[0].elts)
    assert unpacked == dict(K.ARGS, lexed=K.LEXED)
    lex = ast.parse(inspect.getsource(K.lex.py_func)).body[0]  # fills them in that order
    assert tuple(a.arg for a in lex.args.args[3:]) == K.LEXED


def test_a_run_that_computes_little_never_imports_numba(tmp_path):
    """numba's start-up (0.8 s) is paid only by a run that compiles: `--help`,
    `stats` of a small trace (its kernel run as Python), of a trace read from
    triva3d's cache and of a small OTF2 archive with tasks do not import it; a trace
    too big for Python does once, the note of a cold kernel cache coming once, and
    no more when it is read again (its kernels' machine code kept)."""
    trace = tmp_path / "t.trace"
    trace.write_text(HEADER + TYPES + "11 1 p1 S run\n12 2 p1 S io\n13 3 p1 S\n")
    code = """if 1:
        import sys
        from triva3d import cli
        try:
            cli.main(sys.argv[1:])
        except SystemExit:
            pass
        print("numba imported:", "numba" in sys.modules)
    """
    env = dict(os.environ, TRIVA3D_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))

    def run_cli(*args):
        p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                           text=True, check=True, env=env)
        return p.stdout, p.stderr
    out, err = run_cli("stats", str(trace))  # parses, as Python
    assert "numba imported: False" in out and "(parsed)" in out and NOTE not in err
    assert "State: state, 2, max imbrication 1" in out
    out, err = run_cli("stats", str(trace))
    assert "numba imported: False" in out and "(from cache)" in out
    assert "State: state, 2, max imbrication 1" in out and NOTE not in err
    assert "numba imported: False" in run_cli("--help")[0]
    otf2gen.apex_tasks(tmp_path / "apex")  # tasks nested in tasks: lazy kernels
    out, err = run_cli("stats", "--no-cache", str(tmp_path / "apex" / "traces.otf2"))
    assert "numba imported: False" in out and "9 states" in out
    big = str(trace_of(tmp_path / "big.trace", 2000))
    out, err = run_cli("stats", "--no-cache", big)
    assert "numba imported: True" in out and err.splitlines().count(NOTE) == 1
    again, err = run_cli("stats", "--no-cache", big)  # its kernels' machine code was kept
    assert "numba imported: False" in again and NOTE not in err

    def summary(text):
        return [line for line in text.splitlines() if not line.startswith("load time")]
    assert summary(again) == summary(out.replace("True", "False"))


@pytest.mark.parametrize("make", ["mpi_ring", "threads", "accelerator", "metrics_only",
                                  "openmp_io_rma", "apex_tasks"])
def test_a_small_otf2_archive_reads_the_same_with_its_kernels_as_python(tmp_path, monkeypatch,
                                                                         make):
    """An archive under the OTF2 reader's INTERPRET_BELOW events runs its kernels (the
    tasks' nesting and dependencies) as Python: each archive of otf2gen reads as the
    same Trace as compiled."""
    from triva3d.otf2 import reader as otf2_reader
    getattr(otf2gen, make)(tmp_path / "a")
    compiled = load(tmp_path / "a", cache=False)  # (the tests' setting: 0)
    monkeypatch.setattr(otf2_reader, "INTERPRET_BELOW", OTF2_INTERPRET_BELOW)
    python = load(tmp_path / "a", cache=False)
    assert_same_trace(python, compiled)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40)), max_size=60),
       st.integers(6, 400))
def test_the_deepest_imbrication_of_each_type_is_the_largest_of_its_states(pairs, n_types):
    """stats's max imbrication per type, by its counting and by its sorting path (many
    types and few states), equals a plain loop's."""
    from triva3d.stats import deepest
    types = np.array([t for t, _ in pairs], np.int32)
    imbrication = np.array([d for _, d in pairs], np.int32)
    expected = np.full(n_types, -1)
    for t, d in pairs:
        expected[t] = max(expected[t], d)
    assert deepest(types, imbrication, n_types).tolist() == expected.tolist()


def test_the_compile_note_survives_a_probe_and_comes_once_however_often_asked(tmp_path):
    """A find_spec probe for numba before its import does not use up the wait for
    it; asking for the note three times (one callback twice) registers one finder
    and one listener; the callbacks are each told once, at the first compile."""
    code = """if 1:
        import importlib.util, sys
        import numpy as np
        from triva3d.kernels import on_first_compile, _AfterNumba
        told = []
        tell = lambda m: told.append("a")
        on_first_compile(tell)
        on_first_compile(tell)
        on_first_compile(lambda m: told.append("b"))
        assert importlib.util.find_spec("numba") is not None  # (a probe)
        print("finders", sum(isinstance(f, _AfterNumba) for f in sys.meta_path))
        from triva3d.bases.matcher import _inherit
        parent = np.array([-1, 0, 1], np.int32)
        _inherit(parent, np.array([-1, 3, -1], np.int32), np.zeros(3, np.int8))
        from numba.core import event
        print("told", told, "listeners", sum(type(l).__name__ == "FirstCompile"
                                             for l in event._registered["numba:compile"]))
    """
    out, _ = run(code, tmp_path)
    assert out.splitlines() == ["finders 1", "told ['a', 'b'] listeners 1"]


def test_an_otf2_archive_is_read_without_numba(tmp_path):
    """OTF2's callbacks are compiled with llvmlite and a small archive's records paired
    as Python: `stats` of an MPI archive never imports numba (0.3 s, and 0.55 s more
    at its first kernel), and its states and messages are all there. A bigger one
    (OpenMP: regions and thread teams) compiles the pairing once, said once; later
    runs load its machine code without numba, and say the same."""
    import otf2gen
    otf2gen.mpi_ring(tmp_path / "ring")
    code = """if 1:
        import sys
        from triva3d import cli
        cli.main(["stats", sys.argv[1], "--no-cache"])
        print("numba imported:", "numba" in sys.modules)
    """

    def run(archive):
        p = subprocess.run([sys.executable, "-c", code, str(archive / "traces.otf2")],
                           capture_output=True, text=True, check=True,
                           env=dict(os.environ, TRIVA3D_CACHE_DIR=str(tmp_path / "cache"),
                                    NUMBA_CACHE_DIR=str(tmp_path / "numba")))
        return p.stdout, p.stderr
    out, err = run(tmp_path / "ring")
    assert "numba imported: False" in out and NOTE not in err
    from triva3d.otf2.reader import read_otf2
    tr = read_otf2(tmp_path / "ring" / "traces.otf2")
    assert len(tr.states) and len(tr.links)
    assert f"{len(tr.states)} states" in out and f"{len(tr.links)} links" in out
    otf2gen.openmp_big(tmp_path / "omp", 2 * OTF2_INTERPRET_BELOW)
    out, err = run(tmp_path / "omp")
    assert "numba imported: True" in out and err.splitlines().count(NOTE) == 1
    again, err = run(tmp_path / "omp")
    assert "numba imported: False" in again and NOTE not in err
    teams = [line for line in again.splitlines() if "Thread team: state" in line]
    assert len(teams) == 1 and int(teams[0].split(",")[1]) > 0

    def summary(text):
        return [line for line in text.splitlines() if not line.startswith("load time")]
    assert summary(again) == summary(out.replace("True", "False"))


def test_llvm_work_outside_numba_holds_numba_off_then_takes_its_lock(tmp_path):
    """llvm_lock without numba: numba's import in another thread waits for it to be
    released; with numba imported, it is numba's own compiler lock."""
    code = """if 1:
        import sys, threading, time
        from triva3d.kernels import llvm_lock
        said = []
        with llvm_lock():
            t = threading.Thread(target=lambda: (__import__("numba"), said.append("imported")))
            t.start()
            time.sleep(1.0)
            said.append("released")
        t.join()
        print(said)
        from numba.core.compiler_lock import global_compiler_lock
        with llvm_lock():
            print("numba's lock held:", global_compiler_lock.is_locked())
        print("after:", global_compiler_lock.is_locked())
    """
    out, _ = run(code, tmp_path)
    assert out.splitlines() == ["['released', 'imported']", "numba's lock held: True",
                                "after: False"]


def test_included_files_count_toward_the_bytes_read_as_python(tmp_path):
    """The kernel runs as Python for the first INTERPRET_BELOW bytes, included files'
    too: a small trace including one small file never compiles; including the same
    file eight times (each one small) goes on compiled."""
    (tmp_path / "part.trace").write_text("12 0 p1 S run\n13 0 p1 S\n" * 300)
    assert 8 * (tmp_path / "part.trace").stat().st_size > INTERPRET_BELOW
    head = HEADER + "%EventDef PajeTraceFile 20\n% Container string\n% Type string\n" \
        "% Filename string\n%EndEventDef\n" + TYPES
    code = """if 1:
        import sys
        from triva3d.paje import kernel as K
        from triva3d.paje.reader import read_paje
        n = len(read_paje(sys.argv[1]).states)
        print(n, "compiled:", any(K.lex.entries.values()) or K.lex.compiled is not None)
    """
    for n, compiled in ((1, False), (8, True)):
        main = tmp_path / f"main{n}.trace"
        main.write_text(head + '20 p1 P "part.trace"\n' * n)
        out = subprocess.run([sys.executable, "-c", code, str(main)], capture_output=True,
                             text=True, check=True).stdout
        assert out.split() == [str(300 * n), "compiled:", str(compiled)]


def test_a_lazy_kernel_pickles_as_its_name():
    """Sent to another process (Dask pickles what a task names), a lazy kernel is
    found there by its module and name, as a function is."""
    import pickle

    from triva3d.analysis import timeslice
    assert pickle.loads(pickle.dumps(timeslice._states)) is timeslice._states


ENTRY_KERNELS = '''
import numpy as np
from triva3d.kernels import lazy
from entryconstant import C

@lazy(cache=True)
def weigh(a, scale, flag, pair):
    s = 0.0
    for x in a.flat:
        s += x
    a[0, 0] = -1
    return s * scale, not flag, pair[0][1] * pair[1] + pair[0][0]

@lazy(cache=True)
def made(n):
    return np.arange(n).sum()  # (an array made: NRT's allocator, no entry)

@lazy(cache=True)
def first(a):
    return a[0]

@lazy(cache=True)
def poke(a):
    a[0] = 88

@lazy(cache=True)
def div(a, b):
    return a // b + C

@lazy(cache=True)
def shout(x):
    print("x is", x)  # (numba's environment: no entry)
    return x
'''


def test_a_kept_kernel_runs_from_its_machine_code_without_numba(tmp_path):
    """A cached lazy kernel is compiled once per argument types into an entry whose
    machine code is kept; a later process runs it without importing numba, with
    numba's results: arrays of several dtypes and ranks (written through), numbers,
    booleans, numpy scalars, nested tuples, a constant it imports (changed: compiled
    again). A read-only array is read, never written (numba's error, as the dispatcher
    gives); an error raised is the dispatcher's. A kernel that makes arrays or
    prints, a call with an array not C-contiguous or a named tuple, run through
    numba's dispatcher; a damaged kept file is compiled again; where nothing can be
    kept, the dispatcher runs them all."""
    (tmp_path / "entrykernels.py").write_text(ENTRY_KERNELS)
    (tmp_path / "entryconstant.py").write_text("C = 10\n")
    code = """if 1:
        import sys
        from collections import namedtuple
        import numpy as np
        import entrykernels as k
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        print(k.weigh(a, 2.5, True, ((np.int32(-3), 7), 1 << 40)), a[0, 0])
        print(k.first(np.frombuffer(b"hello", np.uint8)), k.div(7, 2))
        print("numba imported:", "numba" in sys.modules)
        if len(sys.argv) > 1:  # (the dispatcher's)
            print(k.shout(3))
            print(k.weigh(np.ones((4, 4))[:, ::2], 1.0, False, ((1, 2), 3)))
            print(k.weigh(np.ones((1, 3)), 1.0, False, namedtuple("P", "x y")((1, 2), 3)))
            print(k.made(5))
            hello = b"hello"
            for f, args in ((k.poke, (np.frombuffer(hello, np.uint8),)), (k.div, (7, 0))):
                try:
                    f(*args)
                except Exception as e:
                    print(type(e).__name__, hello)
        print([sorted(bool(e) for e in f.entries.values())
               for f in (k.weigh, k.first, k.div, k.shout, k.made, k.poke)])
    """
    env = dict(os.environ, TRIVA3D_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(tmp_path))

    def run_python(*args):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, check=True, env=env, cwd=tmp_path).stdout.splitlines()
    # (0+1+...+11) * 2.5, 7 * 2**40 - 3; "h"; 7 // 2 + C; a (4, 4) of ones, every
    # other column: 8
    weighed = f"(165.0, False, {7 * 2 ** 40 - 3}) -1.0"
    expected = [weighed, "104 13", "numba imported: True", "x is 3", "3", "(8.0, True, 7)",
                "(3.0, True, 7)", "10", "TypingError b'hello'", "ZeroDivisionError b'hello'",
                "[[True], [True], [True], [False], [False], []]"]
    assert run_python("all") == expected  # compiled, kept (shout and made: no entry)
    assert len(list((tmp_path / "cache" / "kernels").iterdir())) == 5
    warm = [weighed, "104 13", "numba imported: False", "[[True], [True], [True], [], [], []]"]
    assert run_python() == warm
    for path in (tmp_path / "cache" / "kernels").iterdir():  # damaged: compiled again
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF
        path.write_bytes(bytes(data))
    assert run_python("all") == expected
    assert run_python() == warm
    (tmp_path / "entryconstant.py").write_text("C = 20\n")
    assert run_python()[1] == "104 23"
    env["TRIVA3D_CACHE_DIR"] = str(tmp_path / "entrykernels.py" / "cache")  # cannot keep:
    assert run_python("all")[-1] == "[[False], [False], [False], [False], [False], [False]]"


def test_a_kept_kernel_loads_while_another_thread_imports_numba(tmp_path):
    """The window reads a trace in a thread while its own thread imports numba (for
    the scene): the reader's kernels, their machine code kept, load meanwhile (their
    LLVM lock waits for numba's import to end), and the trace reads whole."""
    big = trace_of(tmp_path / "big.trace", 2000)
    code = """if 1:
        import sys, threading
        from triva3d.paje.reader import read_paje
        states = []
        t = threading.Thread(target=lambda: states.append(len(read_paje(sys.argv[1]).states)))
        t.start()
        import triva3d.scene.lod
        t.join()
        print(states)
    """
    env = dict(os.environ, TRIVA3D_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    for _ in range(3):  # (cold, then warm twice)
        p = subprocess.run([sys.executable, "-c", code, str(big)], capture_output=True,
                           text=True, env=env)
        assert p.stdout.split() == ["[2000]"], p.stderr[-2000:]
