"""The forget's journal: its plan, written before the first change, so a forget killed half
way (power cut, kill -9) is finished by the next ``engram forget`` instead of leaving a
receipt that looks complete over text still in the store (issue #30, finding 6).

One file in the data dir (0600, written atomically) holds the plan, the forgotten text
included: it is what lets the rest be found again. The receipt row is created at the same
time, saying "incomplete" with the steps still to run; each step crosses itself off when it
has run (the rows step inside the rows' own transaction). The journal is scrubbed (zeroed,
unlinked) once the receipt is complete. A lock file beside it tells a running forget from
an interrupted one.
"""

from __future__ import annotations

import base64
import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, fields
from datetime import date, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from models import ForgetReceipt
from services.forget.files import FileEdit, TextForm, plan_file
from services.forget.preview import AgentPreview, ForgetPreview
from services.forget.scope import ForgetScope
from services.forget.scrub import scrub_file
from services.ingest.rule_key import RuleKey
from services.store.atomic import atomic_write

NAME = "forget-journal.json"
PENDING = (
    "an interrupted forget is not finished yet (its journal is pending): "
    "run `engram forget --verify TEXT` or any forget to finish it"
)
_EDITS = ("layer_files", "workspace", "exports", "native")
_ROWS = ("facts", "history", "fts", "vectors", "episodes", "sessions", "layers", "metadata")


def path(data_dir: Path) -> Path:
    return Path(data_dir) / NAME


def pending(data_dir: Path) -> bool:
    return path(data_dir).exists()


class Busy(Exception):
    """Another process runs a forget right now: its journal is not an interrupted one."""


@contextmanager
def running(data_dir: Path, wait: bool = True) -> Iterator[None]:
    """Held for a whole forget; ``wait=False`` raises ``Busy`` instead of waiting."""
    lock = FileLock(str(Path(data_dir) / ".forget.lock"), mode=0o600, timeout=-1 if wait else 0)
    try:
        lock.acquire()
    except Timeout:
        raise Busy() from None
    try:
        yield
    finally:
        lock.release()


def kill_here_for_tests(step: str) -> None:
    """TEST HOOK: ``ENGRAM_TEST_KILL_AT=<step>`` makes the process SIGKILL itself as the
    forget reaches that step (tests/forget/test_forget_resume.py); nothing sets it in use."""
    if os.environ.get("ENGRAM_TEST_KILL_AT") == step:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))  # Windows: no SIGKILL


# the receipt row: "incomplete" until every step has run -------------------------------
def open_receipt(scope: ForgetScope, pv: ForgetPreview, key: RuleKey, steps: list[str]) -> int:
    slug = scope.agent or (pv.agents[0].slug if len(pv.agents) == 1 else None)
    values: dict = {
        "agent_slug": None if scope.all_agents else slug,
        "scope": scope.to_receipt(key),
        "counts": {"incomplete": list(steps)},
        "hashes": [],
    }
    if key.on_server:
        # a team store (schema v15): only the server's function writes a receipt, and it
        # records the role that called it
        f = ForgetReceipt._meta.fields
        row = ForgetReceipt._meta.database.execute_sql(
            "SELECT engram_open_receipt(%s, %s, %s, %s)",
            tuple(f[k].db_value(v) for k, v in values.items()),
        ).fetchone()
        return int(row[0])
    return int(ForgetReceipt.create(**values).id)


def steps_left(rid: int) -> list[str]:
    r = ForgetReceipt.get_or_none(ForgetReceipt.id == rid)
    if r is None:
        return []
    left = (r.counts or {}).get("incomplete")
    return list(left) if isinstance(left, list) else []


def step_done(rid: int, step: str, outcome: dict | None = None) -> None:
    """Cross a step off the receipt and keep what it did (counts and paths, never text)."""
    r = ForgetReceipt.get_by_id(rid)
    counts = dict(r.counts or {})
    counts.update(outcome or {})
    left = [s for s in counts.get("incomplete", []) if s != step]
    counts["incomplete"] = left
    ForgetReceipt.update(counts=counts).where(ForgetReceipt.id == rid).execute()


def receipt_counts(rid: int) -> dict:
    return dict(ForgetReceipt.get_by_id(rid).counts or {})


# the plan on disk ----------------------------------------------------------------------
def write(data_dir: Path, rid: int, pv: ForgetPreview) -> None:
    doc = {"version": 1, "receipt": rid, "plan": plan_json(pv)}
    atomic_write(path(data_dir), json.dumps(doc, ensure_ascii=False), mode=0o600)


def read(data_dir: Path) -> dict | None:
    p = path(data_dir)
    try:
        return json.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        return None


def clear(data_dir: Path) -> None:
    """The plan is done: its copy of the text goes (zeroed, then unlinked)."""
    scrub_file(path(data_dir))


def plan_json(pv: ForgetPreview) -> dict:
    scope = asdict(pv.scope)
    if isinstance(pv.scope.before, (date, datetime)):
        scope["before"] = pv.scope.before.isoformat()
        scope["before_is_datetime"] = isinstance(pv.scope.before, datetime)
    agents = []
    for ap in pv.agents:
        a = {"slug": ap.slug, "agent_id": ap.agent_id, "terms": ap.terms, "kept": ap.kept}
        a.update({k: getattr(ap, k) for k in _ROWS})
        a.update({k: [_edit_json(e) for e in getattr(ap, k)] for k in _EDITS})
        agents.append(a)
    return {"scope": scope, "agents": agents, "backups": pv.backups, "notes": pv.notes}


def plan_from(doc: dict) -> ForgetPreview:
    s = dict(doc["scope"])
    if s.get("before"):
        dt = datetime.fromisoformat(s["before"])
        s["before"] = dt if s.get("before_is_datetime") else dt.date()
    s.pop("before_is_datetime", None)
    for k in ("fact_ids", "exclude_ids", "terms"):
        s[k] = tuple(s.get(k) or ())
    pv = ForgetPreview(ForgetScope(**s), backups=list(doc["backups"]), notes=list(doc["notes"]))
    for a in doc["agents"]:
        ap = AgentPreview(a["slug"], a["agent_id"], terms=a["terms"], kept=a["kept"])
        for k in _ROWS:
            setattr(ap, k, a[k])
        for k in _EDITS:
            setattr(ap, k, [_edit_from(e) for e in a[k]])
        pv.agents.append(ap)
    return pv


def _edit_json(e: FileEdit) -> dict:
    d = {f.name: getattr(e, f.name) for f in fields(e)}
    d["path"] = str(e.path)
    d["base"] = base64.b64encode(e.base).decode("ascii") if e.base is not None else None
    # the file's own encoding and BOM: a resumed rewrite keeps them (a UTF-16 rules file)
    d["form"] = {"codec": e.form.codec, "bom": base64.b64encode(e.form.bom).decode("ascii")}
    return d


def _edit_from(d: dict) -> FileEdit:
    d = dict(d)
    d["path"] = Path(d["path"])
    d["base"] = base64.b64decode(d["base"]) if d.get("base") is not None else None
    form = d.pop("form", None)
    if form is not None:
        d["form"] = TextForm(form["codec"], base64.b64decode(form["bom"]))
    return FileEdit(**d)


def refresh_edits(pv: ForgetPreview) -> None:
    """Resuming: an edit already made is dropped; a file not edited yet is planned again as
    it is now, from the journaled terms and only for the journaled files (an entry an agent
    wrote meanwhile stays; nothing new is reached)."""
    for ap in pv.agents:
        t, ids = ap.term_set(), {f["id"] for f in ap.facts}
        for k in ("layer_files", "workspace", "exports"):
            again = []
            for e in getattr(ap, k):
                if e.problem:
                    again.append(e)
                elif e.kind == "whole":
                    if e.path.exists():
                        again.append(e)
                elif ed := plan_file(e.path, t, ids=ids if k == "exports" else None):
                    again.append(ed)
            setattr(ap, k, again)
        ap.native = [e for e in ap.native if e.problem or not _made(e)]


def _made(e: FileEdit) -> bool:
    try:
        return e.path.read_bytes() == e.new_bytes()
    except OSError:
        return False
