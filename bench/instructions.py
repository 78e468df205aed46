"""Instructions from process start to the report shown, on each first screen, against the bare app's to its
first frame: `python -m bench.instructions [--workdir DIR] [SCREEN ...]`, counted by valgrind's callgrind
(a minute a screen).

This host's speed drifts by up to 2x within minutes, so the warm-open rows move by more than most changes
do; the count repeats within 0.2%. It is not a time (reading pages, system calls and waits are not in it):
the bench's rows stay the targets, and this says which way a change moved the work, and by how much.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.runner import ROOT, child_env

SCREENS = ("summary", "memory", "liveness", "programs", "trace")


def instructions(**job: str) -> int:
    """Instructions the bench child runs for JOB (bench.child's until_shown) under callgrind."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                           "bench.child", json.dumps({"job": "until_shown", **job})],
                          cwd=ROOT, env=child_env(), capture_output=True, text=True, check=False)
    counted = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or counted is None:
        raise SystemExit(f"bench.instructions: {job} failed (exit {done.returncode}): {done.stderr[-1000:]}")
    return int(counted.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.split("\n\n")[0])
    parser.add_argument("screens", nargs="*", default=list(SCREENS), metavar="SCREEN",
                        help=f"the first screens to count ({', '.join(SCREENS)}; all by default)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "pvtui-bench-large",
                        help="the bench's --workdir, with its large report and that report's cache")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.screens) - set(SCREENS))
    report, cache = args.workdir / "report-large", args.workdir / "cache"
    if unknown:
        parser.error(f"no such screen: {', '.join(unknown)}")
    if shutil.which("valgrind") is None:
        print("bench.instructions: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if not report.is_dir():
        print(f"bench.instructions: no report at {report}: run `python -m bench --scale large --workdir "
              f"{args.workdir} --keep` once", file=sys.stderr)
        return 2
    bare = instructions(kind="bare")
    print(f"{'bare app':9} {bare:>15,}  to its first frame")
    for screen in args.screens:
        count = instructions(kind="pvtui", report=str(report), cache=str(cache), screen=screen)
        print(f"{screen:9} {count:>15,}  {count / bare:.3f}x the bare app's, to the report shown", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
