"""Sigovan et al.'s Fig. 5 rebuilt: the five patterns of MPI_Waitall times
(horizontal, noisy, slanted, logarithmic, disparate) generated on 256 ranks
(`triva3d generate sigovan`), each played as event particles (`triva3d animate
--encoding events`), the last frame of each in one picture:
examples/gallery/sigovan_fig5.jpg (`python examples/sigovan_fig5.py [OUT.jpg]`).
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import imageio.v3 as iio
import numpy as np

from triva3d.generate.sigovan import SHAPES
from triva3d.output import write_image

ROOT = Path(__file__).resolve().parents[1]


def main(out=ROOT / "examples" / "gallery" / "sigovan_fig5.jpg"):
    tmp = Path(tempfile.mkdtemp(prefix="triva3d-sigovan-"))
    frames = []
    for shape in SHAPES:
        trace, movie = tmp / f"{shape}.trace", tmp / shape
        for args in (["generate", "sigovan", "--shape", shape, "--ranks", "256", "-o",
                      str(trace)],
                     ["animate", str(trace), "--encoding", "events", "--duration", "4",
                      "--size", "960x540", "-o", f"{movie}/"]):
            subprocess.run([sys.executable, "-m", "triva3d.cli", *args], check=True)
        frames.append(iio.imread(sorted(movie.glob("*.png"))[-1]))
    frames.append(np.zeros_like(frames[0]))
    rows = [np.concatenate(frames[i:i + 2], axis=1) for i in range(0, 6, 2)]
    write_image(np.concatenate(rows, axis=0), str(out))
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
