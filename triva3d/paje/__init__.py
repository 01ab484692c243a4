"""Pajé text input. Telling a trace apart is cheap and lives here; reading it (the
kernel, the simulator) is in `reader` and loads only when needed."""


def is_paje(head):
    """Could a file starting with `head` (all of it when shorter than 4 KiB) be a Pajé
    trace: no NUL byte, its first line but blanks and comments a `%` line (undecided
    within a part: yes)?"""
    whole = len(head) < 4096
    if b"\0" in head:
        return False
    lines = head.splitlines()
    for line in lines if whole else lines[:-1]:
        line = line.strip()
        if line and not line.startswith(b"#"):
            return line.startswith(b"%")
    return not whole
