"""The commands, a module each: add_arguments(parser) and run(args) -> exit code.

`pvtui.cli` names them and imports only the one that runs. What they share is in
`pvtui.commands.common`.
"""
