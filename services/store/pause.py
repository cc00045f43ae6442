"""*Pause capture* (an incognito session): while an agent is paused, its MCP ``remember``,
its hooks and transcript capture write nothing. Kept in the agent row's settings and read
from the row each time, so the desktop app's switch reaches a running MCP server at once."""

from __future__ import annotations

from models import Agent

PAUSED = "capture_paused"


def is_paused(agent_id: int) -> bool:
    row = Agent.get_or_none(Agent.id == agent_id)
    return bool(((row.settings if row else None) or {}).get(PAUSED))


def set_paused(agent_id: int, on: bool) -> None:
    row = Agent.get_by_id(agent_id)
    settings = dict(row.settings or {})
    if on:
        settings[PAUSED] = True
    else:
        settings.pop(PAUSED, None)
    Agent.update(settings=settings).where(Agent.id == agent_id).execute()


PAUSED_MESSAGE = "capture is paused for this agent (incognito): nothing was stored"
