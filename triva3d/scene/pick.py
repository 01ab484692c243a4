"""Screen points to scene geometry, in numpy: the camera's projection matrix gives
the ray under a pixel; boxes are hit by the slab test, lines and points within a
few pixels on screen. The nearest hit wins.
"""
import numpy as np

#: How close (pixels) a line or point must pass to the pick point.
TOLERANCE = 4.0


class Projection:
    """World <-> display for one camera and window size (display origin bottom left,
    as VTK's)."""

    def __init__(self, matrix, width, height):
        self.m = np.asarray(matrix, np.float64).reshape(4, 4)
        self.inv = np.linalg.inv(self.m)
        self.size = np.array([width, height], np.float64)

    @classmethod
    def of(cls, renderer):
        w, h = renderer.GetSize()
        cam = renderer.GetActiveCamera()
        m = cam.GetCompositeProjectionTransformMatrix(w / max(h, 1), -1, 1)
        return cls([[m.GetElement(i, j) for j in range(4)] for i in range(4)], w, h)

    def to_display(self, p):
        """(n, 3) world points to (n, 3): display x, y and depth in [-1, 1]."""
        p = np.atleast_2d(np.asarray(p, np.float64))
        q = np.c_[p, np.ones(len(p))] @ self.m.T
        q = q[:, :3] / q[:, 3:4]
        return np.c_[(q[:, :2] + 1) / 2 * self.size, q[:, 2]]

    def ray(self, x, y):
        """Origin and unit direction of the ray under display point (x, y)."""
        ndc = np.array([x, y]) / self.size * 2 - 1
        ends = np.array([[ndc[0], ndc[1], -1.0, 1.0], [ndc[0], ndc[1], 1.0, 1.0]]) @ self.inv.T
        ends = ends[:, :3] / ends[:, 3:4]
        d = ends[1] - ends[0]
        return ends[0], d / np.linalg.norm(d)


def ray_boxes(origin, direction, lo, hi):
    """Distance along the ray to each box (n, 3 corners lo, hi); inf where missed."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / direction
        a = (lo - origin) * inv
        b = (hi - origin) * inv
    # a ray parallel to a slab gives -inf..inf inside it and an empty range outside
    near = np.nanmax(np.minimum(a, b), axis=1)
    far = np.nanmin(np.maximum(a, b), axis=1)
    hit = (far >= near) & (far >= 0)
    return np.where(hit, np.maximum(near, 0), np.inf)


def near_segments(proj, x, y, p0, p1, tol=TOLERANCE):
    """Depth (display z) of the segments passing within `tol` pixels of (x, y), inf
    for the others."""
    if not len(p0):
        return np.zeros(0)
    a, b = proj.to_display(p0), proj.to_display(p1)
    d = b[:, :2] - a[:, :2]
    len2 = (d ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(((x - a[:, 0]) * d[:, 0] + (y - a[:, 1]) * d[:, 1]) / len2, 0, 1)
    u[len2 == 0] = 0
    px, py = a[:, 0] + u * d[:, 0], a[:, 1] + u * d[:, 1]
    depth = a[:, 2] + u * (b[:, 2] - a[:, 2])
    ok = (np.hypot(px - x, py - y) <= tol) & (np.abs(depth) <= 1)
    return np.where(ok, depth, np.inf)


def near_points(proj, x, y, p, tol=TOLERANCE):
    """Depth of the points within `tol` pixels of (x, y), inf for the others."""
    if not len(p):
        return np.zeros(0)
    q = proj.to_display(p)
    ok = (np.hypot(q[:, 0] - x, q[:, 1] - y) <= tol) & (np.abs(q[:, 2]) <= 1)
    return np.where(ok, q[:, 2], np.inf)


def depth_at(proj, origin, direction, t):
    """Display depth of the point at distance t along the ray."""
    return float(proj.to_display(origin + t * direction)[0, 2])
