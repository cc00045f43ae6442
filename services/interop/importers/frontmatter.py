"""YAML frontmatter, read leniently: agents and people write ``globs: *.rs`` (an alias to
strict YAML), ``description:`` with nothing after it, and flow lists. Strict YAML is tried
first; when it refuses, ``key: value`` lines are read one by one (one level of nesting)."""

from __future__ import annotations

import re

import yaml

from services.ingest import limits

_KEY = re.compile(r"^([A-Za-z_][\w\-]*)\s*:\s*(.*)$")


def split(text: str) -> tuple[dict, str, int]:
    """(frontmatter, body, 1-based line where the body starts). No frontmatter: ({}, text, 1)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            meta = parse("\n".join(lines[1:i]))
            return meta, "\n".join(lines[i + 1 :]), i + 2
    return {}, text, 1


def parse(block: str) -> dict:
    """Strict YAML behind size and alias caps (``limits.yaml_safe``: a "billion laughs" is
    not expanded); past a cap, or when strict YAML refuses, the plain lines are read."""
    block = block[: limits.MAX_YAML_BYTES]
    try:
        data = limits.yaml_safe(block)
        if isinstance(data, dict):
            return {str(k): v for k, v in data.items()}
    except (yaml.YAMLError, limits.TooLarge, RecursionError):
        pass
    return _lenient(block)


def _scalar(raw: str):
    s = raw.strip()
    if not s:
        return None
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        return s[1:-1]
    if s.startswith("[") and s.endswith("]"):
        return [_scalar(p) for p in s[1:-1].split(",") if p.strip()]
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    return s


def _lenient(block: str) -> dict:
    out: dict = {}
    parent: str | None = None
    for line in block.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        nested = line[:1] in (" ", "\t")
        stripped = line.strip()
        if nested and parent is not None:
            if stripped.startswith("- "):
                cur = out.get(parent)
                out[parent] = [*(cur if isinstance(cur, list) else []), _scalar(stripped[2:])]
                continue
            m = _KEY.match(stripped)
            if m:
                cur = out.get(parent)
                sub = cur if isinstance(cur, dict) else {}
                sub[m.group(1)] = _scalar(m.group(2))
                out[parent] = sub
            continue
        m = _KEY.match(stripped)
        if m:
            parent = m.group(1)
            out[parent] = _scalar(m.group(2))
    return out


def text_of(value) -> str:
    """A frontmatter value as one line of text (lists joined with commas)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(text_of(v) for v in value if v is not None)
    return str(value).strip()


def tag_list(value) -> list[str]:
    """``tags:`` as a list, a flow list, or one comma-joined string inside a list."""
    out: list[str] = []
    items = value if isinstance(value, list) else [value]
    for v in items:
        if v is None:
            continue
        out += [t.strip().lstrip("#") for t in re.split(r"[,\s]+", str(v)) if t.strip()]
    return out
