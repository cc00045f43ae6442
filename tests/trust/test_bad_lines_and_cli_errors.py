"""Finding 7 (my part): a pathological archive line is skipped and counted; odd slugs and
symlink loops get one clear line each."""

from __future__ import annotations

import os

import pytest

from services.interop.archive import export_archive, import_archive


def test_archive_import_skips_and_counts_pathological_lines(tmp_path, keyword_engram):
    m = keyword_engram.agent("a", create=True)
    m.remember("Prefers pnpm")
    m.remember("Deploys on Fridays are banned")
    out = tmp_path / "a.jsonl"
    export_archive(m, out)
    lines = out.read_bytes().splitlines(keepends=True)
    bad = [
        b"[" * 100_000 + b"\n",  # RecursionError in the JSON parser
        b"{not json\n",
        b"\xff\xfe invalid utf-8\n",
        b'"a string, not an object"\n',
        b'{"type": "fact", "content": "' + b"x" * (33 * 1024 * 1024) + b'"}\n',
    ]
    out.write_bytes(lines[0] + b"".join(bad) + b"".join(lines[1:]))
    rep = import_archive(keyword_engram, out, slug="copy")
    assert rep.skipped_lines == len(bad)
    assert sorted(f.content for f in keyword_engram.agent("copy").list()) == [
        "Deploys on Fridays are banned",
        "Prefers pnpm",
    ]


def test_cli_archive_import_reports_skipped_lines(cli, tmp_path):
    assert cli("remember", "--agent", "a", "--create-agent", "Prefers pnpm")[0] == 0
    out = tmp_path / "a.jsonl"
    assert cli("archive", "export", "--agent", "a", str(out))[0] == 0
    with open(out, "ab") as fh:
        fh.write(b"{" * 50_000 + b"\n")
    rc, text, err = cli("archive", "import", "--agent", "b", str(out))
    assert rc == 0, err
    assert "1 bad line(s) skipped" in text


def test_a_slug_starting_with_a_dash_is_one_line_not_a_usage_dump(cli, capsys):
    with pytest.raises(SystemExit) as exc:
        cli("remember", "--agent", "-x", "hello")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("engram: ") and "usage:" not in err
    assert "--option=VALUE" in err
    rc, _out, err = cli("remember", "--agent=-x", "--create-agent", "hello")
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "'-x'" in err


def test_a_symlink_loop_is_named_as_one(cli, tmp_path):
    assert cli("remember", "--agent", "a", "--create-agent", "Prefers pnpm")[0] == 0
    loop = tmp_path / "loop.jsonl"
    os.symlink(loop, loop)
    rc, _out, err = cli("import", str(loop), "--agent", "a")
    assert rc == 1 and "symbolic link loop" in err and "no such file" not in err
    rc, _out, err = cli("archive", "import", str(loop))
    assert rc == 1 and "symbolic link loop" in err
    rc, _out, err = cli("export", "--agent", "a", str(loop))
    assert rc == 1 and "symbolic link loop" in err
