"""triva3d: parallel program traces in 3D, on top of the machine they ran on."""
from .errors import TraceError
from .trace import Kind, Trace
from .load import load

__all__ = ["Kind", "Trace", "TraceError", "load"]
__version__ = "0.1.0"
