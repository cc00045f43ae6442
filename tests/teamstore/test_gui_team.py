"""The app on a team store: it refreshes when another member writes (LISTEN/NOTIFY), and the
Team store dialog tests a connection and names what is wrong."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.teamstore.servers import free_port

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]


def test_the_watcher_wakes_on_another_clients_write(qtbot, keyword_engram_pg, team_store, tmp_path):
    from ui.store_watcher import StoreWatcher

    keyword_engram_pg.agent("team", create=True)
    w = StoreWatcher(keyword_engram_pg, interval_ms=60_000)  # the poll cannot be what fires
    assert w.listener is not None and w.listening.notifier is not None
    try:
        code = (
            "import sys\n"
            "from services.config import StoreConfig\n"
            "from services.engram import Engram\n"
            "e = Engram.open(StoreConfig(data_dir=sys.argv[2], db_url=sys.argv[1], semantic=False))\n"
            "e.agent('team').remember('Another member wrote this')\n"
            "e.close()\n"
        )
        with qtbot.waitSignal(w.changed, timeout=30_000):
            subprocess.run(
                [sys.executable, "-c", code, team_store.db_url, str(tmp_path / "other")],
                check=True,
                env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
            )
    finally:
        w.stop()
    assert w.listener is None


def test_the_dialog_says_refused_unauthorised_and_saves_urls_without_a_password(
    qtbot, tmp_path, pg_server, chroma_server, monkeypatch
):
    from ui.team_store_dialog import TeamStoreDialog

    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    d = TeamStoreDialog(tmp_path)
    qtbot.addWidget(d)
    d.db_url.setText(f"postgresql://nobody_here@127.0.0.1:{free_port()}/engram")
    d.chroma_url.setText(f"http://127.0.0.1:{free_port()}")
    assert not d.test_connection()
    assert d.db_status.text().startswith("✖ refused: nothing listens on 127.0.0.1:")
    assert "refused: nothing listens" in d.vec_status.text()

    d.db_url.setText(f"postgresql://intruder@127.0.0.1:{pg_server.port}/postgres")
    d.chroma_url.setText(chroma_server.url)
    assert not d.test_connection()
    assert d.db_status.text().startswith("✖ unauthorised:"), d.db_status.text()
    assert d.vec_status.text().startswith("✔ Chroma server answers")

    d.db_url.setText(pg_server.url("postgres"))  # the harness's trusted admin
    assert d.test_connection()
    assert d.db_status.text().startswith("✔ connected to PostgreSQL")
    d.save()
    saved = json.loads((tmp_path / "team-store.json").read_text("utf-8"))
    assert saved == {"db_url": pg_server.url("postgres"), "chroma_url": chroma_server.url}

    from app.settings import store_config

    monkeypatch.delenv("ENGRAM_DB_URL", raising=False)
    monkeypatch.delenv("ENGRAM_CHROMA_URL", raising=False)
    cfg = store_config(tmp_path)
    assert (cfg.db_url, cfg.vector_url) == (pg_server.url("postgres"), chroma_server.url)


def test_the_dialog_shares_and_privatises_an_agent_and_the_other_member_sees_it(
    qtbot, members, team_store, pg_server, tmp_path
):
    import psycopg2
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    from services.config import StoreConfig
    from services.engram import Engram
    from ui.team_store_dialog import TeamStoreDialog

    def open_as(role):
        return Engram.open(
            StoreConfig(data_dir=tmp_path / role, db_url=members(role), semantic=False)
        )

    def bob_sees():  # as bob, in plain SQL (one Engram per process binds the models)
        con = psycopg2.connect(
            host="127.0.0.1", port=pg_server.port, user="bob", dbname=team_store.dbname
        )
        with con.cursor() as cur:
            cur.execute("SELECT slug FROM agent ORDER BY slug")
            got = [r[0] for r in cur.fetchall()]
        con.close()
        return got

    bob = open_as("bob")
    bob.agent("bobs-notes", create=True)
    bob.close()
    alice = open_as("alice")
    try:
        alice.agent("diary", create=True).remember("Dentist on Tuesday")
        window = QWidget()  # the main window: the dialog reads its `engram`
        window.engram = alice
        qtbot.addWidget(window)
        d = TeamStoreDialog(tmp_path / "alice", window)
        qtbot.addWidget(d)
        rows = [d.agent_list.item(i).text() for i in range(d.agent_list.count())]
        assert rows == ["bobs-notes — shared, owner: bob", "diary — shared, owner: you"]
        d.agent_list.setCurrentRow(0)  # bob's: alice may not change it
        assert not d.private_button.isEnabled() and not d.share_button.isEnabled()
        d.agent_list.setCurrentRow(1)
        assert d.private_button.isEnabled()
        qtbot.mouseClick(d.private_button, Qt.MouseButton.LeftButton)
        assert d.sharing_status.text() == "✔ diary is now private"
        assert d.agent_list.item(1).text() == "diary — private, owner: you"
        assert bob_sees() == ["bobs-notes"]
        qtbot.mouseClick(d.share_button, Qt.MouseButton.LeftButton)
        assert bob_sees() == ["bobs-notes", "diary"]
        # a member may not add members: the dialog says so
        d.member_name.setText("mallory")
        d.member_password.setText("mallory-secret")
        qtbot.mouseClick(d.add_member_button, Qt.MouseButton.LeftButton)
        assert d.sharing_status.text().startswith("✖ only the team store's admin"), (
            d.sharing_status.text()
        )
    finally:
        alice.close()
