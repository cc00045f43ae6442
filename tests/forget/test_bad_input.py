"""Bad input never crashes the CLI, never leaves partial state and always says what is wrong:
invalid/truncated UTF-8, binary garbage named MEMORY.md, a 200 MB garbage transcript, a
corrupt store, a read-only or full data dir (real mounts: a read-only bind mount and a 3 MB
tmpfs, skipped where the test cannot mount), a missing model."""

from __future__ import annotations

import hashlib
import os
import subprocess
import uuid

import pytest

from app.cli import main


@pytest.fixture
def cli(tmp_path, capsys):
    def run(data_dir, *argv):
        rc = main(["--data-dir", str(data_dir), *argv])
        out = capsys.readouterr()
        return rc, out.out, out.err

    return run


@pytest.fixture
def no_model(tmp_path, monkeypatch):
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("ENGRAM_MODEL_DIR", str(empty))
    return empty


def _facts(cli, d, agent="x"):
    rc, out, _ = cli(d, "list", "--agent", agent)
    return [ln for ln in out.splitlines() if ln.strip()]


def test_invalid_and_truncated_utf8(cli, tmp_path, no_model):
    d = tmp_path / "s"
    ws = tmp_path / "ws" / "memories"
    ws.mkdir(parents=True)
    (ws / "MEMORY.md").write_bytes(
        "# MEMORY.md\n\n§\n[2026-04-12][pref] Prefers pnpm\n§\n".encode()
        + b"[2026-04-12][fact] bad \xff\xfe bytes here\n\xc2\xa7\n[2026-04-13][fact] truncated \xe2\x82"
    )
    rc, out, err = cli(d, "import", "--agent", "x", str(tmp_path / "ws"))
    assert "invalid UTF-8" in out and "added 1" in out  # the good entry, and why not the rest
    assert [ln.split("] ", 1)[1].split(None, 1)[1] for ln in _facts(cli, d)] == ["Prefers pnpm"]
    # undecodable bytes on the command line (surrogate-escaped argv)
    bad = os.fsdecode(b"note \xff\xfe")
    rc, out, err = cli(d, "remember", "--agent", "x", bad)
    assert rc == 1 and "not valid UTF-8" in err and "Traceback" not in err
    assert len(_facts(cli, d)) == 1


def test_binary_garbage_named_memory_md(cli, tmp_path, no_model):
    d = tmp_path / "s"
    g = tmp_path / "g" / "memories"
    g.mkdir(parents=True)
    (g / "MEMORY.md").write_bytes(os.urandom(64 * 1024))
    rc, out, err = cli(d, "import", "--agent", "x", str(g / "MEMORY.md"))
    assert "not a text file" in out and "added 0" in out and "Traceback" not in err
    assert _facts(cli, d) == []
    assert cli(d, "verify")[0] == 0


@pytest.mark.slow
def test_200mb_garbage_transcript(cli, tmp_path, no_model):
    d = tmp_path / "s"
    big = tmp_path / "session.jsonl"
    with open(big, "wb") as fh:
        for _ in range(200):
            fh.write(os.urandom(1 << 20))
    assert big.stat().st_size > 200 * 10**6
    rc, out, err = cli(d, "ingest-session", "--agent", "x", str(big))
    assert rc == 1 and "not a transcript" in err and len(err.strip().splitlines()) == 1
    rc, out, err = cli(d, "import", "--agent", "x", str(big))
    assert rc == 1 and "not a format Engram can import" in err
    from models import Session

    assert Session.select().count() == 0 and _facts(cli, d) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_store(cli, tmp_path, no_model, damage):
    d = tmp_path / "s"
    for i in range(50):
        assert (
            cli(d, "remember", "--agent", "x", "--create-agent", f"fact number {i} " * 20)[0] == 0
        )
    db = d / "engram.db"
    raw = db.read_bytes()
    db.write_bytes(os.urandom(len(raw)) if damage == "garbage" else raw[: len(raw) // 3])
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    rc, out, err = cli(d, "list", "--agent", "x")
    if damage == "truncated" and rc == 0:
        # SQLite can read a truncated file until it touches a missing page: verify must see it
        rc, out, err = cli(d, "verify")
    assert rc == 1 and "damaged" in err and "Traceback" not in err, err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # we did not "fix" it blindly


def _mount(args) -> bool:
    try:
        return subprocess.run(["mount", *args], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def test_read_only_data_dir(cli, tmp_path, no_model):
    d = tmp_path / "s"
    assert cli(d, "remember", "--agent", "x", "--create-agent", "kept fact")[0] == 0
    ro = tmp_path / "ro"
    ro.mkdir()
    if not (_mount(["--bind", str(d), str(ro)])):
        pytest.skip("cannot bind-mount here (needs root/CAP_SYS_ADMIN)")
    try:
        if not _mount(["-o", "remount,ro,bind", str(ro)]):
            pytest.skip("cannot remount read-only here")
        rc, out, err = cli(ro, "remember", "--agent", "x", "new fact")
        assert rc == 1 and "read-only" in err and "Traceback" not in err
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
    assert len(_facts(cli, d)) == 1


def test_full_data_dir(cli, tmp_path, no_model):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if not _mount(["-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)]):
        pytest.skip("cannot mount a tmpfs here (needs root/CAP_SYS_ADMIN)")
    try:
        d = mnt / "s"
        assert cli(d, "remember", "--agent", "x", "--create-agent", "first fact")[0] == 0
        with open(mnt / "filler", "wb", buffering=0) as fh:  # nothing left to flush on close
            try:
                while True:
                    fh.write(b"\0" * 65536)
                    fh.flush()
            except OSError:
                pass
        big = "second fact " + uuid.uuid4().hex * 100
        rc, out, err = cli(d, "remember", "--agent", "x", big)
        assert rc == 1 and "full" in err and "Traceback" not in err, err
        (mnt / "filler").unlink()
        # nothing half-written: the store is consistent and the first fact is there
        facts = _facts(cli, d)
        assert len(facts) == 1 and "first fact" in facts[0]
        assert cli(d, "verify")[0] == 0
        assert cli(d, "remember", "--agent", "x", big)[0] == 0
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_missing_model_keeps_keyword_search(cli, tmp_path, no_model):
    d = tmp_path / "s"
    assert cli(d, "remember", "--agent", "x", "--create-agent", "Prefers pnpm over npm")[0] == 0
    rc, out, err = cli(d, "recall", "--agent", "x", "pnpm")
    assert (
        rc == 0 and "pnpm" in out and "not installed" in err and "keyword search still works" in err
    )
    rc, out, err = cli(d, "model", "status")
    assert rc == 1 and "not installed" in err
    rc, out, err = cli(d, "forget", "--agent", "x", "--matching", "pnpm")
    assert rc == 0 and "semantic matching is off" in out
    rc, out, err = cli(d, "forget", "--agent", "x", "--matching", "pnpm", "--yes")
    assert rc == 0
    rc, out, err = cli(d, "forget", "--verify", "pnpm")
    assert rc == 0
