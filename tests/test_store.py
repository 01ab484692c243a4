"""The Parquet store (issue 34.1): a trace ingested reads back as the very same Trace,
dump for dump, user-defined fields included; its layout is the one documented."""
import json
import subprocess
import sys

import pytest

from conftest import dump_lines
from triva3d import load
from triva3d.errors import Triva3dError
from triva3d.store import ingest, read_store
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["small", "ping-pong"])
def test_a_store_reads_back_as_the_same_trace(name, data, tmp_path):
    src = (ROOT / "examples" / "small.trace" if name == "small"
           else data / "otf2" / "ping-pong-otf2-papi")
    tr = load(src, cache=False)
    ingest(tr, tmp_path / "s")
    back = load(tmp_path / "s", cache=False)
    assert dump_lines(back, user_defined=True) == dump_lines(tr, user_defined=True)
    assert back.time_unit == tr.time_unit and back.report == tr.report
    assert load(tmp_path / "s" / "store.json").source == str(tmp_path / "s")


def test_the_layout_partitions_sorts_and_compresses(tmp_path):
    import pyarrow.parquet as pq
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    meta = json.loads((tmp_path / "s" / "store.json").read_text())
    size = meta["bucket_size"]
    parts = sorted((tmp_path / "s" / "states").glob("bucket=*/part-0.parquet"))
    assert len(parts) > 1
    rows = 0
    for part in parts:
        b = int(part.parent.name.split("=")[1])
        f = pq.ParquetFile(part)
        t = f.read()
        cont, start = t.column("container").to_numpy(), t.column("start").to_numpy()
        assert ((cont // size) == b).all()  # the bucket's containers only
        key = cont * 1e9 + start
        assert (key[1:] >= key[:-1]).all()  # by container, then start
        col = f.metadata.row_group(0).column(0)
        assert col.compression == "ZSTD" and col.statistics.has_min_max
        rows += len(t)
    assert rows == len(tr.states)


def test_a_damaged_store_is_a_one_line_error(tmp_path):
    tr = load(ROOT / "examples" / "small.trace", cache=False)
    ingest(tr, tmp_path / "s")
    (tmp_path / "s" / "names.parquet").write_bytes(b"PAR1 nothing")
    with pytest.raises(Triva3dError, match="not a readable triva3d store"):
        read_store(tmp_path / "s")
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", str(tmp_path / "s")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "not a readable triva3d store" in r.stderr


def test_ingest_and_render_from_the_store(tmp_path):
    out = tmp_path / "s"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "ingest",
                        str(ROOT / "examples" / "small.trace"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "a store of 1066 states" in r.stderr
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(out), "--base",
                        "treemap", "-o", str(tmp_path / "r.png")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "1066 states" in r.stderr
