"""What a user can cause: one base class, with bad input and bad options under it.

Messages name the thing that is wrong (a file and line, an option's value), never
a command-line flag: the CLI prints them on one line, the GUI in a dialog.
"""


class Triva3dError(Exception):
    """Anything a user can cause; its text is one line for people."""


class TraceError(Triva3dError):
    """Bad input: names the file, the line (or record) and the reason."""

    def __init__(self, file, line, message):
        self.file, self.line, self.message = str(file), line, message
        where = f"{self.file}:{line}" if line else self.file
        super().__init__(f"{where}: {message}")


class OptionsError(Triva3dError, ValueError):
    """A bad argument or setting: a value outside what the option takes."""
