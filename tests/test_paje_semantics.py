"""Pajé semantics on small traces whose results are worked out by hand."""
import threading

import numpy as np
import pytest

from conftest import HEADER, TYPES, assert_same_every_way, dump_lines, read_every_way
from triva3d import TraceError, load
from triva3d.ahead import THREAD
from triva3d.paje import kernel as K, reader

BODY_LINE = len((HEADER + TYPES).splitlines())  # line number of the line before the body
SET_STATE_DEF = HEADER.splitlines().index("%EventDef PajeSetState 11") + 1


@pytest.fixture(autouse=True, params=["compiled", "python"])
def kernel(request, monkeypatch):
    """Every case twice: the kernel compiled, and run as Python as for a small file."""
    if request.param == "python":
        monkeypatch.setattr(reader, "INTERPRET_BELOW", 1 << 40)


def states_of(trace):
    names = trace.names
    return [(trace.values.name[v] and names[trace.values.name[v]], s, e, int(i))
            for v, s, e, i in zip(trace.states.value, trace.states.start, trace.states.end,
                                  trace.states.imbrication)]


def test_set_push_pop_reset_and_imbrication(paje):
    t = paje("""\
11 1.0 p1 S run
12 2.0 p1 S io
12 3.0 p1 S mpi
13 4.0 p1 S
11 5.0 p1 S wait
12 6.0 p1 S io
14 7.0 p1 S
12 8.0 p1 S run
7 9.0 P p1
""")
    # Set resets the stack (closes run and io at 5), Reset closes wait and io at 7,
    # destruction closes the last push at 9.
    assert sorted(states_of(t)) == sorted([
        ("run", 1, 5, 0), ("io", 2, 5, 1), ("mpi", 3, 4, 2),
        ("wait", 5, 7, 0), ("io", 6, 7, 1), ("run", 8, 9, 0)])
    c = t.containers
    assert [t.names[n] for n in c.name] == ["0", '"P1"', '"P2"']
    assert list(c.end) == [9, 9, 9] and list(c.start) == [0, 0, 0]


def test_variables_set_add_sub_and_same_time_update(paje):
    t = paje("""\
8 1.0 p1 V 10
9 2.0 p1 V 3
10 2.0 p1 V 1
8 4.0 p1 V 5
""")
    v = t.variables
    # Add at 2 makes 13, Sub at the same time updates that piece to 12.
    assert list(zip(v.start, v.end, v.value)) == [(1, 2, 10), (2, 4, 12), (4, 4, 5)]


def test_variable_values_are_read_as_32_bit_floats_like_pajeng(paje):
    t = paje("8 1.0 p1 V 0.1\n9 2.0 p1 V 0.1\n")
    f = float(np.float32(0.1))
    assert list(t.variables.value) == [f, f + f]


def test_links_match_by_key_with_the_end_first(paje):
    t = paje("""\
16 2.0 0 L p2 m k1
15 2.0 0 L p1 m k1
15 3.0 0 L p1 m k2
16 4.0 0 L p2 m k2
""")
    L, n = t.links, t.names
    got = sorted((n[k], s, e, n[t.containers.name[a]], n[t.containers.name[b]])
                 for k, s, e, a, b in zip(L.key, L.start, L.end, L.start_container,
                                          L.end_container))
    assert got == [("k1", 2, 2, '"P1"', '"P2"'), ("k2", 3, 4, '"P1"', '"P2"')]
    assert set(L.container) == {0}


def test_destroy_closes_and_later_events_of_that_container_are_ignored(paje):
    t = paje("""\
11 0.5 p1 S run
17 1.0 p1 E hello
7 2.0 P p1
11 3.0 p1 S io
17 4.0 p2 E bye
""")
    assert states_of(t) == [("run", 0.5, 2, 0)]
    assert sorted(t.names[t.values.name[v]] for v in t.events.value) == ["bye", "hello"]
    assert list(t.containers.end) == [4, 2, 4]


def test_entity_values_keep_aliases_and_colours(paje):
    t = paje('5 r S "Running" "0 0.5 1"\n11 1 p1 S r\n11 2 p1 S other\n')
    names = [t.names[t.values.name[v]] for v in t.states.value]
    assert names == ['"Running"', "other"]
    assert np.allclose(t.value_colors[t.states.value[0]], [0, 0.5, 1, 1])
    assert np.isnan(t.value_colors[t.states.value[1]]).all()
    assert np.allclose(t.type_colors[t.types.name.tolist().index(t.names.lookup('"Var"')[0])],
                       [1, 0, 0, 1])


def test_header_with_free_ids_field_order_extra_fields_crlf_comments_quotes(trace_file):
    text = """\
%EventDef PajeDefineContainerType 100
% Name string
% Type string
% Alias string
%EndEventDef
%EventDef PajeCreateContainer c
% Name string
% Container string
% Type string
% Time date
% Alias string
%EndEventDef
%EventDef PajeDefineStateType st
% Alias string
% Name string
% Type string
%EndEventDef
%EventDef PajeSetState a
% Time date
% Container string
% Type string
% Value string
% Size int
% Note string
%EndEventDef
%EventDef PajeSetState b
% Value string
% Type string
% Container string
% Time date
%EndEventDef
# a comment line
100 "Machine Node" 0 M   # a trailing comment
c "node 1" 0 M 0 n1
st S "Thread State" M
a 1e-3 n1 S "Busy Wait" 42 "with space"
b Idle S "node 1" 2.5E-3
""".replace("\n", "\r\n")
    t = load(trace_file(text), cache=False)
    assert t.names[t.types.name[1]] == '"Machine Node"' and t.display_name("types", 1) == "Machine Node"
    assert t.names[t.containers.name[1]] == '"node 1"'
    assert states_of(t) == [('"Busy Wait"', 0.001, 0.0025, 0), ("Idle", 0.0025, 0.0025, 0)]
    extra = t.states.extra
    assert [t.names[x] for x in extra["Size"][:1]] == ["42"] and extra["Size"][1] == -1
    assert dump_lines(t, user_defined=True)[-2:] == [
        'State, "node 1", "Thread State", 0.001000, 0.002500, 0.001500, 0.000000, "Busy Wait", '
        '"with space", 42',
        'State, "node 1", "Thread State", 0.002500, 0.002500, 0.000000, 0.000000, Idle']


def test_reference_by_name_must_be_unambiguous(paje):
    types = TYPES + '0 T P "Thread"\n2 TS T "TState"\n6 0 a T p1 "T"\n6 0 b T p2 "T"\n'
    t = paje('11 1 a TS x\n11 1 "P1" S y\n', types=types)
    assert len(t.states) == 2
    with pytest.raises(TraceError, match="several containers are named '\"T\"'"):
        paje('11 1 "T" TS x\n', types=types)


def test_states_nested_beyond_the_imbrication_column_are_an_error(paje):
    """Push 32768 deep: the int16 depth column cannot hold it (as Python too, where
    numpy would keep int16 arithmetic and wrap)."""
    body = "12 0 p1 S run\n" * 32769
    with pytest.raises(TraceError, match="states nested more than 32767 deep") as e:
        paje(body)
    assert e.value.line == BODY_LINE + 32769


def test_end_of_trace_closes_everything_at_the_last_time(paje):
    t = paje("12 1 p1 S a\n12 2 p1 S b\n8 3 p2 V 1\n15 3 0 L p1 m k\n16 6 0 L p2 m k\n")
    assert sorted(states_of(t)) == [("a", 1, 6, 0), ("b", 2, 6, 1)]
    assert list(t.variables.end) == [6]
    assert t.end_time == 6 and list(t.containers.end) == [6, 6, 6]


def test_trace_file_event_reads_another_file(trace_file):
    trace_file("11 2.0 p1 S inside\n", name="part.trace")
    main = HEADER + "%EventDef PajeTraceFile 20\n% Container string\n% Type string\n" \
                    "% Filename string\n%EndEventDef\n" + TYPES + \
        '11 1.0 p1 S before\n20 p1 P "part.trace"\n20 0 0 main.trace\n11 3.0 p1 S after\n'
    t = load(trace_file(main, name="main.trace"), cache=False)
    assert [v for v, *_ in states_of(t)] == ["before", "inside", "after"]
    assert len(t.files) == 2 and any("already being read" in r[0] for r in t.report)


def test_trace_file_that_does_not_exist_is_an_error_at_its_line(trace_file):
    main = HEADER + "%EventDef PajeTraceFile 20\n% Container string\n% Type string\n" \
                    "% Filename string\n%EndEventDef\n" + TYPES + "20 p1 P missing.trace\n"
    with pytest.raises(TraceError, match="missing.trace', which is not a readable file") as e:
        load(trace_file(main), cache=False)
    assert e.value.line == len(main.splitlines())


def test_lenient_reused_key_survives_index_growth(paje):
    # k0 completes, is reused (a new pending link), then 10000 links grow the link index
    body = "15 0 0 L p1 m k0\n16 0 0 L p2 m k0\n15 0 0 L p1 m k0\n"
    body += "".join(f"15 0 0 L p1 m j{i}\n16 0 0 L p2 m j{i}\n" for i in range(10000))
    t = paje(body + "16 1 0 L p2 m k0\n", lenient=True)
    assert len(t.links) == 10002
    assert t.report == [("reused link keys started new links", 1, BODY_LINE + 3)]
    k0 = np.array(t.names.displays(t.links.key)) == "k0"  # (each link's key: its own name)
    assert sorted(t.links.end[k0]) == [0, 1]


STRICT_ERRORS = [
    ("11 1.0 p9 S run", 1, "unknown container 'p9'"),
    ("11 1.0 p1 Q run", 1, "unknown type 'Q'"),
    ("11 1.0 p1 V run", 1, "type 'V' is not a state type"),
    ("13 1.0 p1 S", 1, "PajePopState with no state pushed"),
    ("9 1.0 p1 V 1", 1, "PajeAddVariable on a variable that has no value yet"),
    ("11 2.0 p1 S run\n11 1.0 p1 S io", 2, "not time-ordered: PajeSetState at 1.0 after an"
                                          " entity of the same type and container at 2"),
    ("15 1 0 L p1 m k\n16 2 0 L p2 m k\n15 3 0 L p1 m k", 3, "link key already used"),
    ("15 1 0 L p1 m k\n16 2 0 L p2 x k", 2, "link value 'x' differs"),
    ("15 1 0 L p2 m k\n16 2 0 L p9 m k", 2, "unknown container 'p9'"),
    ("11 1.0 p1 S", 1, f"4 fields where the definition of PajeSetState (line {SET_STATE_DEF}) "
                       "has 5"),
    ("11 abc p1 S run", 1, "'abc' is not a number"),
    ('6 0 p1 P 0 "X"', 1, "container 'p1' already exists"),
    ('6 0 0 P 0 "X"', 1, "the container name '0' is reserved"),
    ("99 1 2 3", 1, "event id '99' has no complete %EventDef"),
    ('11 1.0 "p1 S run', 1, "unterminated quoted string"),
    ("7 2 P p1\n7 1 P p1", 2, "container events are not time-ordered"),
    ("0 P 0 Again", 1, "type 'P' is already defined"),
    ('5 x V Bad "1 0 0"', 1, "values cannot be defined for the variable type 'V'"),
    ("%EventDef PajeSetState 11", 1, "redefinition of event id '11'"),
]


@pytest.mark.parametrize("body,line,message", STRICT_ERRORS)
def test_strict_errors_name_the_line_and_reason(paje, body, line, message):
    with pytest.raises(TraceError) as e:
        paje(body + "\n")
    assert e.value.line == BODY_LINE + line
    assert message in e.value.message


def test_incomplete_links_are_an_error_at_the_end_and_dropped_when_lenient(paje):
    with pytest.raises(TraceError, match=r"1 incomplete link\(s\) at the end of container 0 "
                                         r"\(first key k\)"):
        paje("15 1 0 L p1 m k\n")
    t = paje("15 1 0 L p1 m k\n15 2 0 L p1 m j\n16 3 0 L p2 m j\n", lenient=True)
    assert len(t.links) == 1 and t.names[t.links.key[0]] == "j"
    assert t.report == [("incomplete links dropped (as pj_dump -z)", 1, BODY_LINE + 3)]


@pytest.mark.parametrize("body,line,message", [e for e in STRICT_ERRORS if e[0][0] != "%"
                                                and "reserved" not in e[2]
                                                and "already defined" not in e[2]
                                                and "values cannot" not in e[2]
                                                and "unterminated" not in e[2]
                                                and "complete %EventDef" not in e[2]])
def test_lenient_recovers_and_reports_each_recovery(paje, body, line, message):
    t = paje(body + "\n", lenient=True)
    what, count, first = t.report[0]
    assert count == 1 and first == BODY_LINE + line
    # a skipped link end leaves its other end incomplete: dropped, and said so
    assert all(r[0] == "incomplete links dropped (as pj_dump -z)" for r in t.report[1:])


def test_lenient_out_of_order_events_take_the_previous_time(paje):
    t = paje("11 2.0 p1 S run\n11 1.0 p1 S io\n8 3 p2 V 1\n8 2.5 p2 V 7\n", lenient=True)
    assert states_of(t) == [("run", 2, 2, 0), ("io", 2, 3, 0)]
    assert list(zip(t.variables.start, t.variables.value)) == [(3, 7)]


INCLUDE = HEADER + "%EventDef PajeTraceFile 20\n% Container string\n% Type string\n" \
                   "% Filename string\n%EndEventDef\n" + TYPES


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.trace", "sub/../../outside.trace",
                                  "link.trace"])
def test_trace_file_outside_the_traces_folder_is_refused(tmp_path, name):
    folder = tmp_path / "trace"
    folder.mkdir()
    (tmp_path / "outside.trace").write_text("11 2.0 p1 S secret\n")
    (folder / "link.trace").symlink_to(tmp_path / "outside.trace")
    main = folder / "main.trace"
    main.write_text(INCLUDE + f'11 1.0 p1 S before\n20 p1 P "{name}"\n')
    with pytest.raises(TraceError, match="outside the folder of the trace") as e:
        load(main, cache=False)
    assert e.value.line == len(main.read_text().splitlines()) and "secret" not in str(e.value)


def test_trace_file_chains_deeper_than_the_limit_are_one_error(tmp_path):
    from triva3d.paje.reader import MAX_INCLUDES
    for i in range(MAX_INCLUDES + 1):  # f0 includes f1 ... includes f64
        (tmp_path / f"f{i}.trace").write_text(
            (INCLUDE if i == 0 else "") + f'11 {i}.0 p1 S s{i}\n20 p1 P "f{i + 1}.trace"\n')
    (tmp_path / f"f{MAX_INCLUDES + 1}.trace").write_text("11 99.0 p1 S last\n")
    with pytest.raises(TraceError, match=f"more than {MAX_INCLUDES} files deep"):
        load(tmp_path / "f0.trace", cache=False)
    (tmp_path / f"f{MAX_INCLUDES - 1}.trace").write_text(f"11 {MAX_INCLUDES - 1}.0 p1 S end\n")
    t = load(tmp_path / "f0.trace", cache=False)  # exactly the limit reads
    assert len(t.files) == MAX_INCLUDES and len(t.states) == MAX_INCLUDES


def test_user_defined_field_names_are_bounded(tmp_path):
    """Each distinct extra field name is a column of every table: 10 000 of them
    (one per %EventDef) would take gigabytes; beyond the limit it is one error."""
    from triva3d.paje.defs import MAX_EXTRA_NAMES
    defs = "".join(f"%EventDef PajeNewEvent {100 + i}\n% Time date\n% Container string\n"
                   f"% Type string\n% Value string\n% F{i} string\n%EndEventDef\n"
                   for i in range(MAX_EXTRA_NAMES + 1))
    path = tmp_path / "many.trace"
    path.write_text(defs + HEADER)
    with pytest.raises(TraceError, match=f"more than {MAX_EXTRA_NAMES} user-defined") as e:
        load(path, cache=False)
    assert e.value.line == 7 * (MAX_EXTRA_NAMES + 1)


@pytest.mark.parametrize("body, message", [
    ("11 1e400 p1 S run\n", "'1e400' is not a number in range"),     # was a time of inf
    ("8 1 p1 V 1e39\n", "'1e39' is not a number in range"),           # was inf as float32
    ("8 1 p1 V -1e300\n", "'-1e300' is not a number in range"),
])
def test_numbers_out_of_range_are_errors_not_infinities(trace_file, body, message):
    with pytest.raises(TraceError, match=message) as e:
        load(trace_file(HEADER + TYPES + body), cache=False)
    assert e.value.line == len((HEADER + TYPES).splitlines()) + 1


def test_carriage_returns_alone_are_refused_not_an_empty_trace(trace_file):
    text = (HEADER + TYPES + "11 1 p1 S run\n").replace("\n", "\r")
    with pytest.raises(TraceError, match="carriage return alone") as e:
        load(trace_file(text), cache=False)
    assert e.value.line == 1


def test_a_last_line_without_newline_is_reported(trace_file):
    """A file cut inside its last token ('io' -> 'i') loaded a new value silently."""
    t = load(trace_file(HEADER + TYPES + "11 1 p1 S run\n11 2 p1 S i"), cache=False)
    line = len((HEADER + TYPES).splitlines()) + 2
    assert t.report == [("last line without an end of line (the file may be truncated)", 1,
                         line)]
    assert not load(trace_file(HEADER + TYPES + "11 1 p1 S run\n"), cache=False).report


def test_long_runs_of_definitions_between_events(trace_file):
    """Definitions go to Python in runs (at most 4096 lines, 65536 tokens): an event
    right after a run uses what it defined, a %EventDef takes effect on the next line,
    and an error deep in a run names its own line."""
    wide = ("%EventDef PajeDefineEntityValue 30\n% Alias string\n% Type string\n"
            "% Name string\n% Color color\n" + "".join(f"% F{k} string\n" for k in range(60))
            + "%EndEventDef\n")
    lines, expect = [], []
    for i in range(6000):  # 64 tokens a line: the token limit ends runs before 4096 lines
        lines.append(f'30 v{i} S "V{i}" "0 0 {i % 2}" ' + " ".join(["x"] * 60))
        if i % 1500 == 1499:
            lines.append(f"11 {i} p1 S v{i}")
            expect.append(f'"V{i}"')
    lines += ["%EventDef PajeSetState 31", "% Time date", "% Type string", "% Container string",
              "% Value string", "%EndEventDef", "31 7000 S p1 v42"]
    expect.append('"V42"')
    text = HEADER + wide + TYPES + "\n".join(lines) + "\n"
    t = load(trace_file(text), cache=False)
    assert [v for v, *_ in states_of(t)] == expect
    s_type = t.types.name.tolist().index(t.names.lookup('"State"')[0])
    assert (t.values.type == s_type).sum() == 6000
    v5 = t.names.lookup('"V5"')[0]
    assert np.allclose(t.value_colors[t.values.name.tolist().index(v5)], [0, 0, 1, 1])
    lines[5000] = lines[3].replace('"V3"', '"again"')  # v3 defined a second time
    with pytest.raises(TraceError, match="value 'v3' is already defined") as e:
        load(trace_file(HEADER + wide + TYPES + "\n".join(lines) + "\n"), cache=False)
    assert e.value.line == len((HEADER + wide + TYPES).splitlines()) + 5001


def test_runs_of_definitions_with_blank_lines_and_an_included_file(trace_file):
    """Blank and comment lines inside a run of definitions, a PajeTraceFile in the
    middle of one (the run ends after it; the included file defines a type the rest
    uses), and a run of exactly 4096 definitions followed by an event: each line
    counted, each definition applied."""
    trace_file('2 S2 P "Second"\n', name="types.trace")
    inc = ("%EventDef PajeTraceFile 20\n% Container string\n% Type string\n"
           "% Filename string\n%EndEventDef\n")
    body = ('5 a S "A" "1 0 0"\n\n   \n# a comment\n20 0 0 "types.trace"\n5 b S2 "B" "0 1 0"\n'
            + "".join(f'5 v{i} S "V{i}" "0 0 1"\n' for i in range(4096 - 3))
            + '11 1 p1 S a\n11 2 p1 S2 b\n5 c S "C" "1 1 1"\n5 c S "again" "1 1 1"\n')
    text = HEADER + inc + TYPES + body
    with pytest.raises(TraceError, match="value 'c' is already defined") as e:
        load(trace_file(text, name="main.trace"), cache=False)
    assert e.value.line == len(text.splitlines())
    t = load(trace_file(text.rsplit("5 c S", 1)[0], name="main2.trace"), cache=False)
    assert [v for v, *_ in states_of(t)] == ['"A"', '"B"']
    assert len(t.values) >= 4096


AHEAD_WAYS = {"one thread": dict(AHEAD_ABOVE=1 << 40),
              "ahead, 3 lines a batch": dict(AHEAD_ABOVE=0, LEX_LINES=3),
              "ahead, few tokens a batch": dict(AHEAD_ABOVE=0, LEX_TOKENS=K.MAXTOK + 3)}


class _File:
    """A trace file opened by the reader, watched: reads past `fails_after` fail, and
    `on_close` is called as it closes."""

    def __init__(self, f, fails_after=None, on_close=None):
        self.f, self.fails_after, self.on_close, self.reads = f, fails_after, on_close, 0

    def read(self, n):
        self.reads += 1
        if self.fails_after is not None and self.reads > self.fails_after:
            raise OSError("gone")
        return self.f.read(n)

    def fileno(self):
        return self.f.fileno()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.on_close:
            self.on_close()
        self.f.close()


def test_file_level_errors_and_notes_are_the_same_tokenized_ahead(trace_file, tmp_path,
                                                                   monkeypatch):
    """A big file is read and tokenized by a second thread: a carriage-return file, a
    line too long, a last line without its end, an event error in a later batch, an
    included file (its own second thread) and a failing disk give the same Trace,
    error or note, line included, as the file read in one thread; a progress callback
    sees the same bytes."""
    monkeypatch.setattr(reader, "MAX_LINE", 1000)
    body = HEADER + TYPES + "".join(f"11 {i} p1 S run\n" for i in range(20))
    (tmp_path / "part.trace").write_text("".join(f"11 {i} p1 S io\n" for i in range(20, 40)))
    include = (HEADER + "%EventDef PajeTraceFile 20\n% Container string\n% Type string\n"
               "% Filename string\n%EndEventDef\n" + TYPES + '20 p1 P "part.trace"\n' +
               "".join(f"11 {i} p1 S run\n" for i in range(40, 45)))
    (tmp_path / "main.trace").write_text(include)
    truncated = "last line without an end of line (the file may be truncated)"
    for path, expected in ((trace_file(body.replace("\n", "\r")), "carriage return alone"),
                           (trace_file(body + "x" * 5000), "a line longer than"),
                           (trace_file(body + "11 30 p1 S i"), (21, truncated)),
                           (trace_file(body + "11 5 p1 S run\n"), "not time-ordered"),
                           (tmp_path / "main.trace", (25, None))):
        got = read_every_way(path, ways=AHEAD_WAYS)
        assert_same_every_way(got)
        first = got["one thread"]
        if isinstance(expected, str):
            assert expected in first
        else:
            assert (len(first.states), first.report[0][0] if first.report else None) == expected
    seen = {}
    opened = reader.open_input
    monkeypatch.setattr(reader, "CHUNK", 100)
    for way, settings in AHEAD_WAYS.items():
        with monkeypatch.context() as m:
            for k, v in settings.items():
                m.setattr(reader, k, v)
            calls = []
            reader.read_paje(trace_file(body), progress=lambda *a: calls.append(a))
            seen[way] = calls
            m.setattr(reader, "open_input", lambda *a: _File(opened(*a), fails_after=2))
            with pytest.raises(OSError, match="gone"):
                reader.read_paje(trace_file(body))
    assert len(set(map(tuple, seen.values()))) == 1 and len(seen["one thread"]) > 3


def test_a_read_that_stops_stops_its_second_thread(trace_file, monkeypatch):
    """A progress callback that raises, or an error on the first event, while the
    second thread is a full queue ahead: the read ends at once, the thread is gone
    before the file closes, and none is left."""
    monkeypatch.setattr(reader, "AHEAD_ABOVE", 0)
    monkeypatch.setattr(reader, "LEX_LINES", 1)
    monkeypatch.setattr(reader, "CHUNK", 1000)
    events = "".join(f"11 {i} p1 S run\n" for i in range(20000))
    closed_with = []
    opened = reader.open_input
    monkeypatch.setattr(reader, "open_input", lambda *a: _File(opened(*a), on_close=lambda: (
        closed_with.append([t.name for t in threading.enumerate() if t.name == THREAD]))))

    running = []

    def stop(done, total):
        running.extend(t.name for t in threading.enumerate() if t.name == THREAD)
        raise KeyboardInterrupt
    for text, kwargs, error in ((HEADER + TYPES + events, dict(progress=stop), KeyboardInterrupt),
                                (HEADER + TYPES + "11 x p1 S run\n" + events, {}, TraceError)):
        path = trace_file(text)
        ended = []

        def read():
            try:
                reader.read_paje(path, **kwargs)
            except error:
                ended.append(True)
        t = threading.Thread(target=read)
        t.start()
        t.join(60)
        assert not t.is_alive() and ended == [True]
    assert closed_with == [[], []] and running == [THREAD]
    assert not [t for t in threading.enumerate() if t.name == THREAD]


def test_a_quoted_key_is_the_unquoted_one(paje):
    """`"k1"` starts the link `k1` ends, as PajeNG matches them (pj_dump: one link, key
    k1); a key's quotes are not kept."""
    t = paje('15 0 0 L p1 m "k1"\n16 1 0 L p2 m k1\n')
    assert len(t.links) == 1 and t.names.displays(t.links.key) == ["k1"]
    assert t.names[int(t.links.key[0])] == "k1"
    # a key that reads as a long decimal number (its key made by the simulation)
    t = paje('15 0 0 L p1 m "1234567.89"\n15 0 0 L p1 m 1234567.8\n'
             '16 1 0 L p2 m 1234567.89\n16 2 0 L p2 m "1234567.8"\n')
    assert sorted(zip(t.names.displays(t.links.key), t.links.end.tolist())) == [
        ("1234567.8", 2), ("1234567.89", 1)]


def test_names_sharing_an_entry_of_the_kernels_cache_stay_apart(paje):
    """The kernel finds short names (K.WORD bytes at most) through a cache of one entry
    per K.cache_slot of their bytes: names that share an entry, names longer than
    K.WORD that share their first K.WORD bytes, and values among them, each keep their
    own container and value; so do names whose bytes, as a number, are the same but
    their lengths not (a NUL first)."""
    slot = lambda name: int(K.cache_slot(K.token_key(np.frombuffer(name, np.uint8), 0,
                                                      len(name))))
    by_slot = {}
    for i in range(50000):
        by_slot.setdefault(slot(b"n%d" % i), []).append(b"n%d" % i)
    shared = next(names for names in by_slot.values() if len(names) >= 4)[:4]
    long = [b"abcdefgh", b"abcdefghX", b"abcdefghY", b"abcdefg"]
    names = [n.decode() for n in shared + long + [b"a", b"\0a", b"1234567.5"]]
    values = [names[0], names[1], "v"]  # values named as containers, two in one entry
    body = "".join(f'6 0 {n} P 0 "{n}"\n' for n in names)
    expected = {n: [] for n in names}
    for t in range(600):
        n, v = names[t % len(names)], values[t % 3]
        body += f"11 {t} {n} S {v}\n"
        expected[n].append(v)
    got = {n: [] for n in names}
    tr = paje(body)
    for c, v in zip(tr.states.container, tr.states.value):
        got[tr.names[int(tr.containers.alias[c])]].append(tr.names[int(tr.values.name[v])])
    assert got == expected and len(tr.values) == 3
