"""Per-container numbers computed from a Trace in one vectorized pass each."""
from typing import NamedTuple

import numpy as np


def link_bytes(trace, rows=None):
    """Size of every link (or of the links `rows`) from its user-defined `Size` field
    (Poti's name, any case), NaN where a link has none."""
    links = trace.links
    field = next((k for k in links.extra if k.lower() == "size"), None)
    n = len(links) if rows is None else len(rows)
    if field is None:
        return np.full(n, np.nan)
    codes = links.extra[field] if rows is None else links.extra[field][rows]
    uniq, inv = np.unique(codes, return_inverse=True)
    vals = np.full(len(uniq), np.nan)
    for i, code in enumerate(uniq):
        if code >= 0:
            try:
                vals[i] = float(trace.names.display(code))
            except ValueError:
                pass
    return vals[inv]


class LinkSizes(NamedTuple):
    """The links of a run and their sizes (link_sizes)."""
    links: int            # links
    positive: int         # links of a size above 0
    smallest: float       # the smallest and the largest of those sizes (NaN: none)
    largest: float
    messages: int         # links of no platform type (analysis.roles)
    sized_messages: int   # messages with a Size given


def link_sizes(trace):
    """The LinkSizes over the whole run (Trace.whole where the trace holds part of
    it): what the traffic's unit, the size colouring, the treemap's link measures
    and the warnings go by."""
    if trace.whole is not None:
        return LinkSizes(*trace.whole.link_sizes)
    from .roles import link_counts, platform_of
    size = link_bytes(trace)
    links, instant = link_counts(trace)
    return sizes_of(size_range(size), links, sized_counts(trace.links.type, size, len(links)),
                    platform_of(links, instant))


def size_range(size):
    """(links of a size above 0, the smallest and the largest such size) of `size`."""
    ok = np.isfinite(size) & (size > 0)
    return (int(ok.sum()), float(size[ok].min()) if ok.any() else np.nan,
            float(size[ok].max()) if ok.any() else np.nan)


def sized_counts(types, size, n_types):
    """Per type: the links (of `types`, sizes `size`) whose size is known."""
    return np.bincount(types[np.isfinite(size)], minlength=n_types)


def sizes_of(positive, links, sized, platform):
    """LinkSizes from size_range's (positive, smallest, largest) and roles.link_counts'
    links and sized_counts per type (summed over the parts of a run), `platform` its mask."""
    msg = ~platform
    return LinkSizes(int(links.sum()), *positive, int(links[msg].sum()),
                     int(sized[msg].sum()))
