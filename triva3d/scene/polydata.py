"""numpy arrays to vtkPolyData in one go: boxes, quads, segments, points.

Cells come in blocks per entity (6 quads per box, 1 per segment...), so a cell id
divided by the block size is the entity's index in the arrays given, which the
scene maps back to Trace rows.
"""
import functools

import numpy as np
# Register VTK's OpenGL and text implementations before any actor or mapper is made
# (VTK's object factories hand out do-nothing base classes otherwise).
import vtkmodules.vtkRenderingFreeType  # noqa: F401
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkImageData, vtkPolyData
from vtkmodules.vtkRenderingCore import (vtkActor, vtkPolyDataMapper, vtkPolyDataMapper2D,
                                         vtkTexture)

from .boxes import BOX_FACES, box_points

#: Most boxes, and most points or segments, in one actor. Software OpenGL (Mesa's
#: llvmpipe) holds every primitive of the frame drawn since it last finished
#: (binned into screen tiles, about 230 bytes each) until it rasterizes them: big
#: geometry is drawn as several actors and the scene drains the pipeline before each
#: (see scene.Scene._set), which bounds that memory by one chunk's worth.
BOX_CHUNK, POINT_CHUNK = 5_000, 30_000


def chunks(n, size):
    """Slices of at most `size` covering range(n), in order (none when n is 0)."""
    return [slice(i, min(n, i + size)) for i in range(0, n, size)]


def _vtk(a, dtype, share=False):
    """A VTK array sharing a C-contiguous `dtype` copy of `a` (VTK keeps the numpy
    array alive); a copy even when `a` already is one, so that no caller's array is
    shared: one copy, not numpy's and then VTK's. With `share`, an `a` that is
    already C-contiguous `dtype` is shared as it is (its owner must not change it
    afterwards): the numpy geometry and VTK's points are then one array."""
    b = np.ascontiguousarray(a, dtype=dtype)
    if share or not (b is a or b.base is not None):
        return numpy_to_vtk(b, deep=0)
    return numpy_to_vtk(b.copy(), deep=0)


def _cells(conn, per_cell):
    """Cells of `per_cell` point ids each: 32-bit ids where they fit, no offsets array
    (VTK's fixed-size cell storage)."""
    conn = np.asarray(conn).ravel()
    cells = vtkCellArray()
    cells.SetData(per_cell, _vtk(conn, np.int32 if conn.max(initial=0) < 2**31 else np.int64))
    return cells


@functools.lru_cache(maxsize=4)
def _regular_cells(kind, n):
    """The cells of n boxes ("box": 6 quads on points 8i..8i+7) or n vertices: the
    same for every chunk of that size, so its chunks share one (VTK does not change
    the cells it draws)."""
    ids = np.int32 if 8 * n < 2**31 else np.int64
    if kind == "box":
        conn = np.arange(n, dtype=ids)[:, None, None] * 8 + BOX_FACES.astype(ids)[None]
        return _cells(conn, 4)
    return _cells(np.arange(n, dtype=ids), 1)


def polydata(points, conn, per_cell, kind="polys", cell_rgb=None, tcoords=None,
             share=False, point_rgb=None):
    """PolyData of `points` (n, 3) with uniform cells of `per_cell` point ids (or
    `conn` a vtkCellArray), coloured per cell or per point; with `share`, the points
    and colours given as float32 and uint8 are VTK's own (see _vtk)."""
    pd = vtkPolyData()
    pts = vtkPoints()
    pts.SetData(_vtk(points, np.float32, share))
    pd.SetPoints(pts)
    {"polys": pd.SetPolys, "lines": pd.SetLines, "verts": pd.SetVerts}[kind](
        conn if isinstance(conn, vtkCellArray) else _cells(conn, per_cell))
    if cell_rgb is not None:
        arr = _vtk(cell_rgb, np.uint8, share)
        arr.SetName("rgb")
        pd.GetCellData().SetScalars(arr)
    if point_rgb is not None:
        arr = _vtk(point_rgb, np.uint8, share)
        arr.SetName("rgb")
        pd.GetPointData().SetScalars(arr)
    if tcoords is not None:
        tc = _vtk(tcoords, np.float32)
        tc.SetName("tcoords")
        pd.GetPointData().SetTCoords(tc)
    return pd


def boxes(x0, x1, y0, y1, z0, z1, rgb=None, tcoords=None):
    """n closed boxes, 6 quads each (cell 6i..6i+5 is box i), on 8 points each
    (points 8i..8i+7). Their colours are their points' (the same 8 times): VTK then
    needs no map from OpenGL's triangles to cells nor a buffer of cell colours,
    about 110 bytes a box less, for the same picture."""
    return polydata(box_points(x0, x1, y0, y1, z0, z1), _regular_cells("box", len(x0)), 4,
                    "polys", None, tcoords, share=True,
                    point_rgb=None if rgb is None else np.repeat(rgb, 8, axis=0))


def quads(x0, x1, y0, y1, z, rgb=None):
    """n horizontal rectangles at heights z (scalar or per rectangle), facing up."""
    n = len(x0)
    p = np.empty((n, 4, 3), np.float32)
    p[:, 0, :2] = np.c_[x0, y0]
    p[:, 1, :2] = np.c_[x1, y0]
    p[:, 2, :2] = np.c_[x1, y1]
    p[:, 3, :2] = np.c_[x0, y1]
    p[:, :, 2] = np.asarray(z, np.float32).reshape(-1, 1) if np.ndim(z) else z
    return polydata(p.reshape(-1, 3), np.arange(4 * n).reshape(-1, 4), 4, "polys", rgb)


def ribbons(p0, p1, width, z, rgb=None):
    """n flat strips on the plane z from p0 to p1 ((n, 2) each), `width` wide."""
    d = np.asarray(p1, np.float64) - p0
    length = np.hypot(d[:, 0], d[:, 1])
    length[length == 0] = 1.0
    nrm = np.c_[-d[:, 1], d[:, 0]] / length[:, None] * (np.asarray(width)[..., None] / 2)
    n = len(d)
    p = np.empty((n, 4, 3), np.float32)
    # nrm points left of p0 -> p1: this order is counter-clockwise seen from above
    p[:, 0, :2], p[:, 1, :2] = p0 + nrm, p0 - nrm
    p[:, 2, :2], p[:, 3, :2] = p1 - nrm, p1 + nrm
    p[:, :, 2] = z
    return polydata(p.reshape(-1, 3), np.arange(4 * n).reshape(-1, 4), 4, "polys", rgb)


def segments(p0, p1, rgb=None):
    """n line segments from p0 to p1 ((n, 3) each)."""
    n = len(p0)
    pts = np.empty((n, 2, 3), np.float32)
    pts[:, 0], pts[:, 1] = p0, p1
    return lines(pts, rgb)


def lines(pairs, rgb=None):
    """n line segments between the points of `pairs` (n, 2, 3)."""
    n = len(pairs)
    return polydata(pairs.reshape(-1, 3), np.arange(2 * n).reshape(-1, 2), 2, "lines", rgb)


def points(p, rgb=None, share=False):
    """n vertices at p (n, 3); `share`: see polydata."""
    return polydata(p, _regular_cells("vertex", len(p)), 1, "verts", rgb, share=share)


def outlines(x0, x1, y0, y1, z, rgb=None):
    """The borders of n horizontal rectangles at heights z: 4 segments each."""
    z = np.broadcast_to(np.asarray(z, np.float64), np.shape(x0))
    c = [np.c_[x0, y0, z], np.c_[x1, y0, z], np.c_[x1, y1, z], np.c_[x0, y1, z]]
    p0 = np.stack(c, axis=1).reshape(-1, 3)
    p1 = np.stack(c[1:] + c[:1], axis=1).reshape(-1, 3)
    return segments(p0, p1, None if rgb is None else np.repeat(rgb, 4, axis=0))


def actor(polydata, lit=False, cull=False, line_width=None, point_size=None, opacity=1.0,
          color=None):
    """An actor for `polydata`: its cell colours if it has them, else `color` (RGB
    0..255); unlit unless `lit` (lines and flat things read better unlit)."""
    a = vtkActor()
    a.SetMapper(_mapper(vtkPolyDataMapper(), polydata))
    p = a.GetProperty()
    if not lit:
        p.LightingOff()
    if cull:
        p.BackfaceCullingOn()
    if line_width:
        p.SetLineWidth(line_width)
    if point_size:
        p.SetPointSize(point_size)
    if color is not None:
        p.SetColor(*(c / 255 for c in color))
    p.SetOpacity(opacity)
    return a


def texture(img, smooth=False):
    """A vtkTexture of an (h, w, 3) or (h, w, 4) uint8 image (row 0 at the bottom),
    sampled nearest, or linearly if `smooth`; a C-contiguous image is VTK's own
    (shared: its owner must not change it afterwards)."""
    h, w, c = img.shape
    data = vtkImageData()
    data.SetDimensions(w, h, 1)
    data.GetPointData().SetScalars(numpy_to_vtk(np.ascontiguousarray(img).reshape(-1, c),
                                                deep=0))
    tex = vtkTexture()
    tex.SetInputData(data)
    tex.SetInterpolate(smooth)
    tex.RepeatOff()
    tex.EdgeClampOn()
    return tex


def _mapper(m, polydata):
    """`m` mapping `polydata` with its cell (or else point) colours if it has them."""
    m.SetInputData(polydata)
    if polydata.GetCellData().GetScalars() is not None:
        m.SetScalarModeToUseCellData()
        m.SetColorModeToDirectScalars()
    elif polydata.GetPointData().GetScalars() is not None:
        m.SetScalarModeToUsePointData()
        m.SetColorModeToDirectScalars()
    else:
        m.ScalarVisibilityOff()
    return m


def mapper2d(polydata):
    """A 2D mapper (display pixels) for `polydata`."""
    return _mapper(vtkPolyDataMapper2D(), polydata)
