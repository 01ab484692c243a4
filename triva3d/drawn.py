"""The part of a store that one picture draws (issue 34.4): `render STORE` of the
whole run, or of any window, in memory bounded by the screen.

Over the store read for no entity (engine.read_skeleton) the View lays out the base
and fits the camera, which fixes the level-of-detail bins. Then, each bucket a Dask
task (engine.py), the store hands over of the states meeting the window only those
a texel shows (the state covering most of it, in the trace's order: the very rows
Geometry's texels show), and of the messages, above BUNDLE_LIMIT, the bundles
Geometry would draw (their level and time bins chosen over every bucket's keys, the
busiest BUNDLE_TARGET kept, each with its first message). What the picture says of
the rest (how many states and of which values, the messages' values, each bundle's
count, bytes and mean times) comes in the part's trace.Drawn, so the picture is the
one the store read whole draws; memory: about a state a texel. Events and variable
pieces meeting the window are read whole. The part draws that picture only
(ViewState.refusal).
"""
import numpy as np

from . import engine
from .store import ENTITIES, meeting_counts, meta_of, read_bytes
from .trace import SCHEMA, Drawn, Table, Trace


#: Below this many bytes to read the window's entities whole (store.read_bytes), they
#: are read whole: sooner done (a 1e6-state store's whole run 3.3 s at 580 MB read
#: whole, 5.6 s at 522 MB drawn; 1e7: 8.4 s at 1268 MB, 5.8-8.9 s at 760 MB drawn).
READ_BELOW = 256 << 20


def applies(state):
    """Whether a picture of `state` can be drawn from a part read for it: what it
    draws in its window depends on nothing but those entities and what the store
    keeps of the whole run (ViewState.part), level of detail allowed, nothing
    unfolded or flying."""
    return (state.window_alone() and state.detail != "exact" and not state.unfold
            and state.particles is None and not state.heat and not state.routes
            and state.side_by_side is None)


def worth(store, window, exact_limit):
    """Whether a part read for a picture of `window` may be less than its entities:
    more states than `exact_limit` (else drawn one by one) and more than READ_BELOW
    bytes, by the store's guesses."""
    return (meeting_counts(store, window)["states"] > exact_limit
            and read_bytes(store, window) > READ_BELOW)


def empty(skeleton, state, window, geometry=None):
    """`skeleton` (engine.read_skeleton) as a part read for `state` over `window`,
    holding no entity yet: what the View lays out and fits the camera on. With
    `geometry` (over a first empty part: what is shown), the legend's keys are the
    whole run's values shown, most likely the window's (the legend's width moves the
    camera, which sets the level of detail's bins)."""
    none = np.zeros(0, np.int64)
    states = links = none
    if geometry is not None:
        counts, (values, _) = skeleton.whole.value_counts, geometry.shown
        states = np.flatnonzero(values & (counts[:, 0] > 0))
        links = np.flatnonzero(values & (counts[:, 1] > 0)
                               & ~geometry.platform_links[skeleton.values.type])
    return _part(skeleton, {}, window, Drawn(state.to_dict(), 0, 0, states, links))


def read_drawn(store, geometry, pixels, skeleton, state, address=None, bins=None,
               like=None):
    """The part of the store at `store` that draws what `geometry` (over `empty`,
    for `state`) draws with `pixels` level-of-detail bins, or None where it would
    not be smaller than the window's entities: few states (drawn one by one), few
    entities (READ_BELOW), aggregated columns. `bins`: those bins, whatever `pixels` says, and the rest as
    in the part `like` (the same state read before at other bins)."""
    from .scene import lod
    g = geometry
    window = (g.frame.t0, g.frame.t1)
    if g.owner is not None or not worth(store, window, g.exact_limit):
        return None

    def bins_for(n_cols):  # as the View bins them: first for g.n_bins, then the screen's
        b = lod.bins_for(n_cols, g.n_bins)
        return bins or (lod.bins_for(n_cols, pixels) if lod.refit(b, pixels) else b)
    values, cont = g.shown
    pairs = skeleton.whole.state_pairs
    want = bins_for(np.count_nonzero(cont[pairs // len(skeleton.types)]))  # (at least)
    while True:
        states, n, state_values, keys = engine.texel_states(store, window, want,
                                                             (values, cont), address)
        if n <= g.exact_limit:
            return None
        if bins_for(len(keys)) == want:
            break
        want = bins_for(len(keys))
    if like is not None:
        tables = {name: _columns(getattr(like, name)) for name in ENTITIES}
        tables["states"] = states
        d = like.whole.drawn
        return _part(skeleton, tables, window, d._replace(bins=want))
    links, bundles, _, link_values = engine.messages(
        store, window, (values, cont, g.platform_links), g.bundle_up(), address)
    fields = meta_of(store)["extra"]
    tables = {"states": states, "links": links}
    for name in ("events", "variables"):
        tables[name] = engine.read_table_part(store, name, fields[name], window, address)
    return _part(skeleton, tables, window,
                 Drawn(state.to_dict(), want, n, np.flatnonzero(state_values),
                       np.flatnonzero(link_values), bundles))


def _columns(table):
    """A part's Table as the columns _part takes."""
    return {**table.columns, **{f"extra.{k}": v for k, v in table.extra.items()}}


def _part(skeleton, columns, window, drawn):
    """A Trace of the skeleton's containers, types, values and names with the
    entity `columns` (table -> name -> array, with `extra.` fields; none: empty),
    holding `window`, and `drawn`."""
    tables = {name: getattr(skeleton, name) for name in ("types", "values", "containers")}
    for name in ("states", "links", "variables", "events"):
        c = columns.get(name) or {k: np.zeros(0, d) for k, d in SCHEMA[name].items()}
        tables[name] = Table(name, {k: np.asarray(c[k], d) for k, d in SCHEMA[name].items()},
                             {k[6:]: np.asarray(v, np.int32) for k, v in c.items()
                              if k.startswith("extra.")})
    sk = skeleton
    return Trace(sk.names, tables, sk.type_colors, sk.value_colors, source=sk.source,
                 report=sk.report, files=sk.files, other_records=sk.other_records,
                 time_unit=sk.time_unit, unit_note=sk.unit_note,
                 whole=sk.whole._replace(window=tuple(window), drawn=drawn))
