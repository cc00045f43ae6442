"""Engram's MCP server (``engram mcp``) and its registration in the agents' configs."""
