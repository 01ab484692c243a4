"""A trace as a partitioned Parquet dataset (issue 34.1): `triva3d ingest TRACE -o DIR`
writes it, and DIR then opens as a trace of its own (an entry of load.READERS).

DIR holds `store.json` (the format, the source, the time unit, the reader's report,
which user-defined fields each table has and which link types are the platform's), `names.parquet` (the interned names),
`types.parquet`, `values.parquet` and `containers.parquet` (small: each one file, the
colours beside the types and values, beside the containers whether the scene draws
something on them: analysis.roles.drawn_containers), and a dataset per entity table (`states/`,
`links/`, `variables/`, `events/`) partitioned by container bucket
(`bucket=K`: containers K * size to (K + 1) * size - 1; a link by its sender, with
its Size parsed in a column `bytes`, NaN where none) and, inside each bucket's file,
by time: TIME_SLICES equal slices of the trace's span, an entity in the slice of its
start (or time), each slice its own row groups (of at most ROW_GROUP rows) sorted by
container then start, with min/max statistics, zstd compressed. A window's reader
(engine.py) thus skips the slices that start after it or end before it. A `row`
column keeps the Trace's own order, so that reading the store back gives the very
Trace (dump for dump).
"""
import json
import os
from typing import NamedTuple

import numpy as np

from .errors import TraceError
from .output import writing
from .trace import SCHEMA, Names, Trace, check

FORMAT = 4
MARK = "triva3d-store"
#: Rows per row group at most, at most this many container buckets, time slices.
ROW_GROUP, BUCKETS, TIME_SLICES = 1 << 20, 64, 16
ENTITIES = ("states", "links", "variables", "events")
RGBA = ("r", "g", "b", "a")
#: The default scene palette (colors.scene_palette) of the values and types, as
#: ingest made it from every entity: what a reader of a part of the store draws in.
SCENE = ("scene_r", "scene_g", "scene_b")


def store_folder(path):
    """The store's folder that `path` (the folder, or its store.json) names, or None."""
    folder = os.path.dirname(path) if os.path.basename(path) == "store.json" else path
    return folder if is_store(folder) else None


def is_store(path):
    """Whether `path` is a store's folder."""
    meta = os.path.join(str(path), "store.json")
    if not os.path.isfile(meta):
        return False
    try:
        with open(meta, encoding="utf-8") as f:
            return json.load(f).get("mark") == MARK
    except (OSError, ValueError, AttributeError):
        return False


def ingest(trace, out):
    """Write `trace` as a store in the folder `out` (made if needed; a store there
    is replaced). Returns the number of files written."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    os.makedirs(out, exist_ok=True)
    n_cont = len(trace.containers)
    size = max(1, -(-n_cont // BUCKETS))
    files = 0

    def table(columns):
        return pa.table({k: np.ascontiguousarray(v) for k, v in columns.items()})

    def write_small(name, columns):
        nonlocal files
        pq.write_table(table(columns), os.path.join(out, f"{name}.parquet"),
                       compression="zstd")
        files += 1
    names = trace.names
    data = pa.py_buffer(np.ascontiguousarray(names.arena))
    offsets = pa.py_buffer(np.ascontiguousarray(names.offsets, np.int64))
    arr = pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(names), [None, offsets, data])
    pq.write_table(pa.table({"name": arr}), os.path.join(out, "names.parquet"),
                   compression="zstd")
    files += 1
    from .colors import scene_palette
    palette = scene_palette(trace)[:2]  # (a 3D scene's, made of every entity)
    for name, colors, rgb in (("types", trace.type_colors, palette[1]),
                              ("values", trace.value_colors, palette[0])):
        t = getattr(trace, name)
        write_small(name, {**t.columns, **{c: colors[:, k] for k, c in enumerate(RGBA)},
                           **{c: rgb[:, k] for k, c in enumerate(SCENE)}})
    from .analysis.roles import drawn_containers, platform_link_types
    write_small("containers", {**trace.containers.columns, "drawn": drawn_containers(trace)})
    t0, t1 = float(trace.containers.start[0]), float(trace.containers.end[0])
    from .analysis.metrics import link_bytes
    for name in ENTITIES:
        t = getattr(trace, name)
        time = t.columns["time" if name == "events" else "start"]
        owner = t.start_container if name == "links" else t.container
        bucket = (owner // size).astype(np.int32)
        slot = np.clip((time - t0) * (TIME_SLICES / max(t1 - t0, 1e-300)), 0,
                       TIME_SLICES - 1).astype(np.int32) if len(time) else bucket
        order = np.lexsort((time, owner, slot, bucket))
        cols = {c: v[order] for c, v in t.columns.items()}
        cols.update({f"extra.{k}": v[order] for k, v in t.extra.items()})
        if name == "links":
            cols["bytes"] = link_bytes(trace)[order]
        cols["row"] = order.astype(np.int64)
        bucket, slot = bucket[order], slot[order]
        folder = os.path.join(out, name)
        for b in np.unique(bucket).tolist() or [0]:
            lo, hi = np.searchsorted(bucket, [b, b + 1])
            part = os.path.join(folder, f"bucket={b}")
            os.makedirs(part, exist_ok=True)
            tb = table({c: v[lo:hi] for c, v in cols.items()})
            cuts = lo + np.searchsorted(slot[lo:hi], np.arange(TIME_SLICES + 1))
            with pq.ParquetWriter(os.path.join(part, "part-0.parquet"), tb.schema,
                                  compression="zstd", write_statistics=True) as w:
                if hi == lo:  # an empty table: its schema
                    w.write_table(tb)
                for a, z in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
                    if z > a:
                        w.write_table(tb.slice(a - lo, z - a), row_group_size=ROW_GROUP)
            files += 1
    meta = {"mark": MARK, "format": FORMAT, "source": str(trace.source),
            "time_unit": trace.time_unit, "unit_note": trace.unit_note,
            "report": [list(r) for r in trace.report], "other_records": trace.other_records,
            "bucket_size": size, "time_slices": TIME_SLICES,
            "platform_link_types": np.flatnonzero(platform_link_types(trace)).tolist(),
            "extra": {t: list(getattr(trace, t).extra) for t in SCHEMA}}
    with writing(os.path.join(out, "store.json")) as f:
        json.dump(meta, f, indent=1, default=_plain)
    return files + 1


def _plain(v):
    """JSON for what json does not write itself: numpy numbers, paths."""
    return v.item() if isinstance(v, np.generic) else str(v)


def read_store(path, *, lenient=False, progress=None):
    """The Trace of the store at `path` (`lenient`, `progress`: unused, it reads at
    once); TraceError when it is not a store of this version, or a damaged one."""
    return _read(str(path), entities=True).trace


class Skeleton(NamedTuple):
    """A store without its entities, for reductions over it (engine.py) to be drawn
    with: a Trace of its names, types, values and containers, its entity tables
    empty; the scene palette (value_rgb, type_rgb) and the containers with something
    drawn on them (mask), as ingest found them from every entity."""
    trace: object
    palette: tuple
    drawn: np.ndarray


def read_skeleton(path):
    """The Skeleton of the store at `path`; TraceError as read_store."""
    return _read(str(path), entities=False)


def _read(path, entities):
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq
    try:
        with open(os.path.join(path, "store.json"), encoding="utf-8") as f:
            meta = json.load(f)
        if meta.get("mark") != MARK or meta.get("format") != FORMAT:
            raise TraceError(path, None, "a store of another triva3d version: ingest again")
        names_col = pq.read_table(os.path.join(path, "names.parquet")).column("name")
        chunk = names_col.combine_chunks()
        _, offsets, data = chunk.buffers()
        offsets = np.frombuffer(offsets, np.int64, len(chunk) + 1, chunk.offset * 8)
        arena = np.frombuffer(data, np.uint8, int(offsets[-1])) if data else \
            np.zeros(0, np.uint8)
        columns, extra, colors, palette = {}, {}, {}, {}
        for name in ("types", "values", "containers"):
            t = pq.read_table(os.path.join(path, f"{name}.parquet"))
            columns[name] = {c: t.column(c).to_numpy() for c in SCHEMA[name]}
            if name == "containers":
                drawn = t.column("drawn").to_numpy(zero_copy_only=False)
            else:
                colors[name] = np.stack([t.column(c).to_numpy() for c in RGBA], axis=1)
                palette[name] = np.stack([t.column(c).to_numpy() for c in SCENE],
                                         axis=1).astype(np.uint8)
        for name in ENTITIES:
            fields = meta["extra"].get(name, [])
            if not entities:
                columns[name] = {c: np.zeros(0, d) for c, d in SCHEMA[name].items()}
                extra[name] = {k: np.zeros(0, np.int32) for k in fields}
                continue
            t = ds.dataset(os.path.join(path, name), format="parquet",
                           partitioning="hive").to_table()
            order = np.argsort(t.column("row").to_numpy(), kind="stable")
            columns[name] = {c: t.column(c).to_numpy()[order] for c in SCHEMA[name]}
            extra[name] = {k: t.column(f"extra.{k}").to_numpy()[order] for k in fields}
        trace = Trace.from_columns(
            Names(arena, offsets - offsets[0]), columns, extra,
            colors["types"].astype(np.float32), colors["values"].astype(np.float32),
            source=path, report=[tuple(r) for r in meta["report"]], files=[path],
            other_records=meta.get("other_records"), time_unit=meta["time_unit"],
            unit_note=meta.get("unit_note"))
    except TraceError:
        raise
    except Exception as e:  # untrusted: any damage
        raise TraceError(path, None, f"not a readable triva3d store: {e or type(e).__name__}") \
            from None
    why = check(trace)
    if why:
        raise TraceError(path, None, f"not a readable triva3d store: {why}")
    return Skeleton(trace, (palette["values"], palette["types"]), drawn)
