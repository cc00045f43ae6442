"""Reliability with real processes: a writer killed with SIGKILL mid-import loses nothing it
committed and leaves a store that `verify` passes (or `--repair` fixes); a forget killed
mid-purge can be re-run to completion; a GUI-like reader, a writer thread and two CLI
writer processes at once never show "database is locked" and lose no write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact
    e = Engram.open(StoreConfig(data_dir=sys.argv[1]))
    m = e.agent("w", create=True)
    total = 0
    for batch in range(10_000):
        items = [NewFact(content=f"batch {batch} fact {i}: build {batch * 40 + i} ran on host h{i}",
                         subject=f"b{batch}-{i}") for i in range(40)]
        res = m.remember_many(items, near_duplicate=None)
        total += sum(r.status == "added" for r in res)
        print(f"committed {total}", flush=True)
""")

pytestmark = pytest.mark.slow  # processes, kills and full purges: left out of make test-fast


def _run_script(script, source: str, *args, model_dir=None) -> subprocess.Popen:
    """``source`` written to ``script`` and run as its own process (output piped); with
    ``model_dir`` (an empty one) it runs keyword-only, like a fast hook."""
    script.write_text(source)
    env = _env(ENGRAM_MODEL_DIR=str(model_dir)) if model_dir is not None else _env()
    return subprocess.Popen(
        [sys.executable, str(script), *map(str, args)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), ANONYMIZED_TELEMETRY="False")
    env.update(extra)
    return env


def _kill_after(proc, predicate, timeout=120):
    last = None
    deadline = time.time() + timeout
    for line in proc.stdout:
        if line.startswith("committed "):
            last = int(line.split()[1])
        if predicate(line, last):
            break
        assert time.time() < deadline, "child too slow"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return last


def test_sigkill_mid_import_loses_no_committed_fact(tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    d = tmp_path / "store"
    proc = _run_script(tmp_path / "writer.py", WRITER, d)
    committed = _kill_after(proc, lambda line, n: n is not None and n >= 160)
    assert proc.returncode == -signal.SIGKILL
    e = Engram.open(StoreConfig(data_dir=d))
    try:
        m = e.agent("w")
        assert m.facts.count() >= committed  # nothing reported committed is lost
        assert e.db.execute_sql("PRAGMA integrity_check").fetchone()[0] == "ok"
        rep = e.verify()
        if not rep.ok:  # the kill can land between the row commit and the vector write
            e.verify(repair=True)
            rep = e.verify()
        assert rep.ok, rep.to_json()
        assert m.search("build ran on host", mode="hybrid", k=3)
    finally:
        e.close()


FORGETTER = textwrap.dedent("""
    import sys
    from services.config import StoreConfig
    from services.engram import Engram
    from services.forget.service import ForgetScope, ForgetService
    e = Engram.open(StoreConfig(data_dir=sys.argv[1]))
    def progress(done, total, msg):
        print(f"step {msg}", flush=True)
        if msg == sys.argv[2]:
            import time; time.sleep(30)  # the parent kills us here
    ForgetService(e).execute(ForgetScope(agent="w", matching="Zanzibar"), progress=progress)
""")


def test_sigkill_mid_forget_then_rerun_completes(tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram
    from services.forget.service import ForgetScope, ForgetService
    from services.ingest.pipeline import NewFact

    d = tmp_path / "store"
    e = Engram.open(StoreConfig(data_dir=d))
    m = e.agent("w", create=True)
    m.remember_many(
        [NewFact(content=f"Trip {i} to Zanzibar on day {i}", subject=f"z{i}") for i in range(30)]
        + [
            NewFact(content=f"Unrelated note {i} about the garden", subject=f"g{i}")
            for i in range(30)
        ],
        near_duplicate=None,
    )
    e.close()
    for stop_at in ("vectors", "layers"):  # before and after the row transaction
        proc = _run_script(tmp_path / "forget.py", FORGETTER, d, stop_at)
        _kill_after(proc, lambda line, n, stop_at=stop_at: line.strip() == f"step {stop_at}")
        e = Engram.open(StoreConfig(data_dir=d))
        try:
            m = e.agent("w")
            assert m.facts.count() in (30, 60)  # all of the scope went, or none of it
            assert {f.content for f in m.list() if "garden" in f.content} == {
                f"Unrelated note {i} about the garden" for i in range(30)
            }
            rep = e.verify(repair=True)
            assert e.verify().ok, rep.to_json()
        finally:
            e.close()
    e = Engram.open(StoreConfig(data_dir=d))
    try:
        svc = ForgetService(e)
        svc.execute(ForgetScope(agent="w", matching="Zanzibar"))  # the re-run finishes it
        assert svc.verify(["Zanzibar"]).ok
        assert e.agent("w").facts.count() == 30 and e.verify().ok
    finally:
        e.close()


CLI_WRITER = textwrap.dedent("""
    import sys
    from app.cli import main
    tag, n, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    bad = 0
    for i in range(n):
        rc = main(["--data-dir", d, "remember", "--agent", "w", f"{tag} wrote note {i}"])
        bad += rc != 0
    print(f"failures {bad}", flush=True)
""")


def test_gui_reader_writer_thread_and_two_cli_writers_at_once(tmp_path):
    from services.config import StoreConfig
    from services.engram import Engram

    d = tmp_path / "store"
    empty = tmp_path / "no-model"
    empty.mkdir()
    e = Engram.open(StoreConfig(data_dir=d))
    m = e.agent("w", create=True)
    m.remember("seed fact so the reader has something to read")
    n_cli, n_thread = 25, 40
    # the hooks run keyword-only (no model: ENGRAM_MODEL_DIR is empty), like a fast hook
    procs = [
        _run_script(tmp_path / "cli_writer.py", CLI_WRITER, tag, n_cli, d, model_dir=empty)
        for tag in ("hook-a", "hook-b")
    ]
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader():  # what the GUI does: poll data_version, page the browser, search
        try:
            while not stop.is_set():
                e.data_version()
                m.facts.ids(limit=100)
                m.search("note", mode="keyword", touch=False)
        except BaseException as exc:
            errors.append(exc)

    def writer():  # a compile/import worker writing through the same store
        try:
            from services.ingest.pipeline import NewFact

            for i in range(n_thread):  # near-duplicate merging off: each write must land
                r = m.remember_many(
                    [NewFact(content=f"worker thread note {i}")], near_duplicate=None
                )[0]
                assert r.status == "added", r
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    outs = [p.communicate(timeout=240) for p in procs]
    threads[1].join(timeout=120)
    stop.set()
    threads[0].join(timeout=30)
    try:
        assert not errors, errors
        for p, (out, err) in zip(procs, outs):
            assert p.returncode == 0 and "failures 0" in out, (out, err)
            assert "locked" not in err.lower()
        contents = {f.content for f in m.list()}
        for tag in ("hook-a", "hook-b"):
            assert all(f"{tag} wrote note {i}" in contents for i in range(n_cli))
        assert all(f"worker thread note {i}" in contents for i in range(n_thread))
        assert m.facts.count() == 1 + 2 * n_cli + n_thread
    finally:
        e.close()


COMPILER = textwrap.dedent("""
    import sys
    from services.lifecycle.compile import CompileService
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact
    e = Engram.open(StoreConfig(data_dir=sys.argv[1]))
    m = e.agent("w")
    for run in range(1000):
        m.remember_many([NewFact(content=f"compile run {run} noted the weather was mild")],
                        near_duplicate=None)
        CompileService(m).compile(progress=lambda d, t, msg: print(f"{run} {msg}", flush=True))
""")


def test_sigkill_mid_compile_leaves_whole_layers(tmp_path):
    import pytest

    pytest.importorskip("services.lifecycle.compile")
    from models import CompiledLayer
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact

    d = tmp_path / "store"
    e = Engram.open(StoreConfig(data_dir=d))
    m = e.agent("w", create=True)
    m.remember_many(
        [
            NewFact(content=f"Project note {i}: module {i} owns the {i % 7} queue", subject=f"p{i}")
            for i in range(200)
        ],
        near_duplicate=None,
    )
    e.close()
    proc = _run_script(tmp_path / "compile.py", COMPILER, d)
    _kill_after(proc, lambda line, n: line.startswith("3 compiled week"))
    e = Engram.open(StoreConfig(data_dir=d))
    try:
        assert e.db.execute_sql("PRAGMA integrity_check").fetchone()[0] == "ok"
        rep = e.verify()
        if not rep.ok:
            e.verify(repair=True)
        assert e.verify().ok
        m = e.agent("w")
        assert m.facts.count() >= 203  # the seed facts and three finished runs
        # every layer file on disk is one whole compiled version, never a torn write
        for f in (d / "agents" / "w").glob("*.md"):
            versions = {
                L.markdown
                for L in CompiledLayer.select().where(
                    (CompiledLayer.agent == m.agent_id) & (CompiledLayer.layer == f.stem)
                )
            }
            assert f.read_text("utf-8") in versions
    finally:
        e.close()


def test_forget_while_a_reader_and_a_cli_writer_are_busy(tmp_path):
    """The GUI keeps reading and an agent's hook keeps writing while the user forgets: the
    purge still truncates the WAL (readers are waited for, not failed) and nothing remains."""
    from services.config import StoreConfig
    from services.engram import Engram
    from services.forget.service import ForgetScope, ForgetService
    from services.ingest.pipeline import NewFact

    d = tmp_path / "store"
    empty = tmp_path / "no-model"
    empty.mkdir()
    e = Engram.open(StoreConfig(data_dir=d))
    m = e.agent("w", create=True)
    m.remember_many(
        [
            NewFact(content=f"Pager rota {i}: Wolfgang Quibble covers week {i}", subject=f"r{i}")
            for i in range(40)
        ]
        + [
            NewFact(content=f"Kitchen note {i}: buy {i} lemons", subject=f"k{i}") for i in range(40)
        ],
        near_duplicate=None,
    )
    proc = _run_script(tmp_path / "cli_writer.py", CLI_WRITER, "hook", 15, d, model_dir=empty)
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader():
        try:
            while not stop.is_set():
                m.facts.ids(limit=50)
                m.search("rota", mode="keyword", touch=False)
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=reader)
    t.start()
    try:
        receipt = ForgetService(e).execute(ForgetScope(agent="w", matching="Wolfgang Quibble"))
    finally:
        stop.set()
        t.join(timeout=30)
    out, err = proc.communicate(timeout=240)
    try:
        assert not errors, errors
        assert proc.returncode == 0 and "failures 0" in out and "locked" not in err.lower()
        assert receipt["counts"]["facts"] == 40
        assert receipt["counts"]["remaining_after_verify"] == 0, receipt["notes"]
        assert ForgetService(e).verify(["Wolfgang Quibble"]).ok
        assert sum("hook wrote note" in f.content for f in m.list()) == 15
    finally:
        e.close()
