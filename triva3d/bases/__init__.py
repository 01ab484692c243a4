"""Bases on the ground plane (topology graphs, the communication graph, treemaps)
and the matcher that puts every container on one of them."""
