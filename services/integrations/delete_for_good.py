"""Deleting a trashed agent for good (Trash → Delete for good, ``engram agent trash --empty``).

Dropping the agent's row alone left its compiled ``memory.md`` (which an agent wired to it
kept loading), its layer files and its text in the free pages of ``engram.db`` and
``chroma.sqlite3``. So it is the whole-agent forget first (``ForgetService``: rows, FTS,
history, episodes, session logs, vectors and the Chroma collection, compiled layers and
their files, the ``agents/<slug>`` dir, compaction, raw-bytes verification, a receipt
without content). The agent's own memory files are another program's: they stay as they
are and the receipt names each (forgetting the whole agent erases them there too). Then
Engram's integrations wired to it (hooks, MCP entry, CLAUDE.md import) come out wherever
they were installed; the caller drops the row and compacts once more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from services.errors import InvalidInput
from services.store.handle import EngramHandle


@dataclass
class DeletedAgent:
    slug: str
    receipt: int  # the forget receipt (counts and keyed hashes, never the text)
    remaining: int  # places the raw-bytes verification still found its text in (0: none)
    unwired: list[str] = field(default_factory=list)  # files its integrations left
    notes: list[str] = field(default_factory=list)


def erase_agent(engram: EngramHandle, slug: str) -> DeletedAgent:
    """Everything of a (trashed) agent but its row, and the integrations wired to it."""
    from services.forget.service import ForgetScope, ForgetService

    # a clean-up, not a ban: the same facts told to another agent are stored as usual
    # and Engram's own: the agent's memory files are that program's (named, left as they are)
    scope = ForgetScope(agent=slug, all=True, rule=False, agent_files=False)
    receipt = ForgetService(engram).execute(scope)
    remaining = int(receipt["counts"].get("remaining_after_verify", 0))
    out = DeletedAgent(slug, receipt["id"], remaining, notes=list(receipt["notes"]))
    unwire(Path(engram.config.data_dir), slug, out)
    return out


def unwire(data_dir: Path, slug: str, out: DeletedAgent) -> None:
    """Engram's hooks, MCP entries and imports for ``slug`` out of every file the install
    manifest records them in; a file that cannot be written is named, not fatal (the
    memory it pointed at is gone already)."""
    from services.integrations import hooks_install as hooks
    from services.integrations import user_service

    for target in hooks.agent_targets(slug, data_dir):
        try:
            plan = hooks.plan_uninstall_agent(slug, data_dir, target)
            for c in hooks.service_changes(plan):  # the last agent of the store's daemon
                if c.after is None:
                    user_service.stop(c.path, Path(data_dir).expanduser().resolve())
            hooks.apply(plan, data_dir)
        except (InvalidInput, OSError) as exc:
            out.notes.append(f"{target} integration of {slug} not removed: {exc}")
            continue
        out.unwired += [str(c.path) for c in plan.pending]
        out.notes += plan.notes
