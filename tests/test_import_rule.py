"""The model stays headless: importing it never imports textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pvtui.model

MODEL_DIR = Path(pvtui.model.__file__).parent


def test_model_modules_do_not_import_textual():
    modules = sorted(f"pvtui.model.{p.stem}" for p in MODEL_DIR.glob("*.py") if p.stem != "__init__")
    assert modules, "no model modules found"
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        + "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"pvtui.model imports textual: {out.stdout}"


def test_no_model_source_names_textual():
    for path in MODEL_DIR.glob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            assert not stripped.startswith(("import textual", "from textual")), f"{path}: {line}"
