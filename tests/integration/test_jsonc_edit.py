"""Minimal JSONC edits of the shapes people write in Gemini CLI's and OpenCode's configs:
adding Engram's entry keeps every comment on its line and every other byte; taking it out
again (as a structural edit, when the agent changed the file meanwhile) gives the same bytes
back."""

from __future__ import annotations

import json

import pytest

from services.errors import InvalidInput
from services.integrations.config_edit import json_delete, json_set, strip_jsonc

SHAPES = {
    "comment after the last member": '{\n  "mcpServers": {\n    "fs": {"command": "fs"} // files\n  }\n}\n',
    "trailing commas": '{\n  "mcp": {\n    "jira": {"type": "remote"}, // work\n  },\n}\n',
    "only a comment inside": '{\n  "mcpServers": { // none yet\n  }\n}\n',
    "block comments": '/* mine */\n{\n  /* theme */ "theme": "dark",\n  "mcpServers": {"a": {}}\n}\n',
    "no servers yet": '{\n  // look\n  "theme": "dark"\n}\n',
    "url with slashes in a string": '{\n  "mcpServers": {"a": {"url": "http://x//y"}}\n}\n',
    "one line": '{"mcpServers": {"a": {"command": "a"}}} // end\n',
}
ENTRY = {"command": "/opt/engram", "args": ["mcp", "--agent", "work"], "timeout": 300000}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_insert_keeps_comments_and_delete_gives_the_bytes_back(name):
    raw = SHAPES[name].encode()
    top = "mcp" if '"mcp"' in SHAPES[name] else "mcpServers"
    after = json_set(raw, [top, "engram-work"], ENTRY, "cfg", jsonc=True)
    text = after.decode()
    comments = [c for c in ("// files", "// work", "// none yet", "/* mine */", "/* theme */",
                            "// look", "// end") if c in SHAPES[name]]  # fmt: skip
    for c in comments:
        assert text.count(c) == 1, c
        line = next(ln for ln in SHAPES[name].splitlines() if c in ln)
        head = line.split(c)[0].strip().split(":")[0]
        got = next(ln for ln in text.splitlines() if c in ln)
        assert head in got, f"{c!r} stays on the line of what it describes: {got!r}"
    assert json.loads(strip_jsonc(text))[top]["engram-work"] == ENTRY
    assert json_delete(after, [top, "engram-work"], "cfg", jsonc=True) == raw


def test_gemini_reads_comments_but_not_trailing_commas():
    raw = b'{\n  "a": 1, // x\n}\n'
    json_set(raw, ["b"], 1, "cfg", jsonc=True)  # OpenCode: fine
    with pytest.raises(InvalidInput, match="not valid JSON"):
        json_set(raw, ["b"], 1, "cfg", jsonc="comments")
