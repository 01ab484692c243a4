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
    """(n_types, 3) uint8: each type's colour (`overrides` by name, else the trace's,
    else the palette's for its name)."""
    out = np.empty((len(trace.types), 3), np.uint8)
    for t in range(len(trace.types)):
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


#: Colours closer than this (CIEDE2000) to another key or to the background are
#: shifted in lightness, until they are TARGET_DELTA_E apart (or as far as can be).
MIN_DELTA_E, TARGET_DELTA_E = 10.0, 15.0
#: Lightness steps tried, in order (darker first: most trace colours are bright).
SHIFTS = (-14, 14, -28, 28, -42, 42, -56, 56, -70)


def distinct(rgb, fixed=()):
    """Colours (n, 3) made at least MIN_DELTA_E apart from each other, from the
    background and from the `fixed` indices' colours (kept as given), in order of
    importance (row 0 first): a colour too close is moved in lightness. Returns the
    new colours and, for each moved one, (index, the index it was like or -1 for the
    background, its delta E before)."""
    rgb = np.array(rgb, np.uint8).reshape(-1, 3)
    labs = lab(rgb)
    bg = lab(np.round(np.array(BACKGROUND) * 255))
    fixed = set(int(i) for i in fixed)
    accepted = [bg] + [labs[i] for i in sorted(fixed)]
    owner = [-1] + sorted(fixed)
    moved = []
    for i in range(len(rgb)):
        if i in fixed:
            continue
        ref = np.array(accepted)
        d = ciede2000(labs[i], ref)
        if d.min() < MIN_DELTA_E:
            best, best_d = labs[i], d.min()
            for step in SHIFTS:
                cand = labs[i].copy()
                cand[0] = np.clip(cand[0] + step, 8, 96)
                cand = lab(rgb_of_lab(cand))  # what the screen can show
                cd = ciede2000(cand, ref).min()
                if cd > best_d:
                    best, best_d = cand, cd
                if cd >= TARGET_DELTA_E:
                    break
            moved.append((i, owner[int(np.argmin(d))], float(d.min())))
            labs[i] = best
            rgb[i] = rgb_of_lab(best)
        accepted.append(labs[i])
        owner.append(i)
    return rgb, moved


def scene_palette(trace, overrides=None, roles=None):
    """The colours of everything a picture of `trace` can show, told apart: the
    state values (most time first), message values, event values and drawn variable
    types (most pieces first) go through `distinct`, those named in `overrides`
    (name -> (r, g, b)) kept as given. Returns (value_rgb, type_rgb, notes: one
    line naming the shifted colours, if any)."""
    from .analysis.roles import platform_link_types, variable_roles
    roles = roles or variable_roles(trace)
    vrgb, trgb = value_rgb(trace, overrides), type_rgb(trace, overrides)
    st, ln, ev, var = trace.states, trace.links, trace.events, trace.variables
    nv, nt = len(trace.values), len(trace.types)
    time = np.bincount(st.value, weights=st.end - st.start, minlength=nv)
    msg = ~platform_link_types(trace)[ln.type]
    values = [np.flatnonzero(np.bincount(st.value, minlength=nv))]
    values[0] = values[0][np.argsort(-time[values[0]], kind="stable")]
    for v in (ln.value[msg], ev.value):
        count = np.bincount(v, minlength=nv)
        seen = np.flatnonzero(count)
        values.append(seen[np.argsort(-count[seen], kind="stable")])
    count = np.bincount(var.type, minlength=nt) * roles.drawn
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
    new, moved = distinct([table[tab][r] for tab, r in keys], fixed)
    for (tab, r), rgb in zip(keys, new):
        for row in (sharing.get(r, [r]) if tab == "types" else [r]):
            table[tab][row] = rgb
    notes = []
    for i, like, d in moved:
        what = "the background" if like < 0 else repr(trace.display_name(*keys[like]))
        notes.append(f"{trace.display_name(*keys[i])!r} like {what} ({d:.1f})")
    if notes:
        notes = [f"{len(notes)} colours too close (CIEDE2000 < {MIN_DELTA_E:g}) drawn "
                 "lighter or darker: " + ", ".join(notes)]
    return vrgb, trgb, notes


def read_colors(path):
    """A colour file: `name,#rrggbb` lines (`#` at the start of a line is a comment),
    or a JSON object of name -> "#rrggbb" for a .json file; {name: "#rrggbb"}."""
    import csv
    import json
    from .errors import OptionsError, TraceError
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise TraceError(path, None, f"cannot read: {getattr(e, 'strerror', None) or e}") \
            from None
    from .viewstate import parse_color
    if str(path).lower().endswith(".json"):
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise TraceError(path, e.lineno, f"not JSON: {e.msg}") from None
        if not isinstance(d, dict):
            raise TraceError(path, None, "expected an object of name -> #rrggbb")
        rows = [(None, k, v) for k, v in d.items()]
    else:
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
