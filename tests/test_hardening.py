"""Hostile surroundings (issue 26): what the process is started with, and what is
left behind, gets one line and a non-zero exit, never a traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples" / "small.trace"


@pytest.mark.parametrize("command", [["stats"], ["dump"], ["topology", "info"]])
def test_a_closed_standard_output_is_one_line(command, data):
    """`triva3d stats T >&-` was an AttributeError traceback (issue 26.6)."""
    target = str(data / "platforms/small_platform.xml") if command[0] == "topology" \
        else str(SMALL)
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", *command, target],
                       stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if "compiling numba" not in ln]
    assert lines == ["triva3d: error: standard output: closed (the command started "
                     "without it)"]
