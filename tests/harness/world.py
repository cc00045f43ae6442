"""The harness's world: a fake HOME and project holding real agent files (a Claude Code
auto-memory folder, a project CLAUDE.md, Codex memories, a UTF-16 Cursor rules file), each
statement carrying a unique token ("zq" + hex) so a byte scan finds exactly one memory's
text; imported into a real store (SQLite + Chroma + the real model) once per process and
copied for each sequence."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

# words several statements share, so a forget --matching on one selects a group and the
# preview has candidates to untick
GROUPS = ("kestrel", "marmot", "quince")
ENC_PROJECT = "-work-shop"  # ~/.claude/projects/<encoded project path>


def token(rng: random.Random) -> str:
    return "zq" + "".join(rng.choice("0123456789abcdef") for _ in range(10))


@dataclass
class Line:
    """One statement as an agent file holds it: the file, its exact bytes, its token."""

    file: str  # relative to the world root
    text: str  # the line without its newline
    tok: str
    group: str
    encoding: str = "utf-8"


@dataclass
class World:
    lines: list[Line] = field(default_factory=list)
    agents: dict[str, str] = field(default_factory=dict)  # slug -> file/folder imported

    def files(self) -> list[str]:
        return sorted({ln.file for ln in self.lines})


def _stmt(rng: random.Random, n: int, what: str) -> tuple[str, str, str]:
    tok, group = token(rng), GROUPS[n % len(GROUPS)]
    return f"The {group} {what} uses code {tok} for build {n}.", tok, group


def write_world(root: Path, seed: int = 7) -> World:
    rng = random.Random(seed)
    w = World()
    home, proj = root / "home", root / "proj"
    mem = home / ".claude" / "projects" / ENC_PROJECT / "memory"
    mem.mkdir(parents=True)
    n = 0

    def bullets(what: str, count: int, rel: str, encoding: str = "utf-8") -> list[str]:
        """``count`` statements as ``- `` lines of the file ``rel``, each recorded."""
        nonlocal n
        out = []
        for _ in range(count):
            text, tok, group = _stmt(rng, n, what)
            out.append(f"- {text}")
            w.lines.append(Line(rel, f"- {text}", tok, group, encoding))
            n += 1
        return out

    index = ["# Memory Index", ""]
    for topic in ("alpha", "beta"):
        body = ["---", f"name: Topic {topic}", f"description: Notes on {topic}", "type: user"]
        body += ["---", ""]
        body += bullets("service", 3, f"{mem.relative_to(root)}/topic_{topic}.md")
        (mem / f"topic_{topic}.md").write_text("\n".join(body) + "\n", encoding="utf-8")
        index.append(f"- [Topic {topic}](topic_{topic}.md) — notes on {topic}")
    (mem / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    w.agents["cc"] = str(mem.relative_to(root))

    proj.mkdir()
    claude = ["# CLAUDE.md", "", "Guidance for this repository.", "", "## Rules", ""]
    claude += bullets("rule", 4, "proj/CLAUDE.md")
    (proj / "CLAUDE.md").write_text("\n".join(claude) + "\n", encoding="utf-8")
    w.agents["proj"] = "proj/CLAUDE.md"

    codex = home / ".codex" / "memories"
    codex.mkdir(parents=True)
    summary = ["# Memory Summary", "", "## User preferences"]
    summary += bullets("preference", 3, f"{codex.relative_to(root)}/memory_summary.md")
    (codex / "memory_summary.md").write_text("\n".join(summary) + "\n", encoding="utf-8")
    tasks = ["# Task Group: shop maintenance", "", "## Task 1: flaky test", ""]
    tasks += bullets("task", 3, f"{codex.relative_to(root)}/MEMORY.md")
    (codex / "MEMORY.md").write_text("\n".join(tasks) + "\n", encoding="utf-8")
    w.agents["codex"] = str(codex.relative_to(root))

    rules = ["# Cursor rules", ""]
    rules += bullets("lint", 3, "proj/.cursorrules", "utf-16")
    (proj / ".cursorrules").write_bytes(("\n".join(rules) + "\n").encode("utf-16"))
    w.agents["cursor"] = "proj/.cursorrules"
    return w


def build_template(root: Path) -> World:
    """Write the world under ``root`` and import every agent's files into ``root/store``."""
    from services.config import StoreConfig
    from services.engram import Engram

    w = write_world(root)
    e = Engram.open(StoreConfig(data_dir=root / "store"))
    try:
        for slug, rel in w.agents.items():
            m = e.agent(slug, create=True)
            m.import_path(root / rel)
    finally:
        e.close()
    (root / "world.json").write_text(
        json.dumps({"lines": [ln.__dict__ for ln in w.lines], "agents": w.agents}), "utf-8"
    )
    return w


def load_world(root: Path) -> World:
    d = json.loads((root / "world.json").read_text("utf-8"))
    return World([Line(**x) for x in d["lines"]], d["agents"])


_PATH_COLUMNS = (
    ("fact", "source_ref"),
    ("fact", "metadata"),
    ("agent", "workspace"),
    ("audit_event", "before"),
    ("audit_event", "after"),
    ("compiled_layer", "path"),
)


def copy_world(template: Path, root: Path) -> None:
    """A copy of the template, every absolute path in its store rewritten to the copy (a
    path left at the template would let this sequence edit the template's files)."""
    shutil.copytree(template, root, symlinks=True)
    old, new = str(template), str(root)
    import sqlite3

    db = sqlite3.connect(root / "store" / "engram.db")
    try:
        for table, col in _PATH_COLUMNS:
            db.execute(
                f"UPDATE {table} SET {col} = replace({col}, ?, ?) WHERE instr({col}, ?) > 0",
                (old, new, old),
            )
        db.commit()
    finally:
        db.close()
    for state in (root / "store").rglob("*.json"):
        text = state.read_text("utf-8")
        if old in text:
            state.write_text(text.replace(old, new), "utf-8")
