"""A module per screen, named after it: what the screen shows worked out without Textual (windows, rows,
columns, shades), and its navigator, `<Screen>Navigator`, the screen's state (cursor, sort, filter,
window) and the moves the keys make, each a pure method the tests call without an app."""
