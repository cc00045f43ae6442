"""Where each agent keeps its MCP servers, and Engram's entry in each (as a minimal edit).

| agent       | file (user)                      | with a project                  | key                       | start-up window                  |
|-------------|----------------------------------|---------------------------------|---------------------------|----------------------------------|
| claude-code | ~/.claude.json                   | <project>/.mcp.json             | mcpServers.engram-<slug>  | (MCP_TIMEOUT, global only)       |
| codex       | ~/.codex/config.toml             | (user file only)                | [mcp_servers.engram-<slug>] | startup_timeout_sec, tool_timeout_sec |
| cursor      | ~/.cursor/mcp.json               | <project>/.cursor/mcp.json      | mcpServers.engram-<slug>  | (none)                           |
| gemini      | ~/.gemini/settings.json          | <project>/.gemini/settings.json | mcpServers.engram-<slug>  | timeout (ms, connect and calls)  |
| opencode    | ~/.config/opencode/opencode.json(c) | <project>/opencode.json(c)   | mcp.engram-<slug>         | timeout (ms, listing tools)      |

Each Engram agent gets its own entry (``engram-<slug>``), so registering a second agent in the
same agent never replaces the first. Gemini CLI and OpenCode read JSON with comments, so
their files are edited as JSONC. A project's file is committed: its entry names ``engram``
as found on each teammate's PATH and no store path (each person's own store is used).
"""

from __future__ import annotations

from pathlib import Path

from services.integrations import config_edit as ce

MCP_TARGETS = ("claude-code", "codex", "cursor", "gemini", "opencode")
LEGACY_NAME = "engram"  # the one shared name of earlier versions
TOML_MARK = "# engram:"
# what each agent's JSON reader accepts beyond JSON (Gemini CLI strips comments only)
JSONC_TARGETS: dict[str, bool | str] = {"gemini": "comments", "opencode": True}
# seconds the agent waits for the server to start (first start may load the model)
STARTUP_SECONDS = 60
# seconds one tool call may take (forgetting from a large store rebuilds its vector index)
TOOL_SECONDS = 300


def server_name(slug: str) -> str:
    return f"engram-{slug}"


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
        folder = project if project else home / ".config" / "opencode"
        # OpenCode reads either; a user who writes comments keeps them in the .jsonc one
        jsonc = folder / "opencode.jsonc"
        return (
            jsonc
            if jsonc.exists() and not (folder / "opencode.json").exists()
            else (folder / "opencode.json")
        )
    raise ValueError(target)


def _json_key(target: str, name: str) -> list[str]:
    return ["mcp", name] if target == "opencode" else ["mcpServers", name]


def entry(target: str, argv: list[str], slug: str) -> dict:
    """Engram's server entry in the shape each agent reads, with the start-up window each
    agent lets a server set."""
    command, args = argv[0], [*argv[1:], "mcp", "--agent", slug]
    if target == "opencode":
        return {
            "type": "local",
            "command": [command, *args],
            "enabled": True,
            "timeout": STARTUP_SECONDS * 1000,
        }
    if target == "claude-code":
        return {"type": "stdio", "command": command, "args": args, "env": {}}
    if target == "gemini":
        # one number for connecting and for each call: the longer of the two
        return {"command": command, "args": args, "timeout": TOOL_SECONDS * 1000}
    return {"command": command, "args": args}


def toml_block(argv: list[str], slug: str) -> str:
    args = ", ".join(ce.toml_str(a) for a in [*argv[1:], "mcp", "--agent", slug])
    return (
        f"{TOML_MARK} memory of agent {slug!r} over MCP; remove with "
        f"`engram hooks uninstall codex --agent {slug}`\n"
        f"[mcp_servers.{server_name(slug)}]\n"
        f"command = {ce.toml_str(argv[0])}\n"
        f"args = [{args}]\n"
        f"startup_timeout_sec = {STARTUP_SECONDS}\n"
        f"tool_timeout_sec = {TOOL_SECONDS}\n"
    )


def with_server(target: str, raw: bytes | None, path: Path, argv: list[str], slug: str):
    """The config with Engram's server for ``slug`` registered (``raw`` itself when it
    already is)."""
    name = server_name(slug)
    if target == "codex":
        after = ce.toml_set_table(
            raw, ("mcp_servers", name), toml_block(argv, slug), TOML_MARK, str(path)
        )
    else:
        jsonc = JSONC_TARGETS.get(target, False)
        want = entry(target, argv, slug)
        current = ce.parse_json(raw, str(path), jsonc)
        have = current.get(_json_key(target, name)[0]) if isinstance(current, dict) else None
        if isinstance(have, dict) and have.get(name) == want:
            return raw  # installing twice changes nothing
        after = ce.json_set(raw, _json_key(target, name), want, str(path), jsonc)
    return raw if after == raw else after


def without_server(target: str, raw: bytes | None, path: Path, slug: str | None) -> bytes | None:
    """``raw`` without Engram's entry for ``slug`` (None: the legacy shared ``engram``)."""
    if raw is None or not raw.strip():
        return raw
    name = server_name(slug) if slug else LEGACY_NAME
    if target == "codex":
        return ce.toml_remove_table(raw, ("mcp_servers", name), TOML_MARK, str(path))
    jsonc = JSONC_TARGETS.get(target, False)
    return ce.json_delete(raw, _json_key(target, name), str(path), jsonc=jsonc)


def only_agent_stub(target: str, raw: bytes | None, path: Path) -> bool:
    """Whether what is left is nothing but what the agent itself adds to a file it finds
    (OpenCode writes ``{"$schema": ...}`` into its config): a file Engram created and that
    holds nothing else goes when Engram's entry goes."""
    if raw is None:
        return True
    try:
        data = ce.parse_json(raw, str(path), JSONC_TARGETS.get(target, False))
    except ce.InvalidInput:
        return False
    return isinstance(data, dict) and set(data) <= {"$schema"}


def registered(target: str, path: Path, slug: str | None = None) -> bool:
    """Whether the file at ``path`` names Engram's server for ``slug`` right now."""
    name = server_name(slug) if slug else LEGACY_NAME
    try:
        raw = path.read_bytes()
        data = (
            ce.parse_toml(raw, str(path))
            if target == "codex"
            else ce.parse_json(raw, str(path), JSONC_TARGETS.get(target, False))
        )
    except (OSError, ce.InvalidInput):
        return False
    key = ("mcp_servers", name) if target == "codex" else tuple(_json_key(target, name))
    return ce._dig(data, key) is not None if isinstance(data, dict) else False


def legacy_entry_of(target: str, raw: bytes | None, path: Path) -> str | None:
    """The agent slug of an earlier version's shared ``engram`` entry in ``raw`` (None when
    there is none, or it is not Engram's)."""
    if not raw or not raw.strip():
        return None
    try:
        if target == "codex":
            data = ce.parse_toml(raw, str(path)).get("mcp_servers", {})
        else:
            data = ce.parse_json(raw, str(path), JSONC_TARGETS.get(target, False))
            data = data.get(_json_key(target, LEGACY_NAME)[0], {}) if isinstance(data, dict) else {}
    except ce.InvalidInput:
        return None
    old = data.get(LEGACY_NAME) if isinstance(data, dict) else None
    if not isinstance(old, dict):
        return None
    cmd = old.get("command")
    argv = (cmd if isinstance(cmd, list) else [cmd, *(old.get("args") or [])]) or []
    words = [str(w) for w in argv]
    if len(words) >= 3 and words[-3:-1] == ["mcp", "--agent"]:
        return words[-1]
    return None
