"""2D panels beside the 3D view: the Time-Slice treemap, call paths, events, task
trees and Gantts, interval histograms. Their settings' vocabulary is here, numpy-free."""
#: A treemap picture's default size in pixels (SVG: in points).
SIZE = (1000, 1000)
