"""Headless commands with a module each: insights, operations, compare, split.

Each module has HELP (one line), add_arguments(parser) and run(args) -> exit code;
`pvtui.cli` registers them. Keep their imports lazy: `pvtui --help` loads them all.
"""
