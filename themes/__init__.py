"""Built-in theme files (installed as pvtui.themes)."""
