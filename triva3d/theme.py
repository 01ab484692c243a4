"""The one theme of every picture: the 3D scene, the 2D panels and the window.

Surfaces and text are VTK's 0..1 RGB; marks drawn over pictures are 0..255 RGB."""
#: The scene's and the panels' background.
BACKGROUND = (0.09, 0.10, 0.12)
#: The same, 0..255 (what marks fade to, the strip's and the SVG's ground).
BACKGROUND_RGB = tuple(round(255 * c) for c in BACKGROUND)
#: Text written over pictures, and the dark box under the legend.
TEXT_RGB = (0.92, 0.92, 0.92)
BOX_RGB, BOX_OPACITY = (0.05, 0.05, 0.06), 0.85
#: What is picked (outlines, the strip's brush) and what is pointed at elsewhere (a
#: treemap node's columns in 3D).
SELECTION_RGB = (255, 220, 0)
HOVER_RGB = (0, 220, 255)
#: The outline of the processes a focused one exchanges with (Ravel's focus).
FOCUS_RGB = (255, 90, 200)
#: The rim of every legend swatch (a key as light or dark as its row still shows).
SWATCH_EDGE = (150, 150, 150)


def parse_color(text):
    """'#rrggbb' to an (r, g, b) tuple of 0..255."""
    from .errors import OptionsError
    if isinstance(text, str) and len(text) == 7 and text[0] == "#":
        try:
            return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
        except ValueError:
            pass
    raise OptionsError(f"colour must be #rrggbb, not {text!r}")

