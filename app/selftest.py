"""``--self-test``: prove an installed Engram works end to end, offscreen, in seconds.

Opens a store in a temporary directory, stores three facts, runs a hybrid search that only
the embedding model can answer well, checks the keyring backends load and that Qt starts
offscreen; prints one JSON line and exits 0, or 1 with the reason. The packaging smoke test
runs it against the frozen bundle, where a missing model file, Qt plugin or hidden import
shows up here rather than on a user's desktop.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

FACTS = [
    ("pref", "Prefers pnpm over npm for JavaScript projects"),
    ("env", "Development machine runs Debian 12"),
    ("rule", "Never push to main without a pull request"),
]
QUERY = "which JavaScript package manager does the user like"


def run_self_test() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    t0 = time.perf_counter()
    out: dict = {"ok": False}
    tmp = tempfile.mkdtemp(prefix="engram-selftest-")
    try:
        from app import __version__
        from services.config import StoreConfig
        from services.engram import Engram
        from services.ingest.pipeline import NewFact

        out["version"] = __version__
        eng = Engram.open(StoreConfig(data_dir=Path(tmp)))
        try:
            if not eng.semantic_enabled:
                raise RuntimeError(eng.semantic_error or "semantic search is off")
            mem = eng.agent("selftest", create=True)
            mem.remember_many([NewFact(content=c, category=cat) for cat, c in FACTS])
            hits = mem.search(QUERY, k=3, mode="semantic")
            if not hits or "pnpm" not in hits[0].fact.content:
                raise RuntimeError(f"semantic search returned {[h.fact.content for h in hits]}")
            kw = mem.search("pull request", k=3, mode="keyword")
            if not kw:
                raise RuntimeError("keyword search found nothing")
            out["search"] = hits[0].fact.content
        finally:
            eng.close()
        import keyring

        out["keyring"] = type(keyring.get_keyring()).__module__
        from services import SecretsStore

        # the path the app takes: never raises, explains a missing/locked keyring
        ok, backend, _ = SecretsStore().status()
        out["secrets"] = {"ok": ok, "backend": backend}
        from PySide6.QtCore import qVersion
        from PySide6.QtWidgets import QApplication, QLabel

        _app = QApplication.instance() or QApplication(["engram-selftest"])
        QLabel("Engram").adjustSize()
        out["qt"] = qVersion()
        out["qt_platform"] = QApplication.platformName()
        out["ok"] = True
    except Exception as exc:  # a self-test reports, it does not crash
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["ms"] = round((time.perf_counter() - t0) * 1000)
    print(json.dumps(out))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(run_self_test())
