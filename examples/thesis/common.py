"""What the thesis scenarios share: where topologies are, generating a run into the
output folder, and drawing it (each scenario script has `main(out)` returning
(picture, caption) pairs; `make gallery` runs them all)."""
import sys
from pathlib import Path

from triva3d import TimeSliceTreemap, View, ViewState, load
from triva3d.generate import write
from triva3d.panels.treemap import write as write_treemap

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGIES = ROOT / "topologies"
SIZE = (1280, 720)


def save(program, out, name, seed=0):
    """Write `program` as Pajé into `out` and load it (no cache: a fresh folder)."""
    path = Path(out) / name
    write(program, path, seed=seed)
    return load(path, cache=False), path


def shot(trace, out, name, **fields):
    """Render `trace` with these ViewState fields to `out/name`; the file name."""
    view = View(trace, ViewState(**fields), SIZE)
    view.save(Path(out) / name)
    view.close()
    return name


def treemap(trace, out, name, **options):
    """A Time-Slice treemap of `trace` to `out/name`; the file name."""
    tm = TimeSliceTreemap(trace, width=SIZE[0] - 200, height=SIZE[1], **options)
    write_treemap(tm, Path(out) / name, SIZE)
    return name


def quarters(trace):
    """The four quarters of the run, as (number from 1, window) pairs."""
    end = trace.end_time
    return [(q + 1, (end * q / 4, end * (q + 1) / 4)) for q in range(4)]


def run(main):
    """`python SCRIPT [OUT]`: the scenario's pictures into OUT (default gallery/thesis)."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "gallery/thesis")
    out.mkdir(parents=True, exist_ok=True)
    for name, caption in main(out):
        print(out / name, caption)
