"""How pvtui runs as a process: a child program run in its place, the standard streams when they fail, imports put off until used, one OpenBLAS thread."""
