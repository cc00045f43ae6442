"""The hook daemon without a manual step (issue #33): `engram hooks install` installs `engram
serve` as a user service (a systemd --user unit here; its bytes are checked, systemd is not
started: there is none in a test), `hooks uninstall` gives the home back byte for byte, and
the prompt hook injects the same context whether the daemon or the hook's own process answers.
Real CLI, real store, real model; the daemon is a real `engram serve` process."""

from __future__ import annotations

import io
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from app.cli import main
from tests.processes import start_engram


def _tree(root: Path) -> dict[str, bytes]:
    """Every path under ``root`` with its bytes (a directory: b"<dir>", a link: its target)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = b"-> " + os.readlink(p).encode()
        elif p.is_dir():
            out[rel] = b"<dir>"
        else:
            out[rel] = p.read_bytes()
    return out


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home with the user's own files where Engram writes (settings, ~/.config)."""
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    (h / ".claude" / "settings.json").write_text('{\n  "theme": "dark"\n}\n')
    (h / ".config" / "git").mkdir(parents=True)
    (h / ".config" / "git" / "config").write_text("[user]\n\tname = Sam\n")
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(h)
    return h


def _cli(capsys, *argv):
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def _unit_path(home: Path, out: str) -> Path:
    units = sorted((home / ".config" / "systemd" / "user").glob("engram-serve-*.service"))
    assert len(units) == 1, out
    return units[0]


def test_hooks_install_installs_the_daemon_as_a_user_service_and_uninstall_removes_it(
    home, tmp_path, capsys
):
    from services.integrations.hooks_install import engram_argv

    data = (tmp_path / "store").resolve()
    before = _tree(home)
    args = ("--data-dir", str(data), "hooks", "install", "claude-code", "--with-context")
    rc, preview, _ = _cli(capsys, *args)  # the preview says so before anything is written
    assert rc == 0 and "installed as a user service" in preview, preview
    assert "engram-serve-" in preview and _tree(home) == before
    rc, out, err = _cli(capsys, *args, "--yes")
    assert rc == 0, out + err
    unit = _unit_path(home, out)
    assert f"wrote {unit}" in out
    # no systemd --user for this home: the note says how to start it instead
    assert f"start it with `{' '.join(engram_argv(data))} serve`" in out, out
    assert f"`systemctl --user enable --now {unit.stem}`" in out
    words = " ".join(f'"{w}"' for w in [*engram_argv(data), "serve", "--wait-for-lock"])
    assert unit.read_text() == (
        "# Engram's resident daemon: agents' prompt hooks ask it instead of loading Engram.\n"
        "# Written by `engram hooks install`; `engram hooks uninstall` removes it.\n"
        "# agents: claude\n"
        "[Unit]\n"
        "Description=Engram memory daemon (engram serve)\n\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={words}\n"
        "Restart=on-failure\n"
        "RestartSec=5\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )
    rc, out, err = _cli(
        capsys, "--data-dir", str(data), "hooks", "uninstall", "claude-code", "--yes"
    )
    assert rc == 0 and f"removed {unit}" in out, out + err
    assert _tree(home) == before  # byte for byte, the directories made for the unit gone too


def test_on_macos_the_daemon_is_a_launchd_agent(home, tmp_path, capsys, monkeypatch):
    """The plan as a Mac makes it (``sys.platform`` is the only thing that differs): a
    LaunchAgents plist, the same preview and the same byte-for-byte uninstall."""
    from services.integrations.hooks_install import engram_argv

    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("PATH", "/nonexistent")  # no launchctl: nothing is started
    data = (tmp_path / "store").resolve()
    before = _tree(home)
    args = ("--data-dir", str(data), "hooks", "install", "generic", "--agent", "mac", "--yes")
    rc, out, err = _cli(capsys, *args)
    assert rc == 0, out + err
    (plist,) = (home / "Library" / "LaunchAgents").glob("dev.engram.serve.*.plist")
    text = plist.read_text()
    words = "".join(
        f"    <string>{w}</string>\n" for w in [*engram_argv(data), "serve", "--wait-for-lock"]
    )
    assert f"  <key>ProgramArguments</key>\n  <array>\n{words}  </array>\n" in text
    assert "<!-- agents: mac -->" in text and "<key>RunAtLoad</key>\n  <true/>" in text
    assert f"`launchctl bootstrap gui/$(id -u) {plist}`" in out, out
    rc, out, _ = _cli(capsys, "--data-dir", str(data), "hooks", "uninstall", "generic", "--yes")
    assert rc == 0 and not plist.exists(), out
    assert _tree(home) == before


def test_two_agents_share_one_daemon_until_the_last_is_uninstalled(home, tmp_path, capsys):
    data = str((tmp_path / "store").resolve())
    before = _tree(home)
    for slug in ("alpha", "beta"):
        rc, out, err = _cli(
            capsys, "--data-dir", data, "hooks", "install", "generic", "--agent", slug, "--yes"
        )
        assert rc == 0, out + err
    unit = _unit_path(home, out)
    assert "# agents: alpha beta\n" in unit.read_text()
    rc, out, _ = _cli(
        capsys, "--data-dir", data, "hooks", "uninstall", "generic", "--agent", "alpha", "--yes"
    )
    assert rc == 0 and "# agents: beta\n" in unit.read_text(), out  # beta's hooks still use it
    rc, out, _ = _cli(
        capsys, "--data-dir", data, "hooks", "uninstall", "generic", "--agent", "beta", "--yes"
    )
    assert rc == 0 and not unit.exists(), out
    assert _tree(home) == before


# the same prompt, answered by `engram serve` and by the hook's own process -------------------
FACTS = [
    "I prefer dark mode in every editor",
    "The staging database runs PostgreSQL 16 on a Hetzner box",
    "Deploys go out on Thursdays after the standup",
    "Sam reviews every pull request that touches billing",
    "The laptop is a ThinkPad X1 with 32 GB of memory",
]
PROMPT = '{"prompt": "which colour scheme do I like for code editors?"}'


def _hook(monkeypatch, capsys, data: Path) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(PROMPT))
    rc, out, err = _cli(
        capsys, "--data-dir", str(data), "hook-run", "claude-code-context", "--agent", "claude"
    )
    assert rc == 0 and err == "", err
    return out


@pytest.mark.slow  # a daemon process that loads the model
def test_the_prompt_hook_injects_the_same_context_from_the_daemon_and_in_process(
    tmp_path_factory, monkeypatch, capsys
):
    from services.integrations.daemon import request

    data = Path(tmp_path_factory.mktemp("d")) / "s"  # short: a Unix socket path
    assert _cli(capsys, "--data-dir", str(data), "agent", "add", "claude")[0] == 0
    for fact in FACTS:
        assert _cli(capsys, "--data-dir", str(data), "remember", "--agent", "claude", fact)[0] == 0
    # a hook's block counts as a use of its facts (decay's access bonus: a write), so the
    # in-process hook runs on a copy made now, in the same state the daemon's store is in
    twin = data.parent / "t"
    shutil.copytree(data, twin)
    monkeypatch.delenv("ENGRAM_NO_DAEMON", raising=False)
    proc = start_engram(data, "serve")
    try:
        deadline = time.monotonic() + 150
        while not (request(data, {"op": "ping"}, timeout=5) or {}).get("semantic"):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"engram serve did not come up: {proc.stderr.read()}")
            time.sleep(0.2)
        served = _hook(monkeypatch, capsys, data)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert request(twin, {"op": "ping"}) is None  # no daemon there: this process runs it
    alone = _hook(monkeypatch, capsys, twin)
    # found by meaning ("colour scheme", "code editors" share no word with the fact)
    assert "I prefer dark mode in every editor" in served, served
    assert served == alone
