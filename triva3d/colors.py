"""Colours of the scene: the trace's own where it gives them, else a stable palette.

Every colour here is RGB uint8. The palette colour of a name depends on the name
only (a CRC of its text), so a value keeps its colour across traces and runs.
"""
import re
import zlib

import numpy as np

from .theme import BACKGROUND_RGB
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


#: MPI calls by family (as Sigovan et al. colour them): the calls of a family take
#: hues within FAMILY_SPREAD degrees around its own, so that related calls look
#: related; `distinct` then tells any two apart.
MPI_FAMILIES = (("wait", re.compile(r"wait"), 35), ("test", re.compile(r"test"), 330),
                ("send", re.compile(r"[bisr]{0,2}send"), 220),
                ("recv", re.compile(r"i?m?(recv|probe)"), 280),
                ("collective", re.compile(r"i?(barrier|bcast|(all)?reduce|(all)?gather|"
                                          r"scatter|alltoall|ex?scan|neighbor)"), 120))
MPI_CALL, FAMILY_SPREAD = re.compile(r"p?mpi_(\w+)", re.I), 30


def mpi_family(name):
    """The family (see MPI_FAMILIES) and its hue (degrees) of an MPI call's name
    (MPI_Waitall, PMPI_Isend...), or None."""
    call = MPI_CALL.fullmatch(name)
    for family, pattern, hue in MPI_FAMILIES if call else ():
        if pattern.match(call.group(1).lower()):
            return family, hue
    return None


def palette(name):
    """Stable colour of a name: hue from its CRC-32 (within its family's for an MPI
    call), two saturations and brightnesses."""
    h = zlib.crc32(name.encode())
    hue = (h & 0xFFFF) / 65536.0
    family = mpi_family(name)
    if family:
        hue = (family[1] + (hue - 0.5) * FAMILY_SPREAD) / 360 % 1.0
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
    trace's, else its type's, else LINK for link values, else the palette's for the
    value name)."""
    from .trace import Kind
    out = np.empty((len(trace.values), 3), np.uint8)
    for v in range(len(trace.values)):
        ty = trace.values.type[v]
        c = trace.value_colors[v]
        if np.isnan(c[0]):
            c = trace.type_colors[ty]
        if not np.isnan(c[0]):
            out[v] = _rgb(c)
        elif trace.types.kind[ty] == Kind.LINK:
            out[v] = LINK
        else:
            out[v] = palette(trace.names.display(trace.values.name[v]))
    return _override(trace, "values", out, overrides)


def type_rgb(trace, overrides=None):
    """(n_types, 3) uint8: each entity type's colour (`overrides` by name, else the
    trace's, else the palette's for its name); container types, drawn in no colour of
    their own, are grey (a hierarchy of 1e5 container types spent seconds here)."""
    from .trace import Kind
    out = np.full((len(trace.types), 3), 128, np.uint8)
    for t in np.flatnonzero(trace.types.kind != Kind.CONTAINER).tolist():
        c = trace.type_colors[t]
        out[t] = _rgb(c) if not np.isnan(c[0]) else palette(trace.names.display(
            trace.types.name[t]))
    return _override(trace, "types", out, overrides)


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


#: A diverging map for signed numbers: blue below zero, light grey at zero, red above.
DIVERGING = np.array([(50, 100, 215), (205, 205, 205), (215, 55, 45)], np.float64)


def diverging(x):
    """Colours of numbers in [-1, 1] along DIVERGING (NaN: EMPTY)."""
    x = np.asarray(x, np.float64)
    out = np.empty(x.shape + (3,), np.uint8)
    ok = ~np.isnan(x)
    t = np.clip(x[ok], -1, 1)
    ends = np.where((t < 0)[:, None], DIVERGING[0], DIVERGING[2])
    k = np.abs(t)[:, None]
    out[ok] = np.round(DIVERGING[1] * (1 - k) + ends * k).astype(np.uint8)
    out[~ok] = EMPTY
    return out


def metric_rgb(metric, x):
    """Colours of numbers `x` of `metric` (an analysis.colorby Metric): along ramp
    from its low to its high (log scale where it says), or diverging for a signed
    one; EMPTY for NaN."""
    (lo, hi), x = metric.span, np.asarray(x, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric.signed:  # blue below zero, red above, scaled to the largest
            return diverging(x / hi if hi > 0 else np.where(np.isnan(x), np.nan, 0.0))
        if metric.log:
            x = (np.log(x) - np.log(lo)) / max(np.log(hi) - np.log(lo), 1e-300)
        else:
            x = (x - lo) / (hi - lo) if hi > lo else np.where(np.isnan(x), np.nan, 0.0)
    out = ramp(x)
    out[np.isnan(x)] = EMPTY
    return out


def metric_keys(metric, unit, stops=5):
    """The legend's keys of `metric` (text, rgb): `stops` from low to high (one where
    all are equal; times in `unit`), then grey for what has none."""
    missing = [(metric.missing, np.array(EMPTY, np.uint8))]
    if not np.isfinite(metric.values).any():
        return missing
    (lo, hi) = metric.span
    f = np.linspace(0, 1, stops if hi > lo else 1)
    at = np.exp(np.log(lo) + f * (np.log(hi) - np.log(lo))) if metric.log else lo + f * (hi - lo)
    unit = f" {metric.unit or unit}" if metric.is_time else ""
    scale = 100 if "state%:" in metric.name else 1  # (a share of the slice, in percent)
    unit = " %" if scale == 100 else unit
    form = "+.3g" if metric.signed else ".3g"
    return [(f"{metric.name} {t * scale:{form}}{unit}", c)
            for t, c in zip(at, metric_rgb(metric, at))] + missing


def kind_rgb(kinds):
    return np.array([KIND_RGB.get(k, OTHER_KIND) for k in kinds], np.uint8).reshape(-1, 3)


# -- telling colours apart ---------------------------------------------------------
def luminance(rgb):
    """WCAG relative luminance (0 black .. 1 white) of uint8 sRGB colours (..., 3)."""
    c = np.asarray(rgb, np.float64) / 255
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def contrast(rgb1, rgb2):
    """WCAG contrast ratio of two colours (1 .. 21)."""
    a, b = luminance(rgb1), luminance(rgb2)
    return (np.maximum(a, b) + 0.05) / (np.minimum(a, b) + 0.05)


def lab(rgb):
    """CIE L*a*b* (D65) of sRGB colours given as uint8 (..., 3)."""
    c = np.asarray(rgb, np.float64) / 255
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = c @ np.array([[0.4124564, 0.2126729, 0.0193339],
                        [0.3575761, 0.7151522, 0.1191920],
                        [0.1804375, 0.0721750, 0.9503041]])
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def rgb_of_lab(lab_):
    """sRGB uint8 of L*a*b* colours (clipped to the gamut)."""
    L, a, b = np.moveaxis(np.asarray(lab_, np.float64), -1, 0)
    fy = (L + 16) / 116
    f = np.stack([fy + a / 500, fy, fy - b / 200], axis=-1)
    xyz = np.where(f > 6 / 29, f ** 3, 3 * (6 / 29) ** 2 * (f - 4 / 29))
    xyz = xyz * np.array([0.95047, 1.0, 1.08883])
    c = xyz @ np.array([[3.2404542, -0.9692660, 0.0556434],
                        [-1.5371385, 1.8760108, -0.2040259],
                        [-0.4985314, 0.0415560, 1.0572252]])
    c = np.clip(c, 0, 1)
    c = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return np.round(c * 255).astype(np.uint8)


def ciede2000(lab1, lab2):
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal 2005) of L*a*b* arrays."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, np.float64), -1, 0)
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean ** 7 / (c_mean ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0, dh)
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    Lm, Cm = (L1 + L2) / 2, (c1p + c2p) / 2
    hs = h1p + h2p
    hm = np.where(np.abs(h1p - h2p) > 180, np.where(hs < 360, hs + 360, hs - 360), hs) / 2
    hm = np.where(c1p * c2p == 0, hs, hm)
    t = (1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm))
         + 0.32 * np.cos(np.radians(3 * hm + 6)) - 0.20 * np.cos(np.radians(4 * hm - 63)))
    sl = 1 + 0.015 * (Lm - 50) ** 2 / np.sqrt(20 + (Lm - 50) ** 2)
    sc, sh = 1 + 0.045 * Cm, 1 + 0.015 * Cm * t
    rt = (-2 * np.sqrt(Cm ** 7 / (Cm ** 7 + 25.0 ** 7))
          * np.sin(np.radians(60 * np.exp(-(((hm - 275) / 25) ** 2)))))
    return np.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2
                   + rt * (dCp / sc) * (dHp / sh))


#: A key closer than MIN_DELTA_E (CIEDE2000) to a key before it or to the
#: background, or with a WCAG contrast below MIN_CONTRAST against the background
#: (a dark colour vanishes on it, and on the legend's darker rows), is moved to the
#: nearest colour TARGET_DELTA_E from all of them with that contrast (else the
#: farthest found).
MIN_DELTA_E, TARGET_DELTA_E, MIN_CONTRAST = 15.0, 20.0, 1.8
#: The moves tried, the nearest first: steps of lightness and turns of hue (degrees),
#: a turn of 20 as far as a step of 36: a key keeps its hue (its family, the trace's
#: meaning) while it can. A grey (chroma below GREY) has no hue to turn.
TURNS, STEPS, GREY = (20, 40, 70, 110, 150, 180), (12, 24, 36, 48), 8.0
#: Only the first keys (by importance) are told apart: beyond, no picture can.
MAX_DISTINCT = 64


def _moves():
    """(turn, step) of every move, the nearest first."""
    turns = (0,) + tuple(t * s for t in TURNS[:-1] for s in (1, -1)) + TURNS[-1:]
    steps = (0,) + tuple(d * s for d in STEPS for s in (1, -1))
    moves = [(t, d) for t in turns for d in steps if (t, d) != (0, 0)]
    return np.array(sorted(moves, key=lambda m: abs(m[0]) / 10 + abs(m[1]) / 18), np.float64)


MOVES = _moves()


def _background_rgb():
    return np.array(BACKGROUND_RGB, np.float64)


def _candidates(lab1, max_turn=180):
    """The colours of the moves of L*a*b* colour `lab1` turning its hue by at most
    `max_turn` degrees, as the screen shows them."""
    L, a, b = lab1
    c, h = np.hypot(a, b), np.degrees(np.arctan2(b, a))
    moves = MOVES[np.abs(MOVES[:, 0]) <= (max_turn if c >= GREY else 0)]
    h = np.radians(h + moves[:, 0])
    cand = np.c_[np.clip(L + moves[:, 1], 8, 96), c * np.cos(h), c * np.sin(h)]
    rgb = rgb_of_lab(cand)
    return rgb, lab(rgb)


def distinct(rgb, fixed=(), family=(), grounded=()):
    """Colours (n, 3) told apart, in order of importance (row 0 first; the first
    MAX_DISTINCT): each at least MIN_DELTA_E from the background (the `grounded`
    ones from the hosts' squares too) and the colours before it and the `fixed`
    indices' (kept as given), and contrasted enough
    against the background (MIN_CONTRAST), else moved (see MOVES; those of the
    `family` indices turn FAMILY_SPREAD at most: they keep their hue family). Returns the new
    colours and, for each moved one, (index, the index it was like, -1 for the
    background, -2 for the hosts' squares, its delta E before, its contrast before)."""
    rgb = np.array(rgb, np.uint8).reshape(-1, 3)
    labs = lab(rgb)
    bg_rgb = _background_rgb()
    fixed, family = set(int(i) for i in fixed), set(int(i) for i in family)
    grounded = set(int(i) for i in grounded)
    accepted = [lab(bg_rgb)] + [labs[i] for i in sorted(fixed)]
    owner = [-1] + sorted(fixed)
    host = lab(np.array(KIND_RGB["host"]))
    moved = []
    for i in range(min(len(rgb), MAX_DISTINCT)):
        if i in fixed:
            continue
        # a key standing on a node (a state's lid, a profile) is seen on the hosts'
        # squares too: a light grey one vanished there, seen from above
        ref = np.array(accepted + [host] if i in grounded else accepted)
        d = ciede2000(labs[i], ref)
        con = float(contrast(rgb[i], bg_rgb))
        if d.min() < MIN_DELTA_E or con < MIN_CONTRAST:
            cand_rgb, cand = _candidates(labs[i], FAMILY_SPREAD if i in family else 180)
            far = ciede2000(cand[:, None], ref[None]).min(axis=1)
            seen = contrast(cand_rgb, bg_rgb) >= MIN_CONTRAST
            ok = np.flatnonzero(seen & (far >= TARGET_DELTA_E))
            k = ok[0] if len(ok) else int(np.argmax(np.where(seen, far, far - 1000)))
            moved.append((i, (owner + [-2])[int(np.argmin(d))], float(d.min()), con))
            labs[i], rgb[i] = cand[k], cand_rgb[k]
        accepted.append(labs[i])
        owner.append(i)
    return rgb, moved


#: Colours named in the note on shifted colours.
NOTE_EXAMPLES = 3


def usage(trace):
    """(seconds in states per value; its states, messages and events per value, (n,
    3); states, links, variable pieces or events per type) over the whole run
    (Trace.whole where the trace holds part of it): what orders the palette's
    colours."""
    if trace.whole is not None:
        w = trace.whole
        counts = w.value_counts.copy()
        counts[w.platform_types[trace.values.type], 1] = 0  # (messages only)
        return w.value_seconds, counts, w.type_counts
    from .analysis.roles import platform_link_types
    st, ln, ev = trace.states, trace.links, trace.events
    nv = len(trace.values)
    msg = ~platform_link_types(trace)[ln.type]
    counts = np.stack([np.bincount(v, minlength=nv)
                       for v in (st.value, ln.value[msg], ev.value)], axis=1)
    nt = len(trace.types)
    return (np.bincount(st.value, weights=st.end - st.start, minlength=nv), counts,
            sum(np.bincount(getattr(trace, t).type, minlength=nt)
                for t in ("states", "links", "variables", "events")))


def scene_palette(trace, overrides=None, roles=None):
    """The colours of everything a picture of `trace` can show, told apart: the
    state values (most time first), message values, event values and drawn variable
    types (most pieces first) go through `distinct`, those named in `overrides`
    (name -> (r, g, b)) kept as given. Returns (value_rgb, type_rgb, notes: one
    line naming the shifted colours, if any)."""
    from .analysis.roles import variable_roles
    from .trace import Kind
    roles = roles or variable_roles(trace)
    vrgb, trgb = value_rgb(trace, overrides), type_rgb(trace, overrides)
    time, counts, per_type = usage(trace)
    values = [np.flatnonzero(counts[:, 0])]
    values[0] = values[0][np.argsort(-time[values[0]], kind="stable")]
    for count in (counts[:, 1], counts[:, 2]):
        seen = np.flatnonzero(count)
        values.append(seen[np.argsort(-count[seen], kind="stable")])
    count = per_type * roles.drawn  # (variable types: their pieces)
    types = np.flatnonzero(count)
    types = types[np.argsort(-count[types], kind="stable")]
    keys = [("values", int(v)) for v in dict.fromkeys(np.concatenate(values).tolist())]
    # one category's usage of power (p<cat>) and of bandwidth (b<cat>) share a key
    category = {}
    for t in types:
        cat = trace.display_name("types", t)[1:] if roles.relative_to[t] >= 0 else None
        if cat and trace.display_name("types", t)[0] in "pb" and cat in category:
            category[cat].append(int(t))
            continue
        category[cat if cat else f"#{t}"] = [int(t)]
        keys.append(("types", int(t)))
    sharing = {t[0]: t for t in category.values()}
    if not keys:
        return vrgb, trgb, []
    table = {"values": vrgb, "types": trgb}
    given = set(overrides or ())
    fixed = [i for i, (tab, r) in enumerate(keys) if trace.display_name(tab, r) in given]
    family = [i for i, (tab, r) in enumerate(keys)
              if tab == "values" and mpi_family(trace.display_name(tab, r))]
    on_nodes = [i for i, (tab, r) in enumerate(keys)  # lids of states, profiles
                if tab == "types" or trace.types.kind[trace.values.type[r]] == Kind.STATE]
    new, moved = distinct([table[tab][r] for tab, r in keys], fixed, family, on_nodes)
    for (tab, r), rgb in zip(keys, new):
        for row in (sharing.get(r, [r]) if tab == "types" else [r]):
            table[tab][row] = rgb
    notes = []
    for i, like, d, con in moved:
        what = {-1: "the background", -2: "the hosts' squares"}.get(like) or repr(
            trace.display_name(*keys[like]))
        notes.append(f"{trace.display_name(*keys[i])!r} " + (
            f"like {what} ({d:.1f})" if d < MIN_DELTA_E else f"dark ({con:.2f})"))
    if notes:  # one short line: a few examples, however many moved
        notes = [f"{len(notes)} colours drawn in another shade to be told apart (CIEDE2000 "
                 f"< {MIN_DELTA_E:g} or contrast < {MIN_CONTRAST:g}), e.g. "
                 + ", ".join(notes[:NOTE_EXAMPLES])]
    return vrgb, trgb, notes


def read_colors(path):
    """A colour file: `name,#rrggbb` lines (`#` at the start of a line is a comment),
    or a JSON object of name -> "#rrggbb" for a .json file; {name: "#rrggbb"}."""
    import csv
    from .errors import OptionsError, TraceError, read_json, read_text
    from .theme import parse_color
    if str(path).lower().endswith(".json"):
        d = read_json(path, "the colours")
        if not isinstance(d, dict):
            raise TraceError(path, None, "expected an object of name -> #rrggbb")
        rows = [(None, k, v) for k, v in d.items()]
    else:
        text = read_text(path, "the colours")
        rows = [(i, *row) for i, row in enumerate(csv.reader(text.splitlines()), 1)
                if row and not row[0].lstrip().startswith("#")]
    out = {}
    for line, *row in rows:
        if len(row) != 2:
            raise TraceError(path, line, f"expected 'name,#rrggbb', got {len(row)} fields")
        name, colour = str(row[0]).strip(), str(row[1]).strip()
        try:
            parse_color(colour)
        except OptionsError as e:
            raise TraceError(path, line, f"{name!r}: {e}") from None
        out[name] = colour.lower()
    return out
