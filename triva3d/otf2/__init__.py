"""OTF2 input. Telling an archive apart is cheap and lives here; reading it (the C
library, numba callbacks) is in `reader` and loads only when needed."""
import glob
import os


def anchor_of(path):
    """The anchor file when `path` is an OTF2 anchor (told by its first bytes) or a
    folder holding exactly one; else None."""
    path = str(path)
    if os.path.isdir(path):
        found = glob.glob(os.path.join(path, "*.otf2"))
        return found[0] if len(found) == 1 else None
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return None
    return path if b"OTF2" in head[:8] else None


def archive_files(anchor):
    """Every file of the archive: anchor, global definitions, local files."""
    base = anchor[:-len(".otf2")] if anchor.endswith(".otf2") else anchor
    files = [anchor] + ([base + ".def"] if os.path.exists(base + ".def") else [])
    return files + sorted(glob.glob(os.path.join(base, "*")))
