"""The 3D scene: numpy geometry of a Trace over a Layout (geometry.py, no VTK) and
the VTK actors drawn from it (scene.py), with picking."""
