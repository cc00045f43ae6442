"""basic-memory notes (basicmachines-co/basic-memory): one Markdown file per entity, YAML
frontmatter (``title``, ``type``, ``permalink``, ``tags``), observations ``- [category] text
#tag (context)`` anywhere in the body, relations ``- relation_type [[Target]] (context)``.

One fact per observation, with ``metadata["entity"] = {"name", "type"}``; one fact per relation
with ``metadata["relation"] = {"from", "type", "to"}``. A note without observations gives its
prose statements instead (it is still what the agent wrote down). Obsidian side files are
skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.interop.importers import frontmatter
from services.interop.importers.base import ImportedFact, ParsedSource
from services.interop.importers.common import file_time, read_text, slug
from services.interop.importers.common import head as file_head
from services.interop.importers.entries import normalize_category
from services.interop.importers.mdreader import split_statements
from services.interop.importers.native import rel_name, source_meta, statement_fact

FORMAT = "basic-memory"
_OBS = re.compile(r"^\s*[-*]\s+\[([^\]\[]+)\]\s+(?!\()(.+)$")
_TAGGED = re.compile(r"^\s*[-*]\s+(?!\[)(.*(?<!\S)#[\w\-/]+.*)$")
_REL = re.compile(r"^\s*[-*]\s+(\w[\w \-]{0,40}?)\s+\[\[([^\]]+)\]\]\s*(?:\((.*)\))?\s*$")
_HASHTAG = re.compile(r"(?<!\S)#([\w\-/]+)")
_CONTEXT = re.compile(r"\s+\(([^()]*)\)\s*$")
_SKIP_CAT = re.compile(r"^(?:\s|x|X|-|/|>|\?|\d{1,2}:\d{2}(?::\d{2})?)$")
_WIKI = re.compile(r"\[\[([^\]]+)\]\]")


def _is_note(path: Path) -> bool:
    fm = frontmatter.split(file_head(path))[0]
    return bool(fm.get("permalink")) and ("title" in fm or "type" in fm)


def _notes(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(
        p
        for p in path.rglob("*.md")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def detect(path: Path) -> bool:
    if path.is_file():
        return path.suffix.lower() == ".md" and _is_note(path)
    if not path.is_dir():
        return False
    sample = _notes(path)[:20]
    return bool(sample) and sum(_is_note(p) for p in sample) * 2 >= len(sample)


def parse(path: Path) -> ParsedSource:
    path = Path(path)
    root = path.parent if path.is_file() else path
    out = ParsedSource(format=FORMAT, root=root.resolve())
    for f in _notes(path):
        rel = rel_name(f, root)
        text, problems = read_text(f, rel)
        out.problems.extend(problems)
        if text is not None:
            out.sources.append(str(f.resolve()))
            parse_note(f, rel, text, out)
    return out


def parse_note(f: Path, rel: str, text: str, out: ParsedSource) -> None:
    fm, body, first = frontmatter.split(text)
    title = frontmatter.text_of(fm.get("title")) or f.stem
    etype = frontmatter.text_of(fm.get("type")) or "note"
    note_tags = [slug(t) for t in frontmatter.tag_list(fm.get("tags"))]
    base = source_meta(
        FORMAT,
        f.resolve(),
        agent="basic-memory",
        permalink=frontmatter.text_of(fm.get("permalink")),
        entity={"name": title, "type": etype},
    )
    created = file_time(f)
    found = False
    for no, line in enumerate(body.split("\n"), first):
        fact = _line_fact(line, no, rel, title, base, created, note_tags)
        if fact is not None:
            out.facts.append(fact)
            found = True
    if found:
        return
    for st in split_statements(body, first):
        out.facts.append(
            statement_fact(
                st, rel, category="fact", meta=base, created=created, tags=["basic-memory"]
            )
        )


def _line_fact(line, no, rel, title, base, created, note_tags) -> ImportedFact | None:
    r = _REL.match(line)
    if r:
        rtype, target, context = r.group(1), r.group(2).strip(), r.group(3)
        meta = {**base, "relation": {"from": title, "type": rtype, "to": target}}
        meta.pop("entity", None)
        if context:
            meta["context"] = context
        return _fact(
            f"{title} {rtype.replace('_', ' ')} {target}",
            "fact",
            rel,
            no,
            created,
            ["basic-memory", "relation", *note_tags],
            {**meta, "source_lines": [no, no]},
        )
    m = _OBS.match(line)
    cat_raw: str | None = m.group(1) if m else None
    text: str = m.group(2) if m else ""
    if m and (_SKIP_CAT.match(m.group(1)) or _WIKI.fullmatch(text.strip())):
        return None
    if m is None:
        t = _TAGGED.match(line)
        if t is None:
            return None
        text = t.group(1)
    tags = [slug(h) for h in _HASHTAG.findall(text)]
    content = _HASHTAG.sub("", text)
    meta = {**base, "source_lines": [no, no]}
    c = _CONTEXT.search(content)
    if c:
        meta["context"] = c.group(1)
        content = content[: c.start()]
    content = re.sub(r"\s{2,}", " ", content).strip()
    if not content:
        return None
    category, original = normalize_category(cat_raw or "fact")
    if original:
        meta["original_category"] = original
        tags.append(slug(original))
    return _fact(content, category, rel, no, created, ["basic-memory", *note_tags, *tags], meta)


def _fact(content, category, rel, no, created, tags, meta) -> ImportedFact:
    return ImportedFact(
        content=content,
        category=category,
        event_date=created.date(),
        created_at=created,
        tags=list(dict.fromkeys(t for t in tags if t)),
        source_ref=f"{rel}:{no}",
        metadata=meta,
    )
