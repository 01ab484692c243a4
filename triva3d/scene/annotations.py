"""Round ticks of the time axis and their labels."""
import math

import numpy as np


def ticks(t0, t1, target=6):
    """Round tick times (1, 2 or 5 x 10^k apart) within [t0, t1], and the decimals
    their labels need."""
    if not t1 > t0:
        return np.array([t0]), 6
    raw = (t1 - t0) / target
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(t0 / step - 1e-9) * step
    t = first + step * np.arange(int(math.floor((t1 - first) / step + 1e-9)) + 1)
    return t, max(0, -math.floor(math.log10(step) + 1e-9))


def label(t, decimals):
    return f"{t:.{decimals}f}" if decimals <= 9 else f"{t:.4g}"
