"""Findings 2 and 3: files Engram writes are safe (no device, FIFO or socket replaced, no
silent overwrite, no invented directory, mode and symlinks kept) and the store is private."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from services.config import StoreConfig
from services.engram import Engram
from services.store.atomic import UnsafeTarget, atomic_write


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.fixture
def store_with_fact(cli):
    rc, _out, err = cli("remember", "--agent", "a", "--create-agent", "Prefers pnpm")
    assert rc == 0, err
    return cli


def test_export_refuses_a_device(store_with_fact):
    rc, _out, err = store_with_fact("export", "--agent", "a", "--force", "/dev/null")
    assert rc == 1 and "refusing to write /dev/null: it is a device" in err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_refuses_a_fifo_and_a_socket(store_with_fact, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    rc, _out, err = store_with_fact("export", "--agent", "a", "--force", str(fifo))
    assert rc == 1 and "FIFO" in err and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    sock_path = tmp_path / "s.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    try:
        rc, _out, err = store_with_fact("export", "--agent", "a", "--force", str(sock_path))
        assert rc == 1 and "socket" in err and stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    finally:
        s.close()


def test_export_does_not_overwrite_without_force(store_with_fact, tmp_path):
    out = tmp_path / "mine.json"
    out.write_text("precious")
    rc, _out, err = store_with_fact("export", "--agent", "a", str(out))
    assert rc == 1 and "exists (use --force" in err and out.read_text() == "precious"
    assert store_with_fact("export", "--agent", "a", "--force", str(out))[0] == 0
    assert json.loads(out.read_text())["facts"][0]["content"] == "Prefers pnpm"


def test_export_reports_a_missing_directory(store_with_fact, tmp_path):
    out = tmp_path / "nowhere" / "x.json"
    rc, _out, err = store_with_fact("export", "--agent", "a", str(out))
    assert rc == 1 and "does not exist" in err and not out.parent.exists()


def test_archive_export_is_as_careful(store_with_fact, tmp_path):
    out = tmp_path / "a.jsonl"
    out.write_text("keep")
    rc, _out, err = store_with_fact("archive", "export", "--agent", "a", str(out))
    assert rc == 1 and "exists" in err and out.read_text() == "keep"


def test_atomic_replace_keeps_mode_and_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink() and real.read_text() == "new" and _mode(real) == 0o640
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(UnsafeTarget, match="symbolic link loop"):
        atomic_write(loop, "x")


def test_a_new_store_is_private(tmp_path):
    d = tmp_path / "store"
    eng = Engram.open(StoreConfig(data_dir=d, semantic=False))
    try:
        eng.agent("a", create=True).remember("Prefers pnpm")
        eng.forget_key()
        assert _mode(d) == 0o700
        for name in ("engram.db", "forget.key"):
            assert _mode(d / name) == 0o600, name
        assert eng.verify().loose_permissions == []
    finally:
        eng.close()


def test_an_existing_loose_store_is_tightened_on_open_and_verify_reports_it(tmp_path, cli):
    d = tmp_path / "cli-store"
    assert cli("remember", "--agent", "a", "--create-agent", "Prefers pnpm")[0] == 0
    os.chmod(d, 0o755)
    dbs = [p for p in d.iterdir() if p.name.startswith("engram.db")]
    for p in dbs:
        os.chmod(p, 0o644)
    from services.store.permissions import describe_loose, tighten

    assert any("loose permissions" in m for m in describe_loose(d))
    eng = Engram.open(StoreConfig(data_dir=d, semantic=False))
    try:
        assert any("tightened" in n for n in eng.notes)
    finally:
        eng.close()
    assert _mode(d) == 0o700 and all(_mode(p) == 0o600 for p in dbs)
    assert tighten(d) == []
    eng = Engram.open(StoreConfig(data_dir=d, semantic=False))
    try:
        inner = d / "shared-by-mistake.md"  # loosened while the store is open
        inner.write_text("x")
        os.chmod(inner, 0o644)
        rep = eng.verify()
        assert not rep.ok and any(str(inner) in m for m in rep.loose_permissions)
        assert eng.verify(repair=True).loose_permissions and _mode(inner) == 0o600
        assert eng.verify().loose_permissions == []
    finally:
        eng.close()


def test_export_files_are_private(store_with_fact, tmp_path):
    out = tmp_path / "e.json"
    assert store_with_fact("export", "--agent", "a", str(out))[0] == 0
    assert _mode(out) == 0o600
    assert Path(out).read_text().startswith("{")


def test_tightening_never_makes_a_read_only_store_writable(tmp_path):
    from services.store.permissions import tighten

    d = tmp_path / "ro"
    d.mkdir()
    (d / "engram.db").write_text("x")
    os.chmod(d / "engram.db", 0o444)
    os.chmod(d, 0o555)
    try:
        assert tighten(d) and _mode(d) == 0o500 and _mode(d / "engram.db") == 0o400
    finally:
        os.chmod(d, 0o700)
