"""pvtui installed as users install it: an sdist and a wheel built from the checkout's files, the
wheel installed into a fresh venv outside the checkout, and every command run from there.

The fresh venv gets pvtui from the wheel alone; its dependencies come from this test run's own
environment (a path entry), so that the test needs no network and installs nothing twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# one worker builds the sdist, the wheel and the venv (module fixtures) and runs every test of them
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]

ROOT = Path(__file__).resolve().parent.parent
SKIP_IN_COPY = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                      ".hypothesis", "snapshots", "snapshot_report.html")
HEADLESS_COMMANDS = ("summary", "memory", "liveness", "programs", "trace", "insights", "operations", "hotspots",
                     "check")
SCREEN_KEYS = {"s": "Summary", "m": "Memory", "l": "Liveness", "p": "Programs", "t": "Trace", "i": "Insights",
               "o": "Operations", "H": "Hotspots"}

# Run in the fresh venv: open the app headless on a report and visit each screen by its key.
VISIT_SCREENS = """
import asyncio, json, sys
from pathlib import Path

from pvtui.app import PvtuiApp
from pvtui.sources.discovery import discover

async def shown(pilot):
    app = pilot.app
    for _ in range(500):
        await pilot.pause(0.02)
        if app.report is not None and getattr(app.screen, "SCREEN_NAME", "") and not app.screen.opening:
            return app.screen.SCREEN_NAME
    return None

async def main(path, keys):
    app = PvtuiApp(discover(path), path=path, watch=False)
    seen = {}
    async with app.run_test(size=(80, 24)) as pilot:
        for key in keys:
            await pilot.press(key)
            seen[key] = await shown(pilot)
    print(json.dumps(seen))

asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel, built from a copy of the checkout (the wheel from the sdist)."""
    work = tmp_path_factory.mktemp("packaging")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=SKIP_IN_COPY)
    out = work / "dist"
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (found,) = dist.glob("pvtui-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    """A fresh venv, outside the checkout, with pvtui installed from the wheel."""
    path = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_test_dependencies.pth").write_text("\n".join(dependency_paths()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    return path


def dependency_paths() -> list[str]:
    """Where this test run imports its packages from, but any path holding a pvtui (the checkout's).

    A venv inside the checkout (CI's .venv) counts: its site-packages holds the dependencies.
    """
    return [entry for entry in sys.path
            if entry and Path(entry).is_dir() and not (Path(entry) / "pvtui" / "__init__.py").exists()]


def user_environment(venv: Path, cwd: Path) -> dict[str, str]:
    """The environment of a user of VENV working in CWD: its bin first on PATH, nothing of the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PVTUI_CACHE_DIR"] = str(cwd / "cache")
    env["TEXTUAL_ANIMATIONS"] = "none"
    return env


def run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """ARGS run in CWD as a user of VENV would."""
    return subprocess.run(list(args), cwd=cwd, env=user_environment(venv, cwd), capture_output=True, text=True,
                          timeout=300)


PACKAGE_DATA = (".py", ".tcss", ".json", ".html", ".css")  # modules, stylesheets, themes, serve's page


def source_files() -> set[str]:
    """What the wheel and the sdist must hold: every module, stylesheet, theme and page file under pvtui/."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "pvtui").rglob("*")
            if p.suffix in PACKAGE_DATA and "__pycache__" not in p.parts}


def test_the_wheel_holds_every_module_stylesheet_theme_and_page_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(source_files() - names)
    assert not missing, f"the wheel lacks {missing}"
    assert any(name.startswith("pvtui/themes/") and name.endswith(".json") for name in names)


def test_the_sdist_holds_the_sources(dist):
    import tarfile

    (sdist,) = dist.glob("pvtui-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = sorted(source_files() - names)
    assert not missing, f"the sdist lacks {missing}"


@pytest.fixture(scope="module")
def outside(tmp_path_factory, venv) -> tuple[Path, Path]:
    """An empty directory outside the checkout, and a tiny report written there by the installed pvtui."""
    cwd = tmp_path_factory.mktemp("user")
    done = run(venv, cwd, "pvtui", "synth", "report", "--scale", "tiny")
    assert done.returncode == 0, done.stderr
    return cwd, cwd / "report"


def test_the_installed_pvtui_comes_from_the_wheel(venv, outside):
    cwd, _ = outside
    done = run(venv, cwd, str(venv / "bin" / "python"), "-c", "import pvtui; print(pvtui.__file__)")
    assert Path(done.stdout.strip()).is_relative_to(venv), done.stdout + done.stderr
    version = run(venv, cwd, "pvtui", "--version")
    assert version.returncode == 0 and version.stdout.startswith("pvtui "), version.stderr


@pytest.mark.parametrize("command", HEADLESS_COMMANDS)
def test_each_headless_command_answers_in_json(venv, outside, command):
    cwd, report = outside
    done = run(venv, cwd, "pvtui", command, str(report), "--json")
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), dict)


def test_compare_split_and_export_run_installed(venv, outside):
    cwd, report = outside
    compared = run(venv, cwd, "pvtui", "compare", str(report), str(report), "--json")
    assert compared.returncode == 0, compared.stderr
    assert "summary" in json.loads(compared.stdout)
    split = run(venv, cwd, "pvtui", "split", str(report), "--ipus", "2", "--json")
    assert split.returncode == 0, split.stderr
    assert "available" in json.loads(split.stdout)
    exported = run(venv, cwd, "pvtui", "export", str(report), "bundle")
    assert exported.returncode == 0, exported.stderr
    reread = run(venv, cwd, "pvtui", "summary", "bundle", "--json")
    assert reread.returncode == 0 and json.loads(reread.stdout), reread.stderr


def test_the_installed_app_opens_every_screen(venv, outside):
    cwd, report = outside
    done = run(venv, cwd, str(venv / "bin" / "python"), "-c", VISIT_SCREENS, str(report), "".join(SCREEN_KEYS))
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == SCREEN_KEYS


def test_the_installed_serve_runs_its_sessions_from_anywhere(venv, outside, tmp_path):
    """`pvtui serve` from a directory that holds a `pvtui/` package of its own (as a checkout does):
    the page and its stylesheet come from the installed package, and a session runs the installed pvtui."""
    import asyncio
    import signal

    from test_serve import Served, open_session, plain, printed_url, received

    _, report = outside
    (tmp_path / "pvtui").mkdir()
    (tmp_path / "pvtui" / "__init__.py").write_text("raise SystemExit('the pvtui of the current directory')\n")
    process = subprocess.Popen(["pvtui", "serve", str(report), "--port", "0"], cwd=tmp_path,
                               env=user_environment(venv, outside[0]), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def first_screen(served: Served) -> str:
        session, websocket = await open_session(served)
        try:
            return plain(await received(websocket, until="Summary"))
        finally:
            await websocket.close()
            await session.close()

    try:
        served = Served(process, printed_url(process))
        assert served.status(f"/{served.token}/page.css")[0] == 200
        assert "Summary" in asyncio.run(first_screen(served))
    finally:
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
    assert "current directory" not in errors
