"""Movies: camera paths (keyframes are ViewStates), frames through one View,
encoded to MP4, GIF or PNG frames. The choices are here, numpy-free, for the
options that name them."""
#: Frames per second, unless told.
FPS = 25.0
#: What a movie shows: the 3D scene, or Sigovan's event particles (panels.events).
ENCODINGS = ("scene", "events")
#: Standard camera paths (movie.paths).
PATHS = ("orbit", "rise", "sweep")
#: Seconds of a path, unless told (or its keyframes file's).
DURATION = 10.0
#: The version of a keyframes file's format.
FORMAT = 1
#: Sweep: the sliding window's width (of the trace) when no window is given.
SWEEP_WIDTH = 0.1
