"""The desktop application (PySide6 and pyvistaqt): the View in a window, docks
bound to its ViewState. Imported only by `triva3d view`."""
