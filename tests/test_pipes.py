"""A reader that closes the pipe early ends a command quietly, as for other Unix tools."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pvtui.cli import EXIT_BROKEN_PIPE


@pytest.mark.parametrize("args", [["summary", "--json"], ["memory", "--json"], ["memory"], ["programs"],
                                  *(["sql", "select * from programs", "--format", output]
                                    for output in ("table", "csv", "json", "md"))])
def test_a_closed_pipe_is_a_quiet_exit(tiny_dir, args):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write: every write fails
    try:
        done = subprocess.run([sys.executable, "-m", "pvtui.cli", args[0], str(tiny_dir), *args[1:]],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == EXIT_BROKEN_PIPE
