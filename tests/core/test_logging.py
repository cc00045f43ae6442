"""The store's log says what each command did (ids and counts) and never holds memory text."""

from __future__ import annotations

SECRETISH = "Zanzibar-quokka"


def _log_text(tmp_path) -> str:
    return (tmp_path / "cli-store" / "logs" / "engram.log").read_text(encoding="utf-8")


def test_import_compile_and_forget_leave_info_lines_without_memory_text(cli, tmp_path):
    notes = tmp_path / "AGENTS.md"
    notes.write_text(
        f"# Project rules\n\n- The staging host is called {SECRETISH}.\n"
        "- Run the linters before every commit.\n",
        encoding="utf-8",
    )
    assert cli("agent", "add", "proj")[0] == 0
    assert cli("import", "--agent", "proj", str(notes))[0] == 0
    assert cli("compile", "--agent", "proj")[0] == 0
    rc, out, err = cli("forget", "--agent", "proj", "--matching", SECRETISH, "--yes")
    assert rc == 0, err

    log = _log_text(tmp_path)
    lines = [line for line in log.splitlines() if " INFO " in line]
    assert any("fact.added" in line and "ids=" in line for line in lines), log
    assert any("compile.done" in line for line in lines), log
    assert any("forget.done" in line for line in lines), log
    assert SECRETISH not in log and "staging host" not in log


def test_log_command_prints_the_tail_and_the_path(cli, tmp_path):
    assert cli("agent", "add", "proj")[0] == 0
    rc, out, _ = cli("log", "--path")
    assert rc == 0 and out.strip().endswith("logs/engram.log")
    rc, out, _ = cli("log", "-n", "5")
    assert rc == 0 and "agent.added slug=proj" in out


def test_qt_messages_reach_the_log(tmp_path):
    import logging

    from PySide6.QtCore import qWarning

    from app.crash_log import file_log_handler, install_qt_message_handler

    handler = file_log_handler(tmp_path)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        install_qt_message_handler()
        qWarning("QPainter::begin: Paint device returned engine == 0")
    finally:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(None)
        root.removeHandler(handler)
        handler.close()
    text = (tmp_path / "logs" / "engram.log").read_text(encoding="utf-8")
    assert "WARNING" in text and "engram.qt" in text and "QPainter::begin" in text
