"""The gallery: every real trace of ../shared/data drawn on the base that fits it, in
the iso, top and timeline views, with its Time-Slice treemap, then the scenarios of
the Triva thesis rebuilt from generated runs (examples/thesis), into one folder with
an index page (`make gallery`; `python examples/gallery.py [DATA] [OUT]`).

Which base fits which trace:
- SimGrid traces of an MSG program (ms, categories) stand on the platform they ran
  on, `platforms/small_platform.xml`; g5k.trace on `platforms/g5k.xml`;
- SimGrid traces that carry their own platform (simu-mardi, simgrid-fg126) stand
  on themselves (the trace read as a topology);
- traces with messages and no platform (the OTF2 ping-pongs, links.trace) on
  their communication graph;
- the rest (StarPU, the small PajeNG unit traces) on a treemap of their containers.
"""
import html
import sys
import time
from pathlib import Path

from triva3d import TimeSliceTreemap, Triva3dError, View, ViewState, load
from triva3d.panels.treemap import write

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 720)
SMALL_PLATFORM = "platforms/small_platform.xml"
#: trace (relative to the data folder) -> (ViewState fields of its base, load leniently?)
TRACES = {
    "paje/ms.trace": ({"topology": SMALL_PLATFORM}, False),
    "paje/categories.trace": ({"topology": SMALL_PLATFORM}, False),
    "paje/g5k.trace": ({"topology": "platforms/g5k.xml"}, False),
    "paje/simu-mardi.trace": ({"topology": "paje/simu-mardi.trace"}, False),
    "paje/simgrid-fg126.trace": ({"topology": "paje/simgrid-fg126.trace"}, False),
    "paje/native_sample.trace": ({"base": "treemap"}, False),
    "paje/native_paje.trace": ({"base": "treemap"}, True),
    "otf2/ping-pong-otf2": ({"base": "appgraph"}, False),
    "otf2/ping-pong-otf2-papi": ({"base": "appgraph"}, False),
    "paje/links.trace": ({"base": "appgraph"}, False),
    "paje/gattaca.trace": ({"base": "treemap"}, False),
    "paje/replay_output_shurakai_extract.trace": ({"base": "treemap"}, False),
    "paje/states.trace": ({"base": "treemap"}, False),
    "paje/variables.trace": ({"base": "treemap"}, False),
    "paje/events.trace": ({"base": "treemap"}, False),
    "paje/containers.trace": ({"base": "treemap"}, False),
}


def treemap_metric(trace):
    for metric, table in (("state", "states"), ("variable", "variables"), ("link", "links"),
                          ("event", "events")):
        if len(getattr(trace, table)):
            return metric
    return "state"


def draw(data, out, rel, base, lenient):
    """The pictures of one trace: (file names, lines to show under them)."""
    trace = load(data / rel, lenient=lenient, cache=False)
    fields = {k: str(data / v) if k == "topology" else v for k, v in base.items()}
    stem = rel.replace("/", "_").replace(".trace", "")
    shots, lines = [], []
    view = View(trace, ViewState(**fields), SIZE)
    lines += view.warnings() + view.notes()
    for name in ("iso", "top"):
        view.state.view = name
        view.save(out / f"{stem}_{name}.png")
        shots.append(f"{stem}_{name}.png")
    lines.append(view.summary())
    view.close()
    timeline = View(trace, ViewState(base="timeline", view="timeline"), SIZE)
    timeline.save(out / f"{stem}_timeline.png")
    timeline.close()
    shots.append(f"{stem}_timeline.png")
    tm = TimeSliceTreemap(trace, metric=treemap_metric(trace), width=SIZE[0] - 200,
                          height=SIZE[1])
    write(tm, out / f"{stem}_treemap.png", SIZE)
    shots.append(f"{stem}_treemap.png")
    return shots, lines + tm.warnings() + tm.notes


def thesis(out):
    """The thesis section: every scenario of examples/thesis (generated runs, no data
    needed), its pictures in `out`; the index page's rows."""
    import importlib
    sys.path.insert(0, str(ROOT / "examples" / "thesis"))
    out.mkdir(parents=True, exist_ok=True)
    rows = ["<h1>Scenarios of the Triva thesis (chapter 6), generated</h1>"]
    for script in sorted((ROOT / "examples" / "thesis").glob("fig*.py")):
        t = time.perf_counter()
        module = importlib.import_module(script.stem)
        shots = module.main(out)
        print(f"thesis/{script.name}: {len(shots)} pictures in {time.perf_counter() - t:.1f} s",
              flush=True)
        cells = "".join(f'<figure style="display:inline-block;width:420px"><a href="thesis/'
                        f'{s}"><img src="thesis/{s}" width="420"></a><figcaption>'
                        f'{html.escape(c)}</figcaption></figure>' for s, c in shots)
        doc = html.escape(module.__doc__.split("(`python")[0])
        rows.append(f"<h2>{html.escape(script.name)}</h2><p>{doc}</p>{cells}")
    return rows


def main(data=ROOT.parent / "shared" / "data", out=ROOT / "gallery"):
    data, out = Path(data), Path(out)
    if not data.is_dir():
        sys.exit(f"gallery: the data folder {data} is not there")
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for rel, (base, lenient) in TRACES.items():
        t = time.perf_counter()
        try:
            shots, lines = draw(data, out, rel, base, lenient)
        except Triva3dError as e:
            shots, lines = [], [f"error: {e}"]
        print(f"{rel}: {len(shots)} pictures in {time.perf_counter() - t:.1f} s", flush=True)
        where = ", ".join(f"{k} {v}" for k, v in base.items())
        cells = "".join(f'<a href="{s}"><img src="{s}" width="320"></a>' for s in shots)
        notes = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
        rows.append(f"<h2>{html.escape(rel)}</h2><p>on {html.escape(where)}; iso, top, "
                    f"timeline, treemap</p>{cells}<ul>{notes}</ul>")
    rows += thesis(out / "thesis")
    (out / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><title>triva3d gallery</title>"
        "<body style='background:#17191d;color:#ddd;font-family:sans-serif'>"
        "<h1>triva3d gallery</h1>" + "\n".join(rows) + "</body>\n")
    print(f"{out / 'index.html'}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
