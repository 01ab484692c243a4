"""Ingest in bounded memory (issue 34.3): a Pajé trace's simulation hands over, every
SPILL_ROWS entity rows, the rows that can no longer change (SimState.hand_over);
they go to files in the store's folder, one a hand-over and table, sorted by
container (the links' keys apart, in the trace's order), and are read back one
container bucket at a time for store.write_store, the keys a block at a time for its
names. Memory is then the rows held (open states, pending links, each living
(container, type)'s last row), the names but the links' keys, and one bucket (a
range of containers: as big as their rows); the spilled rows take about their own
size on disk until the store is written.
An OTF2 archive is read a batch of locations at a time (about SPILL_ROWS records),
each batch's rows handed over at its end, its MPI messages' ends spilled by their
sender's batch and matched one such batch at a time at the end (otf2.reader).
Formats that do not stream (load.Reader) are read whole, then written."""
import os
import shutil
import stat

import numpy as np

from .store import (ENTITIES, OWNER, SMALL, SPILL, bucket_starts, check_out, ingest, owner_of,
                    write_store)
from .trace import SCHEMA, Fields

#: Entity rows the simulation holds before it hands over those done with.
SPILL_ROWS = 1 << 21
#: What the reuse check keeps of each link leaving the simulation (Spill.reused_keys):
#: the kernel's hash of its container, type and key, its number (negative:
#: superseded, -1 - number), the line of its first event, its container and type,
#: its key's length, first 8 bytes and (longer keys) a second hash of all its bytes.
KEY_RECORD = np.dtype([("hash", np.int64), ("row", np.int64), ("line", np.int64),
                       ("head", np.uint64), ("hash2", np.uint64), ("container", np.int32),
                       ("type", np.int32), ("length", np.int32)])
#: Links (and key bytes) recorded at once (each byte takes a few 8-byte indices).
KEY_BLOCK = 1 << 16
#: Files the records are spread over by hash (each read whole by the check).
KEY_PARTS = 256


class Spill:
    """The hand-overs of a simulation (SimState.hand_over), spilled to `folder`."""

    def __init__(self, folder):
        self.folder = folder
        self.chunks = {name: [] for name in ENTITIES}  # (folder, its columns) each
        self.fields = Fields()
        self.dropped = []                               # links never completed
        self.counts = dict.fromkeys(ENTITIES, 0)
        self.keys = []                                  # folders of the links' keys
        self.rows = np.zeros(0, np.int64)               # rows spilled per container
        self.mend = None  # None, or f(table, columns) making a part read back final
        self.files = []   # (the first link number read from it, a Pajé file's path)

    def __call__(self, tables, keys=None, dropped=None, leaving=None):
        """Spill one hand-over (SimState.hand_over): `tables` (table -> columns: SCHEMA's,
        `extra.NAME` and `row`, the rows' numbers in the trace; a link's `key_length`
        where `keys` are given), the links' `keys` end to end, `dropped` link numbers,
        the links `leaving` (their key records)."""
        if dropped is not None:
            self.dropped.append(dropped)
        if leaving is not None and len(leaving["row"]):
            self._key_records(leaving)
        links = tables.get("links", {})
        if keys is not None and len(links["row"]):  # (the keys in the trace's order)
            chunk = os.path.join(self.folder, f"keys-{len(self.keys)}")
            os.makedirs(chunk)
            for c, v in (("row", links["row"]), ("bytes", keys),
                         ("starts", np.concatenate([[0], np.cumsum(links["key_length"])]))):
                np.save(os.path.join(chunk, f"{c}.npy"), v)
            self.keys.append(chunk)
        links.pop("key_length", None)
        for name, columns in tables.items():
            n = len(columns["row"])
            self.fields.see(name, columns)
            if not n:
                continue
            self.counts[name] += n
            owner = owner_of(name, columns)
            rows = np.bincount(owner, minlength=len(self.rows))
            rows[:len(self.rows)] += self.rows
            self.rows = rows
            order = np.argsort(owner, kind="stable")
            chunk = os.path.join(self.folder, f"{name}-{len(self.chunks[name])}")
            os.makedirs(chunk)
            for k, v in enumerate(columns.values()):  # (files by number: a field's name
                np.save(os.path.join(chunk, f"{k}.npy"), v[order])  # may hold a '/')
            self.chunks[name].append((chunk, list(columns)))

    def extra(self):
        """Table -> the extra fields given a value in it, in the trace's order."""
        return self.fields.of()

    def starts(self, n_containers):
        """store.bucket_starts of the rows spilled, for `n_containers` containers."""
        return bucket_starts(np.pad(self.rows, (0, n_containers - len(self.rows))))

    def buckets(self, starts):
        """store.write_store's buckets: (bucket, table -> columns) of every bucket
        (of `starts`) holding entities, and of bucket 0, each table's rows in the
        trace's order."""
        extra = self.extra()
        dropped = np.sort(np.concatenate(self.dropped + [np.empty(0, np.int64)]))
        for b in range(len(starts) - 1):
            part = {name: self._read(name, starts[b], starts[b + 1], extra[name])
                    for name in ENTITIES}
            if b and not any(len(p["row"]) for p in part.values()):
                continue
            links = part["links"]
            links["row"] = links["row"] - np.searchsorted(dropped, links["row"])
            if self.mend:
                part = {name: self.mend(name, columns) for name, columns in part.items()}
            yield b, part

    def link_keys(self, block=1 << 20):
        """Blocks (lengths, bytes end to end) of every link's key, in the trace's
        order (store.write_store's keys): the links numbered in each `block` at once."""
        from .paje.kernel import gather_bytes
        chunks = [tuple(np.load(os.path.join(k, f"{c}.npy"), mmap_mode="r")
                        for c in ("row", "starts", "bytes")) for k in self.keys]
        end = max((int(row[-1]) + 1 for row, _, _ in chunks), default=0)
        for first in range(0, end, block):
            rows, starts, lengths, data, base = [], [], [], [], 0
            for row, offsets, text in chunks:
                i, j = np.searchsorted(row, (first, first + block)).tolist()
                if j > i:
                    rows.append(row[i:j])
                    o = offsets[i:j + 1]
                    starts.append(o[:-1] - o[0] + base)
                    lengths.append(np.diff(o).astype(np.int32))
                    data.append(text[o[0]:o[-1]])
                    base += int(o[-1] - o[0])
            if not rows:
                continue
            order = np.argsort(np.concatenate(rows), kind="stable")
            lengths = np.concatenate(lengths)[order]
            out = np.empty(base, np.uint8)
            gather_bytes(np.concatenate(data), np.concatenate(starts)[order], lengths, out)
            yield lengths, out

    def _key_records(self, links):
        """Append the KEY_RECORDs of `links` (SimState.hand_over's `leaving`) to their
        parts' files (by hash), KEY_BLOCK links or key bytes at a time."""
        lengths = links["key_length"].astype(np.int64)
        ends = np.cumsum(lengths)
        cuts = np.union1d(np.arange(KEY_BLOCK, len(lengths), KEY_BLOCK), np.searchsorted(
            ends, np.arange(1, ends[-1] // KEY_BLOCK + 1) * KEY_BLOCK))
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(lengths)]):
            if hi > lo:
                self._key_block({k: v[lo:hi] for k, v in links.items() if k != "keys"},
                                links["keys"][ends[lo] - lengths[lo]:ends[hi - 1]])

    def _key_block(self, links, keys):
        """_key_records of one block: `links`' columns, their `keys` end to end."""
        rec = np.zeros(len(links["row"]), KEY_RECORD)
        for c in ("hash", "line", "container", "type"):
            rec[c] = links[c]
        rec["row"] = np.where(links["superseded"], -1 - links["row"], links["row"])
        rec["length"] = n = links["key_length"].astype(np.int64)
        starts = np.cumsum(n) - n
        rec["head"] = _first_bytes(n, starts, keys)
        long = np.flatnonzero(n > 8)
        if len(long):
            rec["hash2"][long] = _hash2(n[long], starts[long], keys)
        part = (rec["hash"].view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(56)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(KEY_PARTS + 1))
        for p in np.flatnonzero(np.diff(bounds)).tolist():
            with open(os.path.join(self.folder, f"keyhash-{p}"), "ab") as f:
                rec[order[bounds[p]:bounds[p + 1]]].tofile(f)

    def reused_keys(self):
        """The link keys reused after their link left the simulation, which did not see
        them (it holds the pending links and the last of each (container, type)):
        (how many; the first in the trace's order as (its file, line), or None).
        Each part's records are read alone and sorted by (container, type, key): a
        key is its length and first 8 bytes, exactly, or beyond 8 bytes, besides the
        kernel's hash, a second 64-bit hash of its bytes. A reuse the simulation saw
        (the earlier link superseded) is not counted again."""
        count, first = 0, None
        for p in range(KEY_PARTS):
            path = os.path.join(self.folder, f"keyhash-{p}")
            rec = np.fromfile(path, KEY_RECORD) if os.path.exists(path) else ()
            if len(rec) < 2:
                continue
            number = np.where(rec["row"] < 0, -1 - rec["row"], rec["row"])
            keys = ("hash", "container", "type", "length", "head", "hash2")
            order = np.lexsort((number,) + tuple(rec[k] for k in reversed(keys)))
            rec, number = rec[order], number[order]
            same = np.ones(len(rec) - 1, bool)
            for k in keys:
                same &= rec[k][1:] == rec[k][:-1]
            new = np.flatnonzero(same & (rec["row"][:-1] >= 0)) + 1  # (earlier: not superseded)
            count += len(new)
            if len(new):
                i = int(new[np.argmin(number[new])])
                if first is None or number[i] < first[0]:
                    first = (int(number[i]), int(rec["line"][i]))
        if first is None:
            return count, None
        marks = [m for m, _ in self.files]
        at = max(int(np.searchsorted(marks, first[0], side="right")) - 1, 0)
        return count, (self.files[at][1] if self.files else None, first[1])

    def _read(self, name, lo, hi, fields):
        """Table `name`'s spilled rows of containers `lo` to `hi` - 1: SCHEMA's
        columns, `extra.F` of `fields` (-1 where a hand-over had no such field) and
        `row`, in the order of `row`."""
        spans = []  # (chunk, its columns, first row, end)
        for chunk, columns in self.chunks[name]:
            owner = np.load(os.path.join(chunk, f"{columns.index(OWNER[name])}.npy"),
                            mmap_mode="r")
            i, j = np.searchsorted(owner, (lo, hi)).tolist()
            if j > i:
                spans.append((chunk, columns, i, j))
        dtypes = {**SCHEMA[name], "row": np.int64}

        def column(c):  # (one column's pieces at a time: memory, the part and a column)
            return np.concatenate([np.load(os.path.join(chunk, f"{columns.index(c)}.npy"),
                                           mmap_mode="r")[i:j]
                                   if c in columns else np.full(j - i, -1, np.int32)
                                   for chunk, columns, i, j in spans]) \
                if spans else np.zeros(0, dtypes.get(c, np.int32))
        row = column("row")
        order = np.argsort(row, kind="stable")
        return {**{c: column(c)[order] for c in list(SCHEMA[name]) +
                   [f"extra.{f}" for f in fields]}, "row": row[order]}


def _first_bytes(lengths, starts, text):
    """Each key's first 8 bytes (zeros after a shorter one's) as one number."""
    out = np.zeros((len(lengths), 8), np.uint8)
    n = np.minimum(lengths, 8)
    key = np.repeat(np.arange(len(n)), n)
    at = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    out[key, at] = text[starts[key] + at]
    return out.view(np.uint64)[:, 0]


def _hash2(lengths, starts, text):
    """A 64-bit hash of each key's bytes (keys of one byte or more), other than the
    kernel's FNV: the wrapping sum of a mix of each (position, byte), KEY_BLOCK
    positions at a time (a key of 16 MiB too)."""
    out = np.zeros(len(lengths), np.uint64)
    for w in range(0, int(lengths.max()), KEY_BLOCK):
        keys = np.flatnonzero(lengths > w)
        n = np.minimum(lengths[keys] - w, KEY_BLOCK)
        first = np.cumsum(n) - n
        at = np.arange(int(n.sum())) - np.repeat(first, n)
        x = ((at + w).astype(np.uint64) << np.uint64(8)) \
            | text[np.repeat(starts[keys] + w, n) + at].astype(np.uint64)
        x *= np.uint64(0x9E3779B97F4A7C15)
        x ^= x >> np.uint64(29)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(32)
        out[keys] += np.add.reduceat(x, first)
    return out


def ingest_file(path, out, lenient=False, cache=True, progress=None, writing=None,
                rows=SPILL_ROWS):
    """Write the trace at `path` as a store in `out`: a Pajé trace or an OTF2 archive
    in bounded memory (the cache is neither read nor written), any other
    read whole (load.load) then written. The store is made in `out`/SPILL/store, then moved in: a store
    there stays until then. `progress`: load.load's; `writing`: write_store's
    progress. Returns (the Trace read, without its entities where spilled; each
    table's rows; the files written)."""
    from .load import PAJE, load, reader_of
    from .memory import give_back
    check_out(out)
    try:  # (a pipe or FIFO is Pajé, read once: not sniffed)
        piped = stat.S_ISFIFO(os.stat(path).st_mode) or stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        piped = False
    reader, read = (PAJE, path) if piped else reader_of(path) or (PAJE, path)
    folder, made = os.path.join(out, SPILL), not os.path.exists(out)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    staging = os.path.join(folder, "store")
    try:
        if not reader.streams:
            trace = load(path, lenient=lenient, cache=cache, progress=progress)
            counts = {name: len(getattr(trace, name)) for name in ENTITIES}
            files = ingest(trace, staging, writing)
        else:
            spill = Spill(folder)
            trace = reader.read(read, lenient=lenient, progress=progress, spill=(spill, rows))
            give_back()  # (the simulation's columns, freed)
            counts = spill.counts
            starts = spill.starts(len(trace.containers))
            files = write_store(trace, starts, spill.buckets(starts), staging,
                                spill.extra(), counts, spill.link_keys() if spill.keys else None,
                                writing)
        replace(staging, out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if made and os.path.isdir(out) and not os.listdir(out):
            os.rmdir(out)
    return trace, counts, files


def replace(new, out):
    """Move the store made in `new` into `out` in place of what a store there holds,
    its store.json last."""
    for name in ("store.json", *ENTITIES, *(f"{t}.parquet" for t in SMALL)):
        path = os.path.join(out, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
    for name in sorted(os.listdir(new), key=lambda n: n == "store.json"):
        os.rename(os.path.join(new, name), os.path.join(out, name))
