"""Starting the desktop application."""
import sys


def run(path=None, state=None, quality="fast", lenient=False):
    """Open the main window (on `path`, a trace, if given) and run until it closes;
    the exit status."""
    from PySide6 import QtWidgets
    from .window import MainWindow
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("triva3d")
    window = MainWindow(state, quality=quality, lenient=lenient)
    window.show()
    if path:
        window.open_any(str(path))
    return app.exec()
