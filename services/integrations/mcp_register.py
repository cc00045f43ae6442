"""Where each agent keeps its MCP servers, and Engram's entry in each (as a minimal edit).

| agent       | file (user)                           | with a project            | key                    |
|-------------|---------------------------------------|---------------------------|------------------------|
| claude-code | ~/.claude.json                        | <project>/.mcp.json       | mcpServers.engram      |
| codex       | ~/.codex/config.toml                  | (user file only)          | [mcp_servers.engram]   |
| cursor      | ~/.cursor/mcp.json                    | <project>/.cursor/mcp.json| mcpServers.engram      |
| gemini      | ~/.gemini/settings.json               | <project>/.gemini/settings.json | mcpServers.engram |
| opencode    | ~/.config/opencode/opencode.json      | <project>/opencode.json   | mcp.engram             |
"""

from __future__ import annotations

from pathlib import Path

from services.integrations import config_edit as ce

MCP_TARGETS = ("claude-code", "codex", "cursor", "gemini", "opencode")
NAME = "engram"
TOML_MARK = "# engram:"


def config_path(target: str, home: Path, project: Path | None) -> Path:
    if target == "claude-code":
        return project / ".mcp.json" if project else home / ".claude.json"
    if target == "codex":
        return home / ".codex" / "config.toml"
    if target == "cursor":
        return (project or home) / ".cursor" / "mcp.json"
    if target == "gemini":
        return (project or home) / ".gemini" / "settings.json"
    if target == "opencode":
        return (
            project / "opencode.json"
            if project
            else home / ".config" / "opencode" / "opencode.json"
        )
    raise ValueError(target)


def _json_key(target: str) -> list[str]:
    return ["mcp", NAME] if target == "opencode" else ["mcpServers", NAME]


def entry(target: str, argv: list[str], slug: str) -> dict:
    """Engram's server entry in the shape each agent reads."""
    command, args = argv[0], [*argv[1:], "mcp", "--agent", slug]
    if target == "opencode":
        return {"type": "local", "command": [command, *args], "enabled": True}
    if target == "claude-code":
        return {"type": "stdio", "command": command, "args": args, "env": {}}
    return {"command": command, "args": args}


def toml_block(argv: list[str], slug: str) -> str:
    args = ", ".join(ce.toml_str(a) for a in [*argv[1:], "mcp", "--agent", slug])
    return (
        f"{TOML_MARK} memory of agent {slug!r} over MCP; remove with "
        "`engram hooks uninstall codex`\n"
        f"[mcp_servers.{NAME}]\n"
        f"command = {ce.toml_str(argv[0])}\n"
        f"args = [{args}]\n"
    )


def with_server(target: str, raw: bytes | None, path: Path, argv: list[str], slug: str):
    """The config with Engram's server registered (``raw`` itself when it already is)."""
    if target == "codex":
        after = ce.toml_set_table(
            raw, ("mcp_servers", NAME), toml_block(argv, slug), TOML_MARK, str(path)
        )
    else:
        want = entry(target, argv, slug)
        current = ce.parse_json(raw, str(path))
        have = current.get(_json_key(target)[0]) if isinstance(current, dict) else None
        if isinstance(have, dict) and have.get(NAME) == want:
            return raw  # installing twice changes nothing
        after = ce.json_set(raw, _json_key(target), want, str(path))
    return raw if after == raw else after


def without_server(target: str, raw: bytes | None, path: Path) -> bytes | None:
    if raw is None or not raw.strip():
        return raw
    if target == "codex":
        return ce.toml_remove_table(raw, ("mcp_servers", NAME), TOML_MARK, str(path))
    return ce.json_delete(raw, _json_key(target), str(path))


def registered(target: str, path: Path) -> bool:
    """Whether the file at ``path`` names Engram's server right now."""
    try:
        raw = path.read_bytes()
        data = ce.parse_toml(raw, str(path)) if target == "codex" else ce.parse_json(raw, str(path))
    except (OSError, ce.InvalidInput):
        return False
    key = ("mcp_servers", NAME) if target == "codex" else tuple(_json_key(target))
    return ce._dig(data, key) is not None if isinstance(data, dict) else False
