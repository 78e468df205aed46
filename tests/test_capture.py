"""`pvtui capture`: the options a program runs with, its exit status and signals, and the listing of what it
wrote, with tests/fake_poplar.py standing in for a Poplar program."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pvtui.commands.capture import default_directory
from pvtui.sources.written import look, written
from pvtui.synth import write_report

FAKE = str(Path(__file__).with_name("fake_poplar.py"))


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """One synthetic report for every fake run to copy."""
    return write_report(tmp_path_factory.mktemp("synth") / "r", scale="tiny")


def capture(cwd, *flags, fake=(), env=None, user_options=None, **run):
    environment = dict(os.environ, **(env or {}))
    environment.pop("POPLAR_ENGINE_OPTIONS", None)
    if user_options is not None:
        environment["POPLAR_ENGINE_OPTIONS"] = user_options
    return subprocess.run([sys.executable, "-m", "pvtui.cli", "capture", *flags, "--", sys.executable, FAKE, *fake],
                          cwd=cwd, env=environment, capture_output=True, text=True, **run)


def seen_options(result) -> dict:
    line = next(line for line in result.stderr.splitlines() if line.startswith("fake_poplar options: "))
    return json.loads(line.removeprefix("fake_poplar options: "))


def test_by_default_every_report_goes_to_a_new_directory_named_after_the_program(tmp_path, source):
    result = capture(tmp_path, fake=("--source", source))
    assert result.returncode == 0, result.stderr
    options = seen_options(result)
    assert options["autoReport.all"] == "true"
    assert re.fullmatch(r"reports/fake_poplar-\d{8}-\d{6}", options["autoReport.directory"])
    printed = re.search(r"POPLAR_ENGINE_OPTIONS='(.*)'", result.stderr).group(1)
    assert json.loads(printed) == options  # printed before the run, as it ran
    out = result.stdout
    assert f"Reports under {options['autoReport.directory']}:" in out
    for engine in ("inference", "training"):
        assert re.search(rf"^{engine}  \(.*/{engine}, complete\)$", out, re.M)
    assert len(re.findall(r"^  archive\.a +\d+\.\d MiB  ok$", out, re.M)) == 2
    assert out.index("profile.pvtui") < out.index("archive.a") < out.index("debug.cbor")


def test_each_flag_sets_its_option(tmp_path, source):
    result = capture(tmp_path, "--dir", "out", "--runs", "5", "--replica", "1", "--instrument", "ipu",
                     "--no-lowered-vars", "--no-archive", "--no-debug-info", "--option", "opt.maxCompilationThreads=4",
                     "--option", "prng.seed=7", "--log", "debug", fake=("--source", source, "--engines", "training"))
    assert result.returncode == 0, result.stderr
    assert seen_options(result) == {
        "autoReport.all": "true", "autoReport.directory": "out",
        "autoReport.executionProfileProgramRunCount": "5", "profiler.replicaToProfile": "1",
        "debug.computeInstrumentationLevel": "ipu", "autoReport.outputLoweredVars": "false",
        "autoReport.outputArchive": "false", "autoReport.outputDebugInfo": "false",
        "opt.maxCompilationThreads": "4", "prng.seed": "7",
    }
    assert "fake_poplar log level: DEBUG" in result.stderr
    assert sorted(p.name for p in (tmp_path / "out" / "training").iterdir()) == ["profile.pvtui"]


def test_memory_only_leaves_the_execution_profile_out(tmp_path, source):
    result = capture(tmp_path, "--memory-only", "--dir", "out", fake=("--source", source, "--engines", ""))
    options = seen_options(result)
    assert (options["autoReport.outputExecutionProfile"], options["debug.instrument"]) == ("false", "false")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["archive.a", "debug.cbor", "profile.pvtui"]


def test_memory_only_takes_no_execution_flags(tmp_path):
    result = capture(tmp_path, "--memory-only", "--runs", "3")
    assert result.returncode == 2
    assert "fake_poplar" not in result.stderr


def test_the_users_options_are_kept_and_each_override_is_said(tmp_path, source):
    user = json.dumps({"autoReport.directory": "mine", "autoReport.executionProfileProgramRunCount": "9",
                       "debug.branchRecordTile": "3"})
    result = capture(tmp_path, "--runs", "4", fake=("--source", source, "--engines", "a"), user_options=user,
                     env={"POPLAR_PROFILER_LOG_LEVEL": "INFO"})
    options = seen_options(result)
    assert options["autoReport.directory"] == "mine" and options["debug.branchRecordTile"] == "3"
    assert options["autoReport.executionProfileProgramRunCount"] == "4"
    assert ('--runs overrides autoReport.executionProfileProgramRunCount "9" from POPLAR_ENGINE_OPTIONS: now "4"'
            in result.stderr)
    assert (tmp_path / "mine" / "a" / "archive.a").is_file()
    result = capture(tmp_path, "--dir", "other", "--log", "WARN", fake=("--engines", "", "--exit", "0"),
                     user_options=user, env={"POPLAR_PROFILER_LOG_LEVEL": "INFO"})
    assert '--dir overrides autoReport.directory "mine" from POPLAR_ENGINE_OPTIONS: now "other"' in result.stderr
    assert "--log overrides POPLAR_PROFILER_LOG_LEVEL=INFO: now WARN" in result.stderr


def test_malformed_user_options_stop_the_capture(tmp_path):
    result = capture(tmp_path, user_options='{"autoReport.all": "true",}')
    assert result.returncode == 2
    assert result.stderr.splitlines()[0].startswith("pvtui: POPLAR_ENGINE_OPTIONS: malformed JSON")
    assert "fake_poplar" not in result.stderr


def test_unknown_keys_are_refused_unless_forced(tmp_path):
    result = capture(tmp_path, "--option", "autoReport.al=true", fake=("--engines", ""))
    assert result.returncode == 2
    assert "did you mean 'autoReport.all'" in result.stderr
    assert "fake_poplar options" not in result.stderr
    result = capture(tmp_path, "--force", "--option", "autoReport.al=true", "--no-archive", "--memory-only",
                     "--no-debug-info", "--option", "autoReport.all=false", fake=("--engines", ""))
    assert result.returncode == 0
    assert seen_options(result)["autoReport.al"] == "true"


def test_the_programs_exit_status_is_pvtuis(tmp_path, source):
    result = capture(tmp_path, "--dir", "out", fake=("--source", source, "--engines", "training", "--exit", "3"))
    assert result.returncode == 3
    assert "fake_poplar ended with exit status 3" in result.stderr
    assert "training  (out/training, complete)" in result.stdout


def test_a_program_that_cannot_start_is_one_line_and_127(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pvtui.cli", "capture", "--", "no-such-program-here"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 127
    assert result.stderr.splitlines()[-1] == ("pvtui capture: cannot run no-such-program-here: "
                                              "No such file or directory")
    assert "Traceback" not in result.stderr


def test_a_program_that_dies_before_writing_anything(tmp_path):
    result = capture(tmp_path, "--dir", "out", fake=("--die-before-writing",))
    assert result.returncode == 128 + signal.SIGKILL
    assert "fake_poplar was ended by SIGKILL (exit status 137)" in result.stderr
    assert result.stdout == "Nothing was written to out.\n"


def test_the_program_reads_pvtuis_stdin(tmp_path):
    result = capture(tmp_path, fake=("--echo-stdin", "--engines", ""), input="hello\n",
                     env={"POPLAR_ENGINE_OPTIONS": ""})
    assert "fake_poplar stdin: hello" in result.stdout


@pytest.mark.parametrize("users", [None, "4"])
def test_the_program_gets_the_users_openblas_threads_not_pvtuis(tmp_path, users):
    """pvtui starts its own numpy with one OpenBLAS thread; the program it runs may do linear algebra."""
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if users is not None:
        environment["OPENBLAS_NUM_THREADS"] = users
    program = "import os; print('threads:', os.environ.get('OPENBLAS_NUM_THREADS'))"
    result = subprocess.run([sys.executable, "-m", "pvtui.cli", "capture", "--dir", "out", "--",
                             sys.executable, "-c", program], cwd=tmp_path, env=environment, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"threads: {users}" in result.stdout.splitlines()


def started(process: subprocess.Popen) -> str:
    """What the fake wrote to stderr up to the line that says it runs."""
    seen = ""
    while "fake_poplar log level" not in seen:
        line = process.stderr.readline()
        assert line, seen
        seen += line
    return seen


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_pvtui_is_passed_on_once(tmp_path, signum):
    process = subprocess.Popen(
        [sys.executable, "-m", "pvtui.cli", "capture", "--dir", "out", "--", sys.executable, FAKE, "--sleep", "60"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as from a terminal, not a background job
    started(process)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    name = signal.Signals(signum).name
    assert err.count(f"fake_poplar: got {name}") == 1
    assert process.returncode == 128 + signum
    assert f"was ended by {name}" in err
    assert "Traceback" not in err


class Terminal:
    """What a program wrote to the pty at FD, read as it comes."""

    def __init__(self, fd: int) -> None:
        self.fd, self.seen = fd, b""

    def read_until(self, text: bytes, seconds: float = 120) -> bool:
        """Read until TEXT is seen, the program has closed the terminal, or SECONDS have passed."""
        deadline = time.monotonic() + seconds
        while text not in self.seen and time.monotonic() < deadline:
            if select.select([self.fd], [], [], 1)[0]:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:  # the program has ended
                    break
        return text in self.seen


@pytest.mark.slow  # a pty
def test_ctrl_c_at_the_terminal_reaches_the_program_once(tmp_path):
    """The terminal sends Ctrl+C to the whole foreground group: pvtui must not send it again."""
    pid, terminal = pty.fork()
    if pid == 0:
        os.chdir(tmp_path)
        os.execv(sys.executable, [sys.executable, "-m", "pvtui.cli", "capture", "--no-open", "--dir", "out", "--",
                                  sys.executable, FAKE, "--sleep", "60"])
    screen = Terminal(terminal)
    screen.read_until(b"fake_poplar log level")
    os.write(terminal, b"\x03")
    screen.read_until(b"exit status")
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    assert screen.seen.count(b"fake_poplar: got SIGINT") == 1, screen.seen
    assert os.waitstatus_to_exitcode(status) == 130


def test_the_default_directory_is_named_after_the_script():
    now = time.mktime((2026, 1, 2, 3, 4, 5, 0, 0, -1))
    assert default_directory(["python3", "train.py", "--x"], now) == Path("reports/train-20260102-030405")
    assert default_directory(["python", "-m", "pkg.mod"], now) == Path("reports/pkg.mod-20260102-030405")
    assert default_directory(["./run me.sh"], now) == Path("reports/run_me.sh-20260102-030405")
    assert default_directory(["python", "-c", "import x"], now) == Path("reports/python-20260102-030405")
    assert default_directory(["python3.11", "-u", "-X", "dev", "train.py"], now) == Path("reports/train-20260102-030405")
    assert default_directory(["python", "-"], now) == Path("reports/python-20260102-030405")
    assert default_directory(["-weird"], now) == Path("reports/weird-20260102-030405")


def test_the_listing_says_which_files_are_cut_short_or_still_written(tmp_path, source):
    report = tmp_path / "r" / "training"
    report.mkdir(parents=True)
    whole = (source / "archive.a").read_bytes()
    (report / "archive.a").write_bytes(whole[: len(whole) // 2])
    assert look(report / "archive.a").problem.startswith("cut short")
    (report / "archive.a").write_bytes(whole)
    assert look(report / "archive.a").problem is None
    (report / "profile.pop").write_bytes(b"SQLite format 3\x00" + bytes(84))
    (report / "profile.pop-journal").write_bytes(b"x")
    assert look(report / "profile.pop").problem == "profile.pop-journal beside it: still being written"
    (report / "profile.pop-journal").unlink()
    header = bytearray(b"SQLite format 3\x00" + bytes(84))
    header[16:18] = (4096).to_bytes(2, "big")
    header[24:28] = header[28:32] = header[92:96] = (10).to_bytes(4, "big")  # 10 pages, the count valid
    (report / "profile.pop").write_bytes(bytes(header) + bytes(4096 * 3))
    assert look(report / "profile.pop").problem == "cut short (12,388 of 40,960 bytes)"
    (report / "app.json").write_text('{"a": ')
    assert look(report / "app.json").problem.startswith("not valid JSON")
    (tmp_path / "r" / "inference" / "profile.pvtui").mkdir(parents=True)  # a bundle without its meta.json yet
    (tmp_path / "r" / "inference" / "profile.pvtui" / "tiles.ipu.npy").write_bytes(b"x")
    reports, loose = written(tmp_path / "r", since=time.time() + 60)
    assert [r.name for r in reports] == ["training"] and not reports[0].complete
    assert all(f.before for f in reports[0].files)
    assert [(f.path.relative_to(tmp_path / "r").as_posix(), f.problem) for f in loose] == [
        ("inference/profile.pvtui", "no meta.json yet: still being written")]


def test_without_a_report_every_file_there_is_listed(tmp_path):
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "debug.cbor").write_bytes(b"\xa0")
    reports, loose = written(tmp_path)
    assert reports == [] and [f.path.name for f in loose] == ["debug.cbor"]


@pytest.mark.slow  # a pty
def test_live_the_explorer_shows_the_report_then_pvtui_ends_with_the_programs_status(tmp_path, source):
    import fcntl
    import struct
    import termios

    pid, terminal = pty.fork()
    if pid == 0:
        os.chdir(tmp_path)
        os.environ["PVTUI_CACHE_DIR"] = str(tmp_path / "cache")
        os.execv(sys.executable, [sys.executable, "-m", "pvtui.cli", "capture", "--live", "--dir", "out", "--",
                                  sys.executable, FAKE, "--source", str(source), "--engines", "training",
                                  "--delay", "0.05", "--exit", "5"])
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    screen = Terminal(terminal)
    assert screen.read_until(b"Largest tile"), screen.seen[-2000:]  # the summary of the report
    os.write(terminal, b"q")
    screen.read_until(b"\x00")  # to the end of the output
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    seen = screen.seen
    assert os.waitstatus_to_exitcode(status) == 5
    assert b"fake_poplar ended with exit status 5" in seen
    assert b"training  (out/training, complete)" in seen
    assert b"fake_poplar: done" in (tmp_path / "out" / "capture.log").read_bytes()
