"""The user's own files: the configuration (keymap, defaults) and the state remembered between runs. No textual, no rich."""
