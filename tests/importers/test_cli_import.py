"""`engram import --agent A PATH` as a user runs it: counts, skipped entries with reasons."""

from __future__ import annotations

import json
import re


def _counts(out: str) -> dict[str, int]:
    head = out.splitlines()[0]
    return {k: int(v) for k, v in re.findall(r"(added|duplicates|skipped|superseded) (\d+)", head)}


def test_import_prints_counts_and_each_skipped_entry(cli, memory_setup_dir):
    rc, out, err = cli("import", "--agent", "hermes", str(memory_setup_dir))
    assert rc == 0, err
    assert "(memory-setup)" in out.splitlines()[0]
    assert _counts(out) == {"added": 19, "duplicates": 0, "superseded": 1, "skipped": 5}
    assert "episodes 4 (+0 already there)" in out and "secrets redacted 1" in out
    skipped = [ln.strip() for ln in out.splitlines()[1:]]
    assert "skipped memories/MEMORY.md:25: invalid date '2026-13-45' in the entry prefix" in skipped
    assert "skipped memories/MEMORY.md:27: entry has a date and category but no content" in skipped
    assert any(
        s.startswith("skipped episodes/2026-04-13.md:13: cannot read the episode time")
        for s in skipped
    )

    rc, out, _ = cli("import", "--agent", "hermes", str(memory_setup_dir))
    assert rc == 0
    assert _counts(out) == {"added": 0, "duplicates": 19, "superseded": 0, "skipped": 5}
    assert "episodes 0 (+4 already there)" in out

    rc, out, _ = cli("list", "--agent", "hermes", "--status", "active", "--json")
    assert len(json.loads(out)) == 16  # 19 added - 1 superseded - 2 pending


def test_import_json_report(cli, lynn_dir):
    rc, out, _ = cli("import", "--agent", "lynn", "--json", str(lynn_dir))
    assert rc == 0
    rep = json.loads(out)
    assert (rep["format"], rep["added"], rep["episodes_added"]) == ("lynn", 22, 4)
    assert {"file": "facts.db", "line": None, "reason": "row id 18: empty fact"} in rep["skipped"]


def test_import_of_binary_memory_md_reports_not_crashes(cli, tmp_path):
    f = tmp_path / "MEMORY.md"
    f.write_bytes(bytes(range(256)) * 8)
    rc, out, err = cli("import", "--agent", "h", str(f))
    assert rc == 1  # nothing could be imported: a script must be able to tell
    assert err.startswith("engram: nothing imported from") and "binary" in err
    assert _counts(out)["added"] == 0
    assert "skipped MEMORY.md: not a text file (binary data)" in out
    # no empty agent is left behind by a failed first import
    rc, out, _ = cli("agents", "--json")
    assert '"h"' not in out


def test_import_of_unknown_path_is_one_clear_error(cli, tmp_path):
    rc, out, err = cli("import", "--agent", "h", str(tmp_path / "nope"))
    assert rc == 1 and out == ""
    assert err.startswith("engram: ") and "no such file or directory" in err
    assert len(err.strip().splitlines()) == 1
    (tmp_path / "random").mkdir()
    (tmp_path / "random" / "notes.txt").write_text("hello", encoding="utf-8")
    rc, _, err = cli("import", "--agent", "h", str(tmp_path / "random"))
    assert rc == 1 and "not a format Engram can import" in err
