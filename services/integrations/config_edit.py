"""Minimal edits of agents' own config files (JSON, JSON with comments, TOML), as text.

Users' configs are theirs: key order, spacing, comments (TOML's, and the ``//`` and ``/* */``
that Gemini CLI and OpenCode accept in their JSON) and numbers written as ``1e999`` must
survive an install. So nothing here re-serialises a file: a JSON member's value
is replaced or inserted by byte span, a TOML table is appended or cut as lines, and only the
value Engram owns is produced by a serialiser. A file that does not parse is refused (never
"repaired"), and every result is parsed again before it is returned.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

from services.errors import InvalidInput

WS = " \t\r\n"


# JSON ---------------------------------------------------------------------------------------
@dataclass
class Member:
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int


def parse_json(raw: bytes | None, where: str, jsonc: bool | str = False) -> object:
    """The parsed document; a clear refusal for what is not plain JSON (comments, trailing
    commas, invalid UTF-8). ``jsonc``: accept what the agent reading the file accepts:
    True, comments and trailing commas (OpenCode); "comments", comments only (Gemini CLI
    strips comments, then reads strict JSON)."""
    if raw is None or not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
        return json.loads(strip_jsonc(text, jsonc != "comments") if jsonc else text)
    except UnicodeDecodeError:
        raise InvalidInput(f"{where} is not UTF-8 text; Engram will not edit it") from None
    except json.JSONDecodeError as exc:
        hint = "" if jsonc else "; comments and trailing commas are not JSON"
        raise InvalidInput(
            f"{where} is not valid JSON ({exc}{hint}); fix it first, Engram will not overwrite it"
        ) from None


def strip_jsonc(s: str, trailing_commas: bool = True) -> str:
    """``s`` as plain JSON: comments become spaces (newlines kept, so error positions still
    point into the user's file) and, with ``trailing_commas``, trailing commas go."""
    out = list(s)
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            i = _string_end(s, i)
            continue
        if c == "/" and i + 1 < n and s[i + 1] in "/*":
            end = _comment_end(s, i)
            for k in range(i, end):
                if out[k] != "\n":
                    out[k] = " "
            i = end
            continue
        if c == "," and trailing_commas:
            j = _skip_ws(s, i + 1)
            if j < n and s[j] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)


def _comment_end(s: str, i: int) -> int:
    """Index after the comment starting at ``s[i] == '/'``."""
    if s[i + 1] == "/":
        nl = s.find("\n", i)
        return len(s) if nl < 0 else nl
    end = s.find("*/", i + 2)
    if end < 0:
        raise json.JSONDecodeError("unterminated comment", s, i)
    return end + 2


def _skip_ws(s: str, i: int) -> int:
    """Past whitespace and comments (a strict JSON file has none; JSONC's are skipped)."""
    while i < len(s):
        if s[i] in WS:
            i += 1
        elif s[i] == "/" and i + 1 < len(s) and s[i + 1] in "/*":
            i = _comment_end(s, i)
        else:
            break
    return i


def _string_end(s: str, i: int) -> int:
    """Index after the closing quote of the string starting at ``s[i] == '"'``."""
    start, i = i, i + 1
    while i < len(s) and s[i] != '"':
        i += 2 if s[i] == "\\" else 1
    if i >= len(s):
        raise json.JSONDecodeError("unterminated string", s, start)
    return i + 1


def _value_end(s: str, i: int) -> int:
    c = s[i]
    if c == '"':
        return _string_end(s, i)
    if c in "{[":
        depth = 0
        while True:
            c = s[i]
            if c == '"':
                i = _string_end(s, i)
                continue
            if c == "/" and s[i + 1] in "/*":
                i = _comment_end(s, i)
                continue
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
    while i < len(s) and s[i] not in ",}] \t\r\n":
        i += 1
    return i


def _members(s: str, obj: int) -> tuple[list[Member], int]:
    """The members of the object whose ``{`` is at ``obj``, and the index of its ``}``."""
    out: list[Member] = []
    i = _skip_ws(s, obj + 1)
    while s[i] != "}":
        kend = _string_end(s, i)
        key = json.loads(s[i:kend])
        vstart = _skip_ws(s, _skip_ws(s, kend) + 1)  # past the colon
        vend = _value_end(s, vstart)
        out.append(Member(key, i, vstart, vend))
        i = _skip_ws(s, vend)
        if s[i] == ",":
            i = _skip_ws(s, i + 1)
    return out, i


def _find(members: list[Member], key: str) -> Member | None:
    found = [m for m in members if m.key == key]
    return found[-1] if found else None  # a repeated key: the last one counts, as in json


def _line_indent(s: str, i: int) -> str:
    start = s.rfind("\n", 0, i) + 1
    prefix = s[start:i]
    return prefix if not prefix.strip() else re.match(r"[ \t]*", prefix).group(0)  # type: ignore[union-attr]


def _unit(s: str) -> str:
    m = re.search(r"\n([ \t]+)\S", s)
    return m.group(1) if m else "  "


def _dump(value, indent: str, unit: str) -> str:
    text = json.dumps(
        value, indent=len(unit) if unit.strip(" ") == "" else unit, ensure_ascii=False
    )
    return text.replace("\n", "\n" + indent)


def json_set(
    raw: bytes | None, path: list[str], value, where: str, jsonc: bool | str = False
) -> bytes:
    """``raw`` with ``path`` set to ``value``; every other byte as it was."""
    data = parse_json(raw, where, jsonc)
    if not isinstance(data, dict):
        raise InvalidInput(f"{where} is not a JSON object; Engram will not edit it")
    s = (raw or b"").decode("utf-8")
    if not s.strip():
        return (json.dumps(_nest(path, value), indent=2, ensure_ascii=False) + "\n").encode()
    unit = _unit(s)
    obj = _skip_ws(s, 0)
    for depth, key in enumerate(path):
        members, close = _members(s, obj)
        m = _find(members, key)
        if m is None:
            out = _insert(s, obj, members, close, key, _nest(path[depth + 1 :], value), unit)
            return _checked(out, where, jsonc)
        if depth == len(path) - 1:
            indent = _line_indent(s, m.start)
            s = s[: m.value_start] + _dump(value, indent, unit) + s[m.value_end :]
            return _checked(s, where, jsonc)
        if s[m.value_start] != "{":
            raise InvalidInput(
                f'"{".".join(path[: depth + 1])}" in {where} is not an object; '
                "Engram will not edit it"
            )
        obj = m.value_start
    raise AssertionError("unreachable")


def _nest(path: list[str], value):
    for key in reversed(path):
        value = {key: value}
    return value


def _after_blanks(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t":
        i += 1
    return i


def _line_end_if_clear(s: str, i: int) -> int | None:
    """The newline ending the line at ``i`` when only blanks and comments follow ``i`` on it."""
    while True:
        i = _after_blanks(s, i)
        if i >= len(s) or s[i] in "\r\n":
            return i
        if s[i] == "/" and i + 1 < len(s) and s[i + 1] in "/*":
            end = _comment_end(s, i)
            if "\n" in s[i:end]:
                return None
            i = end
            continue
        return None


def _insert(s: str, obj: int, members: list[Member], close: int, key: str, value, unit) -> str:
    name = json.dumps(key, ensure_ascii=False)
    if members and "\n" not in s[obj:close]:  # a one-line object stays on one line
        last = members[-1]
        member = f"{name}: {json.dumps(value, ensure_ascii=False)}"
        return s[: last.value_end] + f", {member}" + s[last.value_end :]
    if members:
        last = members[-1]
        indent = _line_indent(s, last.start)
        member = f"{name}: {_dump(value, indent, unit)}"
        comma = _after_blanks(s, last.value_end)
        trailing = s[comma] == ","  # the user ends every member with a comma (JSONC)
        anchor = comma + 1 if trailing else last.value_end
        # after the user's end-of-line comment, so it stays on the line it describes
        at = _line_end_if_clear(s, anchor)
        at = anchor if at is None else at
        text = f"\n{indent}{member}" + ("," if trailing else "")
        if trailing:
            return s[:at] + text + s[at:]
        return s[: last.value_end] + "," + s[last.value_end : at] + text + s[at:]
    outer = _line_indent(s, obj)
    indent = outer + unit
    member = f"{name}: {_dump(value, indent, unit)}"
    if not s[obj + 1 : close].strip():
        return s[: obj + 1] + f"\n{indent}{member}\n{outer}" + s[close:]
    # only comments inside: the member goes below them, the closing line stays
    at = s.rfind("\n", obj, close)
    at = close if at < 0 else at
    return s[:at] + f"\n{indent}{member}" + s[at:]


def json_delete(
    raw: bytes, path: list[str], where: str, prune: bool = True, jsonc: bool | str = False
) -> bytes:
    """``raw`` without the member at ``path`` (and, with ``prune``, without the parent
    objects it leaves empty); unchanged when it is not there."""
    data = parse_json(raw, where, jsonc)
    s = raw.decode("utf-8")
    if not isinstance(data, dict) or not s.strip():
        return raw
    obj = _skip_ws(s, 0)
    chain: list[tuple[int, list[Member], int, Member]] = []
    for key in path:
        members, close = _members(s, obj)
        m = _find(members, key)
        if m is None:
            return raw
        chain.append((obj, members, close, m))
        if s[m.value_start] != "{":
            break
        obj = m.value_start
    if len(chain) < len(path):
        return raw
    # the outermost object that would be left empty goes, so no "{}" stays behind
    level = len(chain) - 1
    while prune and level > 0 and len(chain[level][1]) == 1 and _bare(s, chain[level]):
        level -= 1
    obj, members, close, m = chain[level]
    return _checked(_cut(s, obj, members, close, m), where, jsonc)


def _bare(s: str, link: tuple[int, list[Member], int, Member]) -> bool:
    """Whether the object holds nothing but member ``m`` (no comment of the user's)."""
    obj, _, close, m = link
    return not (s[obj + 1 : m.start] + s[m.value_end : close]).strip(" \t\r\n,")


def _cut(s: str, obj: int, members: list[Member], close: int, m: Member) -> str:
    """``s`` without member ``m``: its own lines when it has them (so the comments around it
    stay), else the span between its neighbours."""
    i = members.index(m)
    own_comma = _after_blanks(s, m.value_end)
    has_comma = own_comma < len(s) and s[own_comma] == ","
    end = own_comma + 1 if has_comma else m.value_end
    line_start = s.rfind("\n", 0, m.start)
    eol = _line_end_if_clear(s, end)
    whole_lines = line_start >= 0 and not s[line_start + 1 : m.start].strip() and eol is not None
    if len(members) == 1 and not (s[obj + 1 : m.start] + s[end:close]).strip():
        return s[: obj + 1] + s[close:]
    if whole_lines and eol is not None:
        out = s[:line_start] + s[eol:]
        if i > 0 and not has_comma:  # it was last without a trailing comma: so is its neighbour
            prev = members[i - 1]
            c = _after_blanks(out, prev.value_end)
            if out[c] == ",":
                out = out[:c] + out[c + 1 :]
        return out
    if len(members) == 1:
        return s[: obj + 1] + s[close:]
    if i > 0:  # from the end of the previous member: takes its comma and our line
        return s[: members[i - 1].value_end] + s[m.value_end :]
    return s[: m.start] + s[members[1].start :]


def _checked(s: str, where: str, jsonc: bool | str = False) -> bytes:
    # an edit that broke the file is a bug: fail before anything is written
    json.loads(strip_jsonc(s, jsonc != "comments") if jsonc else s)
    return s.encode("utf-8")


# TOML ---------------------------------------------------------------------------------------
HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def parse_toml(raw: bytes | None, where: str) -> dict:
    if raw is None or not raw.strip():
        return {}
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput(f"{where} is not UTF-8 text; Engram will not edit it") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(
            f"{where} is not valid TOML ({exc}); fix it first, Engram will not overwrite it"
        ) from None


def _table_key(header: str) -> tuple[str, ...]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', header)
    return tuple(a or b or c for a, b, c in parts)


def _table_span(lines: list[str], table: tuple[str, ...], mark: str) -> tuple[int, int] | None:
    """Lines [start, end) of ``table`` and its sub-tables (with Engram's comment above it)."""
    start = end = None
    for n, line in enumerate(lines):
        h = HEADER.match(line)
        if not h:
            continue
        key = _table_key(h.group(1))
        ours = key[: len(table)] == table
        if start is None and key == table:
            start = n
        elif start is not None and end is None and not ours:
            end = n
    if start is None:
        return None
    end = len(lines) if end is None else end
    while start > 0 and lines[start - 1].startswith(mark):
        start -= 1
    while end > start and not lines[end - 1].strip():  # the blank line before the next table
        end -= 1
    return start, end


def _dig(data: dict, table: tuple[str, ...]):
    for k in table:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


def toml_set_table(raw: bytes | None, table: tuple[str, ...], block: str, mark: str, where: str):
    """``raw`` with ``table`` replaced by (or, when absent, followed by) ``block``: the table
    header line and its ``key = value`` lines, as text."""
    data = parse_toml(raw, where)
    text = (raw or b"").decode("utf-8")
    lines = text.splitlines(keepends=True)
    span = _table_span(lines, table, mark)
    if span is None:
        if _dig(data, table) is not None:
            raise InvalidInput(
                f"{where} defines {'.'.join(table)} inline, not as a [table]; remove it or "
                "edit it by hand, Engram will not rewrite it"
            )
        if text and not text.endswith("\n"):
            text += "\n"
        text += ("\n" if text.strip() else "") + block
    else:
        a, b = span
        tail = "".join(lines[b:])
        text = "".join(lines[:a]) + block + ("\n" if tail.strip() else "") + tail.lstrip("\n")
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(
            f"{where}: adding [{'.'.join(table)}] would not be valid TOML ({exc}); "
            "Engram will not write it"
        ) from None
    return text.encode("utf-8")


def toml_remove_table(raw: bytes, table: tuple[str, ...], mark: str, where: str) -> bytes:
    parse_toml(raw, where)
    lines = raw.decode("utf-8").splitlines(keepends=True)
    span = _table_span(lines, table, mark)
    if span is None:
        return raw
    a, b = span
    head = "".join(lines[:a])
    tail = "".join(lines[b:])
    if not tail.strip():
        head = head.rstrip("\n") + ("\n" if head.strip() else "")
    else:
        tail = tail.lstrip("\n")
    return (head + tail).encode("utf-8")


def toml_str(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)
