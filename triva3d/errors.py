"""What a user can cause: one base class, with bad input and bad options under it.

Messages name the thing that is wrong (a file and line, an option's value), never
a command-line flag: the CLI prints them on one line, the GUI in a dialog.
"""


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


class OptionsError(Triva3dError, ValueError):
    """A bad argument or setting: a value outside what the option takes."""


def read_text(path, what="the file"):
    """The text of `path` as UTF-8; a TraceError naming the line of the first byte
    that is not UTF-8 (a Latin-1 file, binary), or why it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TraceError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceError(path, data[:e.start].count(b"\n") + 1,
                         f"not UTF-8 text (byte 0x{data[e.start]:02x}): save it as UTF-8") \
            from None
