"""Save a loaded Trace next to its trace file and reload it without parsing.

The cache is an uncompressed `.npz` of every column plus JSON metadata. It is
written beside the trace (`TRACE.t3dcache`), or in the user cache directory
(`$TRIVA3D_CACHE_DIR`, else `$XDG_CACHE_HOME/triva3d`, else `~/.cache/triva3d`)
when that folder is not writable. It is valid while every file the trace was read
from keeps its size, modification time, inode and change time, and this format
version; what it holds is checked (the CRC-32 of every array, then `trace.check`)
before use, as untrusted input.
"""
import hashlib
import io
import json
import math
import os
import zipfile

import numpy as np
from numpy.lib import format as npformat

from .output import atomic, sweep
from .errors import TraceError
from .trace import SCHEMA, Names, Trace, check

FORMAT = 6  # 2: OTF2 locations sharing a name are named GROUP / NAME; 3: inode, ctime;
# 4: the time unit; 5: OTF2 metric types' class, empty traces refused, one report entry
# per kind of recovery; 6: OTF2 collectives a region holds are no states
SUFFIX = ".t3dcache"


def user_dir():
    d = os.environ.get("TRIVA3D_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "triva3d")


def paths(trace_path, mode):
    """Candidate cache files for a trace: beside it, then in the user cache directory."""
    ab = os.path.abspath(trace_path)
    name = os.path.basename(ab) + ("" if mode == "strict" else f".{mode}") + SUFFIX
    digest = hashlib.sha256(ab.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    env = os.environ.get("TRIVA3D_CACHE_DIR")
    beside = [] if env else [os.path.join(os.path.dirname(ab), name)]
    return beside + [os.path.join(user_dir(), f"{digest}-{name}")]


def _stamp(files):
    """What tells a file changed: size, modification time, and inode and change
    time (a file replaced by one of the same size and mtime, or renamed over)."""
    out = []
    for f in files:
        st = os.stat(f)
        out.append([os.path.abspath(f), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns])
    return out


def read(trace_path, mode, damaged=None):
    """The cached Trace, or None when there is none or it is stale or unreadable;
    the paths of damaged copies (truncated, altered: anything that fails to read)
    are appended to `damaged`: the load parses again and writes over them."""
    for p in paths(trace_path, mode):
        sweep(os.path.dirname(p))  # what a writer killed there left
        if not os.path.lexists(p):
            continue
        if not os.path.isfile(p):  # a FIFO, a folder...: opening it could hang
            if damaged is not None:
                damaged.append(p)
            continue
        try:
            saved = _contents(p)
            if saved is None:
                continue  # another version's: written over
            files = saved[1]["files"]
            if files != _stamp([f[0] for f in files]) or \
                    os.path.abspath(trace_path) != files[0][0]:
                continue
            return _trace(*saved, trace_path, [f[0] for f in files])
        except Exception:  # a damaged cache must never stop a load
            if damaged is not None:
                damaged.append(p)
    return None


def open_saved(path, lenient=False, progress=False):
    """The Trace saved in the cache file `path`, opened as a file of its own (the
    trace it was read from may have changed or gone); TraceError when it is not a
    cache of this version, or a damaged one. `lenient` and `progress`: unused (it
    was simulated when saved; it reads at once)."""
    try:
        saved = _contents(path)
        if saved is not None:
            return _trace(*saved, path, [path])
    except MemoryError:
        raise  # (load says so)
    except Exception as e:  # untrusted: any damage
        raise TraceError(path, None, f"not a readable triva3d cache: {e or type(e).__name__}") \
            from None
    raise TraceError(path, None, "a cache of another triva3d version: open its trace instead")


def _contents(p):
    """The arrays and metadata of the cache file `p`, None when another version wrote
    it; raises (ValueError and others) when it is damaged."""
    z = _arrays(p)
    meta = json.loads(z["meta"].tobytes())
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return None
    if not _meta_ok(meta):
        raise ValueError("metadata of the wrong shape")
    return z, meta


def _meta_ok(meta):
    """Whether the metadata has the shape `write` gives it: a cache is untrusted input,
    and `report=[[1]]` with the right stamps made a traceback in every command."""
    def texts(v):
        return isinstance(v, list) and all(isinstance(x, str) for x in v)

    def count(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    files, extra, report = meta.get("files"), meta.get("extra"), meta.get("report")
    other, note = meta.get("other_records"), meta.get("unit_note")
    return (isinstance(files, list) and len(files) > 0
            and all(isinstance(f, list) and len(f) == 5 and isinstance(f[0], str)
                    and all(isinstance(x, int) for x in f[1:]) for f in files)
            and isinstance(extra, dict) and set(extra) <= set(SCHEMA)
            and all(texts(v) and len(set(v)) == len(v) for v in extra.values())
            and isinstance(report, list)
            and all(isinstance(r, list) and len(r) == 3 and isinstance(r[0], str)
                    and count(r[1]) and (r[2] is None or isinstance(r[2], (int, str)))
                    for r in report)
            and (other is None or isinstance(other, dict)
                 and all(isinstance(k, str) and count(v) for k, v in other.items()))
            and isinstance(meta.get("time_unit"), str)
            and (note is None or isinstance(note, str)))


def _arrays(path):
    """Every array of the cache file. Each is read whole, so that zip checks its CRC-32
    (np.load stops at the end of the data and misses a flipped byte), and must be a
    plain .npy whose size matches its header."""
    out = {}
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            raw = zf.read(info)
            f = io.BytesIO(raw)
            read_header = {(1, 0): npformat.read_array_header_1_0,
                           (2, 0): npformat.read_array_header_2_0}[npformat.read_magic(f)]
            shape, fortran, dtype = read_header(f)
            count = math.prod(shape)
            if dtype.hasobject or len(raw) - f.tell() != count * dtype.itemsize:
                raise ValueError(f"{info.filename}: not a plain array of its header's size")
            out[info.filename.removesuffix(".npy")] = np.frombuffer(
                raw, dtype, count, f.tell()).reshape(shape, order="F" if fortran else "C")
    return out


def _trace(z, meta, source, files):
    """The Trace of a cache's arrays and metadata, checked (ValueError saying why)."""
    columns = {table: {c: z[f"{table}.{c}"] for c in cols} for table, cols in SCHEMA.items()}
    extra = {table: {name: z[f"{table}.extra.{name}"] for name in names}
             for table, names in meta["extra"].items()}
    trace = Trace.from_columns(
        Names(z["names.arena"], z["names.offsets"]), columns, extra, z["type_colors"],
        z["value_colors"], source=source, report=[tuple(r) for r in meta["report"]],
        files=files, other_records=meta.get("other_records"), time_unit=meta["time_unit"],
        unit_note=meta["unit_note"], from_cache=True)
    why = check(trace)  # untrusted: compiled code would index with it
    if why:
        raise ValueError(why)
    return trace


def write(trace, mode):
    """Save `trace`; returns the cache path, or None when no location was writable."""
    arrays = {"names.arena": trace.names.arena, "names.offsets": trace.names.offsets,
              "type_colors": trace.type_colors, "value_colors": trace.value_colors}
    extra = {}
    for table in SCHEMA:
        t = getattr(trace, table)
        for c, col in t.columns.items():
            arrays[f"{table}.{c}"] = col
        for name, col in t.extra.items():
            arrays[f"{table}.extra.{name}"] = col
        extra[table] = list(t.extra)
    meta = {"format": FORMAT, "files": _stamp(trace.files), "extra": extra,
            "report": trace.report, "other_records": trace.other_records,
            "time_unit": trace.time_unit, "unit_note": trace.unit_note}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    for p in paths(trace.files[0], mode):
        d = os.path.dirname(p)
        try:
            os.makedirs(d, exist_ok=True)
            with atomic(p) as f:
                np.savez(f, **arrays)
            return p
        except OSError:
            continue
    return None
