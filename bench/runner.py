"""Running a measurement in a fresh process (bench.child) and reading its result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.child import RESULT

ROOT = Path(__file__).resolve().parent.parent


def child_env(cache: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["TEXTUAL_ANIMATIONS"] = "none"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # run from bytecode caches, as an installed app does
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if cache is not None:
        env["PVTUI_CACHE_DIR"] = str(cache)
    return env


def run_child(job: str, timeout: float = 1800, env_cache: Path | None = None, **args: Any) -> dict[str, Any]:
    """Run `python -m bench.child` on one job; its JSON result, with `wall` (seconds, parent's view).

    Jobs that time "from process start" get `t0`, the parent's monotonic clock just
    before the process is started.
    """
    payload = {"job": job, **args}
    t0 = time.monotonic()
    if "t0" in args:
        payload["t0"] = t0
    proc = subprocess.run(
        [sys.executable, "-m", "bench.child", json.dumps(payload)],
        cwd=ROOT, env=child_env(env_cache), capture_output=True, text=True, timeout=timeout, check=False,
    )
    wall = time.monotonic() - t0
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT):
            result = json.loads(line[len(RESULT):])
            result["wall"] = wall
            return result
    raise RuntimeError(
        f"bench.child {job} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}\n{proc.stdout[-2000:]}"
    )


def timed_command(argv: list[str]) -> float:
    """Seconds to run a command to completion, its output discarded."""
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0
