"""Ingest in bounded memory (issue 34.3): `triva3d ingest TRACE -o DIR` of synthetic
Pajé traces (gen_trace.py: 3 200 processes, nested states, a message with a unique
key for every 10 events or so, variables, events), each in a fresh process: its time
and peak RSS, against the same store made from the trace read whole (load, then
store.ingest), and `pj_dump -q` of the trace where PajeNG is installed, up to
--whole-max events (their peaks grow with the trace). The two stores are compared
file by file. Prints its figures. With --otf2, OTF2 archives instead
(tests/otf2gen.big: --ranks MPI ranks in a ring, nested regions, a message every 8
events), written once with otf2.writer.

Usage: python benchmarks/bench_ingest.py [--events 1e6 1e7] [--otf2 [--ranks 64]]
                                         [--dir /tmp/triva3d-bench]
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WHOLE = ["-c", "import sys; from triva3d import load; from triva3d.store import ingest; "
         "ingest(load(sys.argv[1], cache=False), sys.argv[2])"]


def run(argv, **kw):
    """(seconds, peak RSS in MB) of a fresh process running `argv`."""
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, **kw)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        if os.waitstatus_to_exitcode(status):
            err.seek(0)
            sys.exit(err.read().decode())
    return wall, usage.ru_maxrss / 1024


def same_files(a, b):
    """Whether the folders `a` and `b` hold the same files, byte for byte (store.json
    but its source: not compared)."""
    files = [sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d)
                    for f in fs) for d in (a, b)]
    return files[0] == files[1] and all(
        f.endswith("store.json") or filecmp.cmp(os.path.join(a, f), os.path.join(b, f),
                                                shallow=False) for f in files[0])


def trace(a, n):
    """(path, events) of the synthetic Pajé trace of about `n` events (made once)."""
    path = os.path.join(a.dir, f"synthetic-{n:.0e}.trace")
    countfile = path + ".events"
    if not (os.path.exists(path) and os.path.exists(countfile)):
        from gen_trace import generate
        t = time.perf_counter()
        with open(countfile, "w") as f:
            f.write(str(generate(int(n), path)))
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    return path, int(open(countfile).read())


def archive(a, n):
    """(folder, events) of the OTF2 archive of about `n` events (made once)."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import otf2
    import otf2gen
    path = os.path.join(a.dir, f"otf2-ingest-{a.ranks}-{n:.0e}")
    if not os.path.exists(os.path.join(path, "traces.otf2")):
        t = time.perf_counter()
        otf2gen.big(path, int(n), ranks=a.ranks)
        print(f"wrote {path} in {time.perf_counter() - t:.1f} s")
    with otf2.reader.open(os.path.join(path, "traces.otf2")) as tr:
        return path, sum(loc.number_of_events for loc in tr.definitions.locations)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", type=float, nargs="+", default=[1e6, 1e7])
    p.add_argument("--dir", default="/tmp/triva3d-bench")
    p.add_argument("--whole-max", type=float, default=3e7,
                   help="read whole and pj_dump (the comparisons) up to this many events")
    p.add_argument("--otf2", action="store_true", help="OTF2 archives, not Pajé traces")
    p.add_argument("--ranks", type=int, default=64, help="the OTF2 archives' ranks")
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    sys.path.insert(0, HERE)
    env = dict(os.environ, TRIVA3D_CACHE_DIR=os.path.join(a.dir, "cache"))
    for n in a.events:
        path, events = (archive if a.otf2 else trace)(a, n)
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path)
                   for f in fs) if a.otf2 else os.path.getsize(path)
        print(f"== {path}: {events} events, {size / 2**20:.0f} MiB")
        streamed, whole = (os.path.join(a.dir, f"ingest-{k}") for k in ("streamed", "whole"))
        for out in (streamed, whole):
            shutil.rmtree(out, ignore_errors=True)
        t, peak = run([sys.executable, "-m", "triva3d.cli", "ingest", "--no-cache", path,
                       "-o", streamed], env=env)
        print(f"ingest (bounded)     {t:6.1f} s  peak {peak:6.0f} MB  "
              f"{events / t / 1e6:.2f} M events/s")
        if events <= a.whole_max:
            t, peak = run([sys.executable, *WHOLE, path, whole], env=env)
            print(f"load + ingest whole  {t:6.1f} s  peak {peak:6.0f} MB  "
                  f"same files: {same_files(streamed, whole)}")
            shutil.rmtree(whole)
        if shutil.which("pj_dump") and events <= a.whole_max and not a.otf2:
            t, peak = run(["pj_dump", "-q", path])
            print(f"pj_dump -q           {t:6.1f} s  peak {peak:6.0f} MB")
        shutil.rmtree(streamed)


if __name__ == "__main__":
    main()
