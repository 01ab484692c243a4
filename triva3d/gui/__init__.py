"""The desktop application (PySide6 and pyvistaqt): the View in a window, docks
bound to its ViewState. Imported only by `triva3d view`."""


class Cancelled(Exception):
    """The user cancelled a load or an export."""
