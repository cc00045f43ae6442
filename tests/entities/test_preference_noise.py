"""What the demo store showed in the Entities tab: preferences between plain words made fake
tools ("dicts", "long", "merge") and ticket ids were filed as tools."""

from __future__ import annotations


def test_preferences_name_tools_only_when_they_are_tools(keyword_engram):
    mem = keyword_engram.agent("a", create=True)
    mem.remember("Prefers dataclasses over dicts when reviewing Python")
    mem.remember("Prefers short functions over long functions when refactoring")
    mem.remember("Prefers pnpm over npm for JavaScript projects")
    mem.remember("Follow up on ENG-248 about slow startup")
    kinds = {e.name.lower(): e.type for e in mem.entities.list()}
    assert "dicts" not in kinds and "long" not in kinds
    assert kinds.get("npm") == "tool" and kinds.get("python") == "tool"
    assert kinds.get("eng-248") == "concept"
