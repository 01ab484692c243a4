"""Scene builders: a Trace over a Layout to VTK actors, picking, views."""
import importlib

# Register VTK's OpenGL and text implementations before any actor or mapper is made
# (VTK's object factories hand out do-nothing base classes otherwise).
for _module in ("vtkmodules.vtkRenderingOpenGL2", "vtkmodules.vtkRenderingFreeType"):
    importlib.import_module(_module)
