"""Writing what triva3d makes: images and text, with one-line errors."""
import os

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
    try:
        iio.imwrite(path, image, extension=fmt)
    except OSError as e:
        raise TraceError(path, None, f"cannot write the image: {e.strerror or e}") from None
    return os.path.getsize(path)


def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise TraceError(path, None, f"cannot write: {e.strerror or e}") from None


def write_lines(path, lines):
    """Write text lines to `path` atomically: a temporary file beside it, renamed
    over `path` once complete (removed if writing fails)."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".t3d-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise TraceError(path, None, f"cannot write: {e.strerror or e}") from None
    try:
        with open(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
            f.write("\n")
        os.chmod(tmp, os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            raise TraceError(path, None, f"cannot write: {e.strerror or e}") from None
        raise
