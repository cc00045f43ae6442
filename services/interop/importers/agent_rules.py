"""Other agents' instruction and memory files, one adapter with a table of where each agent
keeps them (written from each agent's documentation):

| agent          | where                                                      | whose words        |
|----------------|------------------------------------------------------------|--------------------|
| Cline          | ``memory-bank/*.md``                                       | the agent's memory |
| Cline          | ``.clinerules`` (a file) or ``.clinerules/*.md``           | the user's rules   |
| Roo Code       | ``.roo/rules/``, ``.roo/rules-<mode>/``, ``.roorules``     | the user's rules   |
| Kilo Code      | ``.kilocode/rules/memory-bank/``; Kilo CLI                 | the agent's memory |
|                | ``~/.local/share/kilo/memory/<project slug>/``             |                    |
| Kilo Code      | ``.kilocode/rules/*.md``                                   | the user's rules   |
| Kiro           | ``.kiro/steering/*.md`` (frontmatter ``inclusion``)        | the user's rules   |
| Continue       | ``.continue/rules/*.md``                                   | the user's rules   |
| Zed            | ``.rules``                                                 | the user's rules   |
| GitHub Copilot | ``.github/copilot-instructions.md``,                       | the user's rules   |
|                | ``.github/instructions/*.instructions.md`` (``applyTo``)   |                    |
| Letta Code     | ``~/.letta/agents/<agent id>/memory/`` (MemFS, a git repo) | the agent's memory |

The agent's own memory is written back when edited in Engram (``writeback.AGENT_WRITTEN``);
the user's rules are read only. Frontmatter goes to metadata, never into a fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from services.interop.importers import frontmatter
from services.interop.importers.base import ParsedSource
from services.interop.importers.common import file_time, infer_category, slug
from services.interop.importers.mdsplit import split_statements
from services.interop.importers.native import (
    open_note,
    rule_category,
    section_tags,
    source_meta,
    statement_fact,
)

FORMAT = "agent-rules"


@dataclass(frozen=True)
class Location:
    agent: str
    pattern: str  # a glob under the project (or, with home=True, under $HOME)
    kind: str
    memory: bool = False  # the agent writes it (memory), else the user's rules
    home: bool = False


LOCATIONS = (
    Location("cline", "memory-bank/*.md", "cline-memory-bank", memory=True),
    Location("cline", ".clinerules", "cline-rules"),
    Location("cline", ".clinerules/**/*.md", "cline-rules"),
    Location("roo", ".roorules", "roo-rules"),
    Location("roo", ".roo/rules/**/*.md", "roo-rules"),
    Location("roo", ".roo/rules-*/**/*.md", "roo-rules"),
    Location("kilo", ".kilocode/rules/memory-bank/*.md", "kilo-memory-bank", memory=True),
    Location("kilo", ".kilocode/rules/*.md", "kilo-rules"),
    Location("kiro", ".kiro/steering/*.md", "kiro-steering"),
    Location("continue", ".continue/rules/**/*.md", "continue-rules"),
    Location("zed", ".rules", "zed-rules"),
    Location("copilot", ".github/copilot-instructions.md", "copilot-instructions"),
    Location("copilot", ".github/instructions/**/*.instructions.md", "copilot-instructions"),
    Location("kilo", ".local/share/kilo/memory/*/**/*.md", "kilo-memory", memory=True, home=True),
    Location("letta", ".letta/agents/*/memory/**/*.md", "letta-memfs", memory=True, home=True),
)
_SKIP_PARTS = {".git", "node_modules"}


def _matches(path: Path, loc: Location) -> bool:
    parts = path.resolve().parts
    pat = Path(loc.pattern).parts
    if "**" not in pat:
        return len(parts) >= len(pat) and all(
            Path(p).match(q) for p, q in zip(parts[-len(pat) :], pat, strict=True)
        )
    head = pat[: pat.index("**")]
    name = pat[-1]
    for i in range(len(parts) - len(head)):
        if all(Path(parts[i + k]).match(h) for k, h in enumerate(head)):
            return Path(parts[-1]).match(name) and i + len(head) < len(parts)
    return False


def location_of(path: Path) -> Location | None:
    if any(p in _SKIP_PARTS for p in path.parts):
        return None
    for loc in LOCATIONS:
        if _matches(path, loc):
            return loc
    return None


def files_under(root: Path, home: bool = False) -> list[tuple[Path, Location]]:
    """Every file of the table under a project folder (or, with ``home``, under $HOME)."""
    out: list[tuple[Path, Location]] = []
    seen: set[Path] = set()
    for loc in LOCATIONS:
        if loc.home != home:
            continue
        for p in sorted(root.glob(loc.pattern)):
            if p.is_file() and not _SKIP_PARTS & set(p.parts) and p.resolve() not in seen:
                seen.add(p.resolve())
                out.append((p, loc))
    return out


def detect(path: Path) -> bool:
    if path.is_file():
        return location_of(path) is not None
    if not path.is_dir():
        return False
    return bool(files_under(path)) or any(
        location_of(p) is not None for p in list(path.rglob("*.md"))[:50]
    )


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    root = path.parent if path.is_file() else path
    out = ParsedSource(format=FORMAT, root=root.resolve())
    files: list[tuple[Path, Location | None]]
    if path.is_file():
        files = [(path, location_of(path))]
    else:
        files = list(files_under(path)) or [
            (p, location_of(p)) for p in sorted(path.rglob("*.md")) if location_of(p)
        ]
    for f, loc in files:
        if loc is not None:
            _parse_file(f, loc, root, out)
    return out


def _parse_file(f: Path, loc: Location, root: Path, out: ParsedSource) -> None:
    note = open_note(f, root, out)
    if note is None:
        return
    rel, fm, body, first = note
    rules = {
        "agent": loc.agent,
        "file": loc.kind,
        "inclusion": frontmatter.text_of(fm.get("inclusion")),  # Kiro
        "apply_to": frontmatter.text_of(fm.get("applyTo")),  # Copilot
        "globs": frontmatter.text_of(fm.get("globs") or fm.get("fileMatchPattern")),
        "description": frontmatter.text_of(fm.get("description")),
    }
    meta = source_meta(
        FORMAT,
        f.resolve(),
        agent_rules={k: v for k, v in rules.items() if v not in (None, "")},
        origin="agent" if loc.memory else "user",
        agent_memory=loc.memory or None,
    )
    created = file_time(f)
    for st in split_statements(body, first):
        cat = infer_category(st.text) if loc.memory else rule_category(st.text, st.sections)
        tags = [loc.kind, slug(loc.agent), *section_tags(st.sections)]
        fact = statement_fact(st, rel, category=cat, meta=meta, created=created, tags=tags)
        if not loc.memory:  # every rule of a file holds at once: none supersedes another
            fact.subject = f"stmt:{fact.metadata['source_hash'][:16]}"
        out.facts.append(fact)
