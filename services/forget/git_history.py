"""Git history of the files a forget rewrote.

Codex keeps its memories in a git repository (``~/.codex/memories/.git``): rewriting the
working file leaves every earlier version in the history, where ``git log -p`` shows it. A
forget that touched a file there rewrites that repository's whole history with
``git-filter-repo`` (``--replace-text`` over every blob, ``--replace-message`` over every
commit message, then its own reflog expiry and ``gc --prune=now``), keeping the working tree
as the forget left it. A project's repository holding a rewritten CLAUDE.md or AGENTS.md is
the user's (shared, pushed, signed): its history is not rewritten, and the receipt says that
history still holds the text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from services.forget.files import Terms
from services.store.text import words

MAX_TERMS = 500


def repo_of(path: Path) -> Path | None:
    for d in Path(path).resolve().parents:
        if (d / ".git").exists():
            return d
    return None


def is_codex_memories(root: Path) -> bool:
    codex = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    return root.name == "memories" and (
        root.parent.name == ".codex" or root.resolve() == (codex / "memories").resolve()
    )


def is_letta_memfs(root: Path) -> bool:
    """Letta Code keeps each agent's memory as a git repository of its own
    (``~/.letta/agents/<id>/memory``): the agent's, not the user's project."""
    return (
        root.name == "memory"
        and root.parent.parent.name == "agents"
        and (root.parent.parent.parent.name == ".letta")
    )


def is_agent_memory_repo(root: Path) -> bool:
    return is_codex_memories(root) or is_letta_memfs(root)


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        check=check,
        timeout=600,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
    )


def _tracked(root: Path, path: Path) -> bool:
    try:
        rel = str(Path(path).resolve().relative_to(root.resolve()))
        return _git(root, "ls-files", "--error-unmatch", "--", rel, check=False).returncode == 0
    except (ValueError, OSError, subprocess.SubprocessError):
        return False


def erase_history(edits: list, terms: list[str], notes: list[str]) -> dict:
    """For every git repository holding a rewritten file: rewrite it (Codex memories) or say
    that its history keeps the text. Returns receipt counts."""
    out = {"git_histories_rewritten": 0, "git_histories_keeping_text": 0}
    repos: dict[Path, list] = {}
    for ed in edits:
        root = repo_of(ed.path)
        if root is None:
            continue
        if shutil.which("git") is None:  # cannot even tell: say history may keep it
            out["git_histories_keeping_text"] += 1
            notes.append(f"{root}: git is not installed, so its history was not rewritten")
            continue
        if _tracked(root, ed.path):
            repos.setdefault(root, []).append(ed)
    for root, eds in sorted(repos.items()):
        if not is_agent_memory_repo(root):
            out["git_histories_keeping_text"] += 1
            notes.append(
                f"{root}: this git repository's history still holds the forgotten text "
                "(Engram rewrites history only in agents' own memory repositories: Codex "
                "memories, Letta MemFS)"
            )
            continue
        err = rewrite(root, eds, terms)
        if err is None:
            out["git_histories_rewritten"] += 1
            notes.append(f"{root}: removed from every commit of its git history (git-filter-repo)")
        else:
            out["git_histories_keeping_text"] += 1
            notes.append(f"{root}: its git history still holds the forgotten text: {err}")
    return out


def _expressions(eds: list, terms: list[str]) -> list[bytes]:
    """git-filter-repo ``--replace-text`` lines: every removed line literally, and every
    forgotten string as a case-insensitive word pattern (an older wording, other spacing)."""
    out: list[bytes] = []
    t = Terms(terms)
    for ed in eds:
        old = (ed.base or b"").decode("utf-8", errors="replace").split("\n")
        for n in ed.lines:
            ln = old[n - 1].strip() if 0 < n <= len(old) else ""
            # only lines that name it: a removed statement's "---" or "|---|" line must not
            # be cut out of every other file's history
            if ln and "==>" not in ln and t.mentions(ln):
                out.append(b"literal:" + ln.encode("utf-8") + b"==>")
    for term in list(dict.fromkeys(terms))[:MAX_TERMS]:
        ws = words(term)
        if ws:
            pat = r"(?i)\b" + r"[\W_]+".join(re.escape(w) for w in ws) + r"\b"
            out.append(b"regex:" + pat.encode("utf-8") + b"==>")
    return list(dict.fromkeys(out))


def _dirty(root: Path) -> dict[Path, bytes]:
    """Working-tree files that differ from HEAD: git-filter-repo resets the tree to the
    rewritten HEAD, so their current bytes are put back afterwards."""
    got = _git(root, "diff", "--name-only", "-z", "HEAD", check=False).stdout
    out = {}
    for rel in filter(None, got.split(b"\0")):
        p = root / os.fsdecode(rel)
        if p.is_file():
            out[p] = p.read_bytes()
    return out


def rewrite(root: Path, eds: list, terms: list[str]) -> str | None:
    """Rewrite ``root``'s history without the text; None when done, else why not."""
    from services.forget.scrub import scrub_file
    from services.store.atomic import atomic_write

    exprs = _expressions(eds, terms)
    if not exprs:
        return "nothing to match"
    saved = _dirty(root)
    fd, name = tempfile.mkstemp(prefix="engram-forget-", dir=str(root / ".git"))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"\n".join(exprs) + b"\n")
        cmd = [sys.executable, "-m", "git_filter_repo", "--force", "--quiet"]
        cmd += ["--replace-text", name, "--replace-message", name]
        try:
            res = subprocess.run(cmd, cwd=root, capture_output=True, timeout=1800)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"git-filter-repo could not run ({exc})"
        if res.returncode != 0:
            return "git-filter-repo failed: " + res.stderr.decode(errors="replace").strip()[-300:]
    finally:
        scrub_file(Path(name))
    for p, data in saved.items():
        atomic_write(p, data)
    msg = root / ".git" / "COMMIT_EDITMSG"
    if msg.is_file() and Terms(terms).mentions(msg.read_text(errors="replace")):
        scrub_file(msg)
    return None if not history_mentions(root, terms) else "the text is still in some commits"


def history_mentions(root: Path, terms: list[str]) -> bool:
    """Does any commit (patch or message) of the repository still mention a term?"""
    try:
        res = _git(root, "log", "--all", "-p", "--format=%B", "--no-color", check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return Terms(terms).mentions(res.stdout.decode("utf-8", errors="replace"))
