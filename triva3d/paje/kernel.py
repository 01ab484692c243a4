"""The compiled hot loops: tokenize Pajé lines (`lex`), then intern names and simulate
(`process`).

`lex` splits a batch of lines into tokens, with each token's key (`token_key`, but
for long decimal numbers) and value as a number; a big file has it run in a second
thread, ahead of `process` (reader.py).
`process` runs over a lexed batch and writes straight into the column arrays of
`SimState` (simulator.py). It stops and hands back to Python for the rare lines
Python handles (definitions, `%` lines, PajeTraceFile), when a table needs to grow,
and on an error. Semantics follow PajeNG's simulator (PajeContainer.cc).
The kernels are `kernels.lazy`: a small file runs them as Python, with the same
results (int64 hashes and numpy floats, as compiled).
"""
import numpy as np

from .defs import (ADD_VARIABLE, CREATE_CONTAINER, DESTROY_CONTAINER, END_LINK, F_ALIAS,
                   F_CONTAINER, F_END_CONTAINER, F_KEY, F_NAME, F_START_CONTAINER, F_TIME,
                   F_TYPE, F_VALUE, MAX_FIELDS, NEW_EVENT, POP_STATE, PUSH_STATE, RESET_STATE,
                   SET_STATE, SET_VARIABLE, START_LINK, SUB_VARIABLE, TRACE_FILE)
from ..kernels import lazy
from ..trace import Kind

K_CONTAINER, K_STATE, K_EVENT, K_VARIABLE, K_LINK = (int(k) for k in Kind)

# Return status of `process`.
ST_DONE, ST_PYLINE, ST_GROW, ST_ERROR = 0, 1, 2, 3

# Integer state slots (istate).
(I_LINE, I_POS, I_NCONT, I_NSTATE, I_NLINK, I_NVAR, I_NEVENT, I_NTOK, I_NARENA, I_NVAL,
 I_NSLOT, I_ERR, I_ERR_S, I_ERR_E, I_LENIENT, I_NKARENA) = range(16)
N_ISTATE = 16

# Error codes; names and messages live in simulator.py.
(E_NONE, E_UNTERMINATED, E_UNKNOWN_EVENT, E_FIELD_COUNT, E_BAD_NUMBER, E_UNKNOWN_CONTAINER,
 E_AMBIGUOUS_CONTAINER, E_UNKNOWN_TYPE, E_WRONG_KIND, E_NOT_CHILD_TYPE, E_RESERVED_NAME,
 E_DUPLICATE_CONTAINER, E_WRONG_CONTAINER_TYPE, E_CONTAINER_TIME_ORDER, E_TIME_ORDER,
 E_POP_EMPTY, E_VARIABLE_NO_VALUE, E_KEY_REUSED, E_LINK_VALUE, E_LINK_START_TYPE,
 E_LINK_END_TYPE, E_INCOMPLETE_LINKS, E_EXTRA_CONFLICT, E_TOO_DEEP) = range(24)
N_ERRORS = 24

#: Tokens of a line kept (the size of the token buffers): one more than a line may hold.
MAXTOK = MAX_FIELDS + 1
EMPTY = -1
AMBIGUOUS = -2
FNV_OFFSET = -3750763034362895579  # 0xcbf29ce484222325
FNV_PRIME = 1099511628211
M1, M2, M3, M4 = -7046029254386353131, -4658895280553007687, 7640891576956012809, -4417276706812531889

#: Names of up to WORD bytes are found through a small direct-mapped cache (TCACHE
#: entries: a name's key, exactly its bytes (token_key), and its code), without reading
#: the name table: most lines repeat names seen a few lines before.
WORD, TCACHE_BITS = 7, 14
TCACHE = 1 << TCACHE_BITS

#: What parse_number read: no number, an integer, a decimal (a dot or an exponent).
NONE, INTEGER, DECIMAL = 0, 1, 2

POW10 = np.array([10.0 ** k for k in range(23)])  # exact doubles

jit = lazy(cache=True, nogil=True)
hot = lazy(cache=True, nogil=True, inline="always")  # no call overhead, no refcounting


# ---------------------------------------------------------------- tokenizer
@hot
def tokenize(buf, pos, end, toks_s, toks_e):
    """Split the line at `pos` into tokens (quoted strings keep their quotes; `#` out
    of quotes begins a comment, also within a word, as PajeNG reads it). Returns
    (ntokens, next line start, ok)."""
    n = 0
    i = pos
    cap = toks_s.shape[0]
    while i < end:
        c = buf[i]
        if c == 10:
            return n, i + 1, True
        if c == 32 or c == 9 or c == 13:
            i += 1
            continue
        if c == 35:  # comment to end of line
            while i < end and buf[i] != 10:
                i += 1
            continue
        s = i
        if c == 34:
            i += 1
            while i < end and buf[i] != 34 and buf[i] != 10:
                i += 1
            if i >= end or buf[i] == 10:
                if n < cap:
                    toks_s[n] = s
                    toks_e[n] = i
                return n + 1, min(i + 1, end), False
            i += 1
        else:
            while i < end:
                c = buf[i]
                if c == 32 or c == 9 or c == 13 or c == 10 or c == 35:
                    break
                i += 1
        if n < cap:
            toks_s[n] = s
            toks_e[n] = i
        n += 1
    return n, end, True


@jit
def lex(buf, pos, end, lx_line, lx_ntok, lx_first, lx_s, lx_e, lx_key, lx_v):
    """Tokenize the lines of buf[pos:end] ahead of `process` (in another thread, for a
    big file) into a lexed batch: line j starts at lx_line[j], has lx_ntok[j] tokens
    (-1 - that count where it leaves a quote open), its first MAXTOK kept from
    lx_first[j] on; each token's bounds, key (token_key; 0, not made, for a decimal
    number of more than WORD bytes) and value as a number (NaN where it is none).
    Fewer arrays read fewer streams of memory in `process`. Stops
    when the batch is full (it holds MAXTOK tokens at least); returns (lines, position
    after them), also in lx_line[lines]."""
    maxtok = MAXTOK
    n = 0
    nt = 0
    while pos < end and n < lx_ntok.shape[0] and nt + maxtok <= lx_s.shape[0]:
        ntok, nxt, ok = tokenize(buf, pos, end, lx_s[nt:nt + maxtok], lx_e[nt:nt + maxtok])
        lx_line[n] = pos
        lx_ntok[n] = ntok if ok else -1 - ntok
        lx_first[n] = nt
        for k in range(nt, nt + min(ntok, maxtok)):
            v, kind = parse_number(buf, lx_s[k], lx_e[k])
            lx_v[k] = np.nan if kind == NONE else v
            # a time, a variable's value: rarely a name (`process` then makes its key)
            long_decimal = kind == DECIMAL and lx_e[k] - lx_s[k] > WORD
            lx_key[k] = 0 if long_decimal else token_key(buf, lx_s[k], lx_e[k])
        nt += min(ntok, maxtok)
        n += 1
        pos = nxt
    lx_line[n] = pos
    return n, pos


@hot
def parse_number(buf, s, e):
    """Decimal number (quotes allowed) -> (value, kind: NONE, INTEGER or DECIMAL, with a
    dot or an exponent): correctly rounded where the
    digits and their power of ten are exact doubles (up to 15 digits, 10^±22 once
    the digits are scaled to an integer), else within two ulps down to 1e-290 and a
    few ulps below; NONE beyond the range of doubles."""
    if e - s >= 2 and buf[s] == 34 and buf[e - 1] == 34:
        s += 1
        e -= 1
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    mant = 0
    exp10 = 0
    ndig = 0
    seen_dot = False
    while i < e:
        c = buf[i]
        if 48 <= c <= 57:
            if mant < 100000000000000000:
                mant = mant * 10 + (c - 48)
                if seen_dot:
                    exp10 -= 1
            elif not seen_dot:
                exp10 += 1
            ndig += 1
        elif c == 46 and not seen_dot:
            seen_dot = True
        else:
            break
        i += 1
    if ndig == 0:
        return 0.0, NONE
    if i < e and (buf[i] == 101 or buf[i] == 69):
        i += 1
        eneg = False
        if i < e and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        ed = 0
        x = 0
        while i < e and 48 <= buf[i] <= 57:
            if x < 100000:
                x = x * 10 + (buf[i] - 48)
            i += 1
            ed += 1
        if ed == 0:
            return 0.0, NONE
        exp10 += -x if eneg else x
        seen_dot = True  # (a decimal)
    if i != e:
        return 0.0, NONE
    v = float(mant)
    if exp10 < 0:  # a division by a power of ten (10^-k is no double: its error doubles)
        if exp10 < -300:  # (10^k overflows beyond 308)
            v /= 1e300
            exp10 += 300
        v = v / (POW10[-exp10] if -exp10 <= 22 else np.float64(10.0) ** np.float64(-exp10))
    elif exp10 > 0 and mant:  # pow() of numpy floats: as Python too, inf and no error
        v = v * (POW10[exp10] if exp10 <= 22 else np.float64(10.0) ** np.float64(exp10))
    if v == np.inf:  # 1e400: beyond doubles
        return 0.0, NONE
    return (-v if neg else v), (DECIMAL if seen_dot else INTEGER)


# ---------------------------------------------------------------- hashing
@hot
def mix3(a, b, c):
    h = (np.int64(a) * M1) ^ (np.int64(b) * M2) ^ (np.int64(c) * M3)  # int64 also as Python
    h ^= h >> 29
    h *= M4
    h ^= h >> 32
    return h


@hot
def fnv(buf, s, e):
    """The bytes' hash, negative (token_key's short keys are not)."""
    h = np.int64(FNV_OFFSET)
    for i in range(s, e):
        h ^= buf[i]
        h *= FNV_PRIME
    return (h ^ (h >> 31)) | np.int64(-0x8000000000000000)


@hot
def token_key(buf, s, e):
    """A token's key: for WORD bytes at most, its length then its bytes as one number
    (exactly the token: n * 256^n + bytes, 256 at least, below 2^59), else its fnv hash
    (negative)."""
    if e - s > WORD:
        return fnv(buf, s, e)
    w = np.int64(e - s)
    for i in range(s, e):
        w = (w << 8) | buf[i]
    return w


@hot
def cache_slot(key):
    """The entry of the names' cache (`process`'s tcache) for a token's key: the top bits
    of a product, which every bit of the key reaches."""
    return ((key * M1) >> (64 - TCACHE_BITS)) & (TCACHE - 1)


@jit
def rehash(slots, hashes, rows):
    """Rebuild an open-addressing index of `rows` from their stored hashes."""
    slots[:] = EMPTY
    mask = slots.shape[0] - 1
    for r in rows:
        i = hashes[r] & mask
        while slots[i] != EMPTY:
            i = (i + 1) & mask
        slots[i] = r


@jit
def find_token(buf, s, e, h, arena, tk_start, tk_len, tk_hash, tok_slots):
    """(code, index slot, hash) of the name buf[s:e] of hash `h` (fnv); code -1 when
    it is new. Hot helpers take few arrays: every array argument costs on each call."""
    mask = tok_slots.shape[0] - 1
    i = h & mask
    ln = e - s
    while True:
        t = tok_slots[i]
        if t == EMPTY:
            return -1, i, h
        if tk_hash[t] == h and tk_len[t] == ln:
            a = tk_start[t]
            same = True
            for k in range(ln):
                if arena[a + k] != buf[s + k]:
                    same = False
                    break
            if same:
                return t, i, h
        i = (i + 1) & mask


@jit
def add_token(buf, s, e, h, i, istate, arena, tk_start, tk_len, tk_hash, tok_slots,
              tok2cont_id, tok2cont_name, tok2type_id, tok2type_name, tok2def):
    """Append the new name buf[s:e] at index slot i (callers reserved room)."""
    t = istate[I_NTOK]
    istate[I_NTOK] = t + 1
    a = istate[I_NARENA]
    ln = e - s
    for k in range(ln):
        arena[a + k] = buf[s + k]
    istate[I_NARENA] = a + ln
    tk_start[t] = a
    tk_len[t] = ln
    tk_hash[t] = h
    tok_slots[i] = t
    tok2cont_id[t] = EMPTY
    tok2cont_name[t] = EMPTY
    tok2type_id[t] = EMPTY
    tok2type_name[t] = EMPTY
    tok2def[t] = EMPTY
    return t


@jit
def intern(buf, s, e, istate, arena, tk_start, tk_len, tk_hash, tok_slots,
           tok2cont_id, tok2cont_name, tok2type_id, tok2type_name, tok2def):
    """Code of the name buf[s:e], added if new (for Python and rare paths)."""
    t, i, h = find_token(buf, s, e, fnv(buf, s, e), arena, tk_start, tk_len, tk_hash,
                         tok_slots)
    if t < 0:
        t = add_token(buf, s, e, h, i, istate, arena, tk_start, tk_len, tk_hash, tok_slots,
                      tok2cont_id, tok2cont_name, tok2type_id, tok2type_name, tok2def)
    return t


@jit
def scan_python(buf, pos, end, toks_s, toks_e, istate, def_kind, def_isname, arena, tk_start,
                tk_len, tk_hash, tok_slots, tok2cont_id, tok2cont_name, tok2type_id,
                tok2type_name, tok2def, val_room, b_line, b_first, b_s, b_e, b_code):
    """Tokenize the run of lines from `pos` that Python handles (`%` lines, PajeDefine*,
    PajeTraceFile) and intern their names, so that Python reads a run of definitions
    without a compiled call per line. Line j's tokens are b_s/b_e/b_code[b_first[j]:
    b_first[j + 1]] (code -1: not a name). The run ends before a line for `process` (or
    one it reports as an error), before an event line that follows a `%` line (it may
    use the definition just made), after a PajeTraceFile, and when the batch or a table
    is full (`val_room`: values Python may still add). Returns (lines, position after
    the last, whether a table must grow before the first)."""
    maxtok = MAXTOK
    n = 0
    nt = 0
    line = istate[I_LINE]
    after = pos
    header = False
    b_first[0] = 0
    while pos < end and n + 1 < b_first.shape[0] and nt + maxtok <= b_s.shape[0]:
        ntok, nxt, ok = tokenize(buf, pos, end, toks_s, toks_e)
        line += 1
        if not ok:
            break
        if ntok == 0:
            pos = nxt
            continue
        ntok = min(ntok, maxtok)
        d = -1
        if buf[toks_s[0]] == 37:  # '%'
            header = True
        else:
            if header:
                break
            if (istate[I_NARENA] + (nxt - pos) > arena.shape[0]
                    or istate[I_NTOK] + maxtok > tk_start.shape[0]
                    or 2 * (istate[I_NTOK] + maxtok) > tok_slots.shape[0] or n >= val_room):
                return n, after, n == 0
            x, i, h = find_token(buf, toks_s[0], toks_e[0], fnv(buf, toks_s[0], toks_e[0]),
                                 arena, tk_start, tk_len, tk_hash, tok_slots)
            d = tok2def[x] if x >= 0 else -1
            if d < 0 or def_kind[d] < 0 or CREATE_CONTAINER <= def_kind[d] <= END_LINK:
                break
        for k in range(ntok):
            b_s[nt + k] = toks_s[k]
            b_e[nt + k] = toks_e[k]
            b_code[nt + k] = -1
            if d >= 0 and (k == 0 or def_isname[d, k]):
                b_code[nt + k] = intern(buf, toks_s[k], toks_e[k], istate, arena, tk_start,
                                        tk_len, tk_hash, tok_slots, tok2cont_id,
                                        tok2cont_name, tok2type_id, tok2type_name, tok2def)
        nt += ntok
        b_line[n] = line
        n += 1
        b_first[n] = nt
        pos = after = nxt
        if d >= 0 and def_kind[d] == TRACE_FILE:
            break
    return n, after, False


@jit
def value_index(ty, tok, val_type, val_name, val_alias, val_slots):
    """(value, index slot, hash) of the value of type `ty` identified by name code `tok`
    (its alias, else its name); value -1 when there is none."""
    h = mix3(ty, tok, 7)
    mask = val_slots.shape[0] - 1
    i = h & mask
    while True:
        v = val_slots[i]
        if v == EMPTY:
            return -1, i, h
        if val_type[v] == ty and (val_alias[v] if val_alias[v] >= 0 else val_name[v]) == tok:
            return v, i, h
        i = (i + 1) & mask


@jit
def find_value(ty, tok, create, istate, val_type, val_name, val_alias, val_hash, val_slots):
    """The value; with `create`, a missing one is added under that name (as PajeNG does)."""
    v, i, h = value_index(ty, tok, val_type, val_name, val_alias, val_slots)
    if v >= 0 or not create:
        return v
    v = istate[I_NVAL]
    istate[I_NVAL] = v + 1
    val_type[v] = ty
    val_name[v] = tok
    val_alias[v] = EMPTY
    val_hash[v] = h
    val_slots[i] = v
    return v


@jit
def define_value(ty, name, alias, istate, val_type, val_name, val_alias, val_hash, val_slots):
    """PajeDefineEntityValue: the new value of type `ty` named by code `name` (`alias`:
    -1 for none); -1 when its alias or name is already a value of the type."""
    for t in (alias, name):
        if t >= 0 and value_index(ty, t, val_type, val_name, val_alias, val_slots)[0] >= 0:
            return -1
    v = find_value(ty, alias if alias >= 0 else name, True, istate, val_type, val_name,
                   val_alias, val_hash, val_slots)
    val_name[v] = name
    val_alias[v] = alias
    return v


@jit
def slot_index(c, ty, slot_cont, slot_type, slot_slots):
    """(slot, index slot, hash) of (container, type); slot -1 when there is none."""
    h = mix3(c, ty, 11)
    mask = slot_slots.shape[0] - 1
    i = h & mask
    while True:
        s = slot_slots[i]
        if s == EMPTY:
            return -1, i, h
        if slot_cont[s] == c and slot_type[s] == ty:
            return s, i, h
        i = (i + 1) & mask


@jit
def new_slot(c, ty, i, h, istate, slot_cont, slot_type, slot_last, slot_top, slot_next,
             slot_pending, slot_hash, slot_slots, cont_first_slot):
    """The simulation slot of (container, type): last entity, state stack, pending links."""
    s = istate[I_NSLOT]
    istate[I_NSLOT] = s + 1
    slot_cont[s] = c
    slot_type[s] = ty
    slot_last[s] = -1
    slot_top[s] = -1
    slot_pending[s] = 0
    slot_hash[s] = h
    slot_next[s] = cont_first_slot[c]
    cont_first_slot[c] = s
    slot_slots[i] = s
    return s


@jit
def find_link(c, ty, h, i, ln_cont, ln_type, ln_hash, link_slots):
    """(row, index slot) of the first link of (container, type) and hash `h` from
    index slot `i` on; row -1 when none (same_key tells its key).
    (One more array here slows the whole loop 2.5x: keep this signature lean.)"""
    mask = link_slots.shape[0] - 1
    i &= mask
    while True:
        r = link_slots[i]
        if r == EMPTY:
            return -1, i
        if ln_hash[r] == h and ln_cont[r] == c and ln_type[r] == ty:
            return r, i
        i = (i + 1) & mask


@hot
def same_key(buf, s, e, karena, start, n):
    """Whether buf[s:e] is the key of `n` bytes at karena[start]."""
    if e - s != n:
        return False
    for k in range(n):
        if karena[start + k] != buf[s + k]:
            return False
    return True


@jit
def name_hashes(arena, offsets, codes, out):
    """out: the fnv hash of each name `codes` of a Names (its arena, offsets)."""
    for i in range(codes.shape[0]):
        out[i] = fnv(arena, offsets[codes[i]], offsets[codes[i] + 1])


@jit
def gather_bytes(arena, starts, lengths, out):
    """out: the bytes arena[s:s + n] of each (s, n) of `starts`, `lengths`, end to end."""
    o = 0
    for i in range(starts.shape[0]):
        s = starts[i]
        for k in range(lengths[i]):
            out[o + k] = arena[s + k]
        o += lengths[i]


@hot
def lookup(tok, by_ident, by_name):
    """Container or type referenced by alias (identifier) first, then by unique name."""
    x = by_ident[tok]
    if x == EMPTY:
        x = by_name[tok]
    return x


@hot
def order_time(last_start, last_end):
    """PajeNG's checkTimeOrder: the time an entity may take after the previous one."""
    m = last_start
    if not np.isnan(last_end) and last_end > m:
        m = last_end
    return m


# ---------------------------------------------------------------- the loop
#: The arrays of a lexed batch of lines that `lex` fills and `process` reads, in order.
LEXED = ("lx_line", "lx_ntok", "lx_first", "lx_s", "lx_e", "lx_key", "lx_v")
#: The arrays `process` takes, grouped as it takes them (one tuple each, in this
#: order): the run's state, the event definitions, the types, then one group per
#: table of SimState (simulator.py builds the tuples from these names).
ARGS = {
    "run": ("tokid", "tcache", "istate", "fstate", "recov", "recov_line", "work"),
    "defs": ("def_kind", "def_nfields", "def_pos", "def_extra", "def_isname"),
    "types": ("ty_kind", "ty_parent", "ty_start", "ty_end"),
    "tokens": ("arena", "tk_start", "tk_len", "tk_hash", "tok_slots", "tok2cont_id",
               "tok2cont_name", "tok2type_id", "tok2type_name", "tok2def"),
    "values": ("val_type", "val_name", "val_alias", "val_hash", "val_slots"),
    "containers": ("cont_parent", "cont_type", "cont_name", "cont_alias", "cont_start",
                   "cont_end", "cont_destroyed", "cont_first_slot", "cont_first_child",
                   "cont_next_sibling", "cont_extra"),
    "slots": ("slot_cont", "slot_type", "slot_last", "slot_top", "slot_next", "slot_pending",
              "slot_hash", "slot_slots"),
    "states": ("st_cont", "st_type", "st_value", "st_start", "st_end", "st_imbr", "st_below",
               "st_extra"),
    "links": ("ln_cont", "ln_type", "ln_value", "ln_sc", "ln_ec", "ln_start", "ln_end",
              "ln_kstart", "ln_klen", "ln_done", "ln_hash", "ln_line", "link_slots",
              "ln_extra", "karena"),
    "variables": ("vr_cont", "vr_type", "vr_start", "vr_end", "vr_value", "vr_extra"),
    "events": ("ev_cont", "ev_type", "ev_value", "ev_time", "ev_extra"),
}


@jit
def process(buf, line, nlines, lexed, run, defs, types, tokens, values, containers, slots,
            states, links, variables, events):
    """Handle lines `line` to `nlines` of the lexed batch `lexed` (lex's arrays) of buf;
    returns a status (ST_*), where it stopped in istate[I_POS]. The groups of arrays
    are tuples in ARGS's order."""
    lx_line, lx_ntok, lx_first, lx_s, lx_e, lx_key, lx_v = lexed
    tokid, tcache, istate, fstate, recov, recov_line, work = run
    def_kind, def_nfields, def_pos, def_extra, def_isname = defs
    ty_kind, ty_parent, ty_start, ty_end = types
    (arena, tk_start, tk_len, tk_hash, tok_slots, tok2cont_id, tok2cont_name, tok2type_id,
     tok2type_name, tok2def) = tokens
    val_type, val_name, val_alias, val_hash, val_slots = values
    (cont_parent, cont_type, cont_name, cont_alias, cont_start, cont_end, cont_destroyed,
     cont_first_slot, cont_first_child, cont_next_sibling, cont_extra) = containers
    (slot_cont, slot_type, slot_last, slot_top, slot_next, slot_pending, slot_hash,
     slot_slots) = slots
    st_cont, st_type, st_value, st_start, st_end, st_imbr, st_below, st_extra = states
    (ln_cont, ln_type, ln_value, ln_sc, ln_ec, ln_start, ln_end, ln_kstart, ln_klen, ln_done,
     ln_hash, ln_line, link_slots, ln_extra, karena) = links
    vr_cont, vr_type, vr_start, vr_end, vr_value, vr_extra = variables
    ev_cont, ev_type, ev_value, ev_time, ev_extra = events
    lenient = istate[I_LENIENT] != 0
    nextra = def_extra.shape[1]
    maxtok = MAXTOK
    while line < nlines:
        line_start = lx_line[line]
        nxt = lx_line[line + 1]
        ntok = lx_ntok[line]
        closed = ntok >= 0
        if not closed:
            ntok = -1 - ntok
        f = lx_first[line]  # (a token's bounds read where they are needed: fewer loads)
        istate[I_LINE] += 1
        istate[I_POS] = line_start
        if not closed:
            istate[I_ERR] = E_UNTERMINATED
            istate[I_ERR_S] = lx_s[f + min(ntok, maxtok) - 1]
            istate[I_ERR_E] = nxt
            return ST_ERROR
        if ntok == 0:
            line += 1
            continue
        if buf[lx_s[f]] == 37:  # '%'
            istate[I_LINE] -= 1
            return ST_PYLINE
        # room for everything this line can add
        if (istate[I_NARENA] + (nxt - line_start) > arena.shape[0]
                or istate[I_NKARENA] + (nxt - line_start) > karena.shape[0]
                or istate[I_NTOK] + maxtok > tk_start.shape[0]
                or 2 * (istate[I_NTOK] + maxtok) > tok_slots.shape[0]
                or istate[I_NVAL] + 1 > val_type.shape[0]
                or 2 * (istate[I_NVAL] + 1) > val_slots.shape[0]
                or istate[I_NCONT] + 1 > cont_parent.shape[0]
                or istate[I_NSLOT] + 1 > slot_cont.shape[0]
                or 2 * (istate[I_NSLOT] + 1) > slot_slots.shape[0]
                or istate[I_NSTATE] + 1 > st_cont.shape[0]
                or istate[I_NLINK] + 1 > ln_cont.shape[0]
                or 2 * (istate[I_NLINK] + 1) > link_slots.shape[0]
                or istate[I_NVAR] + 1 > vr_cont.shape[0]
                or istate[I_NEVENT] + 1 > ev_cont.shape[0]):
            istate[I_LINE] -= 1
            return ST_GROW
        # every name of the line gets its code (one inlined call site for all of them):
        # a short one from the cache (tcache[slot] = key, code; key 1 for none), else
        # from the name table (found by fnv hash)
        d = -1
        for k in range(min(ntok, maxtok)):
            if k == 0 or def_isname[d, k]:
                w = lx_key[f + k]
                ci = cache_slot(w)
                x = tcache[ci, 1]
                if tcache[ci, 0] != w:
                    ts, te = lx_s[f + k], lx_e[f + k]
                    if w == 0:
                        w = token_key(buf, ts, te)
                    x, i, h = find_token(buf, ts, te, w if w < 0 else fnv(buf, ts, te), arena,
                                         tk_start, tk_len, tk_hash, tok_slots)
                    if x < 0:
                        x = add_token(buf, ts, te, h, i, istate, arena, tk_start, tk_len,
                                      tk_hash, tok_slots, tok2cont_id, tok2cont_name,
                                      tok2type_id, tok2type_name, tok2def)
                    if w >= 0:
                        tcache[ci, 0] = w
                        tcache[ci, 1] = x
                tokid[k] = x
            if k == 0:
                d = tok2def[tokid[0]]
                if d < 0 or def_kind[d] < 0:
                    istate[I_ERR] = E_UNKNOWN_EVENT
                    istate[I_ERR_S] = lx_s[f]
                    istate[I_ERR_E] = lx_e[f]
                    return ST_ERROR
                if ntok != def_nfields[d]:
                    break
        kind = def_kind[d]
        if kind < CREATE_CONTAINER or kind > END_LINK:
            istate[I_LINE] -= 1
            return ST_PYLINE
        line += 1
        err = E_NONE
        err_field = F_TIME
        want = K_STATE
        t = 0.0
        c = -1
        ty = -1
        if ntok != def_nfields[d]:
            err = E_FIELD_COUNT
            err_field = -1
        else:
            p = def_pos[d, F_TIME]
            t = lx_v[f + p]
            okn = not np.isnan(t)
            if not okn:
                err = E_BAD_NUMBER
            else:
                fstate[0] = t
                fstate[2] = max(fstate[2], t)
                ty = lookup(tokid[def_pos[d, F_TYPE]], tok2type_id, tok2type_name)
                cf = F_NAME if kind == DESTROY_CONTAINER else F_CONTAINER
                c = lookup(tokid[def_pos[d, cf]], tok2cont_id, tok2cont_name)
                if ty < 0:
                    err = E_UNKNOWN_TYPE
                    err_field = F_TYPE
                elif c < 0:
                    err = E_AMBIGUOUS_CONTAINER if c == AMBIGUOUS else E_UNKNOWN_CONTAINER
                    err_field = cf

        if err == E_NONE and kind == CREATE_CONTAINER:
            parent = c
            name_tok = tokid[def_pos[d, F_NAME]]
            p_a = def_pos[d, F_ALIAS]
            alias_tok = tokid[p_a] if p_a >= 0 else -1
            ident = alias_tok if alias_tok >= 0 else name_tok
            if ty_kind[ty] != K_CONTAINER:
                err = E_WRONG_KIND
                err_field = F_TYPE
            elif ty_parent[ty] != cont_type[parent]:
                err = E_NOT_CHILD_TYPE
                err_field = F_TYPE
            elif tk_len[ident] == 1 and arena[tk_start[ident]] == 48:
                err = E_RESERVED_NAME
                err_field = F_ALIAS if alias_tok >= 0 else F_NAME
            elif tok2cont_id[ident] >= 0:
                err = E_DUPLICATE_CONTAINER
                err_field = F_ALIAS if alias_tok >= 0 else F_NAME
            else:
                nc = istate[I_NCONT]
                istate[I_NCONT] = nc + 1
                cont_parent[nc] = parent
                cont_type[nc] = ty
                cont_name[nc] = name_tok
                cont_alias[nc] = alias_tok
                cont_start[nc] = t
                cont_end[nc] = np.nan
                cont_destroyed[nc] = 0
                cont_first_slot[nc] = -1
                cont_first_child[nc] = -1
                cont_next_sibling[nc] = cont_first_child[parent]
                cont_first_child[parent] = nc
                tok2cont_id[ident] = nc
                prev = tok2cont_name[name_tok]
                tok2cont_name[name_tok] = nc if prev == EMPTY else AMBIGUOUS
                copy_extra(cont_extra, nc, def_extra, d, tokid)
                continue

        if err == E_NONE and kind == DESTROY_CONTAINER:
            if cont_type[c] != ty:
                err = E_WRONG_CONTAINER_TYPE
                err_field = F_TYPE
            else:
                if not np.isnan(cont_end[c]) and t < cont_end[c]:
                    fstate[1] = cont_end[c]
                    if fail(E_CONTAINER_TIME_ORDER, lenient, istate, recov, recov_line):
                        return ST_ERROR
                    t = cont_end[c]
                if cont_destroyed[c]:
                    continue  # PajeNG ignores the destruction of a destroyed container
                err = destroy(c, t, lenient, work, istate, recov, recov_line, ty_kind,
                              cont_destroyed, cont_end, cont_first_slot, cont_first_child,
                              cont_next_sibling, slot_type, slot_last, slot_top, slot_next,
                              slot_pending, st_end, st_below, vr_end)
                if err == E_NONE:
                    continue
                err_field = F_NAME

        if err == E_NONE:
            # entity events: the type must be of the right nature, under the container's type
            if kind == NEW_EVENT:
                want = K_EVENT
            elif kind >= SET_VARIABLE and kind <= SUB_VARIABLE:
                want = K_VARIABLE
            elif kind >= START_LINK:
                want = K_LINK
            if ty_kind[ty] != want:
                err = E_WRONG_KIND
                err_field = F_TYPE
            elif ty_parent[ty] != cont_type[c]:
                err = E_NOT_CHILD_TYPE
                err_field = F_TYPE

        # link ends and values are looked up before the container's own checks (as PajeNG)
        other = -1
        val = -1
        num = 0.0
        if err == E_NONE and want == K_LINK:
            of = F_START_CONTAINER if kind == START_LINK else F_END_CONTAINER
            other = lookup(tokid[def_pos[d, of]], tok2cont_id, tok2cont_name)
            if other < 0:
                err = E_AMBIGUOUS_CONTAINER if other == AMBIGUOUS else E_UNKNOWN_CONTAINER
                err_field = of
            elif cont_type[other] != (ty_start[ty] if kind == START_LINK else ty_end[ty]):
                err = E_LINK_START_TYPE if kind == START_LINK else E_LINK_END_TYPE
                err_field = of
        if err == E_NONE and want == K_VARIABLE:
            p = def_pos[d, F_VALUE]
            num = lx_v[f + p]
            okn = not np.isnan(num)
            if not okn:
                err = E_BAD_NUMBER
                err_field = F_VALUE
            num = float(np.float32(num))  # PajeNG reads variable values with strtof
            if okn and (num == np.inf or num == -np.inf):  # beyond 32-bit floats
                err = E_BAD_NUMBER
                err_field = F_VALUE
        elif err == E_NONE and kind != POP_STATE and kind != RESET_STATE:
            v_tok = tokid[def_pos[d, F_VALUE]]
            val, i, h = value_index(ty, v_tok, val_type, val_name, val_alias, val_slots)
            if val < 0:
                val = find_value(ty, v_tok, True, istate, val_type, val_name, val_alias,
                                 val_hash, val_slots)

        if err == E_NONE and cont_destroyed[c]:
            continue  # PajeNG ignores events of destroyed containers

        if err == E_NONE:
            s, i, h = slot_index(c, ty, slot_cont, slot_type, slot_slots)
            if s < 0:
                s = new_slot(c, ty, i, h, istate, slot_cont, slot_type, slot_last, slot_top,
                             slot_next, slot_pending, slot_hash, slot_slots, cont_first_slot)
            last = slot_last[s]
            # PajeNG's checkTimeOrder: not before the last entity of this type in this container
            lim = -np.inf
            if last >= 0:
                if want == K_STATE:
                    lim = order_time(st_start[last], st_end[last])
                elif want == K_EVENT:
                    lim = ev_time[last]
                elif want == K_VARIABLE:
                    lim = order_time(vr_start[last], vr_end[last])
                else:
                    lim = order_time(ln_start[last], ln_end[last])
            if want != K_LINK and t < lim:  # links are checked when they complete
                fstate[1] = lim
                if fail(E_TIME_ORDER, lenient, istate, recov, recov_line):
                    return ST_ERROR
                t = lim  # lenient: the late event happens when the previous one did

            if want == K_STATE:
                if kind == SET_STATE or kind == RESET_STATE:
                    r = slot_top[s]
                    while r >= 0:
                        st_end[r] = t
                        r = st_below[r]
                    slot_top[s] = -1
                if kind == SET_STATE or kind == PUSH_STATE:
                    top = slot_top[s]
                    imbr = 0 if top < 0 else int(st_imbr[top]) + 1  # int16 widened, as Python too
                    if imbr > 32767:
                        err = E_TOO_DEEP
                    else:
                        r = istate[I_NSTATE]
                        istate[I_NSTATE] = r + 1
                        st_cont[r] = c
                        st_type[r] = ty
                        st_value[r] = val
                        st_start[r] = t
                        st_end[r] = np.nan
                        st_imbr[r] = imbr
                        st_below[r] = top
                        slot_top[s] = r
                        slot_last[s] = r
                        copy_extra(st_extra, r, def_extra, d, tokid)
                elif kind == POP_STATE:
                    top = slot_top[s]
                    if top < 0:
                        if fail(E_POP_EMPTY, lenient, istate, recov, recov_line):
                            return ST_ERROR
                    else:
                        st_end[top] = t
                        slot_top[s] = st_below[top]
            elif want == K_EVENT:
                r = istate[I_NEVENT]
                istate[I_NEVENT] = r + 1
                ev_cont[r] = c
                ev_type[r] = ty
                ev_value[r] = val
                ev_time[r] = t
                slot_last[s] = r
                copy_extra(ev_extra, r, def_extra, d, tokid)
            elif want == K_VARIABLE:
                base = 0.0
                new_row = True
                if last < 0:
                    if kind != SET_VARIABLE:
                        if fail(E_VARIABLE_NO_VALUE, lenient, istate, recov, recov_line):
                            return ST_ERROR
                elif vr_start[last] == t:
                    new_row = False
                    if kind == SET_VARIABLE:
                        vr_value[last] = num
                    elif kind == ADD_VARIABLE:
                        vr_value[last] += num
                    else:
                        vr_value[last] -= num
                else:
                    vr_end[last] = t
                    base = vr_value[last]
                if new_row:
                    r = istate[I_NVAR]
                    istate[I_NVAR] = r + 1
                    vr_cont[r] = c
                    vr_type[r] = ty
                    vr_start[r] = t
                    vr_end[r] = np.nan
                    if kind == SET_VARIABLE:
                        vr_value[r] = num
                    elif kind == ADD_VARIABLE:
                        vr_value[r] = base + num
                    else:
                        vr_value[r] = base - num
                    slot_last[s] = r
                    copy_extra(vr_extra, r, def_extra, d, tokid)
            else:  # links, matched by (container, type, key); either end may come first
                p = def_pos[d, F_KEY]  # (a key is not a name: its bytes kept by its link)
                ks, ke = lx_s[f + p], lx_e[f + p]
                kh = lx_key[f + p]
                if ke - ks >= 2 and buf[ks] == 34 and buf[ke - 1] == 34:
                    ks += 1  # "k1" is k1, as PajeNG reads it
                    ke -= 1
                    kh = token_key(buf, ks, ke)
                elif kh == 0:  # (a long decimal: not made by `lex`)
                    kh = token_key(buf, ks, ke)
                h = mix3(c, ty, kh)
                r, slot_i = find_link(c, ty, h, h, ln_cont, ln_type, ln_hash, link_slots)
                while r >= 0 and not same_key(buf, ks, ke, karena, ln_kstart[r], ln_klen[r]):
                    r, slot_i = find_link(c, ty, h, slot_i + 1, ln_cont, ln_type, ln_hash,
                                          link_slots)
                if r >= 0 and ln_done[r]:
                    if fail(E_KEY_REUSED, lenient, istate, recov, recov_line):
                        return ST_ERROR
                    # lenient: the key starts a new link, which takes the old one's index
                    # slot; the old one (done = 2) is kept but no longer indexed
                    ln_done[r] = 2
                    r = -1
                if r < 0:
                    r = istate[I_NLINK]
                    istate[I_NLINK] = r + 1
                    ln_cont[r] = c
                    ln_type[r] = ty
                    ln_value[r] = val
                    ka = istate[I_NKARENA]
                    for k in range(ke - ks):
                        karena[ka + k] = buf[ks + k]
                    istate[I_NKARENA] = ka + ke - ks
                    ln_kstart[r] = ka
                    ln_klen[r] = ke - ks
                    ln_done[r] = 0
                    ln_hash[r] = h
                    ln_line[r] = istate[I_LINE]
                    if kind == START_LINK:
                        ln_start[r] = t
                        ln_sc[r] = other
                        ln_end[r] = np.nan
                        ln_ec[r] = -1
                    else:
                        ln_end[r] = t
                        ln_ec[r] = other
                        ln_start[r] = np.nan
                        ln_sc[r] = -1
                    link_slots[slot_i] = r
                    slot_pending[s] += 1
                    copy_extra(ln_extra, r, def_extra, d, tokid)
                elif (kind == START_LINK) == np.isnan(ln_start[r]):
                    if ln_value[r] != val:
                        err = E_LINK_VALUE
                        err_field = F_VALUE
                    else:
                        if t < lim:
                            fstate[1] = lim
                            if fail(E_TIME_ORDER, lenient, istate, recov, recov_line):
                                return ST_ERROR
                            t = lim
                        if kind == START_LINK:
                            ln_start[r] = t
                            ln_sc[r] = other
                        else:
                            ln_end[r] = t
                            ln_ec[r] = other
                        ln_done[r] = 1
                        slot_last[s] = r
                        slot_pending[s] -= 1
                        for x in range(nextra):
                            q = def_extra[d, x]
                            if q >= 0:
                                if ln_extra[r, x] < 0:
                                    ln_extra[r, x] = tokid[q]
                                elif ln_extra[r, x] != tokid[q]:
                                    err = E_EXTRA_CONFLICT
                                    err_field = -1
                else:
                    # a second start (or end) for a pending key
                    if fail(E_KEY_REUSED, lenient, istate, recov, recov_line):
                        return ST_ERROR
            if err == E_NONE:
                cont_end[c] = t
                continue

        # an error in this event
        if err == E_TOO_DEEP or not lenient:
            istate[I_ERR] = err
            istate[I_ERR_S] = line_start
            istate[I_ERR_E] = line_start
            if err_field >= 0 and ntok == def_nfields[d] and def_pos[d, err_field] >= 0:
                p = def_pos[d, err_field]
                istate[I_ERR_S] = lx_s[f + p]
                istate[I_ERR_E] = lx_e[f + p]
            return ST_ERROR
        fail(err, lenient, istate, recov, recov_line)
    istate[I_POS] = lx_line[nlines]
    return ST_DONE


@hot
def copy_extra(table_extra, r, def_extra, d, tokid):
    """User-defined fields of the event that made row r."""
    for x in range(def_extra.shape[1]):
        q = def_extra[d, x]
        table_extra[r, x] = tokid[q] if q >= 0 else -1


@hot
def fail(code, lenient, istate, recov, recov_line):
    """Strict: record the error and say stop. Lenient: count the recovery, go on."""
    if lenient:
        recov[code] += 1
        if recov_line[code] == 0:
            recov_line[code] = istate[I_LINE]
        return False
    istate[I_ERR] = code
    istate[I_ERR_S] = -1
    istate[I_ERR_E] = -1
    return True


@jit
def destroy(c, t, lenient, work, istate, recov, recov_line, ty_kind, cont_destroyed, cont_end,
            cont_first_slot, cont_first_child, cont_next_sibling, slot_type, slot_last,
            slot_top, slot_next, slot_pending, st_end, st_below, vr_end):
    """Destroy container c and its subtree at time t: close open states and variables;
    pending links are an error (strict) or dropped and counted (lenient)."""
    top = 0
    work[0] = c
    while top >= 0:
        x = work[top]
        top -= 1
        if not cont_destroyed[x]:
            cont_destroyed[x] = 1
            cont_end[x] = t
            s = cont_first_slot[x]
            while s >= 0:
                kind = ty_kind[slot_type[s]]
                last = slot_last[s]
                if kind == K_STATE:
                    if last >= 0 and np.isnan(st_end[last]):
                        st_end[last] = t
                    r = slot_top[s]
                    while r >= 0:
                        st_end[r] = t
                        r = st_below[r]
                    slot_top[s] = -1
                elif kind == K_VARIABLE:
                    if last >= 0 and np.isnan(vr_end[last]):
                        vr_end[last] = t
                elif kind == K_LINK and slot_pending[s] > 0:
                    if not lenient:
                        istate[I_ERR] = E_INCOMPLETE_LINKS
                        work[0] = x
                        return E_INCOMPLETE_LINKS
                    recov[E_INCOMPLETE_LINKS] += slot_pending[s]
                    if recov_line[E_INCOMPLETE_LINKS] == 0:
                        recov_line[E_INCOMPLETE_LINKS] = istate[I_LINE]
                    slot_pending[s] = 0
                s = slot_next[s]
        ch = cont_first_child[x]
        while ch >= 0:
            top += 1
            work[top] = ch
            ch = cont_next_sibling[ch]
    return E_NONE
