"""Synthetic runs for examples, tests and benchmarks: the scenarios of the Triva
thesis (chapter 6) at any scale, written as Pajé text or OTF2, reproducible from a
seed (`triva3d generate`).

- `hierarchy`: nested levels whose leaves split the run between two states along a
  cosine (thesis Listing 6.1);
- `pattern`: the same, with messages in a ring, all-to-all, star or hierarchical
  star (Listing 6.2);
- `workstealing`: processes on a topology's hosts stealing work from one another
  (the KAAPI runs of the thesis), optionally with a slow link or site planted;
- `sigovan`: ranks waiting as the five patterns of Sigovan et al.'s Fig. 5;
- `tasks`: an HPX-like task tree as APEX traces it (OTF2 attributes GUID, Parent GUID).
"""
from .hierarchy import check_config, configured_pattern, hierarchy, pattern, read_config
from .program import Program
from .sigovan import sigovan
from .tasks import tasks
from .workstealing import workstealing

__all__ = ["Program", "check_config", "configured_pattern", "hierarchy", "pattern",
           "read_config", "sigovan", "tasks", "workstealing", "write", "FORMATS"]

FORMATS = ("paje", "otf2")


def write(program, path, format="paje", seed=0):
    """Write `program` to `path`: a Pajé file, or an OTF2 archive folder."""
    if format == "otf2":
        from .otf2_writer import write_otf2
        write_otf2(program, path, seed)
    else:
        from .program import write_paje
        write_paje(program, path)
