"""Real servers for the team-store tests: a PostgreSQL cluster with pgvector and
``chroma run`` from the chromadb package, one of each per test session.

PostgreSQL comes from the ``pgserver`` wheel (the test extra): it bundles PostgreSQL 16.2
with pgvector 0.6.2, which Debian 12's packages lack, and installs from PyPI like every other
test dependency. Its binaries run as an unprivileged account here like Debian's would.

Both start on a random free loopback port in a temp dir and are stopped at the end. When
either cannot start the session fails loudly (CI must not pass by skipping): only
``ENGRAM_SKIP_SERVERS=1`` turns the server tests into skips.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.processes import run_engram
from tests.teamstore import reaper

SKIP_ENV = "ENGRAM_SKIP_SERVERS"
SUPERUSER = "engram_admin"


def opted_out() -> bool:
    return os.environ.get(SKIP_ENV, "") not in ("", "0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bindir() -> Path:
    """pgserver's PostgreSQL (it has pgvector); ``ENGRAM_PG_BINDIR`` names another build."""
    if os.environ.get("ENGRAM_PG_BINDIR"):
        return Path(os.environ["ENGRAM_PG_BINDIR"])
    try:
        import pgserver

        bundled = Path(pgserver.__file__).parent / "pginstall" / "bin"
        if (bundled / "initdb").is_file():
            return bundled
    except ImportError:
        pass
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError(
            "PostgreSQL is not installed (pip install pgserver: `make install` does it)"
        )
    return Path(found[-1]).parent


def _as_user(cmd: list[str], user: str | None) -> list[str]:
    # initdb/postgres refuse to run as root: run them as an unprivileged account
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


def _unprivileged() -> str | None:
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
        return "postgres"
    except KeyError:
        return "nobody"


@dataclass
class PgServer:
    port: int
    root: Path
    proc: subprocess.Popen
    user: str | None

    def url(self, dbname: str = "postgres", role: str = SUPERUSER, password: str = "") -> str:
        auth = f"{role}:{password}@" if password else f"{role}@"
        return f"postgresql://{auth}127.0.0.1:{self.port}/{dbname}"

    def admin(self, dbname: str = "postgres"):
        import psycopg2

        con = psycopg2.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname=dbname)
        con.autocommit = True
        return con

    cmd: list[str] | None = None

    def stop(self) -> None:
        _stop(self.proc, self.root)

    def pause(self) -> None:
        """Stop the server, keeping its data (a laptop going offline). A fast shutdown: the
        open connections drop, as they do when the network goes. A smart one (SIGTERM) waits
        for every client to leave, and an app that LISTENs never leaves."""
        pg_ctl = [str(pg_bindir() / "pg_ctl"), "stop", "-D", str(self.root / "data")]
        subprocess.run(
            _as_user([*pg_ctl, "-m", "fast", "-w", "-t", "30"], self.user),
            capture_output=True,
            timeout=60,
        )
        self.proc.wait(30)

    def resume(self) -> None:
        log = open(self.root / "postgres.log", "ab")
        self.proc = reaper.spawn(self.cmd, log, self.root, self.user)
        _wait(lambda: _pg_ready(self), self.proc, "PostgreSQL", self.root / "postgres.log")


def _stop(proc: subprocess.Popen, root) -> None:
    """Terminate a server (kill it if it lingers) and remove its data dir."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    shutil.rmtree(root, ignore_errors=True)


def start_postgres() -> PgServer:
    bindir = pg_bindir()
    user = _unprivileged()
    root = Path(tempfile.mkdtemp(prefix="engram-pg-"))
    data = root / "data"
    sock = root / "sock"
    sock.mkdir()
    if user:
        entry = pwd.getpwnam(user)
        os.chmod(root, 0o755)
        for p in (root, sock):
            os.chown(p, entry.pw_uid, entry.pw_gid)
    # md5/scram for TCP so that role passwords are really checked (the RLS tests log in as
    # two roles); the superuser is trusted on loopback only for the harness itself
    hba = root / "hba.conf"
    hba.write_text(
        f"host all {SUPERUSER} 127.0.0.1/32 trust\n"
        "host all all 127.0.0.1/32 scram-sha-256\n"
        "local all all trust\n"
    )
    os.chmod(hba, 0o644)
    init = subprocess.run(
        _as_user(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            user,
        ),
        capture_output=True,
        text=True,
    )
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
    port = free_port()
    log = open(root / "postgres.log", "wb")
    cmd = [
        str(bindir / "postgres"),
        "-D",
        str(data),
        "-p",
        str(port),
        "-h",
        "127.0.0.1",
        "-k",
        str(sock),
        "-c",
        f"hba_file={hba}",
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=60",
        "-c",
        "shared_buffers=64MB",
    ]
    proc = reaper.spawn(cmd, log, root, user)
    server = PgServer(port, root, proc, user, cmd)
    _wait(lambda: _pg_ready(server), proc, "PostgreSQL", root / "postgres.log")
    return server


def _pg_ready(server: PgServer) -> bool:
    try:
        server.admin().close()
        return True
    except Exception:
        return False


@dataclass
class ChromaServer:
    port: int
    root: Path
    proc: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        _stop(self.proc, self.root)


def chroma_executable() -> str:
    beside = Path(sys.executable).with_name("chroma")
    exe = str(beside) if beside.exists() else shutil.which("chroma")
    if not exe:
        raise RuntimeError("`chroma` not found (pip install chromadb)")
    return exe


def start_chroma() -> ChromaServer:
    root = Path(tempfile.mkdtemp(prefix="engram-chroma-"))
    port = free_port()
    log = open(root / "chroma.log", "wb")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    cmd = [chroma_executable(), "run", "--path", str(root / "data")]
    proc = reaper.spawn([*cmd, "--host", "127.0.0.1", "--port", str(port)], log, root, env=env)
    server = ChromaServer(port, root, proc)
    _wait(lambda: _http_ok(server.url + "/api/v2/heartbeat"), proc, "chroma", root / "chroma.log")
    return server


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except Exception:
        return False


def _wait(ready, proc: subprocess.Popen, what: str, logfile: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited at start: {_tail(logfile)}")
        if ready():
            return
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{what} did not answer within {timeout:.0f} s: {_tail(logfile)}")


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-1500:]
    except OSError:
        return "(no log)"


def start_or_fail(start):
    if opted_out():
        pytest.skip(f"team-store servers skipped ({SKIP_ENV} is set)")
    try:
        return start()
    except Exception as exc:
        pytest.fail(f"could not start a test server: {exc}", pytrace=False)


def run_cli(data_dir, *args) -> str:
    """``engram --data-dir D ARGS…`` as its own process (another machine, a hook); its
    stdout, and an error when it fails."""
    res = run_engram("app.cli", "--data-dir", str(data_dir), *args, timeout=None)
    res.check_returncode()
    return res.stdout


def member_cli(capsys, monkeypatch, url: str, data: Path, *args: str) -> tuple[int, str, str]:
    """``engram --data-dir D ARGS…`` in this process, on the team store at URL (whose
    credentials name the member), vectors local: (exit code, stdout, stderr)."""
    from tests.cli_runs import engram_cli

    monkeypatch.setenv("ENGRAM_DB_URL", url)
    monkeypatch.delenv("ENGRAM_CHROMA_URL", raising=False)
    return engram_cli(capsys, data, *args)
