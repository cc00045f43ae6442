"""The files Engram writes *from* an agent's compiled memory for the agent to load (today the
Cursor rule ``.cursor/rules/engram-memory.mdc``, which embeds it because Cursor cannot import a
file outside the project) follow each recompile.

Only a rule Engram installed (it is in the install manifest) and that nobody edited since (its
bytes still hash to what Engram last wrote) is rewritten, through the same plan/apply as
``engram hooks install cursor``, so the manifest and uninstall stay exact. An edited rule is
left alone and logged.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from services.integrations import hooks_install as hi
from services.store.handle import MemoryHandle

log = logging.getLogger(__name__)


def refresh_agent_files(memory: MemoryHandle) -> list[Path]:
    """Rewrite this agent's installed Cursor rules from its current memory.md; the paths
    rewritten."""
    data_dir = Path(memory.engram.config.data_dir)
    done: list[Path] = []
    for key, rec in hi._load_manifest(data_dir).items():
        path = Path(rec.get("path") or key.split("#", 1)[0])  # keys are "<path>#<agent>"
        if rec.get("target") != "cursor" or rec.get("agent") != memory.slug:
            continue
        if path.name != hi.RULE_NAME or not path.is_file():
            continue
        raw = path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != rec.get("installed_sha256"):
            log.warning("%s was edited since Engram wrote it: not refreshed", path)
            continue
        fresh = hi.cursor_rule(memory, hi.memory_file(memory)).encode("utf-8")
        if fresh == raw:
            continue
        project = path.parent.parent.parent  # <project>/.cursor/rules/engram-memory.mdc
        plan = hi.plan_install(memory, "cursor", project=project, data_dir=data_dir, mcp=False)
        hi.apply(plan, data_dir)
        done.append(path)
    return done
