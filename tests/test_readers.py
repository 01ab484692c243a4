"""The trace readers' table (load.READERS): which reader takes a path, a saved cache
opened as a trace of its own, a Trace assembled from columns, the window's drop told
by content."""
import glob
import os
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import HEADER, TYPES

import otf2gen
from triva3d import TraceError, cache, load
from triva3d.load import DIALOG_FILTER, PAJE, READERS, reader_of
from triva3d.trace import SCHEMA, Names, Trace

BODY = "11 1 p1 S run\n8 1 p1 V 3\n15 1 0 L p1 m k\n16 2 0 L p2 m k\n17 2 p2 E x\n"


def test_each_format_is_told_by_content(trace_file, tmp_path):
    """OTF2 (anchor or its folder: the anchor is read), a cache, Pajé whatever its
    name; anything else is no one's (load hands it to Pajé, which says what is wrong)."""
    otf2gen.mpi_ring(tmp_path / "ring")
    (anchor,) = glob.glob(str(tmp_path / "ring" / "*.otf2"))
    store, otf2, cached, paje = READERS[0], READERS[1], READERS[2], PAJE
    assert reader_of(tmp_path / "ring") == (otf2, anchor)
    assert reader_of(anchor) == (otf2, anchor)
    trace = trace_file(HEADER + TYPES + BODY, name="t.dot")
    assert reader_of(trace) == (paje, trace)
    load(trace)
    (saved,) = [p for p in cache.paths(trace, "strict") if os.path.exists(p)]
    assert reader_of(saved) == (cached, saved)
    for other in ("graph g { a -- b }", "", "\0binary"):
        assert reader_of(trace_file(other)) is None
    with pytest.raises(TraceError, match="holds nothing: an empty file"):
        load(trace_file(""))
    from triva3d.store import ingest  # a store: its folder, or its store.json
    ingest(load(trace), tmp_path / "st")
    assert reader_of(tmp_path / "st") == (store, tmp_path / "st")
    assert reader_of(tmp_path / "st" / "store.json") == (store, str(tmp_path / "st"))
    assert DIALOG_FILTER.startswith("Traces (store.json *.otf2 *.t3dcache *.trace *.paje);;")
    assert DIALOG_FILTER.endswith(";;All files (*)")


def test_a_saved_cache_opens_as_a_trace(trace_file, tmp_path):
    """A `.t3dcache` opens by itself (its trace changed or gone): the same Trace, read
    from the cache, never cached again; a damaged one or another version's is a line."""
    path = trace_file(HEADER + TYPES + BODY)
    fresh = load(path)
    (saved,) = [p for p in cache.paths(path, "strict") if os.path.exists(p)]
    os.remove(path)
    before = sorted(os.listdir(os.environ["TRIVA3D_CACHE_DIR"]))
    again = load(saved)
    assert again.from_cache and again.source == saved and again.notes == []
    for table in ("containers", "states", "links"):
        for c, col in getattr(fresh, table).columns.items():
            np.testing.assert_array_equal(col, getattr(again, table).columns[c])
    assert sorted(os.listdir(os.environ["TRIVA3D_CACHE_DIR"])) == before  # no cache of it
    cut = tmp_path / "cut.t3dcache"
    cut.write_bytes(open(saved, "rb").read()[:2000])
    with pytest.raises(TraceError, match=r"cut.t3dcache: not a readable triva3d cache"):
        load(cut)


def test_a_trace_is_assembled_from_columns():
    """Trace.from_columns casts to the schema and gives NaN colours; `from_cache` and
    `notes` are fields (the unit note first)."""
    columns = {"types": {"kind": [0], "parent": [-1], "name": [0], "alias": [-1],
                         "start_type": [-1], "end_type": [-1]},
               "values": {"type": [], "name": [], "alias": []},
               "containers": {"parent": [-1], "type": [0], "name": [0], "alias": [-1],
                              "start": [0], "end": [1]}}
    for table in ("states", "links", "variables", "events"):
        columns[table] = {c: [] for c in SCHEMA[table]}
    t = Trace.from_columns(Names.of(["0"]), columns, source="x", time_unit="ms",
                           unit_note="why", notes=["more"])
    assert t.containers.parent.dtype == np.int32 and t.states.imbrication.dtype == np.int16
    assert t.type_colors.shape == (1, 4) and np.isnan(t.type_colors).all()
    assert (t.from_cache, t.notes, t.names[0]) == (False, ["why", "more"], "0")


def test_a_drop_is_told_by_content(trace_file, tmp_path):
    """The window's drop and command line: a saved view (a trace open), a topology
    the topology readers take, else a trace, whatever the name says."""
    pytest.importorskip("PySide6")
    from triva3d.gui.window import MainWindow
    calls = []
    window = SimpleNamespace(trace=None, **{k: (lambda p, k=k: calls.append((k, p))) for k in
                                            ("load_view", "open_topology", "open_trace")})
    dot = trace_file("graph g { a -- b }", name="g.txt")
    xml = trace_file('<?xml version="1.0"?>\n<platform version="4.1"/>', name="p.xml")
    paje = trace_file(HEADER + TYPES + BODY, name="t.xml")
    view = trace_file("{}", name="v.json")
    for path in (dot, xml, paje, view):
        MainWindow.open_any(window, str(path))
    window.trace = object()
    MainWindow.open_any(window, str(view))
    assert calls == [("open_topology", str(dot)), ("open_topology", str(xml)),
                     ("open_trace", str(paje)), ("open_trace", str(view)),
                     ("load_view", str(view))]
