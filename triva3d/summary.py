"""What the whole run says (the columns of trace.Whole that a store keeps), summed
part by part: store.write_store writes a store one container bucket at a time, from a
Trace in memory or from a Pajé trace read in bounded memory (spill.py), and never
needs every entity at once. A container's states, variable pieces and events, and a
link (by its sender), lie in one part."""
import numpy as np

from .analysis.metrics import sized_counts, size_range, sizes_of
from .analysis.roles import (constancy, entities_of, entity_parts, link_counts, platform_of,
                             state_pairs, variable_pairs)
from .colors import usage
from .stats import deepest
from .trace import type_spans


class Summary:
    """Sums of the parts given to `add`; `result()` what the whole run says."""

    def __init__(self, n_types, n_values, n_containers):
        nt, nv = n_types, n_values
        self.seconds, self.counts = np.zeros(nv), np.zeros((nv, 3), np.int64)
        self.per_type, self.links, self.instant, self.sized = (np.zeros(nt, np.int64)
                                                               for _ in range(4))
        self.positive, self.smallest, self.largest = 0, np.inf, -np.inf
        self.deepest, self.spans = np.full(nt, -1, np.int64), np.full((nt, 2), np.nan)
        self.present, self.differs = np.zeros(nt, bool), np.zeros(nt, bool)
        self.entities, self.instant_ends = np.zeros(n_containers, bool), []
        self.state_pairs, self.variable_pairs = [], []

    def add(self, part, sizes):
        """Add `part` (a Trace of some containers' entities, whole=None), `sizes` its
        links' sizes (metrics.link_bytes)."""
        nt = len(self.per_type)
        seconds, counts, per_type = usage(part)
        counts[:, 1] = np.bincount(part.links.value, minlength=len(seconds))  # (all links)
        self.seconds += seconds
        self.counts += counts
        self.per_type += per_type
        links, instant = link_counts(part)
        self.links += links
        self.instant += instant
        self.sized += sized_counts(part.links.type, sizes, nt)
        positive, smallest, largest = size_range(sizes)
        self.positive += positive
        self.smallest, self.largest = np.fmin(self.smallest, smallest), np.fmax(self.largest,
                                                                               largest)
        st = part.states
        self.deepest = np.maximum(self.deepest, deepest(st.type, st.imbrication, nt))
        spans = type_spans(part)
        self.spans[:, 0] = np.fmin(self.spans[:, 0], spans[:, 0])
        self.spans[:, 1] = np.fmax(self.spans[:, 1], spans[:, 1])
        present, differs = constancy(part)
        self.present |= present
        self.differs |= differs
        mask, ends = entity_parts(part)
        self.entities |= mask
        self.instant_ends.append(ends)
        self.state_pairs.append(state_pairs(part))
        self.variable_pairs.append(variable_pairs(part))

    def result(self):
        """dict(seconds, counts, per_type, platform, constant, deepest, spans,
        entities, state_pairs, variable_pairs (keys, first, largest), link_sizes)."""
        platform = platform_of(self.links, self.instant)
        found = np.isfinite(self.smallest)
        range_ = (self.positive, float(self.smallest) if found else np.nan,
                  float(self.largest) if found else np.nan)
        pairs = [np.concatenate(p) for p in zip(*self.variable_pairs)] or \
            [np.empty(0, np.int64), np.empty(0), np.empty(0)]
        order = np.argsort(pairs[0], kind="stable")  # (disjoint keys: one part's each)
        return dict(seconds=self.seconds, counts=self.counts, per_type=self.per_type,
                    platform=platform, constant=self.present & ~self.differs,
                    deepest=self.deepest, spans=self.spans,
                    entities=entities_of(self.entities,
                                         np.concatenate(self.instant_ends + [np.empty(0, int)]),
                                         platform),
                    state_pairs=np.unique(np.concatenate(self.state_pairs + [np.empty(0, int)])),
                    variable_pairs=tuple(p[order] for p in pairs),
                    link_sizes=sizes_of(range_, self.links, self.sized, platform))
