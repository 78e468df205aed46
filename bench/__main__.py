"""`python -m bench [--scale large|pod16|small|tiny]`: synthesize a report, measure, print the table.

Writes BENCHMARKS.md (for the large scale; BENCHMARKS-pod16.md for pod16; or wherever --out says) and ends with
one line, `targets met: K/N`.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.figures import Results, Row, markdown, megabytes, missed_sections, text_table

ROOT = Path(__file__).resolve().parent.parent

METHOD = """
- The report is `pvtui.synth` at the chosen scale, seed 0, written under a temporary
  directory (deleted afterwards unless `--keep`). Its size is checked from its bundle:
  the "report" rows.
- Every figure is the median of `--runs` runs, each in a fresh Python process
  (`python -m bench.child`), the subject and its baseline alternating in the same run
  of the benchmark, so that other load on the machine falls on both alike.
- Cold ingest: one reader of `pvtui.sources` into a new bundle, timed in the child
  around the read alone (imports excluded); report files are in the OS page cache
  (the bundle is not: "cold" means not cached by pvtui). MB/s is the source file's
  size over the time, or for profile columns the bytes written.
- `size -A -d archive.a` is timed as a whole command, start to exit.
- profile.pop's native reader (`pvtui.sources.native`): the synthetic report's real SQLite
  profile.pop into a new bundle, in the child as the other sources; MB/s is the file's size over
  the time; peak memory as for debug.cbor below. Its targets are measured at the large scale over
  the profile.pop of the same model over 16 runs (only the steps tables grow; the file passes
  1 GB), elsewhere over the report's own. Beside the report's own, the single run of the libpva
  adapter over the generator's stand-in (what reading profile.pop through libpva costs here, less
  libpva's own decoding). Then the same reader over a profile.pop of 200,000 programs, each run by
  one step of a type of its own (bench.reports.make_many_programs): its time, at every scale.
- Peak memory of debug.cbor ingest and of `cbor2.load(f)` (the whole file into Python
  objects): the child resets its VmHWM (`/proc/self/clear_refs`), runs the one call
  and reports VmHWM minus the RSS just before it.
- Warm open: the bundle is in the cache (built once beforehand). Its figures are medians of three
  times `--runs` rounds, 15 at least (each round's ratio to the bare app spreads widely on a shared host).
  Both pvtui and the bare Textual app (an App that composes one Label) run as
  `App.run_test(headless=True, size=(200, 50))` in a fresh process, in an order that
  turns by one each run (in a fixed order, the screen started after Memory measured
  15-25% slower than when started first); the time runs
  from just before the parent starts the process (system-wide monotonic clock) to the
  first frame painted by the screen in question, which is the one the app opens on
  (`PvtuiApp(first_screen=…)`, as `pvtui PATH --screen NAME`). That first frame is the
  screen's own: its tabs, its keys (dimmed) and "Opening NAME…", painted while the
  report's bundle is opened (numpy is imported by the worker that opens it, after that frame;
  for the Summary, shown from the figures kept in the bundle, after the report is shown).
  The next row of each screen (target: within 1.5x the bare app too) runs to its first frame
  with the report shown (the body composed over the model). "Settled" in the notes is the last
  frame before the app went quiet (no frame for 0.25 s and no worker running). The child holds
  Python's garbage collector as the commands that start the app do (pvtui.process.collector).
- Bytecode: pvtui's and the bench's `.pyc` caches are written before the app is timed,
  and the children may write them, as for an installed app (Textual's were written when
  it was installed); otherwise each start would compile pvtui's changed modules again.
- Frames: `App._display` is wrapped to record the time of every frame. Headless,
  Textual still composes each frame (the compositor renders every changed line) but
  skips producing terminal output; the wrapper also calls the update's
  `render_segments`, so a frame costs what it would cost in a terminal.
  Animations are off (`TEXTUAL_ANIMATIONS=none`).
- Key-to-repaint: a key event is sent the way the terminal driver sends it, then the
  benchmark waits until the app is quiet (no frame for 0.25 s, no worker running);
  the figure is the time from sending the key to the LAST frame it caused (so work
  done in workers and follow-up refreshes count). Keys that caused no frame (an edge
  reached) are left out and counted. The first-frame figure is in the notes.
  Program tree: a bundle with 24 roots of 10,000 children each; each root is expanded
  for the first time with `space` (the one before collapsed again, untimed).
- Hotspots: from the Summary, the key H to the last frame it caused, the Hotspots screen
  showing its first table (the compute sets, read in a worker); sorting (S, each column in
  turn) and filtering (`/`, the keys typed, Enter, Escape) as the other key-to-repaint rows.
- Peak RSS: VmHWM of the child after the bare app settled, or after pvtui opened the
  report and showed Memory, Liveness, Programs, Trace and Summary in turn, twice, each
  settled. "The bundle on disk" is the size of the cached bundle's files.
- Screen switch (no target): on those visits, from the key to the first frame of its
  screen; the first round builds the screens, the second shows the ones built.
- First showings (a row per screen, target p95 <= 100 ms): each run opens the report on
  another of the eight screens, waits until it settled, then presses each other screen's
  key once, settled in between; Compare in a second process, a comparison of the report
  with itself, from the Summary. From the key to the first frame of the new screen. The
  notes give the process's CPU time over the same span (`time.process_time`, which a
  loaded machine skews less than the wall clock), and the last frame before it settled.
  The warm open's rows give the CPU time at the report shown too, and its ratio to the
  bare app's at its first frame. Their ratios (and the targets) are the median of each
  round's ratio, a round being the bare app and the five screens once each: the host's
  speed drifts over minutes (the bare app from 250 to 450 ms), not within a round.
- Cancel: `pvtui summary` on an empty cache with stderr on a pseudo-terminal (so Rich
  draws its bar): once to the end, once with SIGINT halfway through that run's time; then
  the app, Escape pressed as far into a cold open, counting the loading screen's progress
  updates. What is left must be nothing (locks aside), or a bundle committed whole before
  the interrupt came; half a bundle (a build's temporary directory, an entry without its
  meta.json) fails the row.
- Checks (figures the tests do not time): the liveness chart in an app of its own at
  200x50 over a million random steps with their envelope, its caches emptied, every
  line rendered (`render_line`), timed in the child; `write_report(out, "tiny")` timed
  in the child, start to end.
"""


def machine() -> dict[str, str]:
    info = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "cpus": str(os.cpu_count()),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
        info["load average at start"] = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        pass
    try:
        import numpy
        import textual

        info["textual"] = textual.__version__
        info["numpy"] = numpy.__version__
    except (ImportError, AttributeError):
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], check=False, cwd=ROOT, capture_output=True, text=True)
        if commit.returncode == 0:
            info["commit"] = commit.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except OSError:
        pass
    return info


OUT = {"large": "BENCHMARKS.md", "pod16": "BENCHMARKS-pod16.md"}  # the markdown each scale writes by default
# What each scale is held to: the sizes (large), or the tiles and pieces of a Pod16.
SIZES = {
    "large": {"ipus": 4, "steps": 20_000, "steps_per_ipu": 200_000, "bsp_steps": 5_000, "debug": 100e6},
    "pod16": {"ipus": 16, "pieces": 10_000_000},
}


def report_rows(facts: dict, scale: str, results: Results) -> None:
    """What the report holds; for the large and pod16 scales, against the sizes asked for."""
    need = SIZES.get(scale, {})

    def row(what: str, value: str, target: str, ok: bool) -> None:
        results.add(Row("report", what, value, target=target if need else "",
                        note="" if ok or not need else "SHORT of the size asked for"))

    per_ipu = facts.get("steps_per_ipu") or [0]
    ipus = need.get("ipus", 4)
    row("IPUs x tiles", f"{facts['ipus']} x {facts['tiles'] // max(facts['ipus'] or 1, 1):,}", f"{ipus} x 1,472",
        facts["ipus"] == ipus and facts["tiles"] == ipus * 1472)
    if scale == "pod16":
        row("lowered variable pieces", f"{facts['lowered_pieces']:,}", f">= {need['pieces']:,}",
            facts["lowered_pieces"] >= need["pieces"])
        row("liveness steps", f"{facts['liveness_steps']:,}", "", True)
        row("execution steps per IPU (fewest)", f"{min(per_ipu):,} of {facts.get('steps', 0):,} steps", "", True)
        return
    row("liveness steps", f"{facts['liveness_steps']:,} (per tile: {'yes' if facts['per_tile_liveness'] else 'no'})",
        ">= 20,000, per tile", facts["liveness_steps"] >= 20_000 and facts["per_tile_liveness"])
    row("execution steps per IPU (fewest)", f"{min(per_ipu):,} of {facts.get('steps', 0):,} steps",
        ">= 200,000", min(per_ipu) >= 200_000)
    row("steps with per-tile (BSP) cycles", f"{facts.get('bsp_steps', 0):,}", ">= 5,000", facts.get("bsp_steps", 0) >= 5_000)
    row("archive.a ELF members", f"{facts['archive_members']:,} ({megabytes(facts['archive_bytes'])})", "5,888",
        facts["archive_members"] == 5_888)
    row("debug.cbor", megabytes(facts["debug_bytes"]), ">= 100 MB", facts["debug_bytes"] >= 100e6)
    row("lowered variable pieces", f"{facts['lowered_pieces']:,}", "", True)
    results.add(Row("report", "profile.pop (the record's tables, SQLite)", megabytes(facts["profile_pop_bytes"]),
                    note="all the report's figures that the tables the public record shows can hold; the rest of"
                    " its bundle (per-tile liveness and cycles, liveness, the program tree) is in none of them"))


def compile_bytecode() -> None:
    """Write pvtui's and the bench's bytecode caches, as installing them would.

    Textual's are written when it is installed; without ours (PYTHONDONTWRITEBYTECODE, or
    a source newer than its cache), every app start would compile pvtui's changed modules
    again, which the bare app never pays.
    """
    import compileall

    for package in ("pvtui", "bench"):
        compileall.compile_dir(ROOT / package, quiet=1)


def measure_the_rest(report: Path, workdir: Path, runs: int, results: Results, say) -> None:
    """Everything after cold ingest: the app over a warm cache, progress and cancelling, the checks."""
    from bench import app as app_bench
    from bench import cancel, checks
    from bench import sql as sql_bench
    from bench.reports import make_wide_programs
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    say("warming the cache")
    cache = workdir / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    load_report(discover(report)[0], cache=cache)
    wide = make_wide_programs(workdir / "wide-programs")
    os.sync()  # the bundles just written reach the disk now, not while a frame is timed
    say("the app")
    compile_bytecode()
    app_bench.measure_first_paint(report, cache, runs, results, say)
    app_bench.measure_first_showings(report, cache, runs, results, say)
    app_bench.measure_latency(report, wide, cache, results, say)
    app_bench.measure_step_stats(cache, runs, results, say)
    app_bench.measure_hotspots(report, cache, runs, results, say)
    sql_bench.measure_sql(cache, runs, results, say)
    app_bench.measure_rss(report, cache, runs, results, say)
    say("progress and cancelling")
    cancel.measure_cancel(report, workdir, results, say)
    say("checks the tests once timed")
    checks.measure_checks(workdir, runs, results, say)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("tiny", "small", "large", "pod16"), default="large",
                        help="the synthetic report to measure (large: the issue's; pod16: 16 IPUs; small: a quick look)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (the median is reported)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the report and caches go (default: a new directory under $TMPDIR)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (and reuse its report next time)")
    parser.add_argument("--out", default=None,
                        help="markdown file to write (default: BENCHMARKS.md for the large scale,"
                        " BENCHMARKS-pod16.md for pod16, none otherwise; '-' for none)")
    parser.add_argument("--no-adapter", action="store_true",
                        help="skip the (slow, single-run) libpva-adapter ingest of the stand-in")
    parser.add_argument("--ingest-only", action="store_true",
                        help="measure the report's size and the cold ingest of each source only (writes no markdown"
                        " unless --out says where)")
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    workdir = args.workdir or Path(tempfile.gettempdir()) / f"pvtui-bench-{args.scale}"
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results = Results(machine=machine())
    try:
        from bench import ingest
        from bench.reports import make_long_profile, make_report, report_facts

        report = make_report(args.scale, workdir, say)
        report_rows(report_facts(report), args.scale, results)
        long_profile = make_long_profile(args.scale, workdir, say)
        os.sync()  # what was just written reaches the disk before any ingest is timed
        say("cold ingest")
        ingest.measure_ingest(report, workdir, args.runs, results, say, adapter=not args.no_adapter,
                              long_profile=long_profile)
        if not args.ingest_only:
            from bench.usable import measure_usable

            measure_usable(long_profile, report, workdir, args.runs, results, say, adapter=not args.no_adapter)
            measure_the_rest(report, workdir, args.runs, results, say)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    only = " --ingest-only" if args.ingest_only else ""
    results.machine["benchmark"] = f"--scale {args.scale} --runs {args.runs}{only}, {time.monotonic() - started:.0f} s"
    for other, file in OUT.items():
        if other != args.scale:
            results.notes.append(f"The {other} report's figures: {file} (`python -m bench --scale {other}`).")
    print(text_table(results.rows))
    notes = [r for r in results.rows if r.note]
    if notes:
        print()
        for row in notes:
            print(f"- {row.section}: {row.what}: {row.note}")
    out = args.out if args.out is not None else "-" if args.ingest_only else OUT.get(args.scale, "-")
    if out != "-":
        path = Path(out) if Path(out).is_absolute() else ROOT / out
        missed = missed_sections((Path(__file__).parent / "missed.md").read_text())
        path.write_text(markdown(results, f"pvtui benchmarks ({args.scale} report)", METHOD, missed))
        print(f"\nwrote {path}")
    print(results.summary_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
