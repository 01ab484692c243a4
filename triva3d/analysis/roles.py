"""What a trace's links and variables stand for, so that resource traces (SimGrid's,
Viva's) are drawn as Viva and Triva draw them.

- **Platform links**: link types whose links all have zero length at the trace's
  start, when they hold several links together (SimGrid writes its topology so, at
  time 0, one type per pair of container types), describe the platform: their links
  are edges of the base, never messages.
- **Capacities**: a variable type that keeps one value on every container over the
  whole trace (`power`, `bandwidth`, `latency`) is an attribute of the container
  (shown when it is picked), not a curve.
- **Usage profiles**: every other variable type is drawn as a filled profile whose
  width follows its value relative to a capacity: `X_used` relative to `X`, and
  SimGrid's per-category `p<cat>` relative to `power`, `b<cat>` relative to
  `bandwidth` (when the container type has them); else relative to the type's
  maximum over the trace. Profiles relative to the same capacity stack side by side
  in one lane (the categories of a host's computation or a link's traffic); when a
  capacity has categories, its `X_used` (their sum) is not drawn.

- **Metrics** (hardware and software counters: an OTF2 archive's PAPI, RUSAGE...
  members, told by the types' `METRIC_CLASS` field) are many and unrelated: none
  is drawn until chosen by a rule.

The rule is overridable per variable type: "capacity" (not drawn), "hide", "max"
(a profile relative to its own maximum) or the name of the capacity type to be
relative to.
"""
from dataclasses import dataclass

import numpy as np

from ..errors import OptionsError
from . import VARIABLE_RULES
from ..trace import METRIC_CLASS, Kind

#: Category prefixes of SimGrid's categorized resource usage, and their capacity.
CATEGORY_OF = {"p": "power", "b": "bandwidth"}


def platform_link_types(trace):
    """Mask over types: link types that describe the platform (see the module)."""
    if trace.whole is not None:
        return trace.whole.platform_types.copy()
    return platform_of(*link_counts(trace))


def link_counts(trace):
    """Per type: its links, and those of zero length at the trace's start: what
    platform_of goes by, summed over the parts of a run."""
    ln, nt = trace.links, len(trace.types)
    instant = _instant(trace)
    return np.bincount(ln.type, minlength=nt), np.bincount(ln.type[instant], minlength=nt)


def _instant(trace):
    """Mask over links: those of zero length at the trace's start."""
    ln = trace.links
    return (ln.start == ln.end) & (ln.start == trace.start_time)


def platform_of(links, instant):
    """Mask over types: the platform's link types, from link_counts' first two."""
    out = (links > 0) & (links == instant)
    if links[out].sum() < 2:
        out[:] = False  # one instantaneous message is a message
    return out


@dataclass
class VariableRoles:
    """Per type (index into trace.types): `drawn` (a profile is drawn), `capacity`
    (an attribute), `relative_to` (the capacity type a profile is relative to, -1
    for its own maximum), `lane` (the type whose lane the profile stacks in) and
    `metric_class` (a metric's class name, None for other types)."""
    drawn: np.ndarray
    capacity: np.ndarray
    relative_to: np.ndarray
    lane: np.ndarray
    metric_class: list

    def metrics_not_drawn(self):
        """{class: count} of the metrics no rule chose."""
        out = {}
        for t, c in enumerate(self.metric_class):
            if c is not None and not self.drawn[t] and not self.capacity[t]:
                out[c] = out.get(c, 0) + 1
        return out


def constant_types(trace):
    """Mask over types: variable types with one value per container."""
    if trace.whole is not None:
        return trace.whole.constant_types.copy()
    present, differs = constancy(trace)
    return present & ~differs


def constancy(trace):
    """Masks over types: those with variable pieces, and those whose pieces differ
    on one container (a container's pieces lie in one part of a run: or-ed over parts)."""
    var = trace.variables
    nt = len(trace.types)
    present, differs = np.zeros(nt, bool), np.zeros(nt, bool)
    present[var.type] = True
    key = var.container.astype(np.int64) * nt + var.type
    order = np.lexsort((var.value, key))
    k, v = key[order], var.value[order]
    differs[var.type[order][1:][(k[1:] == k[:-1]) & (v[1:] != v[:-1])]] = True
    return present, differs


def variable_roles(trace, rules=None):
    """The VariableRoles of `trace` (see the module), with `rules` (type name ->
    "capacity", "hide", "max" or a capacity type name) overriding the defaults."""
    types = trace.types
    nt = len(types)
    name = {t: trace.display_name("types", t) for t in range(nt)}
    is_var = types.kind == Kind.VARIABLE
    capacity = constant_types(trace) & is_var
    drawn = is_var & ~capacity
    relative_to = np.full(nt, -1, np.int64)
    by_name = {}
    for t in np.flatnonzero(is_var):
        by_name.setdefault((int(types.parent[t]), name[t]), int(t))

    def sibling(t, other):
        return by_name.get((int(types.parent[t]), other), -1)

    has_categories = set()
    for t in np.flatnonzero(is_var):  # usage by name, even when set only once
        n = name[t]
        cap = sibling(t, n[:-5]) if n.endswith("_used") else -1
        category = cap < 0 and n[:1] in CATEGORY_OF and len(n) > 1
        if category:
            cap = sibling(t, CATEGORY_OF[n[0]])
        if cap >= 0 and cap != t and capacity[cap]:
            capacity[t], drawn[t], relative_to[t] = False, True, cap
            if category:
                has_categories.add(cap)
    for t in np.flatnonzero(drawn):  # a total beside its categories
        if name[t].endswith("_used") and relative_to[t] in has_categories:
            drawn[t] = False
    classes = types.extra.get(METRIC_CLASS)
    metric_class = [None if classes is None or classes[t] < 0
                    else trace.names.display(classes[t]) for t in range(nt)]
    metric = np.array([c is not None for c in metric_class], bool)
    capacity &= ~metric  # a counter that never changed is still a metric, not drawn
    drawn &= ~metric
    for type_name, rule in (rules or {}).items():
        hits = [t for t in trace.find("types", type_name) if is_var[t]]
        if not hits:
            raise OptionsError(f"{trace.source}: no variable type named {type_name!r}")
        for t in hits:
            if rule in VARIABLE_RULES:
                capacity[t] = rule == "capacity"
                drawn[t] = rule == "max"
                relative_to[t] = -1
            else:
                cap = sibling(t, rule)
                if cap < 0:
                    raise OptionsError(f"{trace.source}: no variable type {rule!r} beside "
                                       f"{type_name!r} to be relative to (expected "
                                       f"{', '.join(VARIABLE_RULES)} or a type name)")
                capacity[t], drawn[t], relative_to[t] = False, True, cap
    gone = (relative_to >= 0) & ~capacity[np.maximum(relative_to, 0)]
    relative_to[gone] = -1  # relative to a type the rules made no capacity: its maximum
    lane = np.where(relative_to >= 0, relative_to, np.arange(nt))
    return VariableRoles(drawn, capacity, relative_to, lane, metric_class)


def parse_rules(text):
    """'A,B=max,C=hide,D=bandwidth' as rules: a name alone is drawn ("max")."""
    out = {}
    for item in (i.strip() for i in text.split(",")):
        if item:
            name, sep, rule = item.rpartition("=") if "=" in item else (item, "", "max")
            if not name.strip() or not rule.strip():
                raise OptionsError(f"variable rule {item!r}: expected NAME or NAME=RULE")
            out[name.strip()] = rule.strip()
    return out


def capacities(trace, roles, c):
    """{type name: value} of the capacity variables of container `c`."""
    var = trace.variables
    rows = np.flatnonzero((var.container == c) & roles.capacity[var.type])
    return {trace.display_name("types", var.type[r]): float(var.value[r]) for r in rows}


def entity_containers(trace):
    """Mask over containers: those with states, events or message ends."""
    if trace.whole is not None:
        return trace.whole.entity_containers.copy()
    return entities_of(*entity_parts(trace), platform_link_types(trace))


def entity_parts(trace):
    """(mask over containers: those with states, events or ends of links that are not
    instantaneous at the start; the keys type * len(containers) + container of the
    ends of those that are), or-ed and joined over the parts of a run."""
    out = np.zeros(len(trace.containers), bool)
    out[trace.states.container] = True
    out[trace.events.container] = True
    ln = trace.links
    instant = _instant(trace)
    out[ln.start_container[~instant]] = True
    out[ln.end_container[~instant]] = True
    ty = ln.type[instant].astype(np.int64) * len(out)
    return out, np.unique(np.r_[ty + ln.start_container[instant],
                                ty + ln.end_container[instant]])


def entities_of(mask, instant_ends, platform):
    """entity_containers from entity_parts and the platform's link types."""
    out = mask.copy()
    n = len(out)
    out[instant_ends[~platform[instant_ends // n]] % n] = True
    return out


def state_pairs(trace):
    """The increasing keys container * len(types) + type of each (container, state
    type) with states, once."""
    if trace.whole is not None:
        return trace.whole.state_pairs
    st = trace.states
    return np.unique(st.container.astype(np.int64) * len(trace.types) + st.type)


def variable_pairs(trace):
    """Each (container, variable type) with variable pieces, once: (their increasing
    keys container * len(types) + type, the value of each one's first piece, its
    largest value)."""
    if trace.whole is not None:
        return trace.whole.variable_pairs
    var, nt = trace.variables, len(trace.types)
    key = var.container.astype(np.int64) * nt + var.type
    order = np.argsort(key, kind="stable")
    key, value = key[order], var.value[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else key
    return (key[first], value[first],
            np.maximum.reduceat(value, first) if len(key) else value)


def drawn_containers(trace, roles=None):
    """Mask over containers: those with something the scene draws (states, events,
    messages, usage profiles)."""
    roles = roles or variable_roles(trace)
    out = entity_containers(trace)
    key, nt = variable_pairs(trace)[0], len(trace.types)
    out[key[roles.drawn[key % nt]] // nt] = True
    return out
