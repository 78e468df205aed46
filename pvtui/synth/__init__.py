"""Synthetic reports of a BERT-like model: a deterministic truth, a libpva stand-in
over it, and real report files (profile.pop as an SQLite database of the tables the
public record shows, archive.a, debug.cbor, framework.json, app.json) plus profile.pvtui,
the bundle the libpva adapter makes of the stand-in: the whole model, which profile.pop's
tables cannot carry (liveness, the program tree, lowered variables' live steps...)."""

from __future__ import annotations

from pathlib import Path

from pvtui.sources.base import Progress, ReportFiles, no_progress
from pvtui.synth.hostile import DIRECTORY
from pvtui.synth.model import SyntheticReport, generate
from pvtui.synth.scales import SCALES, Scale

BUNDLE_NAME = "profile.pvtui"

__all__ = ["SCALES", "BUNDLE_NAME", "Scale", "SyntheticReport", "generate", "is_current", "write_report"]


def is_current(out: Path) -> bool:
    """True when OUT holds a synthetic report with its profile.pop, whose bundle this pvtui reads whole
    (its schema may be older)."""
    from pvtui.errors import ReportError
    from pvtui.model.bundle import Bundle

    try:
        Bundle(Path(out) / BUNDLE_NAME).require_whole()
    except ReportError:
        return False
    return (Path(out) / "profile.pop").is_file()


def write_report(
    out: Path, scale: str = "tiny", ipus: int | None = None, seed: int = 0, progress: Progress | None = None,
    names: str = "plain",
) -> Path:
    """Write a synthetic report directory at OUT, its bundle at OUT/profile.pvtui; return OUT.

    NAMES "hostile" gives every name escape sequences and markup (synth/hostile.py), and the report
    a directory of such a name: it is written to OUT/DIRECTORY, and that is returned."""
    from pvtui.sources.ingest import build_bundle
    from pvtui.synth import files, standin
    from pvtui.synth.profile_pop import write_profile_pop

    progress = progress or no_progress
    out = Path(out) if names == "plain" else Path(out) / DIRECTORY
    out.mkdir(parents=True, exist_ok=True)
    steps = 7
    progress("synth: generating", 0, steps)
    truth = generate(scale, ipus, seed, names)
    report = ReportFiles(
        directory=out, name=out.name, profile=out / "profile.pop", archive=out / "archive.a",
        debug=out / "debug.cbor", framework=out / "framework.json", app=out / "app.json",
    )
    progress("synth: profile.pop", 1, steps)
    write_profile_pop(truth, report.profile)
    progress("synth: archive.a", 2, steps)
    files.write_archive(truth, report.archive)
    progress("synth: debug.cbor", 3, steps)
    files.write_debug(truth, report.debug)
    progress("synth: json", 4, steps)
    files.write_json(files.framework_json(truth), report.framework)
    files.write_json(files.app_json(truth), report.app)
    progress("synth: bundle", 5, steps)
    build_bundle(
        report, out / BUNDLE_NAME, pva_report=standin.PvaReport(truth), operations=standin.operations(truth),
        progress=progress,
        meta={"synthetic": {"scale": scale, "ipus": truth.scale.ipus, "seed": seed, "generator": "pvtui.synth",
                            **({} if names == "plain" else {"names": names})}},
    )
    progress("synth: done", steps, steps)
    return out
