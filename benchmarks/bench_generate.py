"""The thesis generators, whole process (`triva3d generate ...` as a user runs it):
the hierarchy of Listing 6.1 at 6000 and 150 000 leaves (the thesis: 150 000 in 3 s),
the same as OTF2, a ring pattern over 150 000 leaves, and work stealing of 2900
processes on Grid'5000. Prints seconds (best of 3) and output sizes.

Usage: python benchmarks/bench_generate.py
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def config(counts):
    names = [("Site", "S"), ("Cluster", "C"), ("Machine", "M"), ("Processor", "P")]
    return {"levels": [{"count": c, "name": n, "alias": a} for c, (n, a) in zip(counts, names)],
            "duration": 20, "cosine-max-x-axis-value": 7.5}


def size(path):
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def run(name, args, out, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "triva3d.cli", "generate", *map(str, args),
                        "-o", str(out)], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    print(f"{name:<44} {min(times):7.2f} s  {size(out) / 2**20:8.1f} MiB", flush=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        small, big = tmp / "small.json", tmp / "big.json"
        small.write_text(json.dumps(config([5, 3, 100, 4])))
        big.write_text(json.dumps(config([5, 3, 2500, 4])))
        run("hierarchy, 6000 leaves (Pajé)", ["hierarchy", small], tmp / "a.trace")
        run("hierarchy, 150 000 leaves (Pajé)", ["hierarchy", big], tmp / "b.trace")
        run("hierarchy, 6000 leaves (OTF2)", ["hierarchy", small, "--format", "otf2"],
            tmp / "c.otf2", runs=1)
        run("ring over 150 000 leaves, 4 rounds (Pajé)",
            ["pattern", big, "--shape", "ring", "--count", "4"], tmp / "d.trace")
        run("work stealing, 2900 processes on g5k (Pajé)",
            ["workstealing", "--topology", ROOT / "topologies" / "g5k.dot", "--processes",
             "2900", "--hosts", "310"], tmp / "e.trace")
    print(f"cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
