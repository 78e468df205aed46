"""`pvtui cache`: the cached bundles (report, size, last used); `pvtui cache clear
[--older-than DAYS]` removes them, except those a running pvtui process still reads, and the
private temporary directories killed pvtui processes left. Nothing else in the directory is
touched: `--verbose` (and `--json`, always) names what was skipped and why."""

from __future__ import annotations

import argparse
import math
from datetime import datetime, timezone
from typing import Any

DAY = 86400.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("list", "clear"), default="list",
                        help="list the bundles (the default), or remove them")
    parser.add_argument("--older-than", type=_days, metavar="DAYS",
                        help="with clear: only the bundles not used for DAYS days")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also name what is in the directory but not pvtui's (never touched)")


def _days(text: str) -> float:
    """An argparse type: a number of days, 0 or more (a negative age would clear every bundle)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days (0 or more)")
    return value


def run(args: argparse.Namespace) -> int:
    from pvtui.commands.common import EXIT_BAD_INPUT, emit, say
    from pvtui.sources.cache import Cache, CacheUnusable, max_bytes
    from pvtui.sources.private_tmp import sweep_private_leftovers

    if args.older_than is not None and args.action != "clear":
        say("pvtui: --older-than goes with `pvtui cache clear`")
        return EXIT_BAD_INPUT
    try:
        cache, cap = Cache(), max_bytes()
        if args.action == "clear":
            older_than = None if args.older_than is None else args.older_than * DAY
            removed, kept, skipped = cache.clear(older_than)
        else:
            entries, skipped = cache.scan()
    except CacheUnusable as exc:
        say(f"pvtui: cache not used ({exc})")
        return EXIT_BAD_INPUT
    if args.action == "clear":
        leftovers = [{"path": str(path), "bytes": size} for path, size in sweep_private_leftovers()]
        data = {"directory": str(cache.root), "removed": _rows(removed), "kept_in_use": _rows(kept),
                "temporary_removed": leftovers, "skipped": _skipped_rows(skipped)}
        emit(args, data, lambda data: _print_cleared(data, args.verbose))
    else:
        data = {"directory": str(cache.root), "max_bytes": cap, "total_bytes": sum(e.size for e in entries),
                "entries": _rows(reversed(entries)), "skipped": _skipped_rows(skipped)}
        emit(args, data, lambda data: _print_listed(data, args.verbose))
    return 0


def _rows(entries) -> list[dict[str, Any]]:
    return [
        {"report": e.report, "path": str(e.path), "bytes": e.size, "in_use": e.in_use,
         "last_used": datetime.fromtimestamp(e.last_used, timezone.utc).isoformat(timespec="seconds")}
        for e in entries
    ]


def _skipped_rows(skipped) -> list[dict[str, str]]:
    return [{"path": str(item.path), "reason": item.reason} for item in skipped]


def _print_skipped(data: dict[str, Any], verbose: bool) -> None:
    """What the directory holds that is not pvtui's: counted, or with VERBOSE named."""
    skipped = data["skipped"]
    if not skipped:
        return
    things = f"{len(skipped)} other item{'s' * (len(skipped) != 1)}"
    if not verbose:
        print(f"left alone: {things} in the directory, not pvtui's (--verbose names them)")
        return
    print(f"left alone: {things} in the directory, not pvtui's:")
    for item in skipped:
        print(f"  {item['path']}: {item['reason']}")


def _print_listed(data: dict[str, Any], verbose: bool) -> None:
    from pvtui.render.console import TextConsole
    from rich.table import Table

    from pvtui.units import format_bytes

    entries = data["entries"]
    cap = f"at most {format_bytes(data['max_bytes'])}, set by PVTUI_CACHE_MAX"
    if not entries:
        print(f"{data['directory']}: no cached bundles ({cap})")
        _print_skipped(data, verbose)
        return
    print(f"{data['directory']}: {len(entries)} bundle{'s' * (len(entries) != 1)}, "
          f"{format_bytes(data['total_bytes'])} ({cap})")
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("report", overflow="fold")
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("last used", no_wrap=True)
    table.add_column("", no_wrap=True)
    for entry in entries:
        table.add_row(entry["report"], format_bytes(entry["bytes"]), _local_time(entry["last_used"]),
                      "in use" if entry["in_use"] else "")
    TextConsole().print(table)
    print("Remove them with `pvtui cache clear [--older-than DAYS]`.")
    _print_skipped(data, verbose)


def _print_cleared(data: dict[str, Any], verbose: bool) -> None:
    from pvtui.units import format_bytes

    removed, kept = data["removed"], data["kept_in_use"]
    freed = format_bytes(sum(entry["bytes"] for entry in removed))
    print(f"{data['directory']}: removed {len(removed)} cached report{'s' * (len(removed) != 1)} ({freed})")
    for entry in kept:
        print(f"kept {entry['report']}: in use by a running pvtui")
    leftovers = data["temporary_removed"]
    if leftovers:
        freed = format_bytes(sum(item["bytes"] for item in leftovers))
        print(f"removed {len(leftovers)} temporary director{'ies' if len(leftovers) != 1 else 'y'} left by killed "
              f"pvtui processes ({freed}):")
        for item in leftovers:
            print(f"  {item['path']}")
    _print_skipped(data, verbose)


def _local_time(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
