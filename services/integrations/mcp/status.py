"""The desktop app's view of MCP: which agents have Engram's server registered in which agent
config, switching a registration on or off, and the per-agent "review MCP writes" setting."""

from __future__ import annotations

from pathlib import Path

from services.integrations import hooks_install
from services.integrations.mcp import review
from services.integrations.mcp.agent_config import MCP_TARGETS
from services.store.handle import EngramHandle

TARGET_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
}


def mcp_registrations(engram: EngramHandle) -> dict[str, dict[str, dict]]:
    """agent slug → target → {path, present} for every registration Engram made."""
    got = hooks_install.mcp_registrations(engram.config.data_dir)
    return {slug: {r["target"]: r for r in regs} for slug, regs in got.items()}


def set_mcp_registration(
    engram: EngramHandle, slug: str, target: str, on: bool, home: Path | None = None
) -> hooks_install.Plan:
    """Register (or remove) Engram's server for ``slug`` in ``target``'s user config; only
    that entry, with the same backups and byte-exact undo as ``engram hooks``."""
    if target not in MCP_TARGETS:
        raise ValueError(f"{target} has no MCP configuration Engram knows")
    data_dir = Path(engram.config.data_dir)
    if on:
        mem = engram.agent(slug)
        plan = hooks_install.plan_install(mem, target, home=home, data_dir=data_dir, mcp="only")
    else:
        plan = hooks_install.plan_uninstall(slug, target, data_dir, home=home, mcp="only")
    if plan.pending:
        hooks_install.apply(plan, data_dir)
    return plan


def mcp_review_required(engram: EngramHandle, slug: str) -> bool:
    return review.review_required(engram.agent(slug))


def set_mcp_review(engram: EngramHandle, slug: str, on: bool) -> None:
    review.set_review_required(engram, slug, on)
