"""Frames to a movie file: MP4 (H.264 through the ffmpeg that imageio-ffmpeg
ships), GIF (Pillow, which imageio installs: each frame with its own 256-colour
palette, no dithering) or a folder of PNG frames."""
import os

import numpy as np

from ..errors import OptionsError, TraceError, Triva3dError


def movie_format(path):
    """mp4, gif or frames (a path ending in / or naming a folder)."""
    path = str(path)
    if path.endswith(os.sep) or os.path.isdir(path):
        return "frames"
    ext = os.path.splitext(path)[1].lower()
    if ext in (".mp4", ".gif"):
        return ext[1:]
    raise OptionsError(f"{path}: a movie must end in .mp4 or .gif, or be a folder "
                       "(ending in /) for PNG frames")


def check_output(path, size):
    """Fail before any work on what the writer would refuse."""
    fmt = movie_format(path)
    if fmt == "mp4" and (size[0] % 2 or size[1] % 2):
        raise OptionsError(f"{path}: MP4 (H.264, 4:2:0) needs an even width and height, "
                           f"not {size[0]}x{size[1]}")
    from ..output import check_outputs
    check_outputs([path], folders=[path] if fmt == "frames" else [])
    return fmt


class MovieWriter:
    """`append(frame)` (h, w, 3) uint8 frames, then `close()`."""

    def __init__(self, path, size, fps):
        self.path, self.fps = str(path), fps
        self.format = check_output(path, size)
        self.count = 0
        self._gif = []
        self._ffmpeg = None
        try:
            if self.format == "frames":
                os.makedirs(self.path, exist_ok=True)
            elif self.format == "mp4":
                import imageio_ffmpeg
                self._ffmpeg = imageio_ffmpeg.write_frames(
                    self.path, tuple(size), fps=fps, codec="libx264", quality=8,
                    macro_block_size=1, ffmpeg_log_level="error")
                self._ffmpeg.send(None)  # start ffmpeg
        except (OSError, RuntimeError) as e:  # RuntimeError: no ffmpeg
            raise TraceError(self.path, None, f"cannot write the movie: {_line(e)}") from None

    def append(self, frame):
        frame = np.ascontiguousarray(frame, np.uint8)
        try:
            if self.format == "frames":
                from ..output import write_image
                write_image(frame, os.path.join(self.path, f"frame_{self.count:05d}.png"))
            elif self.format == "mp4":
                self._ffmpeg.send(frame)
            else:
                from PIL import Image
                self._gif.append(Image.fromarray(frame).quantize(
                    256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
        except (OSError, RuntimeError) as e:
            self.abort()
            raise TraceError(self.path, None, f"cannot write the movie: {_line(e)}") from None
        self.count += 1

    def close(self):
        """Finish the file; its size in bytes (of every frame for a folder)."""
        if self._ffmpeg is not None:
            ffmpeg, self._ffmpeg = self._ffmpeg, None
            ffmpeg.close()
        if self._gif:
            frames, self._gif = self._gif, []
            try:
                frames[0].save(self.path, save_all=True, append_images=frames[1:],
                               duration=round(1000 / self.fps), loop=0)
            except OSError as e:
                raise TraceError(self.path, None, f"cannot write the movie: {_line(e)}") \
                    from None
        if self.format == "frames":
            return sum(e.stat().st_size for e in os.scandir(self.path)
                       if e.name.startswith("frame_"))
        return os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def abort(self):
        """Stop, and remove the partial movie file (frames written stay)."""
        self._gif = []
        try:
            self.close()
        except (Triva3dError, OSError, RuntimeError):
            pass  # what failed was said already
        if self.format != "frames" and os.path.isfile(self.path):
            os.remove(self.path)


def _line(e):
    """The first line of an error's text (ffmpeg's come with its command line)."""
    return (getattr(e, "strerror", None) or str(e) or type(e).__name__).splitlines()[0]
