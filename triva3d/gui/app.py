"""Starting the desktop application."""
import sys


def run(path=None, state=None, quality="fast", lenient=False, by_task=False):
    """Open the main window (on `path`, a trace, if given) and run until it closes;
    the exit status. Without a display (and no Qt platform chosen) it says so, as
    an OptionsError, instead of letting Qt abort."""
    import os
    if (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
            and not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("QT_QPA_PLATFORM")):
        from ..errors import OptionsError
        raise OptionsError("the window needs a display (X11 or Wayland); without one, "
                           "draw pictures with the render command")
    from PySide6 import QtWidgets
    from .window import MainWindow
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("triva3d")
    window = MainWindow(state, quality=quality, lenient=lenient, by_task=by_task)
    from ..kernels import on_first_compile  # a cold cache: the load says it compiles
    on_first_compile(window.compiling.emit)
    window.show()
    if path:
        window.open_any(str(path))
    return app.exec()
