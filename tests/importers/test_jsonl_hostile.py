"""Issue #30, finding 16: a hostile line in the MCP memory server's ``memory.jsonl`` (nested
200,000 deep, not UTF-8, over the line cap, not JSON) is skipped with a message naming its
line; every valid line around it is imported. Forgetting a name the file holds (which rewrites
the same file) and verifying afterwards do not trip over the hostile lines either. Through the
CLI a user runs: ``engram import``, ``engram forget --matching --yes``, ``forget --verify``."""

from __future__ import annotations

import json
import re

import pytest

DEEP = b"[" * 200_000 + b"]" * 200_000
DEEP_OBJECT = b'{"type": "entity", "name": "Deep", "observations": ' + b"[" * 200_000 + b"}"
VALID = [
    {"type": "entity", "name": "Billing", "entityType": "project", "observations": ["Runs on Go"]},
    {"type": "entity", "name": "Quentin", "entityType": "person", "observations": ["Likes tea"]},
    {"type": "relation", "from": "Quentin", "to": "Billing", "relationType": "owns"},
    {"type": "entity", "name": "Staging", "entityType": "service", "observations": ["Resets"]},
]


def _write(path, hostile: list[bytes]) -> None:
    lines = [json.dumps(v).encode() for v in VALID]
    # valid, hostile, valid, hostile, …: a parser that gives up at the first bad line loses
    # the rest
    body = [lines[0], *(x for pair in zip(hostile, lines[1:], strict=False) for x in pair)]
    body += lines[1 + len(hostile) :]
    path.write_bytes(b"\n".join(body) + b"\n")


HOSTILE = {
    "deep-array": [DEEP],
    "deep-in-an-entity": [DEEP_OBJECT],
    "not-utf8": [
        b'{"type": "entity", "name": "Bad", "observations": ["caf\xe9 \xff\xfe"]}',
    ],
    "over-the-line-cap": [
        b'{"type": "entity", "name": "Big", "observations": ["' + b"x" * 1_100_000 + b'"]}'
    ],
    "all-at-once": [DEEP, b"{not json", DEEP_OBJECT],
}


def _contents(cli) -> list[str]:
    rc, out, err = cli("list", "--agent", "mcp", "--json")
    assert rc == 0, err
    return sorted(f["content"] for f in json.loads(out))


def test_a_hostile_first_line_does_not_hide_the_format(cli, tmp_path):
    f = tmp_path / "memory.jsonl"
    f.write_bytes(DEEP + b"\n" + b"\n".join(json.dumps(v).encode() for v in VALID) + b"\n")
    rc, out, err = cli("import", "--agent", "mcp", str(f))
    assert rc == 0, err
    assert "skipped memory.jsonl:1: JSON nested too deep" in out
    assert len(_contents(cli)) == 4


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_every_valid_line_imports_and_each_bad_one_is_named(cli, tmp_path, case):
    f = tmp_path / "memory.jsonl"
    _write(f, HOSTILE[case])
    rc, out, err = cli("import", "--agent", "mcp", str(f))
    assert rc == 0, err
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    assert _contents(cli) == [
        "Billing: Runs on Go",
        "Quentin owns Billing",
        "Quentin: Likes tea",
        "Staging: Resets",
    ]
    skipped = re.findall(r"skipped memory\.jsonl:(\d+): (.+)", out)
    bad_lines = [2 * k + 2 for k in range(len(HOSTILE[case]))]
    assert sorted(int(n) for n, _ in skipped) == bad_lines, out
    for _, reason in skipped:
        assert reason.strip() and "Traceback" not in reason


def test_forget_and_verify_on_the_same_file_leave_the_hostile_lines_alone(cli, tmp_path):
    f = tmp_path / "memory.jsonl"
    _write(f, HOSTILE["all-at-once"])
    assert cli("import", "--agent", "mcp", str(f))[0] == 0
    rc, out, err = cli(
        "forget", "--agent", "mcp", "--matching", "Quentin", "--keyword-only", "--yes"
    )
    assert rc == 0, err
    assert "Traceback" not in out + err
    assert b"Quentin" not in f.read_bytes()
    kept = f.read_bytes().split(b"\n")
    assert DEEP in kept and DEEP_OBJECT in kept and b"{not json" in kept
    assert b"Runs on Go" in f.read_bytes()
    rc, out, err = cli("forget", "--agent", "mcp", "--verify", "Quentin")
    assert rc == 0, out + err
    assert "Traceback" not in out + err


def test_forgetting_a_name_inside_a_too_deep_line_does_not_crash(cli, tmp_path):
    f = tmp_path / "memory.jsonl"
    deep_quentin = b'{"type": "entity", "name": "Quentin", "observations": ' + b"[" * 200_000
    f.write_bytes(json.dumps(VALID[1]).encode() + b"\n" + deep_quentin + b"\n")
    assert cli("import", "--agent", "mcp", str(f))[0] == 0
    rc, out, err = cli(
        "forget", "--agent", "mcp", "--matching", "Quentin", "--keyword-only", "--yes"
    )
    assert "RecursionError" not in err and rc == 0, err
    assert b"Quentin" not in f.read_bytes()
