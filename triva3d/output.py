"""Writing what triva3d makes: images and text, with one-line errors."""
import io
import os
import secrets
import stat
import struct
import time
import zlib
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


def check_outputs(outputs, inputs=(), folders=()):
    """Refuse, before any work, writing one of `outputs` (paths; None skipped):
    into a folder that does not exist or cannot be written, or as a file where a
    folder is, but for those of `folders` (TraceError), or over one of `inputs`
    (OptionsError): nothing a user gave is lost, no work is wasted."""
    for out in (o for o in outputs if o is not None):
        if not out:
            raise OptionsError("an output file name is empty")
        if os.path.isdir(out) and out not in folders:
            raise TraceError(out, None, "cannot write: this is a folder; name a file")
        folder = os.path.dirname(os.path.abspath(out))  # (a FRAMES_DIR/'s parent)
        if not os.path.isdir(folder):
            why = "is not a folder" if os.path.exists(folder) else "does not exist"
            raise TraceError(out, None, f"cannot write: the folder {folder} {why}")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise TraceError(out, None, f"cannot write: no permission to write in {folder}")
        if not _special(out) and not out.endswith(os.sep):
            try:  # (a name too long, a folder files cannot be made in: /proc, read-only)
                os.close(os.open(os.path.join(folder, f".t3d-{os.getpid()}-probe.tmp"),
                                 os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                os.unlink(os.path.join(folder, f".t3d-{os.getpid()}-probe.tmp"))
                if len(os.path.basename(out).encode()) > os.pathconf(folder, "PC_NAME_MAX"):
                    raise OSError(0, "its name is too long")
            except OSError as e:
                raise TraceError(out, None, f"cannot write: {e.strerror or e}") from None
        for path in filter(None, inputs):
            if os.path.exists(out) and os.path.exists(path) and os.path.samefile(out, path):
                raise OptionsError(f"{out}: this is also an input ({path}); write the "
                                   "output elsewhere")


def write_image(image, path):
    """Write an (h, w, 3) uint8 image as PNG or JPEG (by extension); its size in bytes.
    PNG is written row by row (write_png): no copy of the image, any view of one."""
    import numpy as np
    fmt = image_format(path)
    with writing(path, text=False) as f:
        if fmt == ".png" and _png_ok(image):
            write_png(f, image)
        else:
            import imageio.v3 as iio
            iio.imwrite(f, np.ascontiguousarray(image), extension=fmt)
    return os.path.getsize(path)


#: PNG colour types by channels: grey, RGB, RGBA.
_PNG_TYPES = {1: 0, 3: 2, 4: 6}


def _png_ok(image):
    import numpy as np
    image = np.asarray(image)
    return (image.dtype == np.uint8 and image.ndim in (2, 3) and min(image.shape[:2]) > 0
            and (image.ndim == 2 or image.shape[2] in _PNG_TYPES))


def write_png_rows(blocks, width, height, path):
    """Write an image given as blocks of rows, top first ((k, width, 3) uint8 each,
    `height` rows in all), as the PNG `path`; its size in bytes."""
    with writing(path, text=False) as f:
        write_png(f, blocks, (height, width, 3))
    return os.path.getsize(path)


def write_png(f, image, shape=None, level=6):
    """Write an (h, w), (h, w, 3) or (h, w, 4) uint8 image to the binary file `f` as
    PNG, a row at a time through zlib (memory: a row and what zlib holds). `image`
    may also be blocks of rows, top first, of an image of `shape`."""
    import numpy as np
    if shape is None:
        image = np.asarray(image)
        shape, image = image.shape, [image]
    h, w = shape[:2]
    channels = 1 if len(shape) == 2 else shape[2]

    def chunk(kind, data):
        f.write(struct.pack(">I", len(data)) + kind)
        f.write(data)
        f.write(struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))

    f.write(b"\x89PNG\r\n\x1a\n")
    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, _PNG_TYPES[channels], 0, 0, 0))
    z, out, size, rows = zlib.compressobj(level), [], 0, 0
    for block in image:
        for row in block:
            out.append(z.compress(b"\x00" + row.tobytes()))  # filter 0 (none)
            size, rows = size + len(out[-1]), rows + 1
            if size >= 1 << 16:
                chunk(b"IDAT", b"".join(out))
                out, size = [], 0
    if rows != h:
        raise ValueError(f"a PNG of {h} rows given {rows}")
    out.append(z.flush())
    chunk(b"IDAT", b"".join(out))
    chunk(b"IEND", b"")


def write_text(path, text):
    with writing(path) as f:
        f.write(text)


@contextmanager
def writing(path, text=True, newline=None):
    """A file to write an output through (`atomic`; a device or a named pipe at
    `path`, -o /dev/null, written to, never replaced), as UTF-8 text unless not
    `text`; failing to write it is a TraceError naming the path."""
    try:
        with (open(path, "wb") if _special(path) else atomic(path)) as raw:
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
    nothing. The file gets the mode of the regular file it replaces, else the user's
    umask's, never world-writable; a symbolic link at `path` is replaced, never
    followed. Leftovers of killed processes (`.t3d-PID-*.tmp`) are removed first."""
    folder = os.path.dirname(os.path.abspath(path))
    sweep(folder)
    while True:
        tmp = os.path.join(folder, f".t3d-{os.getpid()}-{secrets.token_hex(6)}.tmp")
        try:  # the kernel applies the umask to 0o666
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            try:
                old = os.lstat(path)
                if stat.S_ISREG(old.st_mode):
                    os.fchmod(f.fileno(), old.st_mode & 0o775)
            except FileNotFoundError:
                pass
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _special(path):
    """Whether `path` is a device, a named pipe or a socket (no regular file)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or \
        stat.S_ISSOCK(mode)


def sweep(folder, age=60.0):
    """Remove the temporary files of processes that died writing (kill -9), once a
    minute old (a process seen dead from another PID namespace may still write);
    writes and cache reads call it."""
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
