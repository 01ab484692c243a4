"""Timing a whole triva3d command, as a user waits for it (start-up included)."""
import subprocess
import sys
import tempfile
import time


def best_run(args, out_name, runs=3):
    """Best wall seconds of `triva3d ARGS -o TMP/out_name --no-cache` over `runs`."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, "-m", "triva3d.cli", *map(str, args), "-o", f"{d}/{out_name}",
               "--no-cache"]
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
    return min(times)


def ping_pong(command, out_name):
    """Print the best whole `triva3d COMMAND` on the shared OTF2 ping-pong (if there)."""
    from pathlib import Path
    pp = Path(__file__).resolve().parents[2] / "shared" / "data" / "otf2" / "ping-pong-otf2"
    if pp.exists():
        print(f"triva3d {command} ping-pong-otf2, whole process: best "
              f"{best_run([command, pp], out_name):.2f} s")
