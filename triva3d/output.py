"""Writing what triva3d makes: images and text, with one-line errors."""
import io
import os
import tempfile
import time
from contextlib import contextmanager

from .errors import OptionsError, TraceError

#: Image formats by extension (imageio's names).
IMAGE_FORMATS = {".png": ".png", ".jpg": ".jpg", ".jpeg": ".jpg"}


def image_format(path):
    """The image format of `path` from its extension; OptionsError for others."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in IMAGE_FORMATS:
        raise OptionsError(f"{path}: an image must end in .png, .jpg or .jpeg")
    return IMAGE_FORMATS[ext]


def not_an_input(outputs, inputs):
    """OptionsError if writing one of `outputs` would overwrite one of `inputs`
    (paths; None skipped), before any work: nothing a user gave is lost."""
    for out in filter(None, outputs):
        for path in filter(None, inputs):
            if os.path.exists(out) and os.path.exists(path) and os.path.samefile(out, path):
                raise OptionsError(f"{out}: this is also an input ({path}); write the "
                                   "output elsewhere")


def write_image(image, path):
    """Write an (h, w, 3) uint8 image as PNG or JPEG (by extension); its size in bytes."""
    import imageio.v3 as iio
    fmt = image_format(path)
    with writing(path, text=False) as f:
        iio.imwrite(f, image, extension=fmt)
    return os.path.getsize(path)


def write_text(path, text):
    with writing(path) as f:
        f.write(text)


@contextmanager
def writing(path, text=True, newline=None):
    """A file to write an output through (`atomic`), as UTF-8 text unless not
    `text`; failing to write it is a TraceError naming the path."""
    try:
        with atomic(path) as raw:
            if not text:
                yield raw
                return
            f = io.TextIOWrapper(raw, encoding="utf-8", newline=newline)
            yield f
            f.flush()
            f.detach()  # the raw file is atomic's to close
    except OSError as e:
        raise TraceError(str(path), None, f"cannot write: {e.strerror or e}") from None


@contextmanager
def atomic(path):
    """A binary file to write `path` through: a temporary file beside it, renamed
    over `path` once complete, so that no one reads half a file and a failure leaves
    nothing. Leftovers of killed processes (`.t3d-PID-*.tmp`) are removed first."""
    folder = os.path.dirname(os.path.abspath(path))
    _sweep(folder)
    fd, tmp = tempfile.mkstemp(prefix=f".t3d-{os.getpid()}-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(tmp, os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _sweep(folder, age=60.0):
    """Remove the temporary files of processes that died writing (kill -9), once a
    minute old."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith(".t3d-") and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[5:].split("-", 1)[0]
        path = os.path.join(folder, name)
        try:
            if pid.isdigit() and not _alive(int(pid)) and \
                    time.time() - os.stat(path).st_mtime > age:
                os.unlink(path)
        except OSError:
            pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def write_lines(path, lines):
    """Write text lines to `path` (see `writing`)."""
    with writing(path) as f:
        f.write("\n".join(lines))
        f.write("\n")
