"""`pvtui options`: the documented table, unknown keys, values outside the set, malformed JSON, and what a
set implies."""

from __future__ import annotations

import json

import pytest

from pvtui import cli
from pvtui.options.documented import OPTIONS, nearest
from pvtui.options.option_set import analyse


def run(capsys, *argv):
    code = cli.main(["options", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def as_json(capsys, options: dict):
    code, out, _ = run(capsys, json.dumps(options), "--json")
    return code, json.loads(out)


@pytest.mark.parametrize("typo, meant", [
    ("autoReport.al", "autoReport.all"),
    ("autoreport.all", "autoReport.all"),
    ("debug.instrumentCompte", "debug.instrumentCompute"),
    ("autoReport.executionProfileRunCount", "autoReport.executionProfileProgramRunCount"),
])
def test_an_unknown_key_is_named_with_the_nearest_documented_one(capsys, typo, meant):
    code, out, _ = run(capsys, json.dumps({typo: "true"}))
    assert code == 2
    assert f"unknown {typo} = \"true\" not a documented engine option; did you mean '{meant}'?" \
        in " ".join(out.split())


@pytest.mark.parametrize("options, finding", [
    ({"autoReport.al": "true"}, "not a documented engine option"),
    ({"autoReport.all": "maybe"}, "is not allowed"),
    ({"autoReport.all": True}, "is not a string"),
])
def test_each_finding_is_said_once(capsys, options, finding):
    code, out, _ = run(capsys, json.dumps(options))
    assert code == 2 and out.count(finding) == 1 and "not valid" in out
    code, data = as_json(capsys, options)
    assert code == 2 and not data["valid"]
    assert finding in data["options"][0]["error"] and data["errors"] == []  # the option's, said in its entry
    assert analyse(options).all_errors == [f"{next(iter(options))}: {data['options'][0]['error']}"]


def test_a_key_like_no_option_gets_no_guess():
    assert nearest("zzzz") is None


def test_a_value_outside_the_documented_set_lists_the_allowed_values(capsys):
    code, data = as_json(capsys, {"debug.computeInstrumentationLevel": "tiles",
                                  "autoReport.executionProfileProgramRunCount": "ten"})
    assert code == 2 and not data["valid"]
    level, count = data["options"]
    assert level["error"] == '"tiles" is not allowed; allowed: vertex, tile, ipu, device'
    assert "integer" in count["error"]
    assert [e["status"] for e in data["options"]] == ["bad value", "bad value"]


def test_values_are_json_strings(capsys):
    code, data = as_json(capsys, {"autoReport.all": True})
    assert code == 2
    assert data["options"][0]["error"] == 'true is not a string; option values are JSON strings: "true"'


def test_malformed_json_is_shown_with_a_caret_under_the_spot(capsys):
    text = '{"autoReport.all":"true" "autoReport.directory":"x"}'
    code, out, err = run(capsys, text)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("pvtui: JSON: malformed JSON: Expecting ',' delimiter (line 1, column 26)")
    assert lines[1] == "  " + text
    assert lines[2].index("^") - 2 == text.index('"autoReport.directory"')


def test_the_caret_is_under_the_right_line_of_several(capsys):
    code, _, err = run(capsys, '{\n  "autoReport.all": "true",\n}')
    assert code == 2
    assert err.splitlines()[1:] == ["  }", "  ^"]


def test_a_json_value_that_is_not_an_object_is_refused(capsys):
    code, _, err = run(capsys, '["autoReport.all"]')
    assert code == 2 and "expected a JSON object of options" in err


def test_with_no_argument_the_environment_is_read(capsys, monkeypatch):
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"autoReport.al":"true"}')
    code, out, _ = run(capsys)
    assert code == 2 and "autoReport.al" in out
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"autoReport.all":"true"}')
    code, out, _ = run(capsys)
    assert code == 0 and "valid" in out


def test_nothing_set_is_valid_but_writes_no_report(capsys, monkeypatch):
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)
    code, out, err = run(capsys)
    assert code == 0
    assert "POPLAR_ENGINE_OPTIONS is not set" in err
    assert "no report files are written" in out


def test_an_execution_profile_turns_on_the_graph_profile_and_instrumentation():
    result = analyse({"autoReport.outputExecutionProfile": "true"})
    assert any("turns on autoReport.outputGraphProfile" in line for line in result.implications)
    assert any("sets debug.instrument" in line for line in result.implications)
    assert [f["file"] for f in result.files] == ["profile.pop"]
    assert "execution profile (first 2 runs" in result.files[0]["holds"]


def test_instrument_false_drops_the_execution_profile():
    result = analyse({"autoReport.all": "true", "debug.instrument": "false",
                      "autoReport.executionProfileProgramRunCount": "5"})
    assert any('debug.instrument "false": no execution profile' in line for line in result.implications)
    assert "execution" not in result.files[0]["holds"]
    assert any("executionProfileProgramRunCount has no effect" in w for w in result.warnings)


def test_ipu_instrumentation_loses_the_per_tile_cycles():
    result = analyse({"autoReport.all": "true", "debug.computeInstrumentationLevel": "ipu"})
    assert any("no per-tile (BSP) cycles" in line for line in result.implications)
    assert not any("BSP" in line for line in analyse({"autoReport.all": "true"}).implications)


def test_the_directory_is_ignored_for_cached_popart_executables():
    result = analyse({"autoReport.all": "true", "autoReport.directory": "./tommyFlowers"})
    assert result.directory == "./tommyFlowers"
    assert any("cached PopART executables" in line and "SessionOptions" in line for line in result.implications)


def test_all_writes_every_file_but_those_turned_off():
    every = analyse({"autoReport.all": "true"})
    assert [f["file"] for f in every.files] == ["profile.pop", "archive.a", "debug.cbor", "serialized_graph.capnp"]
    assert "lowered variables" in every.files[0]["holds"]
    fewer = analyse({"autoReport.all": "true", "autoReport.outputArchive": "false",
                     "autoReport.outputLoweredVars": "false", "autoReport.outputSerializedGraph": "false"})
    assert [f["file"] for f in fewer.files] == ["profile.pop", "debug.cbor"]
    assert "lowered variables" not in fewer.files[0]["holds"]
    assert any("variables memory graph" in line for line in fewer.implications)


def test_debug_info_alone_is_no_report():
    result = analyse({"autoReport.outputDebugInfo": "true"})
    assert result.valid
    assert any("neither profile.pop nor archive.a" in w for w in result.warnings)


def test_documented_constraints_between_options_make_a_set_invalid():
    assert not analyse({"autoReport.all": "true", "debug.retainDebugInformation": "false"}).valid
    assert not analyse({"target.extendedMemory": "true"}).valid
    assert analyse({"target.extendedMemory": "true", "opt.enableStreamCopyMerging": "false"}).valid


def test_a_key_given_twice_is_warned_of(capsys):
    code, out, _ = run(capsys, '{"autoReport.all":"true","autoReport.all":"false"}')
    assert code == 0 and "autoReport.all is given more than once" in out


def test_the_table_holds_each_option_with_its_values_default_and_meaning():
    # the reference's 40 (some run on from the text before them there), and 3 named elsewhere
    assert len(OPTIONS) == 43
    for name in ("debug.cpuMultiThreadExecution", "debug.outputAllSymbols", "debug.runtimeVerify", "debug.verify",
                 "opt.limitVertexStateToLower256K", "autoReport.streamAtEachRun", "debug.instrumentExternalExchange"):
        assert name in OPTIONS
    for option in OPTIONS.values():
        assert option.meaning and option.allowed
    level = OPTIONS["debug.computeInstrumentationLevel"]
    assert (level.allowed, level.default) == (("vertex", "tile", "ipu", "device"), "tile")
    assert OPTIONS["autoReport.executionProfileProgramRunCount"].default == "2"
    assert OPTIONS["target.deterministicWorkers"].accepts("portable")
    assert OPTIONS["target.maxStreamCallbackThreadsPerNumaNode"].accepts("auto")
    assert not OPTIONS["prng.seed"].accepts("auto")


def test_the_table_and_the_checks_load_neither_textual_nor_rich():
    """capture and options check a set before anything is drawn; the app's screens use them too."""
    import subprocess
    import sys

    code = ("import sys, pvtui.options.documented, pvtui.options.option_set, pvtui.process.child\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
