"""Fixtures for the importer tests: copies of the hand-written sources in ``fixtures/`` (so a
test can break or age them), and Lynn ``facts.db`` files built with Lynn's own DDL for its
oldest (v1) and newest (v6) schema."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# A fixed, unambiguous modification time (noon UTC) for files whose entries carry no date.
MTIME = datetime(2026, 5, 20, 12, 0, tzinfo=UTC).timestamp()

# the keyword index every version of lynn keeps beside its facts table
_LYNN_FTS = """
CREATE VIRTUAL TABLE facts_fts USING fts5(fact, content=facts, content_rowid=id,
                                          tokenize='unicode61');
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
END;
"""

# version 1's columns, which later versions keep and add to
_LYNN_V1_COLUMNS = """
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  fact       TEXT NOT NULL,
  tags       TEXT NOT NULL DEFAULT '[]',
  time       TEXT,
  session_id TEXT,
  created_at TEXT NOT NULL"""

LYNN_V1 = "\nCREATE TABLE facts (" + _LYNN_V1_COLUMNS + "\n);\n" + _LYNN_FTS

LYNN_V6 = (
    "\nCREATE TABLE facts ("
    + _LYNN_V1_COLUMNS
    + """,
  source           TEXT,
  project_path     TEXT,
  importance_score REAL NOT NULL DEFAULT 0,
  hit_count        INTEGER NOT NULL DEFAULT 0,
  last_accessed_at TEXT,
  category         TEXT NOT NULL DEFAULT 'other',
  confidence       REAL NOT NULL DEFAULT 0.5,
  evidence         TEXT,
  harmful_count    INTEGER NOT NULL DEFAULT 0,
  last_used_outcome TEXT,
  last_used_at     TEXT
);
CREATE TABLE fact_links (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  from_id    INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  to_id      INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  relation   TEXT NOT NULL DEFAULT 'related_to',
  created_at TEXT NOT NULL
);
"""
    + _LYNN_FTS
    + """
CREATE INDEX idx_facts_category ON facts(category);
CREATE INDEX idx_facts_importance ON facts(importance_score DESC);
"""
)

# (fact, tags, time, category, importance_score, project_path, confidence)
V6_ROWS = [
    (
        "用户喜欢用 Vim 键位编辑代码",
        ["偏好", "编辑器"],
        "2026-05-01T09:12",
        "preference",
        12.0,
        None,
        0.9,
    ),
    (
        "lynn-desktop uses Electron 33 with a React 19 renderer",
        ["electron", "react"],
        "2026-05-01T10:00",
        "project",
        10.0,
        "/Users/lin/code/lynn-desktop/",
        0.8,
    ),
    (
        "Chose better-sqlite3 over sql.js for the fact store",
        ["sqlite", "decision"],
        "2026-05-02T11:30",
        "project_decision",
        6.0,
        None,
        0.7,
    ),
    (
        "Never call the embedding API inside a database transaction",
        ["embedding"],
        "2026-05-02T12:00",
        "tech",
        8.0,
        None,
        0.8,
    ),
    (
        "Node 22 is required to build the desktop app",
        ["node"],
        "2026-05-02T12:05",
        "tech",
        5.0,
        None,
        0.6,
    ),
    (
        "Maria is the user's co-founder and handles sales",
        ["maria"],
        "2026-05-02T15:00",
        "person",
        9.0,
        None,
        0.9,
    ),
    (
        "Ship the memory export feature before the June talk",
        ["export"],
        "2026-05-03T08:00",
        "task",
        7.0,
        None,
        0.8,
    ),
    (
        "Vite dev server hangs when the project path contains a space",
        ["vite", "bug"],
        "2026-05-03T09:45",
        "pitfall",
        11.0,
        None,
        0.9,
    ),
    (
        "Release steps: bump the version, tag it, then run npm run dist on the Mac mini",
        ["release"],
        "2026-05-03T10:10",
        "procedure",
        4.0,
        None,
        0.8,
    ),
    (
        "Migrated the fact store to schema v6 on Sunday morning",
        ["migration"],
        "2026-05-03T11:00",
        "event",
        3.0,
        None,
        0.7,
    ),
    (
        "GLM-5.1 reached 42 tok/s on the DGX Spark with FP8",
        ["benchmark"],
        "2026-05-03T16:20",
        "model_benchmark",
        6.5,
        None,
        0.8,
    ),
    (
        "The user keeps a paper notebook for weekly planning",
        [],
        "2026-05-04T07:30",
        "other",
        0.0,
        None,
        0.5,
    ),
    (
        "Prefers answers in Simplified Chinese unless code is involved",
        ["language"],
        "2026-04-01T08:00",
        "user_preference",
        10.0,
        None,
        0.9,
    ),
    (
        "The billing service lives in the payments monorepo",
        ["billing"],
        "2026-04-01T08:05",
        "project_fact",
        10.0,
        "C:\\work\\payments",
        0.8,
    ),
    (
        "Use pnpm workspaces instead of lerna for new packages",
        ["tooling"],
        "2026-04-01T08:10",
        "technical_decision",
        10.0,
        None,
        0.8,
    ),
    (
        "The user was born in Hangzhou",
        ["biography"],
        "2026-04-01T08:15",
        "personal_info",
        10.0,
        None,
        0.9,
    ),
    (
        "The staging OpenAI key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
        ["secrets"],
        "2026-05-04T08:00",
        "tech",
        10.0,
        None,
        0.5,
    ),
    ("   ", [], "2026-05-04T08:30", "other", 10.0, None, 0.5),
]

V1_ROWS = [
    (
        "用户每天早上先处理邮件",
        ["preference", "习惯"],
        "2026-02-10T00:00",
        "v1-migration",
        "2026-02-10T03:00:00.000Z",
    ),
    (
        "The old notes app exported everything as OPML",
        ["export"],
        "2026-02-11T00:00",
        "v1-migration",
        "2026-02-11T03:00:00.000Z",
    ),
    (
        "Backups of the notes go to an external SSD every Friday",
        [],
        "2026-02-12T00:00",
        "v1-migration",
        "2026-02-12T03:00:00.000Z",
    ),
]


def build_lynn_db(path: Path, version: int) -> Path:
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")  # Lynn opens facts.db in WAL mode
    if version == 1:
        con.executescript(LYNN_V1)
        con.executemany(
            "INSERT INTO facts (fact, tags, time, session_id, created_at) VALUES (?, ?, ?, ?, ?)",
            [(f, json.dumps(t, ensure_ascii=False), tm, s, c) for f, t, tm, s, c in V1_ROWS],
        )
        con.execute("PRAGMA user_version = 1")
    else:
        con.executescript(LYNN_V6)
        con.executemany(
            "INSERT INTO facts (fact, tags, time, session_id, created_at, source, project_path,"
            " importance_score, hit_count, category, confidence) "
            "VALUES (?, ?, ?, 'sess-42', ?, 'auto-distilled', ?, ?, 2, ?, ?)",
            [
                (f, json.dumps(t, ensure_ascii=False), tm, tm + ":00.000Z", pp, imp, cat, conf)
                for f, t, tm, cat, imp, pp, conf in V6_ROWS
            ],
        )
        con.execute("PRAGMA user_version = 6")
    con.commit()
    con.close()
    return path


def _copy(name: str, dest: Path) -> Path:
    shutil.copytree(FIXTURES / name, dest)
    for p in dest.rglob("*"):
        os.utime(p, (MTIME, MTIME))
    return dest


@pytest.fixture
def memory_setup_dir(tmp_path) -> Path:
    return _copy("memory_setup", tmp_path / "workspace")


@pytest.fixture
def hermes_dir(tmp_path) -> Path:
    return _copy("hermes", tmp_path / "hermes")


@pytest.fixture
def lynn_dir(tmp_path) -> Path:
    """A Lynn agent's memory dir with a v6 facts.db."""
    d = _copy("lynn/memory", tmp_path / "lynn" / "agents" / "hana" / "memory")
    build_lynn_db(d / "facts.db", 6)
    return d


def by_content(memory) -> dict[str, object]:
    """Every stored fact of an agent (any status), keyed by content."""
    from services.store.facts import FactFilters

    every = FactFilters(status=["active", "pending", "superseded", "archived"])
    return {f.content: f for f in memory.list(every, limit=10_000)}


@pytest.fixture
def stored():
    return by_content


@pytest.fixture
def make_lynn_db():
    """build_lynn_db(path, version): a facts.db with Lynn's v1 or v6 schema and rows."""
    return build_lynn_db
