"""The harness's invariants, each a function of the bytes on disk and the model's
expectations; each failure names the invariant, the file or place and the token, so a red CI
run reads on its own."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TOKEN = re.compile(r"zq[0-9a-f]{10}")
# raw encodings a token may sit in: SQLite pages and files hold UTF-8, Windows editors UTF-16
ENCODINGS = ("utf-8", "utf-16-le", "utf-16-be")
LOADED_LAYERS = ("memory.md", "today.md", "week.md", "longterm.md")


class Violation(AssertionError):
    pass


@dataclass
class Expect:
    """What the model knows must hold: the lines a kept fact came from; the tokens erased
    everywhere (forgotten) or from the data dir (their agent deleted for good); the files a
    receipt names as "not erased", per token; which tokens each receipt covers."""

    kept: dict = field(default_factory=dict)  # token -> Line
    erased: dict = field(default_factory=dict)  # token -> what erased it
    dropped: dict = field(default_factory=dict)  # token -> the agent deleted for good
    exempt: dict = field(default_factory=dict)  # token -> {Path} a receipt says "not erased"
    receipts: dict = field(default_factory=dict)  # receipt id -> (what, {token})
    gone_agents: set = field(default_factory=set)


def files_under(*roots: Path) -> list[Path]:
    out: list[Path] = []
    for r in roots:
        if r.is_file():
            out.append(r)
            continue
        for d, _dirs, names in os.walk(r):
            out += [Path(d, n) for n in names if not os.path.islink(os.path.join(d, n))]
    return out


# one regex pass per file and encoding finds every token it holds (on the lowered bytes:
# case-insensitive, and a literal prefix keeps the regex fast)
_FORMS = (
    ("utf-8", re.compile(rb"zq[0-9a-f]{10}")),
    ("utf-16-le", re.compile(rb"z\x00q\x00(?:[0-9a-f]\x00){10}")),
    ("utf-16-be", re.compile(rb"\x00z\x00q(?:\x00[0-9a-f]){10}")),
)


def index(paths: list[Path]) -> dict[str, list[tuple[Path, str]]]:
    """token -> every (file, encoding) whose raw bytes hold it."""
    out: dict[str, list[tuple[Path, str]]] = {}
    for p in paths:
        try:
            raw = p.read_bytes().lower()  # ASCII only: the tokens are
        except OSError:
            continue
        seen = set()
        for enc, rx in _FORMS:
            for m in rx.findall(raw):
                tok = m.decode(enc).lower()
                if tok not in seen:  # one encoding per file: UTF-16-BE also matches LE shifted
                    seen.add(tok)
                    out.setdefault(tok, []).append((p, enc))
    return out


def scan(paths, tokens, idx=None) -> dict[str, list[tuple[Path, str]]]:
    """Every (file, encoding) whose raw bytes hold each of ``tokens``."""
    idx = index(list(paths)) if idx is None else idx
    wanted = {str(t).lower() for t in tokens}
    if paths is not None and idx is not None:
        keep = set(paths)
        return {
            t: [x for x in idx[t] if x[0] in keep]
            for t in wanted
            if t in idx and any(x[0] in keep for x in idx[t])
        }
    return {t: idx[t] for t in wanted if t in idx}


def _exempt(ex: Expect, tok: str, path: Path) -> bool:
    return any(path == q or path.resolve() == q.resolve() for q in ex.exempt.get(tok, ()))


def check_erased(ex: Expect, data_dir: Path, agent_roots: list[Path], idx=None) -> list[str]:
    """(1) forgotten text is in no byte of the data dir or any agent file, except where a
    receipt says "not erased"; a deleted agent's text is in no byte of the data dir."""
    out = []
    everywhere = files_under(data_dir, *agent_roots)
    idx = index(everywhere) if idx is None else idx
    for tok, places in scan(everywhere, ex.erased, idx).items():
        for p, enc in places:
            if not _exempt(ex, tok, p):
                out.append(f"[1 erased] {tok} ({ex.erased[tok]}) still in {p} as {enc}")
    data = [p for p in everywhere if p.is_relative_to(data_dir) and "forget-backups" not in p.parts]
    for tok, places in scan(data, ex.dropped, idx).items():
        for p, enc in places:
            out.append(
                f"[1 erased] {tok} (agent {ex.dropped[tok]} deleted for good) in {p} ({enc})"
            )
    return out


def check_kept_lines(ex: Expect, root: Path) -> list[str]:
    """(2) every kept fact's source line is byte-identical in its file."""
    out = []
    cache: dict[str, bytes] = {}
    for tok, ln in ex.kept.items():
        if ln.file not in cache:
            try:
                cache[ln.file] = (root / ln.file).read_bytes()
            except OSError:
                cache[ln.file] = b""
        enc = "utf-16-le" if ln.encoding == "utf-16" else ln.encoding
        if (ln.text + "\n").encode(enc) not in cache[ln.file]:
            out.append(f"[2 kept line] {tok}: the line of a kept fact changed or went in {ln.file}")
    return out


def check_receipts(
    ex: Expect, rows, data_dir: Path, agent_roots: list[Path], idx=None
) -> list[str]:
    """(3) a receipt that says nothing remains (or says nothing of what remains) matches the
    bytes: none of the tokens it covers is anywhere except the files it names as not erased."""
    out = []
    everywhere = None
    for rid, counts in rows:
        what, toks = ex.receipts.get(rid, ("?", set()))
        # a receipt without a verify result does not say it is unfinished: it reads as done
        if not toks or counts.get("remaining_after_verify", 0) != 0:
            continue
        if counts.get("incomplete"):  # it says it is unfinished (the journaled plan resumes)
            continue
        if everywhere is None:
            everywhere = files_under(data_dir, *agent_roots)
            idx = index(everywhere) if idx is None else idx
        named = {
            Path(s.split(": not erased")[0]) for s in counts.get("native_not_erased_files", [])
        }
        for tok, places in scan(everywhere, toks, idx).items():
            for p, enc in places:
                if p not in named:
                    out.append(
                        f"[3 receipt] receipt {rid} ({what}) says nothing remains, "
                        f"but {tok} is in {p} ({enc})"
                    )
    return out


def check_audit(db) -> list[str]:
    """(4) no memory row without its audit event."""
    rows = db.execute_sql(
        "SELECT f.id, a.slug FROM fact f JOIN agent a ON a.id = f.agent_id WHERE NOT EXISTS "
        "(SELECT 1 FROM audit_event e WHERE e.fact_id = f.id)"
    ).fetchall()
    return [f"[4 audit] fact {fid} of agent {slug} has no audit event" for fid, slug in rows]


def check_gone_agents(ex: Expect, data_dir: Path) -> list[str]:
    """(5) a deleted agent leaves nothing an agent loads (its compiled layer files)."""
    out = []
    for slug in ex.gone_agents:
        d = data_dir / "agents" / slug
        left = [p for p in files_under(d) if p.name in LOADED_LAYERS] if d.exists() else []
        out += [f"[5 gone agent] {slug}: {p} still exists" for p in left]
    return out
