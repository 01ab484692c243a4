"""The cache: same Trace back, used when fresh, rebuilt when the trace changes."""
import os
import struct
import zipfile

import numpy as np
import pytest

from conftest import HEADER, TYPES, assert_same_trace
from triva3d import cache, load

BODY = "11 1 p1 S run\n8 1 p1 V 3\n15 1 0 L p1 m k\n16 2 0 L p2 m k\n17 2 p2 E x\n"


def test_round_trip_and_reuse(trace_file):
    path = trace_file(HEADER + TYPES + BODY)
    first = load(path)
    assert not first.from_cache
    second = load(path)
    assert second.from_cache
    assert_same_trace(first, second)
    assert load(path, cache=False).from_cache is False


def test_rebuilt_when_the_trace_changes(trace_file):
    path = trace_file(HEADER + TYPES + BODY)
    load(path)
    with open(path, "a") as f:
        f.write("11 3 p1 S io\n")
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    t = load(path)
    assert not t.from_cache and len(t.states) == 2


def test_lenient_and_strict_caches_are_separate(trace_file):
    path = trace_file(HEADER + TYPES + BODY + "13 5 p2 S\n")
    lenient = load(path, lenient=True)
    assert lenient.report and load(path, lenient=True).from_cache


def test_beside_the_trace_when_writable_else_user_dir(trace_file, tmp_path, monkeypatch):
    path = trace_file(HEADER + TYPES + BODY)
    monkeypatch.delenv("TRIVA3D_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    t = load(path)
    assert cache.write(t, "strict") == str(path) + ".t3dcache"
    os.chmod(path.parent, 0o555)
    try:
        if os.access(path.parent, os.W_OK):  # root ignores permissions
            return
        where = cache.write(t, "strict")
        assert where.startswith(str(tmp_path / "xdg" / "triva3d"))
    finally:
        os.chmod(path.parent, 0o755)


@pytest.mark.parametrize("damage", ["truncated", "flipped", "fifo"])
def test_a_damaged_cache_is_parsed_again_with_a_note(trace_file, damage):
    """A truncated cache, one flipped byte, a FIFO in its place: each was a traceback
    (or a hang) on every later command (issue 17); now the trace is parsed again,
    the cache written over, and a note says so once."""
    path = trace_file(HEADER + TYPES + BODY)
    fresh = load(path)
    (where,) = [p for p in cache.paths(path, "strict") if os.path.exists(p)]
    data = open(where, "rb").read()
    end = _member_end(where, "states.start.npy")
    os.remove(where)
    if damage == "truncated":
        open(where, "wb").write(data[:len(data) // 2])
    elif damage == "flipped":  # one bit of a state's start time: still a valid trace
        b = bytearray(data)
        b[end - 8] ^= 0x10  # a low bit of the mantissa
        open(where, "wb").write(bytes(b))
    else:
        os.mkfifo(where)
    again = load(path)
    assert not again.from_cache and again.notes == [
        f"{where}: the cached copy could not be read; parsed again"]
    assert_same_trace(fresh, again)
    third = load(path)
    assert third.from_cache and not getattr(third, "notes", [])


def _member_end(path, member):
    """Where `member`'s bytes end in the zip file (stored, not compressed)."""
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    with open(path, "rb") as f:
        f.seek(info.header_offset + 26)  # the local header: name and extra lengths
        name_len, extra_len = struct.unpack("<HH", f.read(4))
    return info.header_offset + 30 + name_len + extra_len + info.compress_size


def test_a_trace_replaced_with_the_same_size_and_time_is_read_again(trace_file, tmp_path):
    """Another trace of the same size and modification time renamed over the first
    was served from the stale cache (issue 17): the inode and change time tell."""
    path = trace_file(HEADER + TYPES + BODY)
    first = load(path)
    other = tmp_path / "other.trace"
    other.write_text(HEADER + TYPES + BODY.replace("S run", "S io "))  # same size
    st = os.stat(path)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)
    again = load(path)
    assert not again.from_cache
    assert again.display_name("values", again.states.value[0]) == "io"
    assert first.display_name("values", first.states.value[0]) == "run"


@pytest.mark.parametrize("table, column, value", [
    ("states", "container", 10**6),   # beyond the containers: numba read out of bounds
    ("links", "end_container", -5),
    ("types", "kind", 9),             # no such kind
    ("states", "start", np.inf),
    ("containers", "parent", 3),      # a container before its parent
])
def test_a_crafted_cache_with_valid_stamps_is_not_trusted(trace_file, table, column, value):
    """A cache planted with the right stamps but indices out of range made the
    compiled scene code read and write out of bounds (issue 17): it is checked on
    load, refused as damaged, and the trace parsed again."""
    def craft(arrays):
        col = arrays[f"{table}.{column}"].copy()
        col[0 if column != "parent" else 1] = value
        arrays[f"{table}.{column}"] = col
    refused_after(trace_file, craft)


def refused_after(trace_file, craft):
    """A trace's cache, its arrays changed by `craft(arrays)` and written back with
    the right stamps, is refused as damaged: the trace parsed again, the same."""
    path = trace_file(HEADER + TYPES + BODY)
    fresh = load(path)
    (where,) = [p for p in cache.paths(path, "strict") if os.path.exists(p)]
    with np.load(where) as z:
        arrays = {k: z[k] for k in z.files}
    craft(arrays)
    os.remove(where)
    with open(where, "wb") as f:
        np.savez(f, **arrays)
    again = load(path)
    assert not again.from_cache and again.notes == [
        f"{where}: the cached copy could not be read; parsed again"]
    assert_same_trace(fresh, again)
    return again


def test_leftovers_of_a_killed_writer_are_swept(trace_file, tmp_path, monkeypatch):
    """kill -9 while the cache was written left a hidden .t3d-*.tmp of megabytes
    beside the trace (issue 17): the next write removes those of dead processes."""
    import subprocess
    import sys
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    path = trace_file(HEADER + TYPES + BODY)
    folder = os.path.dirname(path)
    old = os.path.join(folder, f".t3d-{dead}-abc.tmp")
    young = os.path.join(folder, f".t3d-{dead}-new.tmp")
    mine = os.path.join(folder, f".t3d-{os.getpid()}-xyz.tmp")
    for p in (old, young, mine):
        open(p, "wb").write(b"x" * 1000)
    os.utime(old, (1, 1))
    os.utime(mine, (1, 1))
    monkeypatch.delenv("TRIVA3D_CACHE_DIR")  # beside the trace
    load(path)
    assert not os.path.exists(old)                      # dead and old: swept
    assert os.path.exists(young) and os.path.exists(mine)  # maybe still being written
    leftovers = [n for n in os.listdir(folder) if n.endswith(".tmp")]
    assert sorted(leftovers) == sorted(os.path.basename(p) for p in (young, mine))


def test_a_failed_cache_write_leaves_nothing(trace_file, monkeypatch):
    path = trace_file(HEADER + TYPES + BODY)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(np, "savez", full)
    monkeypatch.delenv("TRIVA3D_CACHE_DIR")
    xdg = os.path.join(os.path.dirname(path), "xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    t = load(path)
    assert t.from_cache is False
    # the load says so (the library prints nothing: the CLI prints notes)
    assert t.notes == ["no writable place for the cache; the next load parses again"]
    for folder in (os.path.dirname(path), os.path.join(xdg, "triva3d")):
        assert not [n for n in os.listdir(folder) if n.endswith((".tmp", ".t3dcache"))]


@pytest.mark.parametrize("key, value", [
    ("report", [[1]]), ("report", [["x", -1, None]]), ("report", "x"),
    ("extra", {"states": [1]}), ("extra", {"nowhere": []}), ("files", []),
    ("other_records", {"Enter": "many"}), ("time_unit", 3), ("unit_note", [])])
def test_a_cache_with_hostile_metadata_is_parsed_again(trace_file, key, value):
    """Right stamps, metadata of the wrong shape (issue 26.4: report=[[1]] was a
    traceback in stats, render and dump): parsed again, as any damaged cache."""
    import json
    from triva3d.stats import render, summary

    def craft(arrays):
        meta = json.loads(arrays["meta"].tobytes())
        meta[key] = value
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    render(summary(refused_after(trace_file, craft)))


def test_a_writer_killed_while_writing_is_swept_by_the_next_load(trace_file, tmp_path,
                                                                  monkeypatch):
    """kill -9 landing in a cache write (held there by a hook, not a guessed sleep):
    its temporary file is removed by the next load, even one that only reads the
    cache (issue 26.7), once it is a minute old."""
    import signal
    import subprocess
    import sys
    import time
    monkeypatch.delenv("TRIVA3D_CACHE_DIR")  # beside the trace
    path = trace_file(HEADER + TYPES + BODY)
    load(path)  # the cache is there: the next load only reads
    held = tmp_path / "held"
    child = subprocess.Popen([sys.executable, "-c", f"""
import time, numpy as np
from triva3d import cache, load
trace = load({str(path)!r}, cache=False)
def hold(f, **arrays):
    f.write(b"x" * 4_000_000)
    f.flush()
    open({str(held)!r}, "w").close()
    time.sleep(600)
np.savez = hold
cache.write(trace, "strict")
"""], env={k: v for k, v in os.environ.items() if k != "TRIVA3D_CACHE_DIR"})
    for _ in range(6000):
        if held.exists() or child.poll() is not None:
            break
        time.sleep(0.05)
    assert held.exists(), "the writer never reached the write"
    child.send_signal(signal.SIGKILL)
    child.wait()
    folder = os.path.dirname(path)
    (left,) = [n for n in os.listdir(folder) if n.endswith(".tmp")]
    assert os.path.getsize(os.path.join(folder, left)) == 4_000_000
    assert load(path).from_cache
    assert os.path.exists(os.path.join(folder, left))  # too young: maybe a live writer
    os.utime(os.path.join(folder, left), (1, 1))        # a minute later
    assert load(path).from_cache
    assert not [n for n in os.listdir(folder) if n.endswith(".tmp")]


def test_a_cache_is_written_with_the_umask_and_never_through_a_link(trace_file, tmp_path,
                                                                     monkeypatch):
    """A cache written where a symbolic link stood got mode 0666 (issue 26.8): it
    replaces the link, and takes the umask's mode."""
    monkeypatch.delenv("TRIVA3D_CACHE_DIR")
    path = trace_file(HEADER + TYPES + BODY)
    (where, _) = cache.paths(path, "strict")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    target.chmod(0o666)
    os.symlink(target, where)
    old = os.umask(0o077)
    try:
        assert not load(path).from_cache
    finally:
        os.umask(old)
    assert not os.path.islink(where) and target.read_bytes() == b"keep"
    assert os.stat(where).st_mode & 0o777 == 0o600
    assert load(path).from_cache
