"""The one error type that bad input produces."""


class TraceError(Exception):
    """Bad input: names the file, the line (or record) and the reason."""

    def __init__(self, file, line, message):
        self.file, self.line, self.message = str(file), line, message
        where = f"{self.file}:{line}" if line else self.file
        super().__init__(f"{where}: {message}")
