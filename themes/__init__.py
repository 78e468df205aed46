"""The built-in theme files, installed as pvtui.themes: copy one to ~/.config/pvtui/themes/ to make a theme
of your own."""
