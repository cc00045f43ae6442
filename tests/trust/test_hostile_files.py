"""Issue #27 items 3 and 4: every input is bounded, and a hostile file is refused or capped
with its reason while the rest of its folder imports. The files are generated here, in tmp;
time and memory are measured in `python -m bench limits`, not in these tests."""

from __future__ import annotations

import gzip
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.trust.hostile_inputs import LAUGHS

NATIVE = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "native"


def _contents(cli, agent: str) -> list[str]:
    rc, out, _ = cli("list", "--agent", agent, "--json")
    return [f["content"] for f in json.loads(out)]


def test_billion_laughs_in_an_mdc_rule_is_not_expanded_and_the_project_imports(cli, tmp_path):
    project = tmp_path / "project"
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("- Run the tests with pytest -q before pushing\n")
    (rules / "good.mdc").write_text(
        "---\ndescription: style\nalwaysApply: true\n---\n- Use ruff for formatting\n"
    )
    (rules / "laughs.mdc").write_text(LAUGHS + "- Prefer small pull requests\n")
    rc, out, err = cli("import", "--agent", "proj", str(project), "--json")
    assert rc in (0, None), err
    got = " | ".join(_contents(cli, "proj"))
    for text in ("pytest -q", "ruff for formatting", "small pull requests"):
        assert text in got, got
    assert "lol" not in got  # the alias bomb stayed a string at most, never expanded


def test_billion_laughs_in_an_auto_memory_topic_file(cli, tmp_path):
    folder = tmp_path / "memory"
    shutil.copytree(NATIVE / "claude_memory", folder)
    (folder / "feedback_bomb.md").write_text(
        LAUGHS.replace("description: *i", "name: Bomb\ndescription: *i\ntype: feedback")
        + "Keep commit messages in the imperative mood.\n"
    )
    rc, out, err = cli("import", "--agent", "cc", str(folder), "--json")
    assert rc in (0, None), err
    got = " | ".join(_contents(cli, "cc"))
    assert "backend engineer" in got and "imperative mood" in got


def _openmemory_zip(path: Path, gz: bytes, dump: dict | None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        if dump is not None:
            z.writestr("export/memories.json", json.dumps(dump))
        z.writestr("export/memories.jsonl.gz", gz)
    return path


def _dump(*texts: str) -> dict:
    return {
        "export_meta": {"version": 1},
        "memories": [
            {"id": f"m{i}", "content": t, "state": "active", "created_at": "2025-01-02T03:04:05"}
            for i, t in enumerate(texts)
        ],
    }


def test_openmemory_gzip_bomb_is_refused_and_the_dump_still_imports(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_MAX_MEMBER", str(4 * 1024 * 1024))
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)  # 64 MiB of zeros
    assert len(bomb) < 200_000
    z = _openmemory_zip(tmp_path / "export.zip", bomb, _dump("Dana prefers green tea"))
    rc, out, err = cli("import", "--agent", "om", str(z), "--json")
    assert rc in (0, None), err
    report = json.loads(out)
    reasons = " ".join(p["reason"] for p in report["skipped"])
    assert "inflates past" in reasons, report
    assert _contents(cli, "om") == ["Dana prefers green tea"]


def test_openmemory_zip_member_bomb_is_skipped_with_its_reason(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_MAX_MEMBER", str(4 * 1024 * 1024))
    path = tmp_path / "bomb.zip"
    big = json.dumps(_dump("Dana prefers green tea")) + " " * (32 * 1024 * 1024)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("memories.json", big)
    rc, out, err = cli("import", "--agent", "om", str(path), "--json")
    assert rc == 1  # nothing could be imported: said so, with the reason
    assert "inflates past" in json.dumps(json.loads(out)["skipped"]), out
    rc, out, _ = cli("agents", "--json")
    assert "om" not in [a["slug"] for a in json.loads(out)]  # no empty agent left behind


@pytest.mark.parametrize("streamed", [False, True])
def test_mcp_memory_jsonl_with_a_huge_line_and_a_long_observation(
    cli, tmp_path, monkeypatch, streamed
):
    monkeypatch.setenv("ENGRAM_MAX_LINE", str(64 * 1024))
    if streamed:  # a file over the file cap is read line by line, not refused whole
        monkeypatch.setenv("ENGRAM_MAX_FILE", str(100 * 1024))
    good = {"type": "entity", "name": "Acme", "entityType": "org", "observations": ["is in Oslo"]}
    huge = {"type": "entity", "name": "Big", "entityType": "org", "observations": ["x" * 200_000]}
    long_obs = {
        "type": "entity",
        "name": "Wordy",
        "entityType": "org",
        "observations": ["word " * 4000, "is in Rome"],
    }
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in (good, huge, long_obs)) + "\n")
    rc, out, err = cli("import", "--agent", "graph", str(path), "--json")
    assert rc in (0, None), err
    report = json.loads(out)
    reasons = [p["reason"] for p in report["skipped"]]
    assert any("line over" in r for r in reasons), reasons  # the 200 kB line, named
    assert any("too long for one memory" in r for r in reasons), reasons  # the 20 kB fact
    got = " | ".join(_contents(cli, "graph"))
    assert "Acme" in got and "Rome" in got and "xxxx" not in got


def test_a_file_over_the_size_cap_is_skipped_and_the_folder_imports(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_MAX_FILE", str(1024 * 1024))
    project = tmp_path / "project"
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (project / "AGENTS.md").write_text("- Deploys happen on Tuesdays\n")
    (rules / "huge.mdc").write_text("- bullet\n" * 300_000)  # 2.7 MB of bullets
    rc, out, err = cli("import", "--agent", "proj", str(project), "--json")
    assert rc in (0, None), err
    report = json.loads(out)
    assert any("too large to import" in p["reason"] for p in report["skipped"]), report
    assert _contents(cli, "proj") == ["Deploys happen on Tuesdays"]


def test_remember_over_the_memory_cap_is_refused_with_a_message(cli):
    cli("agent", "add", "a")
    rc, out, err = cli("remember", "--agent", "a", "x" * 20_000)
    assert rc == 1 and out == ""
    assert "too long for one memory: 20,000 bytes (the limit is 8,192)" in err
    assert _contents(cli, "a") == []


@pytest.mark.slow  # a 100k-word query through the CLI: make test runs it
@pytest.mark.parametrize("words", [100_000])
def test_context_budget_is_a_hard_cap_and_long_queries_are_trimmed(cli, words, monkeypatch):
    cli("agent", "add", "a")
    monkeypatch.setenv("ENGRAM_MAX_MEMORY", str(4 * 1024 * 1024))  # a fact from before the cap
    assert cli("remember", "--agent", "a", "y" * 3_000_000, "--pin")[0] in (0, None)
    monkeypatch.delenv("ENGRAM_MAX_MEMORY")
    cli("remember", "--agent", "a", "Deploys happen on Tuesdays", "--pin")
    rc, out, err = cli("context", "--agent", "a", "--budget", "1500", "deploys")
    assert rc in (0, None), err
    assert len(out) < 1500 * 8 and "Deploys happen on Tuesdays" in out
    rc, out, err = cli("compile", "--agent", "a", "--json")
    assert rc in (0, None), err
    query = " ".join(f"term{i}" for i in range(words)) + " Tuesdays"
    rc, out, err = cli("recall", "--agent", "a", "--mode", "keyword", "--json", query)
    assert rc in (0, None), err


def test_limits_helpers_refuse_what_they_promise():
    from services.ingest import limits

    with pytest.raises(limits.TooLarge):
        limits.inflate_capped(gzip.compress(b"\0" * (2 * 1024 * 1024)), limit=1024 * 1024)
    assert limits.inflate_capped(gzip.compress(b"ok"), limit=10) == b"ok"
    q = limits.trim_query(" ".join(f"w{i}" for i in range(10_000)))
    assert len(q.split()) == limits.MAX_QUERY_TERMS
    assert [line for _, line in limits.lines_capped("a\n" + "b" * 10 + "\nc", limit=5)] == [
        "a",
        None,
        "c",
    ]
    with pytest.raises(limits.TooLarge):
        limits.yaml_safe(LAUGHS.strip("-\n").rsplit("\n---", 1)[0])
