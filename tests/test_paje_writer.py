"""`convert`'s writer: its text does not depend on how it is cut into time windows and
chunks; names are written as `_token` says."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from triva3d import load
from triva3d.paje import writer
from triva3d.trace import Names


def test_windows_and_chunks_do_not_change_the_text(data, tmp_path, monkeypatch):
    """Tiny windows and chunks (many of each, cut inside runs of equal times) give the
    bytes of one window and one chunk, on traces with zero-length and nested states,
    accumulated variables, shared link keys and extra fields."""
    for name in ("ms.trace", "simu-mardi.trace", "native_sample.trace", "categories.trace"):
        trace = load(data / "paje" / name, cache=False)
        writer.write_paje(trace, tmp_path / "whole")
        monkeypatch.setattr(writer, "WINDOW", 97)
        monkeypatch.setattr(writer, "CHUNK", 13)
        writer.write_paje(trace, tmp_path / "cut")
        windows = sum(1 for _ in writer._Body(trace)._windows())
        monkeypatch.undo()
        assert (tmp_path / "cut").read_bytes() == (tmp_path / "whole").read_bytes(), name
        assert windows >= 3, (name, windows)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.binary(max_size=6) | st.text(" \t\"ab\u00e9\u3000\x85", max_size=6).map(
    str.encode), min_size=1, max_size=8))
def test_plain_names_are_their_own_token(raw):
    """The compiled check that keeps a name's bytes agrees with `_token`."""
    offsets = np.cumsum([0] + [len(r) for r in raw])
    names = Names(np.frombuffer(b"".join(raw), np.uint8), offsets)
    plain = writer._plain(names.arena, names.offsets)
    for i, r in enumerate(raw):
        if plain[i]:
            assert writer._token(names[i]).encode() == r, r
        else:
            assert not (r.isascii() and r.decode().isprintable() and writer._token(r.decode())
                        == r.decode()), r
