"""The project a session worked on: the repository's name, not the folder's. A session run in
a git worktree named after a ticket (``~/code/shop/.worktrees/ENG-4521``) or a branch folder
belongs to ``shop``; ``proj:eng-4521`` would file its facts under a ticket that ends next week.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

# A ticket or epic id as a folder name: "ENG-4521", "proj-12", "ENG-4521-fix-totals".
_TICKET = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,9}-\d+(?:[-_].*)?$")
_WORKTREE_DIRS = {"worktrees", ".worktrees", "worktree", ".worktree", "trees", "wt", ".wt"}


def _git_root_name(cwd: Path) -> str | None:
    """The repository's name when ``cwd`` is on this disk: a worktree's ``.git`` file names
    the main repository's git dir."""
    try:
        for d in (cwd, *cwd.parents):
            git = d / ".git"
            if git.is_dir():
                return d.name
            if git.is_file():
                m = re.match(r"gitdir:\s*(.+)", git.read_text(encoding="utf-8", errors="replace"))
                if m:
                    p = PurePath(m.group(1).strip())
                    parts = p.parts
                    if ".git" in parts:
                        return parts[parts.index(".git") - 1]
                return d.name
    except OSError:
        return None
    return None


# A worktree for the default branch is rare, and "api-dev" may well be a repository's name.
_DEFAULT_BRANCHES = {"main", "master", "trunk", "develop", "dev", "default", "head"}


def _branch_slug(branch: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", branch.lower()).strip("-")


def _without_branch(folder: str, branch: str | None) -> str | None:
    """``shop-feature-login`` on branch ``feature/login``: the repository is ``shop``
    (``git worktree add ../shop-feature-login`` is the common way to name one)."""
    if not branch or branch.lower() in _DEFAULT_BRANCHES:
        return None
    slug, low = _branch_slug(branch), folder.lower()
    for tail in (slug, _branch_slug(branch.rsplit("/", 1)[-1])):
        if tail and low.endswith(tail) and len(low) > len(tail) + 1:
            head = folder[: -len(tail)]
            if head[-1] in "-_.":
                return head.rstrip("-_.") or None
    return None


def project_name(cwd: str | None, branch: str | None = None) -> str | None:
    if not cwd:
        return None
    path = PurePath(cwd)
    real = Path(cwd)
    if real.is_absolute() and real.is_dir():
        name = _git_root_name(real)
        if name:
            return name
    if path.name and (repo := _without_branch(path.name, branch)):
        return repo
    parts = [p for p in path.parts if p not in ("/", "\\")]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i - 1].lower() in _WORKTREE_DIRS:
            j = i - 2
            while j > 0 and parts[j].startswith("."):
                j -= 1  # ~/code/shop/.claude/worktrees/x
            return parts[j] if j >= 0 else parts[i]
    while len(parts) > 1 and _TICKET.match(parts[-1]):
        parts.pop()
    return parts[-1] if parts else None
