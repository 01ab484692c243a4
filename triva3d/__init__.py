"""triva3d: parallel program traces in 3D, on top of the machine they ran on.

The public API. Importing triva3d loads neither VTK nor Qt nor numba: each name
is imported from its module on first use.
"""
import importlib

from .errors import OptionsError, TraceError, Triva3dError

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_WHERE = {
    "load": ".load", "Trace": ".trace", "Kind": ".trace",
    "ViewState": ".viewstate", "Camera": ".viewstate", "interpolate": ".viewstate",
    "View": ".view",
    "make_layout": ".bases.layout", "Layout": ".bases.layout",
    "Scene": ".scene.scene", "Geometry": ".scene.geometry",
    "Slicer": ".analysis.timeslice", "aggregate": ".analysis.aggregate",
    "steps": ".analysis.logical",
    "TimeSliceTreemap": ".panels.treemap",
}

__all__ = sorted(_WHERE) + ["OptionsError", "TraceError", "Triva3dError"]


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'triva3d' has no attribute {name!r}")


def __dir__():
    return __all__
