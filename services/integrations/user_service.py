"""The resident daemon (``engram serve``) as a user service, so the prompt hook is fast without
a manual step: a systemd ``--user`` unit on Linux, a launchd agent on macOS.

``hooks install`` writes the file through its plan (a preview, a manifest record, uninstall
gives back the home byte for byte) and then asks the service manager to start it; ``hooks
uninstall`` stops it before removing the file. One service per store (the unit's name carries
a hash of the data dir), shared by every agent installed against that store: the file lists
them, and it goes when the last one is uninstalled.

Starting is only attempted for the home the service manager reads (the login home, with a
running ``systemd --user`` / ``launchctl``); otherwise the notes say how to start it. Either
way the hooks work: without the daemon they run in-process (slower, the same context).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

AGENTS = "agents:"


def _hash(data_dir: Path) -> str:
    return hashlib.sha256(str(data_dir).encode("utf-8")).hexdigest()[:8]


def service_name(data_dir: Path) -> str:
    return f"engram-serve-{_hash(data_dir)}"


def service_path(home: Path, data_dir: Path, platform: str | None = None) -> Path:
    platform = platform or sys.platform
    if platform == "darwin":
        return home / "Library" / "LaunchAgents" / f"dev.engram.serve.{_hash(data_dir)}.plist"
    return home / ".config" / "systemd" / "user" / f"{service_name(data_dir)}.service"


def agents_of(raw: bytes | None) -> list[str]:
    """The agents a service file was installed for (its ``agents:`` comment line)."""
    for line in (raw or b"").decode("utf-8", "replace").splitlines():
        words = line.replace("<!--", " ").replace("-->", " ").replace("#", " ").split()
        if words[:1] == [AGENTS]:
            return words[1:]
    return []


def with_agent(
    raw: bytes | None, slug: str, argv: list[str], data_dir: Path, platform: str | None = None
) -> bytes:
    platform = platform or sys.platform
    agents = sorted({*agents_of(raw), slug})
    return render(argv, data_dir, agents, platform)


def without_agent(
    raw: bytes, slug: str, argv: list[str], data_dir: Path, platform: str | None = None
) -> bytes | None:
    """The file without ``slug``; None when no agent is left (the file goes)."""
    platform = platform or sys.platform
    agents = [a for a in agents_of(raw) if a != slug]
    return render(argv, data_dir, agents, platform) if agents else None


def render(argv: list[str], data_dir: Path, agents: list[str], platform: str) -> bytes:
    # a daemon a prompt hook started may hold the lock when the service manager starts this
    # one: wait for it to idle out rather than fail and be restarted every few seconds
    words = [*argv, "serve", "--wait-for-lock"]
    text = launchd_plist(words, data_dir, agents) if platform == "darwin" else unit(words, agents)
    return text.encode("utf-8")


def _systemd_word(word: str) -> str:
    """One ExecStart word: ``%`` is a specifier and whitespace, quotes and backslashes
    split or escape, so every word is quoted."""
    w = word.replace("%", "%%").replace("\\", "\\\\").replace('"', '\\"')
    return f'"{w}"'


def unit(words: list[str], agents: list[str]) -> str:
    cwd = ""
    if "-m" in words:  # a source checkout's `python -m app.cli`: run it from the checkout
        cwd = f"WorkingDirectory={Path(__file__).resolve().parents[2]}\n"
    return (
        "# Engram's resident daemon: agents' prompt hooks ask it instead of loading Engram.\n"
        "# Written by `engram hooks install`; `engram hooks uninstall` removes it.\n"
        f"# {AGENTS} {' '.join(agents)}\n"
        "[Unit]\n"
        "Description=Engram memory daemon (engram serve)\n\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={' '.join(_systemd_word(w) for w in words)}\n"
        f"{cwd}"
        "Restart=on-failure\n"
        "RestartSec=5\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist(words: list[str], data_dir: Path, agents: list[str]) -> str:
    args = "".join(f"    <string>{escape(w)}</string>\n" for w in words)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
        '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        "<!-- Engram's resident daemon, written by `engram hooks install`; "
        "`engram hooks uninstall` removes it. -->\n"
        f"<!-- {AGENTS} {' '.join(agents)} -->\n"
        '<plist version="1.0">\n<dict>\n'
        f"  <key>Label</key>\n  <string>dev.engram.serve.{_hash(data_dir)}</string>\n"
        f"  <key>ProgramArguments</key>\n  <array>\n{args}  </array>\n"
        "  <key>RunAtLoad</key>\n  <true/>\n"
        "  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n"
        "  </dict>\n</dict>\n</plist>\n"
    )


# the service manager -------------------------------------------------------------------------
def _login_home() -> Path | None:
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        return None


def _manager(path: Path, platform: str) -> str | None:
    """Why the service manager cannot take this file now (None: it can)."""
    login = _login_home()
    if login is None or not path.resolve().is_relative_to(login.resolve()):
        return f"{path} is not under your login home ({login}), which the service manager reads"
    if platform == "darwin":
        return None if shutil.which("launchctl") else "launchctl is not on PATH"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if not shutil.which("systemctl"):
        return "systemctl is not on PATH"
    if not runtime or not (Path(runtime) / "systemd" / "private").exists():
        return "no systemd --user session is running"
    return None


def how_to_start(path: Path, data_dir: Path, serve: str, platform: str | None = None) -> str:
    platform = platform or sys.platform
    if platform == "darwin":
        later = f"`launchctl bootstrap gui/$(id -u) {path}`"
    else:
        later = f"`systemctl --user enable --now {service_name(data_dir)}`"
    return f"start it with `{serve} serve` (runs until stopped), or {later} in your login session"


def _run(cmd: list[str]) -> str | None:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    return None if p.returncode == 0 else (p.stderr or p.stdout).strip()[-300:]


def start(path: Path, data_dir: Path, serve: str, platform: str | None = None) -> str:
    """Ask the service manager to start (and keep starting) the daemon; what happened."""
    platform = platform or sys.platform
    why = _manager(path, platform)
    if why is not None:
        return (
            f"the daemon was not started ({why}): {how_to_start(path, data_dir, serve, platform)}"
        )
    if platform == "darwin":
        err = _run(["launchctl", "bootstrap", f"gui/{os.getuid()}", str(path)])
    else:
        err = _run(["systemctl", "--user", "daemon-reload"]) or _run(
            ["systemctl", "--user", "enable", "--now", service_name(data_dir)]
        )
    if err:
        return f"the daemon did not start ({err}): {how_to_start(path, data_dir, serve, platform)}"
    return f"the daemon runs now as a user service ({path}) and starts with your session"


def stop(path: Path, data_dir: Path, platform: str | None = None) -> str | None:
    """Before its file goes: stop the daemon and take it out of the session's start-up."""
    platform = platform or sys.platform
    if _manager(path, platform) is not None:
        return None
    if platform == "darwin":
        err = _run(["launchctl", "bootout", f"gui/{os.getuid()}", str(path)])
    else:
        err = _run(["systemctl", "--user", "disable", "--now", service_name(data_dir)])
    return f"stopping the daemon: {err}" if err else "the daemon was stopped and disabled"
