"""Rich renderables shared by the headless commands and the screens.

Below both: it imports neither `pvtui.commands` nor `pvtui.screens`, nor textual.
"""
