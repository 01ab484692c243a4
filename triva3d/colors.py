"""Colours of the scene: the trace's own where it gives them, else a stable palette.

Every colour here is RGB uint8. The palette colour of a name depends on the name
only (a CRC of its text), so a value keeps its colour across traces and runs.
"""
import zlib

import numpy as np

BACKGROUND = (0.09, 0.10, 0.12)
#: Level-of-detail texels that no state covers.
EMPTY = (70, 70, 76)
#: Base node squares by kind (topology.KINDS), and anything else.
KIND_RGB = {"host": (190, 190, 182), "router": (214, 140, 64), "switch": (86, 140, 214),
            "link": (112, 112, 124), "node": (160, 160, 160)}
OTHER_KIND = (150, 150, 150)
UNPLACED = (150, 70, 70)
#: Links (messages) whose value and type have no colour in the trace.
LINK = (235, 235, 235)
#: Edges whose latency is unknown.
NO_LATENCY = (120, 120, 120)
#: Latency ramp, low to high (blue, teal, yellow, red): 4 stops interpolated.
RAMP = np.array([(60, 110, 220), (40, 180, 170), (235, 200, 60), (220, 60, 50)], np.float64)


def palette(name):
    """Stable colour of a name: hue from its CRC-32, two saturations and brightnesses."""
    h = zlib.crc32(name.encode())
    hue = (h & 0xFFFF) / 65536.0
    sat = 0.55 if h >> 16 & 1 else 0.75
    val = 0.80 if h >> 17 & 1 else 0.95
    return _hsv(hue, sat, val)


def _hsv(h, s, v):
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return (round(r * 255), round(g * 255), round(b * 255))


def _rgb(rgba):
    """A trace colour as uint8 RGB: Pajé colours are 0..1, but some writers use
    0..255 (any component above 1 means that)."""
    c = np.asarray(rgba[:3], np.float64)
    c = c / 255 if c.max() > 1 else c
    return tuple(int(round(v * 255)) for v in np.clip(c, 0, 1))


def _override(trace, table, out, overrides):
    """Colours given by name (display name -> (r, g, b)) replace those in `out`."""
    for name, rgb in (overrides or {}).items():
        out[trace.find(table, name)] = rgb
    return out


def value_rgb(trace, overrides=None):
    """(n_values, 3) uint8: each entity value's colour (`overrides` by name, else the
    trace's, else its type's, else the palette's for the value name)."""
    out = np.empty((len(trace.values), 3), np.uint8)
    for v in range(len(trace.values)):
        c = trace.value_colors[v]
        if np.isnan(c[0]):
            c = trace.type_colors[trace.values.type[v]]
        out[v] = _rgb(c) if not np.isnan(c[0]) else palette(trace.names.display(
            trace.values.name[v]))
    return _override(trace, "values", out, overrides)


def type_rgb(trace, overrides=None):
    """(n_types, 3) uint8: each type's colour (`overrides` by name, else the trace's,
    else the palette's for its name)."""
    out = np.empty((len(trace.types), 3), np.uint8)
    for t in range(len(trace.types)):
        c = trace.type_colors[t]
        out[t] = _rgb(c) if not np.isnan(c[0]) else palette(trace.names.display(
            trace.types.name[t]))
    return _override(trace, "types", out, overrides)


def entity_rgb(trace, table, overrides=None):
    """Per row of `table` (links or events): its value's colour (`overrides` by
    name, else the trace's), else its type's, else the palette's for the value
    (LINK for links, to stand out from states)."""
    t = getattr(trace, table)
    uncoloured = (np.isnan(trace.value_colors[:, 0])
                  & np.isnan(trace.type_colors[trace.values.type, 0]))
    by_value = value_rgb(trace)
    if table == "links":
        by_value[uncoloured] = LINK
    return _override(trace, "values", by_value, overrides)[t.value]


def ramp(x):
    """Colours of numbers in [0, 1] along RAMP (NaN: NO_LATENCY)."""
    x = np.asarray(x, np.float64)
    out = np.empty(x.shape + (3,), np.uint8)
    ok = ~np.isnan(x)
    pos = np.clip(x[ok], 0, 1) * (len(RAMP) - 1)
    i = np.minimum(pos.astype(np.int64), len(RAMP) - 2)
    f = (pos - i)[:, None]
    out[ok] = np.round(RAMP[i] * (1 - f) + RAMP[i + 1] * f).astype(np.uint8)
    out[~ok] = NO_LATENCY
    return out


def kind_rgb(kinds):
    return np.array([KIND_RGB.get(k, OTHER_KIND) for k in kinds], np.uint8).reshape(-1, 3)
