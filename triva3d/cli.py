"""The `triva3d` command: a thin layer over the library.

Bad input prints one line `triva3d: error: FILE:LINE: reason` and exits 2.
"""
import argparse
import contextlib
import errno
import json
import math
import os
import sys
import time

from .errors import OptionsError, Triva3dError


def _load(args, as_asked=True, path=None, state=None, part=False):
    """The trace of `path` (default the command's TRACE) as the options ask (logical
    time, clusters, by task, also where the ViewState `state` stands on the execution
    tree), and the seconds it took. `part`: of a store, only what `state` draws
    needs (ViewState.part) where the options need no more; "skeleton": of a store,
    no entity, but what the whole run says (engine.read_skeleton)."""
    from .bases import by_task
    from .load import load
    from .engine import read_part
    from .store import store_folder
    t0 = time.perf_counter()
    cut = by_task(state.base if state is not None else getattr(args, "base", None),
                  getattr(args, "by_task", False))
    store = store_folder(path or args.trace) if part else None
    logical = getattr(args, "time", None) == "logical"
    window = None if not store or cut or getattr(args, "clusters", None) or logical else \
        () if part == "skeleton" else state.part()
    with _reading() as progress:
        dask = getattr(args, "dask", None)
        if dask and window is None:
            raise OptionsError("--dask reduces the messages per pair of a store (triva3d "
                               "ingest) read for a --window (render: or drawn at the level "
                               "of detail, above 100 000 states), with nothing that needs "
                               "the whole run")
        trace = read_part(store, window, dask) if window is not None else load(
            path or args.trace, lenient=args.lenient, cache=not args.no_cache,
            progress=progress)
    if cut and getattr(args, "clusters", None):
        raise OptionsError("clusters group processes, by task each task is a container: "
                           "not both")
    if as_asked and getattr(args, "clusters", None):  # (steps: a column, not a level)
        from .analysis.logical import clustered_trace
        trace = clustered_trace(trace, args.clusters)
    if cut:
        from .analysis.tasks import task_trace
        trace = task_trace(trace)
    if logical:
        from .analysis.logical import logical_trace
        trace = logical_trace(trace)
    for note in trace.notes:
        print(f"triva3d: note: {note}", file=sys.stderr)
    return trace, time.perf_counter() - t0


@contextlib.contextmanager
def _reading(desc="reading", unit="B"):
    """A bar of the bytes read (or other `unit`s done), on a terminal (the library
    never prints): yields its f(done, in all), or None (tqdm, 20 ms to import, not
    imported off a terminal)."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm
    with tqdm(unit=unit, unit_scale=unit == "B", delay=1.0, leave=False, desc=desc) as bar:

        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)
        yield progress


#: Options that name files a command reads, and files it writes.
INPUTS = ("trace", "other", "input", "topology", "mapping", "state", "colors", "path",
          "config")
OUTPUTS = ("output", "csv", "save_state", "script")


def _outputs_safe(args):
    """Refuse, before any work, an output that cannot be written or names an input.
    `-o` names a folder for a store, a movie's frames and an OTF2 archive."""
    from .output import check_outputs
    folder = args.command in ("ingest", "animate") or getattr(args, "format", None) == "otf2"
    check_outputs([getattr(args, n, None) for n in OUTPUTS],
                  [getattr(args, n, None) for n in INPUTS],
                  [getattr(args, "output", None)] if folder else [])


def _report(trace):
    for line in trace.report_lines():
        print(f"triva3d: {line}", file=sys.stderr)


def cmd_dump(args):
    from .dump import dump
    trace, _ = _load(args)
    _report(trace)
    dump(trace, sys.stdout.buffer, user_defined=args.user_defined)
    sys.stdout.buffer.flush()


def cmd_stats(args):
    from .stats import render, summary
    trace, seconds = _load(args, part="skeleton")  # (a store: the tallies it keeps)
    s = summary(trace, seconds, args.time_unit)
    if args.json:
        print(json.dumps(s, indent=1))
    else:
        sys.stdout.write(render(s))


def cmd_steps(args):
    from .analysis.logical import steps
    trace, _ = _load(args, as_asked=False)
    s = steps(trace, phases=args.phases, n_clusters=args.clusters)
    for note in s.notes:
        print(f"triva3d: note: {note}", file=sys.stderr)
    s.write_csv(args.output)
    print(f"{args.output}: {s.summary()}", file=sys.stderr)


def cmd_tasks(args):
    from .analysis.tasks import tasks
    suffix = os.path.splitext(args.output)[1].lower()
    if suffix not in (".csv", ".svg", ".png", ".dot"):
        raise OptionsError(f"{args.output}: tasks are written as .csv (a row per task), or "
                           "their execution tree as .svg, .png or .dot")
    trace, _ = _load(args)
    tk = tasks(trace, guid=args.guid, parent=args.parent)
    chosen = focus = states = None
    if args.task is not None:
        try:
            focus = tk.find(args.task)
            chosen = tk.lineage(focus)
        except ValueError:
            raise OptionsError(f"task {args.task}: no such GUID in {trace.source}") from None
    bars = ""
    if args.intervals is not None:
        from .analysis.intervals import durations
        value, lo, hi = args.intervals
        d = durations(trace, value)
        states = d.mask(lo, hi, len(trace.states))
        chosen = tk.running(states)
        if not states.any():
            print(f"triva3d: note: no {value} interval lasts {lo:.4g} to {hi:.4g} "
                  f"{trace.unit()} (they last {d.seconds.min():.4g} to {d.seconds.max():.4g})",
                  file=sys.stderr)
    if args.gantt is not None:
        from .analysis.tasks import gantt
        from .panels.distribution import save
        from .panels.gantt import svg
        if suffix not in (".svg", ".png"):
            raise OptionsError(f"{args.output}: an aggregated Gantt is written as .svg or .png")
        text = None if states is None else (f"{value} intervals of {lo:.4g} to {hi:.4g} "
                                            f"{trace.unit()}")
        g = gantt(tk, trace, args.gantt, states)
        save(svg(g, tk, trace, chosen, chosen_text=text), args.output)
        bars = f"; {len(g)} bars" + ("" if g.holds is None else
                                     f", {int(g.holds.sum())} holding the intervals")
    elif suffix == ".csv":
        tk.write_csv(args.output, trace, chosen)
    else:
        from .panels.tasktree import write
        write(tk, trace, args.output, chosen, focus)
    shown = f"{len(chosen)} tasks of {len(tk)}" if chosen is not None else f"{len(tk)} tasks"
    print(f"{args.output}: {shown} ({tk.missing_parents} of all without their parent in the "
          f"trace){bars}", file=sys.stderr)


def cmd_intervals(args):
    from .analysis.intervals import box_plot, durations
    from .panels.distribution import save
    from .panels.intervals import box_plot_svg, histogram_svg
    suffix = os.path.splitext(args.output)[1].lower()
    if (args.value is None) == (args.counter is None):
        raise OptionsError("give --value NAME (a primitive's durations) or --counter NAME "
                           "(a variable's box plot)")
    if (args.range and args.counter) or (args.window and args.value):
        raise OptionsError("--range brushes a histogram's durations (--value), --window "
                           "bounds a box plot (--counter)")
    if suffix not in (".svg", ".png") + ((".csv",) if args.value else ()):
        raise OptionsError(f"{args.output}: " + ("a histogram is written as .svg, .png, or "
                           ".csv (its intervals)" if args.value else "a box plot is written "
                           "as .svg or .png"))
    trace, _ = _load(args)
    if args.counter is not None:
        save(box_plot_svg(box_plot(trace, args.counter, window=args.window), trace),
             args.output)
        return
    d = durations(trace, args.value)
    if suffix == ".csv":
        rows = d.within(*args.range) if args.range else d.outliers
        d.write_csv(args.output, trace, rows)
        print(f"{args.output}: {len(rows)} intervals " + (
            "within the range" if args.range else "far outliers"), file=sys.stderr)
        return
    from .colors import value_rgb
    save(histogram_svg(d, trace, value_rgb(trace)[d.code], args.range), args.output)


def cmd_calltree(args):
    from .analysis.calltree import calltree
    suffix = os.path.splitext(args.output)[1].lower()
    if args.modules is None and args.split:
        raise OptionsError("--split splits the modules of a super graph: give --modules")
    formats = (".csv", ".svg", ".png", ".dot") if args.modules else (".csv", ".folded",
                                                                       ".svg", ".png")
    if suffix not in formats:
        raise OptionsError(f"{args.output}: a {'super graph' if args.modules else 'call tree'}"
                           f" is written as {', '.join(formats)}")
    trace, _ = _load(args)
    tree = calltree(trace, window=args.window, containers=args.containers)
    if args.node:
        from .panels.distribution import write
        if suffix not in (".svg", ".png"):
            raise OptionsError(f"{args.output}: a distribution is drawn as .svg or .png")
        x, _, y = (args.scatter or "inclusive,exclusive").partition(",")
        write(tree, args.node, args.output, x.strip(), y.strip() or "exclusive")
        print(f"{args.output}: {args.node}'s spread over the containers", file=sys.stderr)
        return
    if args.modules:
        from .analysis.supergraph import read_modules, super_graph
        mapping = None if args.modules == "auto" else read_modules(args.modules)
        sg = super_graph(tree, mapping, args.split, args.threshold / 100)
        if suffix == ".csv":
            sg.write_csv(args.output, trace.unit())
        else:
            from .panels.supergraph import write
            write(sg, args.output, trace.unit())
        print(f"{args.output}: {sg.summary(trace.unit())}", file=sys.stderr)
        return
    if suffix == ".folded":
        tree.write_folded(args.output)
    elif suffix in (".svg", ".png"):
        from .panels.sankey import Sankey, write
        write(Sankey(tree, how=args.agg, threshold=args.threshold / 100), args.output)
    else:
        tree.write_csv(args.output)
    print(f"{args.output}: {tree.summary()}", file=sys.stderr)


def cmd_compare(args):
    from .analysis.compare import compare, read_mapping
    from .load import load
    suffix = os.path.splitext(args.output)[1].lower()
    if suffix not in (".csv", ".png", ".jpg", ".jpeg", ".svg"):
        raise OptionsError(f"{args.output}: a comparison is written as .csv, or as the "
                           "difference treemap in .png, .jpg or .svg")
    if args.calltree and suffix not in (".svg", ".png"):
        raise OptionsError(f"{args.output}: the difference call tree is drawn as .svg or "
                           ".png")
    a, _ = _load(args)
    b = load(args.other, lenient=args.lenient, cache=not args.no_cache)
    if args.calltree:
        from .panels.difference import DifferenceSankey
        from .panels.sankey import write
        sk = DifferenceSankey(a, b, window=args.window, how=args.agg)
        write(sk, args.output)
        print(f"{args.output}: {len(sk.paths)} call paths of B coloured by B - A"
              + (f"; {len(sk.only_a)} paths of A only" if sk.only_a else ""), file=sys.stderr)
        return
    mapping = read_mapping(args.mapping) if args.mapping else None
    c = compare(a, b, window=args.window, level=args.level, how=args.agg, mapping=mapping)
    for note in c.notes():
        print(f"triva3d: note: {note}", file=sys.stderr)
    if suffix == ".csv":
        c.write_csv(args.output)
    else:
        from .panels.difference import DifferenceTreemap
        from .panels.treemap import write
        tm = DifferenceTreemap(a, b, window=args.window, mapping=mapping, level=args.level,
                               how=args.agg)
        write(tm, args.output)
    print(f"{args.output}: {len(c.rows)} rows, {len({r[0] for r in c.rows})} containers "
          "matched", file=sys.stderr)


def cmd_ingest(args):
    from .spill import ingest_file
    t0 = time.perf_counter()
    with _reading() as progress, _reading("writing", " buckets") as writing:
        trace, counts, n = ingest_file(args.trace, args.output, lenient=args.lenient,
                                       cache=not args.no_cache, progress=progress,
                                       writing=writing)
    for note in trace.notes:
        print(f"triva3d: note: {note}", file=sys.stderr)
    _report(trace)
    print(f"{args.output}: a store of {counts['states']} states, {counts['links']} links, "
          f"{counts['variables']} variable pieces, {counts['events']} events in {n} files "
          f"(in {time.perf_counter() - t0:.2f} s)", file=sys.stderr)


def _bounds(what, form):
    """An argparse type: two numbers A:B with A <= B (`what` names it, `form` its form)."""
    def parse(text):
        try:
            a, b = (float(v) for v in text.split(":"))
            if not (math.isfinite(a) and math.isfinite(b)):
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {form}, got {text!r}") from None
        if b < a:
            raise argparse.ArgumentTypeError(f"{what} {text!r} ends before it starts")
        return a, b
    return parse


_window = _bounds("window", "T0:T1 (times)")
_range = _bounds("range", "LO:HI (durations)")


def _intervals(text):
    value, sep, rest = text.rpartition(":")
    name, sep2, lo = value.rpartition(":")
    try:
        if not (sep and sep2 and name):
            raise ValueError
        lo, hi = float(lo), float(rest)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected VALUE:LO:HI (a state value, two "
                                         f"durations), got {text!r}") from None
    if not lo <= hi:
        raise argparse.ArgumentTypeError(f"{text!r}: the durations' range ends before it "
                                         "starts (LO:HI, in the trace's unit)")
    return name, lo, hi


def cmd_topology_convert(args):
    from .bases.dotfile import write_dot
    from .bases.readers import read_topology
    from .bases.topology import collapse_links
    topo = read_topology(args.input)
    if args.links == "edges":
        topo = collapse_links(topo)
    write_dot(topo, args.output, comment=f"made by triva3d topology convert from "
              f"{os.path.basename(args.input)}" + (" --links edges" if args.links == "edges" else ""))
    print(f"{args.output}: {len(topo)} nodes, {topo.n_edges} edges", file=sys.stderr)


def cmd_topology_info(args):
    from .bases.readers import read_topology
    from .bases.topology import info, render_info
    d = info(read_topology(args.input))
    print(json.dumps(d, indent=1) if args.json else render_info(d), end="\n" if args.json else "")


def cmd_topology_route(args):
    from .bases.routing import route
    from .bases.readers import read_topology
    topo = read_topology(args.input)
    print("\n".join(topo.names[i] for i in route(topo, args.src, args.dst)))


def cmd_place(args):
    import contextlib
    import csv
    from .bases.layout import make_layout
    from .output import writing
    from .viewstate import ViewState
    from .store import store_folder
    state = ViewState(**_fields(args))
    options = state.base_options()
    store = store_folder(args.trace) if options["base"] != "tasktree" \
        and options["metric"] == "containers" else None
    if args.dask and not store:
        raise OptionsError("--dask places a store's containers (triva3d ingest) on a base "
                           "other than tasktree, leaves sized by containers")
    if store:  # its containers; the messages per pair reduced over its links
        from .engine import read_skeleton
        trace = read_skeleton(store, args.dask)
        for note in trace.notes:
            print(f"triva3d: note: {note}", file=sys.stderr)
    else:
        trace, _ = _load(args)
    lay = make_layout(trace, **options, window=args.graph_window)
    with writing(args.csv, newline="") if args.csv else contextlib.nullcontext(sys.stdout) \
            as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["container", "type", "node", "rule", "x", "y", "w", "h"])
        for row in lay.rows(trace):
            w.writerow(list(row[:4]) + [f"{v:.6g}" for v in row[4:]])
    print("\n".join(lay.summary()), file=sys.stdout if args.csv else sys.stderr)


def _size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH in pixels, got {text!r}") from None
    if not (16 <= w <= 16384 and 16 <= h <= 16384):
        raise argparse.ArgumentTypeError(f"size {text!r} outside 16..16384 pixels")
    return w, h


def _opacity(text):
    try:
        a = float(text)
    except ValueError:
        a = -1.0
    if not 0 <= a <= 1:
        raise argparse.ArgumentTypeError(f"expected an opacity in 0..1, got {text!r}")
    return a


def _number(cast, least, what, exclusive=False):
    """An argparse type: the text as `cast`, finite, at least `least` (or above)."""
    def parse(text):
        try:
            v = cast(text)
        except ValueError:
            v = None
        if v is None or not (v > least if exclusive else v >= least) or v == float("inf"):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return v
    return parse


_positive = _number(float, 0.0, "a positive number", exclusive=True)
_non_negative = _number(float, 0.0, "a number 0 or more")
_count = _number(int, 1, "a positive integer")
_seed = _number(int, 0, "an integer 0 or more")
_depth = _number(int, 0, "a depth, 0 or more")


def _list(text):
    """An argparse type: names separated by commas."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _fields(args):
    """{ViewState field: value} of the options given (each Setting names its option)."""
    from .viewstate import SETTINGS
    return {s.name: getattr(args, s.option) for s in SETTINGS
            if s.option and getattr(args, s.option, None) is not None}


def _state(args):
    """The ViewState the options describe: a saved view, if given, with the options
    given on top of it."""
    from .viewstate import ViewState
    state = ViewState.load(args.state) if args.state else ViewState()
    state.update(**_fields(args))
    if getattr(args, "time", None) == "logical" and state.color_by.startswith("difference"):
        raise OptionsError("a difference compares the runs in seconds: not with --time "
                           "logical (side by side aligns two runs step for step)")
    if args.no_labels:
        state.labels = False
    if args.routes:
        state.routes = True
    if args.hide:
        state.hidden = state.hidden + _list(args.hide)
    if args.variables:
        from .analysis.roles import parse_rules
        state.variables = {**state.variables, **parse_rules(args.variables)}
    if args.colors:
        from .colors import read_colors
        state.colors = {**state.colors, **read_colors(args.colors)}
    return state


def cmd_render(args):
    from .output import image_format
    from .view import View
    t0 = time.perf_counter()
    image_format(args.output)
    state = _state(args)
    view = _store_view(args, state)
    if view is None:
        trace, _ = _load(args, state=state, part=True)
        _report(trace)
        view = _pair(args, trace, state) if state.side_by_side else \
            View(trace, state, size=args.size, quality=args.quality)
    for line in view.warnings():
        print(f"triva3d: warning: {line}", file=sys.stderr)
    for line in view.notes():
        print(f"triva3d: note: {line}", file=sys.stderr)
    view.save(args.output)
    if args.save_state:
        state.save(args.save_state)
    print(f"{args.output}: {view.summary()} in {time.perf_counter() - t0:.2f} s",
          file=sys.stderr)


def _store_view(args, state):
    """Of a store (triva3d ingest), the View that reads only what the picture draws
    (View.of_store), its notes said; else None."""
    from .store import store_folder
    from .view import View
    store = store_folder(args.trace)
    if not store or getattr(args, "by_task", False) or getattr(args, "clusters", None) \
            or getattr(args, "time", None) == "logical":
        return None
    view = View.of_store(store, state, size=args.size, quality=args.quality,
                         address=getattr(args, "dask", None))
    if view is not None:
        for note in view.trace.notes:
            print(f"triva3d: note: {note}", file=sys.stderr)
        _report(view.trace)
    return view


def _pair(args, trace, state):
    """The SideBySide of `trace` and the run the state compares it with, read as
    `trace` was (in logical time: the runs aligned by step)."""
    from .sidebyside import SideBySide
    if state.compare is None:
        raise OptionsError("side by side needs a second run: give --compare B")
    if getattr(args, "encoding", None) == "events":
        raise OptionsError("side by side films the 3D scenes: not with --encoding events")
    other, _ = _load(args, path=state.compare, state=state)
    return SideBySide(trace, other, state, size=args.size, quality=args.quality)


def cmd_animate(args):
    from tqdm import tqdm
    from .movie.encode import check_output
    from .movie.frames import record
    from .movie.paths import make_path, morphed
    from .view import View
    t0 = time.perf_counter()
    check_output(args.output, args.size)
    if args.morph and args.time == "logical":
        raise OptionsError("--morph goes from physical to logical time: leave out --time")
    if args.morph and args.encoding == "events":
        raise OptionsError("--morph morphs the 3D scene's time axis: not with --encoding "
                           "events")
    state = _state(args)
    for name in ("unfold", "particles", "heat"):  # given: on top of a --state's
        if getattr(args, name):
            setattr(state, name, getattr(args, name))
    # (orbit and rise keep the state's window: of a store, a part serves them)
    trace, _ = _load(args, state=state, part=args.path in ("orbit", "rise")
                     and not args.morph and args.encoding == "scene")
    _report(trace)
    view = View(trace, state, size=args.size, quality=args.quality)
    for line in view.warnings():
        print(f"triva3d: warning: {line}", file=sys.stderr)
    keys = make_path(view, args.path, args.duration)
    if args.morph:
        keys = morphed(keys)
    draw, what = None, view.summary().split(',')[0]
    if args.encoding == "events":  # Sigovan's particles, rising as `now` climbs
        from .movie.frames import events_drawer
        from .movie.paths import with_cursor
        keys = with_cursor(keys, view)
        draw, what = events_drawer(view, keys, args.size)
    elif state.side_by_side:  # both runs through the same path, each from its start
        draw, what = _pair(args, trace, state).render, "two runs side by side"
    if args.script:
        keys.save(args.script)
    with tqdm(unit="frame", desc=os.path.basename(args.output.rstrip("/")),
              file=sys.stderr, disable=None) as bar:
        def progress(i, n):
            bar.total = n
            bar.update(1)
        frames, size, seconds = record(view, keys, args.output, args.fps, progress=progress,
                                       draw=draw)
    print(f"{args.output}: {frames} frames of {what} at {args.fps:g} "
          f"frames/s ({keys.duration:g} s, {len(keys)} keyframes), {size / 1e6:.1f} MB, "
          f"rendered at {frames / seconds:.1f} frames/s; "
          f"{time.perf_counter() - t0:.1f} s in all", file=sys.stderr)


def cmd_view(args):
    from .gui.app import run
    state = _state(args)
    if state.side_by_side:
        raise OptionsError("two runs side by side are drawn by render and animate; the "
                           "window compares them by colour (--color-by difference:METRIC)")
    if args.dask:  # the window's reads of a store's parts reduce there (engine.client)
        from .engine import client
        client(args.dask).close()  # (one line where it cannot be reached)
        os.environ["TRIVA3D_DASK"] = args.dask
    status = run(args.trace, state, quality=args.quality, lenient=args.lenient,
                 by_task=args.by_task)
    if status:
        raise SystemExit(status)


def cmd_treemap(args):
    import numpy as np
    from .panels.treemap import TimeSliceTreemap, check_output, write
    check_output(args.output)
    from .viewstate import CHECKS
    color_by = CHECKS["color_by"](args.color_by or "value")
    slicer = None
    store = _on_store(args, color_by)
    if store:  # reduced over the store: its states never held here
        from .engine import StoreSlicer
        from .engine import read_skeleton
        trace = read_skeleton(store, args.dask)
        slicer = StoreSlicer(store, trace, args.dask)
        for note in trace.notes:
            print(f"triva3d: note: {note}", file=sys.stderr)
    else:  # (a store's slice: only the entities meeting it, ViewState.part)
        from .viewstate import ViewState
        trace, _ = _load(args, state=ViewState(window=args.slice, color_by=color_by,
                                               compare=args.compare), part=True)
    _report(trace)
    values = [v.strip() for v in args.values.split(",")] if args.values else None
    other = None
    if args.compare:
        from .load import load
        other = load(args.compare, lenient=args.lenient, cache=not args.no_cache)
    tm = TimeSliceTreemap(trace, window=args.slice, level=args.level, how=args.agg,
                          metric=args.cells, values=values, width=args.size[0],
                          height=args.size[1], nested=args.nested, time_unit=args.time_unit,
                          color_by=color_by, other=other, slicer=slicer)
    highlight = tm.find(args.highlight) if args.highlight else None
    for line in tm.warnings():
        print(f"triva3d: warning: {line}", file=sys.stderr)
    for line in tm.notes:
        print(f"triva3d: note: {line}", file=sys.stderr)
    write(tm, args.output, args.size, highlight)
    print(f"{args.output}: slice {tm.t0:.9g}..{tm.t1:.9g} {tm.time_unit}, "
          f"{len(np.unique(tm.cell_node))} "
          f"nodes x {len(tm.value_names)} {args.cells} values ({args.agg}), "
          f"{len(tm.cell_rects)} cells", file=sys.stderr)


def _on_store(args, color_by):
    """The store's folder where the treemap of `args` is reduced over a store by the
    engine (state cells, exclusive time, nothing that needs every entity), else None;
    --dask on anything else is refused."""
    from .store import store_folder
    can = store_folder(args.trace) if (
        args.cells == "state" and args.nested == "exclusive" and color_by == "value"
        and not (args.compare or args.clusters or args.by_task)) else None
    if args.dask and not can:
        raise OptionsError("--dask reduces a store (triva3d ingest) to a treemap of state "
                           "cells in exclusive time, without --compare, --color-by, "
                           "--clusters or --by-task")
    return can


def cmd_convert(args):
    from .paje.writer import write_paje
    trace, seconds = _load(args)
    _report(trace)
    n = write_paje(trace, args.output)
    print(f"{args.output}: {n} event lines ({len(trace.states)} states, {len(trace.links)} "
          f"links, {len(trace.variables)} variable pieces, {len(trace.events)} events) "
          f"from {trace.source} read in {seconds:.2f} s", file=sys.stderr)


def cmd_generate(args):
    from . import generate as g
    t0 = time.perf_counter()
    if args.kind == "tasks":
        if args.format != "otf2":
            raise OptionsError("a task run is written as APEX writes it: --format otf2")
        program = g.tasks(args.tasks, localities=args.localities, workers=args.workers,
                          seed=args.seed)
    elif args.kind == "sigovan":
        program = g.sigovan(args.shape, ranks=args.ranks, iterations=args.iterations,
                            seed=args.seed)
    elif args.kind == "workstealing":
        from .bases.readers import read_topology
        zones = args.zones.split(",") if args.zones else None
        program = g.workstealing(read_topology(args.topology), processes=args.processes,
                                 hosts=args.hosts, zones=zones, work=args.work,
                                 seed=args.seed, slow_link=args.slow_link,
                                 slow_site=args.slow_site, slow_latency=args.slow_latency,
                                 cpus=args.cpus)
    else:
        cfg = g.read_config(args.config)
        program = g.hierarchy(cfg)
        if args.kind == "pattern":
            g.configured_pattern(program, cfg, seed=args.seed, shape=args.shape,
                                 count=args.count, nchildren=args.nchildren,
                                 between=args.between, sequential=args.sequential or None)
    g.write(program, args.output, args.format, args.seed)
    print(f"{args.output}: {len(program.names)} containers, {len(program.state_start)} "
          f"states, {len(program.link_src)} links over {program.end / 1e9:g} s "
          f"({args.format}) in {time.perf_counter() - t0:.2f} s", file=sys.stderr)


def add_generate(sub, options=True):
    """The generate command; its options only if `options` (their defaults and choices
    come from the generators, whose import takes numpy: 60 ms at every start)."""
    g = sub.add_parser("generate", help="write a synthetic trace: the scenarios of the "
                       "Triva thesis at any scale", description="Write a synthetic trace "
                       "(Pajé, or an OTF2 archive folder); the same --seed gives the same "
                       "bytes.")
    if not options:
        return
    from .generate import FORMATS
    from .generate.hierarchy import COUNT, NCHILDREN, PATTERNS
    from .generate.workstealing import SLOW_LATENCY, WORK
    gsub = g.add_subparsers(dest="kind", required=True, metavar="KIND")

    def kind(name, help):
        c = gsub.add_parser(name, help=help, description=help)
        c.add_argument("-o", "--output", required=True, metavar="OUT")
        c.add_argument("--format", choices=FORMATS, default=FORMATS[0],
                       help=f"{' or '.join(FORMATS)} (default {FORMATS[0]}; otf2: OUT is the "
                            "archive's folder)")
        c.add_argument("--seed", type=_seed, default=0, help="random seed, 0 or more "
                       "(default 0)")
        c.set_defaults(func=cmd_generate)
        return c
    config_help = ('JSON or a Python dict: {"levels": [{"count": N, "name": TYPE, "alias": '
                   'ALIAS}, ...], "duration": S, "cosine-max-x-axis-value": X, "states": '
                   '[A, B], "pattern": {"shape": ...}}, or the thesis\'s Listings 6.1/6.2 '
                   '(nested "child" levels with "container" counts, "appduration", '
                   '"apppattern", ...)')
    h = kind("hierarchy", "nested containers whose leaves split the run between two "
             "states along a cosine (thesis Listing 6.1)")
    h.add_argument("config", metavar="CONFIG.json", help=config_help)
    pt = kind("pattern", "the hierarchy with messages in a communication pattern "
              "(thesis Listing 6.2)")
    pt.add_argument("config", metavar="CONFIG.json", help=config_help)
    pt.add_argument("--shape", choices=PATTERNS,
                    help="who sends to whom: ring: i to i+1; full: all to all; star: the "
                         "first to all; hstar: a tree, parent to child (default: the "
                         "file's pattern)")
    _renamed(pt, "--pattern", "--shape")
    pt.add_argument("--count", type=_count, metavar="N",
                    help=f"rounds of messages over the run (default the file's, else {COUNT})")
    pt.add_argument("--nchildren", type=_count, metavar="K",
                    help=f"hstar: children per node (default the file's, else {NCHILDREN})")
    pt.add_argument("--sequential", action="store_true",
                    help="ring: each container forwards only after it receives (the "
                         "round's messages one after another)")
    pt.add_argument("--between", metavar="TYPE",
                    help="level (type name) whose containers exchange (default the file's, "
                         "else the leaves)")
    from .generate.sigovan import SHAPES
    sg = kind("sigovan", "ranks waiting in MPI_Waitall as one of the five patterns of "
              "Sigovan et al.'s Fig. 5 (for animate --encoding events)")
    sg.add_argument("--shape", choices=SHAPES, required=True,
                    help="horizontal: equal waits; noisy: log-normal; slanted: growing "
                         "exponentially with the rank; logarithmic: linearly; disparate: "
                         "every fourth node 100x slower")
    sg.add_argument("--ranks", type=_count, default=64, metavar="N",
                    help="ranks, 16 a node (default 64)")
    sg.add_argument("--iterations", type=_count, default=20, metavar="K",
                    help="iterations (default 20)")
    tk = kind("tasks", "an HPX-like many-task run as APEX traces it (OTF2, GUID and Parent "
              "GUID attributes): a divide-and-conquer task tree on a few localities")
    tk.add_argument("--tasks", type=_count, default=2000, metavar="N",
                    help="tasks (default 2000)")
    tk.add_argument("--localities", type=_count, default=2, metavar="L",
                    help="localities (default 2)")
    tk.add_argument("--workers", type=_count, default=4, metavar="W",
                    help="worker threads per locality (default 4)")
    ws = kind("workstealing", "processes on a topology's hosts stealing work from one "
              "another (the thesis's KAAPI runs)")
    ws.add_argument("--topology", required=True, metavar="FILE",
                    help=".dot/.gv, SimGrid .xml or platform trace")
    ws.add_argument("--processes", type=_count, metavar="N",
                    help="processes (default one per host), consecutive ranks on one host")
    ws.add_argument("--hosts", type=_count, metavar="N", help="use the first N hosts only (taken in turn from each zone named)")
    ws.add_argument("--zones", metavar="A,B", help="use only hosts in these zones")
    ws.add_argument("--work", type=_positive, default=WORK, metavar="S",
                    help=f"seconds of work per process on average (default {WORK:g}): each "
                         "starts with 0.5 to 1.5 times as much")
    ws.add_argument("--cpus", type=_count, metavar="N",
                    help="CPUs per host: a host with more processes runs each at N / k of "
                         "the speed (CPU overload; default: one CPU a process)")
    ws.add_argument("--slow-link", metavar="NODE|A,B",
                    help="plant a slow link: a link node, or the edge joining two nodes")
    ws.add_argument("--slow-site", metavar="ZONE",
                    help="plant a slow site: every message touching this zone is slow")
    ws.add_argument("--slow-latency", type=_non_negative, default=SLOW_LATENCY, metavar="S",
                    help=f"seconds a slow link adds to each crossing (default "
                         f"{SLOW_LATENCY:g}: a steal across it takes {2 * SLOW_LATENCY:g} s)")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, a bad option one line (`triva3d: error: ...`, exit 2) without
    the usage block (`--help` shows it)."""

    def error(self, message):
        self.exit(2, f"triva3d: error: {message} (see {self.prog} --help)\n")


def parser(generate=True):
    """The command line's parser; the generate command's options only if `generate`."""
    p = _Parser(prog="triva3d", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def trace_command(name, func, help, optional=False):
        c = sub.add_parser(name, help=help, description=help)
        c.add_argument("trace", metavar="TRACE", nargs="?" if optional else None,
                       help="Pajé trace file, or OTF2 archive (anchor file or its folder)")
        c.add_argument("--lenient", action="store_true",
                       help="recover where PajeNG would stop (legacy field names, incomplete "
                            "links, out-of-order events...) and report every recovery")
        c.add_argument("--no-cache", action="store_true",
                       help="parse the trace even if a cached copy is up to date")
        c.set_defaults(func=func)
        return c

    d = trace_command("dump", cmd_dump, "print the trace as PajeNG's pj_dump does")
    d.add_argument("-u", "--user-defined", action="store_true",
                   help="append user-defined fields (as pj_dump -u)")
    s = trace_command("stats", cmd_stats, "summarize a trace: hierarchy, counts, time span")
    s.add_argument("--json", action="store_true", help="print JSON")
    add_time_unit(s)

    t = sub.add_parser("topology", help="convert or describe a topology file",
                       description="Topology files: Graphviz .dot/.gv, SimGrid platform XML, "
                                   "or a SimGrid platform trace.")
    tsub = t.add_subparsers(dest="action", required=True, metavar="ACTION")
    tc = tsub.add_parser("convert", help="write a topology as Graphviz .dot")
    tc.add_argument("input", metavar="IN")
    tc.add_argument("-o", "--output", required=True, metavar="OUT.dot")
    tc.add_argument("--links", choices=("nodes", "edges"), default="nodes",
                    help="keep network links as nodes (default; SimGrid traces have LINK "
                         "containers) or fold point-to-point links into edges")
    tc.set_defaults(func=cmd_topology_convert)
    ti = tsub.add_parser("info", help="counts, degrees and attributes of a topology")
    ti.add_argument("input", metavar="IN")
    ti.add_argument("--json", action="store_true", help="print JSON")
    ti.set_defaults(func=cmd_topology_info)
    tr = tsub.add_parser("route", help="the elements a message crosses from SRC to DST, "
                         "in order: the platform's declared route, else the fewest hops")
    tr.add_argument("input", metavar="IN")
    tr.add_argument("src", metavar="SRC")
    tr.add_argument("dst", metavar="DST")
    tr.set_defaults(func=cmd_topology_route)

    pl = trace_command("place", cmd_place, "put every container of a trace on a base "
                       "and print where (CSV) with a report")
    add_base_options(pl)
    pl.add_argument("--graph-window", type=_window, metavar="T0:T1",
                    help="appgraph: only the links overlapping this time window")
    _renamed(pl, "--window", "--graph-window")
    pl.add_argument("--csv", metavar="OUT", help="write the mapping to OUT instead of stdout")
    add_dask(pl, "its containers are read and its messages counted per pair there")

    r = trace_command("render", cmd_render, "draw the trace in 3D over its base (time "
                      "going up) to an image, without a display")
    add_scene_options(r)
    add_dask(r, "of its states the level of detail's texels, of its messages the bundles "
                "drawn and the pairs (the communication graph) are reduced there")
    r.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH",
                   help="image size in pixels (default 1280x720)")
    r.add_argument("--save-state", metavar="OUT.json",
                   help="also save the view (base, window, filters, camera...) as JSON")
    r.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.jpg")

    from .movie import DURATION, FORMAT, FPS, PATHS, SWEEP_WIDTH
    from .viewstate import PARTICLES
    a = trace_command("animate", cmd_animate, "render a movie: the camera flying "
                      "through the execution, the run unfolding, messages as particles")
    add_scene_options(a)
    add_dask(a, "its messages are counted per pair there (the communication graph)")
    a.add_argument("--path", default=PATHS[0], metavar="|".join(PATHS) + "|FILE.json",
                   help="orbit: one turn about the time axis; rise: up the time axis, "
                        "looking at the plane of now; sweep: a window as wide as --window "
                        f"(default {SWEEP_WIDTH * 100:g}%% of the trace) slides through the "
                        f"trace; or keyframes: {{\"format\": {FORMAT}, \"keyframes\": "
                        "[{\"at\": seconds, \"state\": {view fields}}, ...]} (see --script); "
                        f"default {PATHS[0]}")
    a.add_argument("--unfold", action="store_true",
                   help="a plane of 'now' climbs the time axis; only what began by then "
                        "is drawn, older things dimmed")
    a.add_argument("--particles", nargs="?", const=PARTICLES[0], choices=PARTICLES,
                   help="messages in flight as particles on their route over the base, "
                        f"coloured by {' or '.join(PARTICLES)} (default {PARTICLES[0]})")
    a.add_argument("--heat", action="store_true",
                   help="colour the base's edges by the traffic that crossed them so far")
    from .movie import ENCODINGS
    a.add_argument("--encoding", choices=ENCODINGS, default=ENCODINGS[0],
                   help="scene: the 3D scene; events: Sigovan's particles, each event "
                        "(MPI call, else innermost state) rising from its rank's slot with "
                        "the log of its age, fading after its end, over a history of where "
                        "particles went (default scene)")
    a.add_argument("--morph", action="store_true",
                   help="the time axis morphs from physical time (first frame) to logical "
                        "steps (last frame): each communication event slides to its step, "
                        "a step drawn (end - start) / steps tall (Ravel; see triva3d steps)")
    a.add_argument("--duration", type=_positive, metavar="S",
                   help=f"seconds of movie (default {DURATION:g}, or the keyframes file's)")
    a.add_argument("--fps", type=_positive, default=FPS, metavar="N",
                   help=f"frames per second (default {FPS:g})")
    a.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH",
                   help="frame size in pixels (default 1280x720)")
    a.add_argument("--script", metavar="OUT.json",
                   help="also write the keyframes used (replay or edit them with --path)")
    a.add_argument("-o", "--output", required=True, metavar="OUT.mp4|OUT.gif|FRAMES_DIR/")

    vw = trace_command("view", cmd_view, "open the desktop window (on TRACE, if given) to "
                       "fly through the execution; `triva3d TRACE` does the same",
                       optional=True)
    add_scene_options(vw)
    add_dask(vw, "the messages of each part it reads are counted per pair there")

    cv = trace_command("convert", cmd_convert, "write a trace (OTF2 archive or Pajé) as a "
                       "Pajé trace that PajeNG reads")
    cv.add_argument("-o", "--output", required=True, metavar="OUT.trace")

    add_generate(sub, generate)

    st = trace_command("steps", cmd_steps, "logical time (Ravel): every communication event "
                       "with its step, phase and lateness, as CSV")
    st.add_argument("--phases", metavar="A,B", type=_list,
                    help="phases are the occurrences of these regions (state values), "
                         "e.g. an iteration's; default: groups of communication")
    st.add_argument("--clusters", type=_count, metavar="K",
                    help="group the processes into at most K clusters by lateness")
    st.add_argument("-o", "--output", required=True, metavar="OUT.csv")

    ig = trace_command("ingest", cmd_ingest, "write a trace as a partitioned Parquet store, "
                       "a folder that every command then opens as a trace")
    ig.add_argument("-o", "--output", required=True, metavar="DIR")
    from .analysis import FUNCTIONS
    cp = trace_command("compare", cmd_compare, "compare two runs container by container: "
                       "seconds per state value, messages, variable integrals, in A and B "
                       "and B - A, as CSV, or the difference treemap (PNG, JPEG, SVG)")
    cp.add_argument("other", metavar="B", help="the second run (Pajé or OTF2)")
    cp.add_argument("--window", type=_window, metavar="T0:T1",
                    help="times from each run's own start, in A's unit (default: each "
                         "whole run)")
    cp.add_argument("--level", metavar="TYPE",
                    help="container type or depth to compare at (default: the leaves)")
    cp.add_argument("--agg", choices=FUNCTIONS, default=FUNCTIONS[0],
                    help=f"aggregation up to the level (default {FUNCTIONS[0]})")
    cp.add_argument("--mapping", metavar="CSV",
                    help="A's container name, B's, a pair a line (default: same names)")
    cp.add_argument("--calltree", action="store_true",
                    help="draw the difference call tree instead (CallFlow 7.4): B's Sankey "
                         "with each call path coloured by B - A of its inclusive time "
                         "(.svg or .png)")
    cp.add_argument("-o", "--output", required=True, metavar="OUT.csv|OUT.png|OUT.svg")
    ct = trace_command("calltree", cmd_calltree, "call paths (CallFlow): calls, inclusive and "
                       "exclusive time per container and calling context, as CSV or folded "
                       "stacks (flame graphs, speedscope)")
    ct.add_argument("--window", type=_window, metavar="T0:T1",
                    help="time interval (default: the whole trace)")
    ct.add_argument("--containers", type=_list, metavar="A,B",
                    help="only these containers (and those below them)")
    ct.add_argument("--agg", choices=FUNCTIONS, default=FUNCTIONS[0],
                    help=f"the Sankey's aggregation over the containers (default {FUNCTIONS[0]})")
    ct.add_argument("--threshold", type=_non_negative, default=1.0, metavar="PERCENT",
                    help="the Sankey (and the super graph) leaves out call paths (nodes) "
                         "under this share of the total inclusive time, and says how much "
                         "(default 1)")
    from .analysis import SPLITS
    ct.add_argument("--modules", metavar="auto|REGIONS.csv",
                    help="the super graph (CallFlow section 6) instead: regions grouped "
                         "into modules, by a CSV region,module, or auto (OTF2: the "
                         "region's paradigm; Pajé: its state type); written as .csv "
                         "(nodes and edges), .svg, .png (dot's layered flow) or .dot")
    ct.add_argument("--split", choices=SPLITS,
                    help="with --modules: a node per module and entry function, or per "
                         "module and calling module")
    ct.add_argument("--node", metavar="MAIN;A",
                    help="draw this call path's spread over the containers instead "
                         "(CallFlow 7.2-7.3): a histogram of its time per container and a "
                         "scatter of two metrics, a dot per container (.svg or .png)")
    ct.add_argument("--scatter", metavar="X,Y",
                    help="the scatter's metrics among inclusive, exclusive, calls "
                         "(default inclusive,exclusive; X is the histogram's)")
    ct.add_argument("-o", "--output", required=True,
                    metavar="OUT.csv|OUT.folded|OUT.svg|OUT.png|OUT.dot")
    iv = trace_command("intervals", cmd_intervals, "interval histograms (Traveler): a "
                       "primitive's durations on a log scale with its far outliers, or a "
                       "counter's box plot across the containers over time")
    iv.add_argument("--value", metavar="NAME", help="the state value whose intervals to bin")
    iv.add_argument("--range", type=_range, metavar="LO:HI",
                    help="durations (in the trace's unit) brushed: shaded in the histogram, "
                         "their intervals written as CSV (default: the far outliers)")
    iv.add_argument("--counter", metavar="NAME",
                    help="the variable whose min, max, mean and std across the containers "
                         "to draw per time bin")
    iv.add_argument("--window", type=_window, metavar="T0:T1",
                    help="the box plot's time interval (default: the whole trace)")
    iv.add_argument("-o", "--output", required=True, metavar="OUT.svg|OUT.png|OUT.csv")
    tk = trace_command("tasks", cmd_tasks, "tasks of a many-task run (Traveler): a row per "
                       "task (pieces joined by GUID, parent, time running), or the execution "
                       "tree drawn by Graphviz")
    which = tk.add_mutually_exclusive_group()
    which.add_argument("--task", type=int, metavar="GUID",
                       help="only this task's chain: its ancestors and its descendants")
    which.add_argument("--intervals", type=_intervals, metavar="VALUE:LO:HI",
                       help="only the tasks running the intervals of this state value that "
                            "last LO to HI (in the trace's unit; a brush of `triva3d "
                            "intervals`); in the Gantt, their utilization as a white line in "
                            "the bars holding them")
    tk.add_argument("--gantt", type=_depth, metavar="DEPTH",
                    help="the aggregated Gantt instead (Traveler): a bar per subtree at this "
                         "depth of the execution tree (0: the roots), packed into rows, "
                         "showing how many containers run its tasks (.svg or .png); with "
                         "--task, the bars of its chain outlined")
    tk.add_argument("--guid", default="GUID", metavar="FIELD",
                    help="the states' field naming their task (default GUID, as APEX)")
    tk.add_argument("--parent", default="Parent GUID", metavar="FIELD",
                    help="the field naming the parent task (default 'Parent GUID')")
    tk.add_argument("-o", "--output", required=True, metavar="OUT.csv|OUT.svg|OUT.png|OUT.dot")

    from .analysis import CELLS, FUNCTIONS, NESTED
    from .panels import SIZE
    tm = trace_command("treemap", cmd_treemap, "the Time-Slice treemap: a time interval "
                       "summarized per container, aggregated to a level, as PNG, SVG or CSV")
    tm.add_argument("--slice", type=_window, metavar="T0:T1",
                    help="time interval (default: the whole trace)")
    tm.add_argument("--level", metavar="TYPE",
                    help="container type name, or depth (0: root), whose nodes hold the "
                         "cells (default: the leaves)")
    tm.add_argument("--agg", choices=FUNCTIONS, default=FUNCTIONS[0],
                    help=f"aggregation over each node's subtree (default {FUNCTIONS[0]})")
    tm.add_argument("--cells", choices=CELLS, default=CELLS[0],
                    help="what the cells are: state values (time), variable types (time "
                         "integral), links out/in (bytes, else counts; link:M for a measure "
                         "of eqs. 4.4-4.5), event values "
                         f"(default {CELLS[0]})")
    _renamed(tm, "--metric", "--cells")
    tm.add_argument("--nested", choices=NESTED, default=NESTED[0],
                    help="state cells: exclusive (a state's time less the states nested in "
                         "it, so a container's cells never exceed the slice) or inclusive "
                         f"(nested time counted again for its own value); default {NESTED[0]}")
    tm.add_argument("--values", metavar="A,B", help="only these value (or type) names")
    tm.add_argument("--size", type=_size, default=SIZE, metavar="WxH",
                    help="image size in pixels, or SVG size in points (default "
                         f"{SIZE[0]}x{SIZE[1]})")
    tm.add_argument("--highlight", metavar="NODE", help="outline this node and its ancestors")
    add_dask(tm, "the states are never all in this process's memory")
    add_color_by(tm, "the state cells (each the time-weighted mean over its states)")
    add_clusters(tm)
    add_by_task(tm)
    add_time_unit(tm)
    tm.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg|OUT.csv")
    return p


def add_color_by(c, what):
    """--color-by and --compare: what colours `what` (see analysis.colorby)."""
    c.add_argument("--color-by", metavar="WHAT",
                   help=f"what colours {what}, blue to red: value (default), lateness "
                        "(Ravel: how much later than the earliest at its logical step a "
                        "communication event ends), duration (log scale), variable:TYPE "
                        "(the variable's mean over each state, on its container or the "
                        "nearest above, e.g. variable:power_used), slice:METRIC (the "
                        "container's Time-Slice value of the window, any treemap metric, "
                        "e.g. slice:state%%:MPI_Wait) or, with --compare, difference:METRIC "
                        "(B - A of that value per container, blue less, red more)")
    c.add_argument("--compare", metavar="B",
                   help="a second run (trace) to compare with, for difference:METRIC: "
                        "containers matched by name, a window read from each run's start")


def add_side_by_side(c):
    from .viewstate import SIDE_BY_SIDE
    c.add_argument("--side-by-side", choices=SIDE_BY_SIDE,
                   help="draw the --compare run B beside this one, each on its base and from "
                        "its own start: normalised (each run's length over the same height) "
                        "or absolute (the same seconds at the same height)")


def add_dask(c, why):
    c.add_argument("--dask", metavar="ADDRESS",
                   help="on a store (triva3d ingest): the Dask scheduler whose workers reduce "
                        "its partitions (default TRIVA3D_DASK, else threads in this process); "
                        + why)


def add_by_task(c):
    c.add_argument("--by-task", action="store_true",
                   help="each task of a many-task run (states sharing a GUID) a container, "
                        "holding its pieces, with its dependencies as links; implied by "
                        "--base tasktree (the execution tree, parents above children)")


def add_clusters(c):
    c.add_argument("--clusters", type=_count, metavar="K",
                   help="put the processes under at most K clusters of processes alike in "
                        "lateness (Ravel), a level named Cluster to aggregate to (e.g. "
                        "--aggregate Cluster, or the treemap's --level Cluster)")


def add_scene_options(r):
    """Options of what the 3D scene shows (render, animate and view)."""
    from .analysis import VARIABLE_RULES
    from .viewstate import DETAILS, QUALITIES, VIEWS, ViewState
    default = ViewState()
    add_base_options(r)
    r.add_argument("--window", type=_window, metavar="T0:T1",
                   help="time window drawn (default: from the first to the last thing drawn)")
    r.add_argument("--state", metavar="VIEW.json",
                   help="start from a saved view (see --save-state); options given here "
                        "override its fields")
    r.add_argument("--scale", type=_positive, metavar="S",
                   help="height of the time window relative to the base's larger side "
                        f"(default {default.scale:g})")
    r.add_argument("--view", metavar="VIEW",
                   help=f"{', '.join(VIEWS)} (default {default.view}; timeline: a Gantt "
                        "chart, time left to right over the timeline base, which it "
                        "chooses), or AZ,EL in degrees (azimuth 0 looks from the front, "
                        "elevation 90 from above)")
    r.add_argument("--quality", choices=QUALITIES, default=QUALITIES[0],
                   help="fast: no multisampling, one headlight; high: 8x multisampling and "
                        "a light kit (several times slower without GPU); default "
                        f"{QUALITIES[0]}")
    r.add_argument("--detail", choices=DETAILS,
                   help="states as exact boxes, as level-of-detail columns, or auto "
                        "(exact up to 100000 states in the window); default "
                        f"{default.detail}")
    r.add_argument("--time", choices=("physical", "logical"), default="physical",
                   help="the vertical axis: physical time, or logical steps (Ravel: each "
                        "communication event a box at its step, messages between steps; "
                        "see triva3d steps)")
    add_color_by(r, "the states")
    add_side_by_side(r)
    r.add_argument("--focus", metavar="CONTAINER",
                   help="outline the containers this one exchanges messages with in the "
                        "window (Ravel's focus), within --focus-radius messages")
    r.add_argument("--focus-radius", type=_count, metavar="N",
                   help=f"how many messages away from the focus (default {default.focus_radius})")
    add_clusters(r)
    add_by_task(r)
    r.add_argument("--call-path", metavar="MAIN;A;B",
                   help="draw the states on this call path (and what it calls) in their "
                        "colours, the others dimmed (see triva3d calltree)")
    r.add_argument("--task", metavar="GUID",
                   help="draw the states of this task's chain (its ancestors and its "
                        "descendants, by the GUID and Parent GUID fields APEX writes) in "
                        "their colours, the others dimmed (see triva3d tasks)")
    r.add_argument("--intervals", type=_intervals, metavar="VALUE:LO:HI",
                   help="draw the intervals of this state value lasting LO to HI (in the "
                        "trace's unit) in their colours, the others dimmed (see triva3d "
                        "intervals)")
    r.add_argument("--aggregate", metavar="LEVEL",
                   help="columns for a level of the container hierarchy (a type name or a "
                        "depth), each showing per time bin its subtree's shares of the state "
                        "values; auto: the deepest level with 2 to 1000 columns when there "
                        "are more containers than that (none such: a column each); none: a "
                        "column per "
                        f"container (default {default.aggregate})")
    r.add_argument("--expand", metavar="A,B", type=_list,
                   help="aggregated nodes drawn as their children's columns (mixed levels)")
    r.add_argument("--link-opacity", type=_opacity, metavar="A",
                   help=f"opacity of message lines, 0..1 (default {default.link_opacity:g})")
    r.add_argument("--hide", metavar="A,B",
                   help="state, link or event values, or entity types, not to draw")
    r.add_argument("--variables", metavar="A,B=RULE",
                   help="variable types to draw (metrics such as PAPI counters are drawn "
                        f"only when named), or NAME=RULE: {', '.join(VARIABLE_RULES)}, or the "
                        "capacity type to be relative to")
    r.add_argument("--colors", metavar="FILE",
                   help="colours by value or type name: 'name,#rrggbb' lines, or a JSON "
                        "object (.json)")
    add_time_unit(r)
    r.add_argument("--no-labels", action="store_true", help="draw no node or container names")
    r.add_argument("--routes", action="store_true",
                   help="colour the base's edges by the traffic of the window's messages "
                        "along their routes (the paths they took)")


def add_time_unit(c):
    from .units import TIME_UNITS
    c.add_argument("--time-unit", choices=TIME_UNITS,
                   help="the unit the trace's numbers are in, where its producer did not say "
                        "(a label: numbers are never converted; default: the trace's: ms for "
                        "StarPU, else s; OTF2 is read in s)")


def add_base_options(c):
    """Options that choose the base and the matcher's rules (shared by commands)."""
    from .bases import BASES, NEATO_MAX, PROGRAMS
    from .viewstate import ViewState
    c.add_argument("--topology", metavar="FILE",
                   help="topology: .dot/.gv, SimGrid .xml, a SimGrid platform trace, or a "
                        "JSON resource hierarchy (drawn as a treemap)")
    c.add_argument("--base", choices=BASES,
                   help="what to stand on (default: topology with --topology, else treemap; "
                        "tasktree: the execution tree of a many-task run, each task a "
                        "container)")
    c.add_argument("--layout", choices=PROGRAMS, metavar="PROG",
                   help="Graphviz program: " + ", ".join(PROGRAMS) + " (default: positions "
                        f"in the file, else neato up to {NEATO_MAX} nodes, sfdp above)")
    c.add_argument("--mapping", metavar="CSV", help="container,node lines placing containers")
    c.add_argument("--pattern", metavar="REGEX",
                   help="regex on container names whose group 'node' (or group 1) names the node")
    c.add_argument("--graph-level", metavar="LEVEL",
                   help="appgraph: container type name or depth of its nodes")
    c.add_argument("--leaf-size", metavar="METRIC",
                   help=f"treemap base: what sizes its leaves: {ViewState().metric} (default), "
                        "state:VALUE, links:count, links:bytes, variable:TYPE, ratio:A/B")
    _renamed(c, "--level", "--graph-level")
    _renamed(c, "--metric", "--leaf-size")


class _Renamed(argparse.Action):
    """An option's old spelling: an error that names the new one (`const`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is now {self.const}")


def _renamed(c, old, new):
    """Refuse option `old` of command `c`, saying it is now `new` (hidden from --help)."""
    c.add_argument(old, action=_Renamed, const=new, nargs="?", dest=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)


class _ClosedOutput:
    """Standard output when the process started without one (`>&-`): writing to it
    is an OSError, told in one line as for a full disk."""

    buffer = property(lambda self: self)

    def write(self, data):
        raise OSError(errno.EBADF, "closed (the command started without it)")

    def flush(self):
        pass


def _note(message):
    print(f"triva3d: note: {message}", file=sys.stderr)


def main(argv=None):
    # Arrow's buffers from malloc, which gives back what is freed: its default,
    # mimalloc, keeps it (80 MB more at the peak of a 1e7-state store's treemap);
    # read when pyarrow loads (Dask workers started from here inherit it)
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:  # (closed: what would be said there is dropped)
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    p = parser(generate=argv[:1] == ["generate"])
    commands = p._subparsers._group_actions[0].choices
    if argv and argv[0] not in commands and not argv[0].startswith("-") \
            and os.path.exists(argv[0]):
        argv.insert(0, "view")  # triva3d TRACE
    args = p.parse_args(argv)
    from .kernels import on_first_compile
    on_first_compile(_note)
    try:
        _outputs_safe(args)
        args.func(args)
    except Triva3dError as e:
        lenient = getattr(e, "lenient_reads", False) and not getattr(args, "lenient", True)
        print(f"triva3d: error: {e}" + ("; --lenient reads past this" if lenient else ""),
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()  # output closed early (e.g. piped to head)
        return 0
    except OSError as e:  # a file the command writes (or stdout: a full disk...)
        print(f"triva3d: error: {e.filename or 'standard output'}: {e.strerror or e}",
              file=sys.stderr)
        if e.filename is None and not isinstance(sys.stdout, _ClosedOutput):
            # what stdout still holds must not fail again at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2
    except MemoryError:
        pass  # (out of the handler: what was made goes before the message is printed)
    except KeyboardInterrupt:
        return 130
    else:
        return 0
    print("triva3d: error: ran out of memory: what was asked is too big for this "
          "machine's memory", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
