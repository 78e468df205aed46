"""The built-in theme files: copy one to ~/.config/pvtui/themes/ to make a theme of your own."""
