"""What a user can cause: one base class, with bad input and bad options under it.

Messages name the thing that is wrong (a file and line, an option's value), never
a command-line flag: the CLI prints them on one line, the GUI in a dialog.
"""
import json
import os


#: Longest error text shown (an input's excerpt can be a 10 MB line).
MAX_TEXT = 400


def printable(text, limit=MAX_TEXT):
    """`text` safe for a terminal and one line: control and other unprintable
    characters escaped (an input's escape sequences or binary bytes), at most
    `limit` characters."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text)[:limit + 1])
    return out if len(out) <= limit else out[:limit - 3] + "..."


class Triva3dError(Exception):
    """Anything a user can cause; its text is one line for people, printable."""

    def __str__(self):
        return printable(super().__str__())


class TraceError(Triva3dError):
    """Bad input: names the file, the line (or record) and the reason.
    `lenient_reads`: the lenient mode reads past this refusal (each front end
    says how to ask for it)."""

    def __init__(self, file, line, message, lenient_reads=False):
        self.file, self.line, self.message = str(file), line, message
        self.lenient_reads = lenient_reads
        where = f"{self.file}:{line}" if line else self.file
        super().__init__(f"{where}: {message}")


def out_of_memory(path, doing="reading"):
    """The TraceError of `doing` `path` that ran out of memory (raised once out of the
    MemoryError's handler, so that what was made is freed first)."""
    return TraceError(path, None, f"ran out of memory {doing} it: too big for this "
                                  "machine's memory")


class OptionsError(Triva3dError, ValueError):
    """A bad argument or setting: a value outside what the option takes."""


#: The largest side file read (a mapping, a hierarchy, colours, a view, keyframes):
#: /dev/zero as a mapping was read until the kernel killed the process.
SIDE_FILE_LIMIT = 256 << 20
#: Seconds to wait for a process to open a FIFO given as input, and write to it.
FIFO_WAIT = 30.0


def open_input(path, what="the file", wait=None):
    """`path` opened to read bytes; a FIFO no process opens for writing within `wait`
    seconds (default FIFO_WAIT) is a TraceError (open() waited for one forever).
    Errors name `what`."""
    import select
    import stat
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return open(path, "rb")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # returns at once, writer or not
    except OSError as e:
        raise TraceError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    poll = select.poll()
    poll.register(fd, select.POLLIN | select.POLLHUP)
    wait = FIFO_WAIT if wait is None else wait
    if not poll.poll(wait * 1000):  # no writer ever came, or it wrote nothing yet
        os.close(fd)
        raise TraceError(path, None, f"a FIFO no process wrote to in {wait:g} s: {what} "
                                     "is read from a writer started first")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_text(path, what="the file", limit=SIDE_FILE_LIMIT):
    """The text of `path` as UTF-8 (at most `limit` bytes); a TraceError naming the
    line of the first byte that is not UTF-8 (a Latin-1 file, binary), or why it
    cannot be read."""
    try:
        with open_input(path, what) as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise TraceError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    if len(data) > limit:
        raise TraceError(path, None, f"larger than {limit >> 20} MiB: not {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceError(path, data[:e.start].count(b"\n") + 1,
                         f"not UTF-8 text (byte 0x{data[e.start]:02x}): save it as UTF-8") \
            from None


def read_json(path, what="the file", deepest=None):
    """The JSON value in `path` (read by `read_text`); a TraceError naming the line
    where it is not JSON, or saying it is nested deeper than Python's recursion limit
    lets json read (`deepest`: the levels the caller raised that limit for)."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceError(path, e.lineno, f"not JSON: {e.msg}") from None
    except ValueError as e:  # an integer of more digits than Python converts
        raise TraceError(path, None, f"not JSON: {e}") from None
    except RecursionError:  # json's parser recurses
        raise TraceError(path, None, f"nested deeper than {deepest} levels" if deepest
                         else "nested too deeply to read") from None
