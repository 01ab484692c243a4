"""Read a Pajé trace file in chunks through the kernels into a Trace: a big file is
read and tokenized (K.lex) by a second thread, a few batches of lines ahead of the
simulation (K.process) in this one, which sees everything in file order."""
import os

import numpy as np

from . import defs as D
from . import kernel as K
from .simulator import SimState
from ..ahead import ahead
from ..errors import TraceError, open_input
from ..kernels import interpreted
from ..trace import Kind, Trace

CHUNK = 16 << 20
#: The kernel runs as Python (about 150 KB/s) until this many bytes are read, the
#: included files' too: sooner done than numba imported and its kernels loaded (0.8 s).
INTERPRET_BELOW = 32 << 10
#: Longest line read (a file without newlines would grow a buffer without bound).
MAX_LINE = 64 << 20
#: Lines and tokens (K.MAXTOK at least) of a lexed batch (K.lex); files from
#: AHEAD_ABOVE bytes on are read and lexed by a second thread, which makes up to
#: AHEAD items (lexed batches, blocks' sizes) not yet taken before it waits for this one.
LEX_LINES, LEX_TOKENS = 1 << 15, 1 << 18
AHEAD_ABOVE, AHEAD = 1 << 20, 4
assert CHUNK + MAX_LINE < 1 << 31  # token bounds are int32
#: What a `%` line or a definition can add to (PajeTraceFile reserves for itself).
PYLINE = ("tokens", "arena", "values")
#: Deepest chain of files including one another (PajeTraceFile).
MAX_INCLUDES = 64
#: Producers whose Pajé times are not seconds, told by types every version of
#: them defines: (name, unit, container type -> its parent's type, state types).
#: StarPU's FxT-to-Pajé converter writes FxT's nanoseconds / 1e6: milliseconds.
PRODUCERS = (("StarPU", "ms", {"Memory Node": "Program"}, {"Thread State",
                                                             "Memory Node State"}),)
UNIT_WORDS = {"ms": "milliseconds"}


class _Progress:
    """Bytes read of bytes known (included files add theirs), told to `report`."""

    def __init__(self, report):
        self.report, self.read, self.total = report, 0, 0

    def interpreted(self):
        """The kernel as Python while little is read (kernels.interpreted)."""
        return interpreted(self.read < INTERPRET_BELOW)

    def add(self, n):
        self.read += n
        if self.report:
            self.report(self.read, self.total)


def read_paje(path, lenient=False, progress=None, spill=None):
    """Parse and simulate the Pajé trace at `path`. Raises TraceError on bad input.
    `progress`: None, or a callable f(bytes read, bytes in all) called after each
    block (an exception it raises stops the read). `spill`: None, or (hand, rows),
    hand a spill.Spill: whenever the simulation holds `rows` entity rows,
    hand(*SimState.hand_over()) takes those that can no longer change, and the last
    at the end, and hand.reused_keys() says the link keys reused unseen; the Trace
    then holds no entity (spill.py)."""
    path = os.fspath(path)
    with interpreted():  # a few names
        sim = SimState(lenient)
    sim.spill = spill
    bar = _Progress(progress)
    try:
        _read_file(sim, path, [], bar)
        if not sim.header.defs:  # no event could have been read: only blanks and comments
            raise TraceError(path, None, "holds nothing: " + (
                "an empty file" if not bar.read else "no Pajé definitions or events"))
        with bar.interpreted():
            parts = sim.finish(path)
    except TraceError as e:
        raise sim.earlier_reuse(e, path) from None
    unit, note = recorded_unit(parts["names"], parts["columns"]["types"])
    return Trace.from_columns(**parts, time_unit=unit, unit_note=note)


def recorded_unit(names, types):
    """(unit, note) of a Pajé trace's times: the unit its producer writes, when its
    type hierarchy (`types`: its kind, parent and name columns) names one of
    PRODUCERS (note: why), else ("s", None)."""
    names = names.displays(types["name"])
    kinds = list(types["kind"])
    parent = {n: names[p] if p >= 0 else None
              for n, p, k in zip(names, list(types["parent"]), kinds) if k == Kind.CONTAINER}
    states = {n for n, k in zip(names, kinds) if k == Kind.STATE}
    for producer, unit, containers, state_types in PRODUCERS:
        if all(parent.get(c, 0) == p for c, p in containers.items()) and state_types <= states:
            return unit, f"{producer} trace: times read as {UNIT_WORDS[unit]}"
    return "s", None


def _read_file(sim, path, chain, bar):
    f = open_input(path, "the trace")
    sim.files.append(path)
    sim.enter_file(path)
    saved_line = int(sim.istate[K.I_LINE])
    sim.istate[K.I_LINE] = 0
    with f:
        size = os.fstat(f.fileno()).st_size
        bar.total += size
        pool = []  # lexed batches done with (AHEAD + 1 at most are made)
        with ahead(_lexed(f, path, bar.read, pool), size >= AHEAD_ABOVE, AHEAD) as items:
            for item in items:
                if isinstance(item, int):
                    bar.add(item)
                elif item is TRUNCATED:
                    sim.notes.append(("last line without an end of line (the file may be "
                                      "truncated)", 1, int(sim.istate[K.I_LINE]) + 1))
                elif item is LONG:  # /dev/zero, a binary file: not Pajé text
                    raise TraceError(path, int(sim.istate[K.I_LINE]) + 1, f"a line longer "
                                     f"than {MAX_LINE >> 20} MiB: not a Pajé trace")
                else:
                    buf, data, batch, lines = item
                    with bar.interpreted():
                        _run(sim, buf, data, batch, lines, path, chain + [path], bar)
                    pool.append(batch)
                    if sim.spill:
                        sim.spill_if_full()
    if sim.header.current is not None:
        raise TraceError(path, "end", f"%EventDef at line {sim.header.current.line} has no "
                                      "%EndEventDef")
    if chain:  # back in the including file; the top file keeps its last line for the end
        sim.istate[K.I_LINE] = saved_line
        sim.enter_file(chain[-1])


class _Batch:
    """The arrays K.lex fills (K.LEXED): a batch of lines, tokenized."""
    PER_LINE = dict(lx_line=np.int64, lx_ntok=np.int32, lx_first=np.int32)
    PER_TOKEN = dict(lx_s=np.int32, lx_e=np.int32, lx_key=np.int64, lx_v=np.float64)

    def __init__(self):
        size = dict.fromkeys(self.PER_LINE, LEX_LINES) | \
            dict.fromkeys(self.PER_TOKEN, max(LEX_TOKENS, K.MAXTOK))
        size["lx_line"] += 1  # where the last line ends
        dtype = self.PER_LINE | self.PER_TOKEN
        self.arrays = tuple(np.empty(size[n], dtype[n]) for n in K.LEXED)


def _lexed(f, path, before, pool):
    """What `_read_file` takes, in order: the bytes of each block read (an int), then
    (buffer, bytes, batch, lines) for each batch of its whole lines that K.lex
    tokenized, TRUNCATED before a last line without an end of line, LONG for a line
    too long. `before`: bytes read before this file (the kernel runs as Python below
    INTERPRET_BELOW); batches come from `pool` (given back by the reader)."""
    carry = b""
    read = before
    while True:
        block = f.read(CHUNK)
        read += len(block)
        yield len(block)
        eof = not block
        data = carry + block
        del block  # (a copy where a line was carried over)
        if not carry and b"\n" not in data and b"\r" in data:  # loaded as empty
            raise TraceError(path, 1, "lines end with a carriage return alone (old Mac "
                                      "text); convert them: tr '\\r' '\\n'")
        if eof:
            if not data:
                return
            if not data.endswith(b"\n"):
                data += b"\n"
                yield TRUNCATED
        cut = data.rfind(b"\n") + 1
        buf = np.frombuffer(data, np.uint8)
        pos = 0
        while pos < cut:
            batch = pool.pop() if pool else _Batch()
            with interpreted(read < INTERPRET_BELOW):
                n, pos = K.lex(buf, pos, cut, *batch.arrays)
            yield buf, data, batch, int(n)
        carry = data[cut:]
        if len(carry) > MAX_LINE:
            yield LONG
            return
        if eof:
            return


TRUNCATED, LONG = object(), object()


def _run(sim, buf, data, batch, nlines, path, chain, bar):
    """Run `process` over a batch of lines, Python taking the lines it hands back."""
    start = batch.arrays[0]
    end = int(start[nlines])
    line = 0
    while line < nlines:
        status = K.process(buf, line, nlines, batch.arrays, *sim.kernel_args())
        pos = int(sim.istate[K.I_POS])
        if status == K.ST_DONE:
            return
        if status == K.ST_ERROR:
            raise TraceError(path, int(sim.istate[K.I_LINE]), sim.error_message(buf),
                             lenient_reads=sim.lenient_reads())
        if status == K.ST_GROW:  # room for anything a line can add
            sim.reserve(K.tokenize(buf, pos, end, sim.toks_s, sim.toks_e)[1] - pos)
        else:
            pos = _python_lines(sim, buf, data, pos, end, path, chain, bar)
        line = int(np.searchsorted(start[:nlines + 1], pos))


def _python_lines(sim, buf, data, pos, end, path, chain, bar):
    """Handle the runs of lines for Python from `pos`; returns where the kernel goes on."""
    while True:
        n, after, grow, lines, first, s, e, codes = sim.scan(buf, pos, end)
        if grow:
            sim.reserve(K.tokenize(buf, pos, end, sim.toks_s, sim.toks_e)[1] - pos, PYLINE)
            continue
        if not n:
            return pos
        for j in range(n):
            sim.istate[K.I_LINE] = lines[j]
            a, b = first[j], first[j + 1]
            _python_line(sim, [data[x:y] for x, y in zip(s[a:b], e[a:b])], codes[a:b],
                         path, chain, bar)
        pos = after


def _python_line(sim, words, codes, path, chain, bar):
    """A `%` header line, a PajeDefine* event or a PajeTraceFile (its fields and name
    codes)."""
    line = int(sim.istate[K.I_LINE])
    try:
        if words[0].startswith(b"%"):
            sim.header_line(words, line)
            return
        if sim.header.current is not None:
            raise ValueError(f"event line inside the %EventDef that starts at line "
                             f"{sim.header.current.line}")
        d = sim.defs[sim.a["tok2def"][codes[0]]]
        if len(words) != d.nfields:
            raise ValueError(f"{len(words)} fields where the definition of "
                             f"{D.EVENT_NAMES[d.kind]} (line {d.line}) has {d.nfields}")
        if d.kind == D.TRACE_FILE:
            _include(sim, words[d.pos[D.F_FILENAME]], path, chain, bar)
        else:
            sim.define(d, words, codes)
    except ValueError as e:
        raise TraceError(path, line, str(e), lenient_reads=isinstance(e, D.LenientReads)) \
            from None


def _include(sim, name, path, chain, bar):
    """PajeTraceFile: read the named file here, sharing definitions and names."""
    name = name.decode("utf-8", "replace").strip('"')
    target = os.path.join(os.path.dirname(path), name)
    root = os.path.dirname(os.path.realpath(chain[0]))
    if os.path.isabs(name) or \
            os.path.commonpath([root, os.path.realpath(target)]) != root:
        raise ValueError(f"PajeTraceFile names '{name}', outside the folder of the trace "
                         f"({root}); not read")
    if len(chain) >= MAX_INCLUDES:
        raise ValueError(f"PajeTraceFile nested more than {MAX_INCLUDES} files deep")
    if not os.path.isfile(target):
        raise ValueError(f"PajeTraceFile names '{target}', which is not a readable file")
    if any(os.path.exists(p) and os.path.exists(target) and os.path.samefile(p, target)
           for p in chain):
        sim.notes.append((f"PajeTraceFile naming a file already being read ({os.path.basename(target)}) "
                          "ignored", 1, int(sim.istate[K.I_LINE])))
        return
    _read_file(sim, target, chain, bar)
