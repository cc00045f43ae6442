"""What the packaged app relies on, checked without building it (the PyInstaller build and
packaging/smoke_test.sh run by hand: `make package && packaging/smoke_test.sh`)."""

from __future__ import annotations

import configparser
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "packaging"

pytestmark = pytest.mark.slow  # processes, kills and full purges: left out of make test-fast


def _launcher():
    spec = importlib.util.spec_from_file_location("engram_launcher", PKG / "engram_launcher.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_self_test_passes_offscreen_and_leaves_no_store_behind(tmp_path):
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "TMPDIR": str(tmp_path),
        "ENGRAM_HOME": str(tmp_path / "user-store"),
    }
    res = subprocess.run(
        [sys.executable, "-m", "app.selftest"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["ok"] and "pnpm" in out["search"] and out["qt_platform"] == "offscreen"
    assert not (tmp_path / "user-store").exists(), "the user's store is never touched"
    assert not list(tmp_path.glob("engram-selftest-*")), "its temporary store is removed"


def test_one_binary_routes_cli_commands_and_gui_flags():
    wants_cli = _launcher().wants_cli
    assert wants_cli(["hook-run", "claude-code", "--agent", "claude"])
    assert wants_cli(["--data-dir", "/d", "recall", "--agent", "a", "x"])
    assert wants_cli(["--help"])
    assert not wants_cli([])
    assert not wants_cli(["--data-dir", "/d"])
    assert not wants_cli(["--demo-if-empty", "--dark"])


def test_desktop_entry_is_well_formed():
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str
    cp.read(PKG / "engram.desktop")
    e = cp["Desktop Entry"]
    assert e["Type"] == "Application" and e["Exec"].split()[0] == "engram"
    assert e["Icon"] == "io.engram.Engram"
    assert e["Categories"].endswith(";")
    assert (ROOT / "resources" / "icons" / "engram.svg").exists()


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstreamcli not installed")
def test_appstream_metainfo_validates():
    res = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(PKG / "io.engram.Engram.metainfo.xml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stdout + res.stderr
