"""Axis-aligned boxes as numpy corners and faces (no VTK)."""
import numpy as np

#: Corner k of a box is (x[k & 1], y[k >> 1 & 1], z[k >> 2 & 1]); faces wound
#: counter-clockwise seen from outside (so back faces can be culled).
BOX_FACES = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4],
                      [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]], np.int64)


def box_points(x0, x1, y0, y1, z0, z1):
    """(8n, 3) corners of n axis-aligned boxes."""
    n = len(x0)
    p = np.empty((n, 8, 3), np.float32)
    for k in range(8):
        p[:, k, 0] = x1 if k & 1 else x0
        p[:, k, 1] = y1 if k >> 1 & 1 else y0
        p[:, k, 2] = z1 if k >> 2 & 1 else z0
    return p.reshape(-1, 3)
