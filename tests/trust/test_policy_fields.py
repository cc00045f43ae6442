"""Issue #30, finding 11: every text field of a memory goes through the write policy, the
category too. ``remember --category sk_live_…`` used to store the key verbatim and compile it
into the layers; under ``pii deny`` an address survived as the category ``rel:…`` and, from a
memory.jsonl import, in slugged form (``zorblax.quentin-example.org``) as a category and a
tag. Through the CLI a user runs; afterwards every file of the data dir (engram.db and its
WAL, chroma.sqlite3, the compiled layers) is read as raw bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.trust.on_disk import files_holding

SECRET = "sk_live_51HqLyjWDarjtT1zdp7dcXYZabc"
EMAIL = "zorblax.quentin@example.org"


def _facts(cli) -> list[dict]:
    rc, out, err = cli("list", "--agent", "a", "--json")
    assert rc == 0, err
    return json.loads(out)


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "cli-store"  # where the cli fixture keeps its store


def test_a_secret_in_the_category_or_a_tag_never_reaches_the_files(cli, data):
    rc, _, err = cli(
        "remember", "--agent", "a", "--create-agent", "Likes rye bread",
        "--category", SECRET, "--tags", f"bread,{SECRET}",
    )  # fmt: skip
    assert rc == 0, err
    rc, _, err = cli("remember", "--agent", "a", "Keeps a sourdough starter", "--category",
                     f"proj:{SECRET}")  # fmt: skip
    assert rc == 0, err
    fid = next(f["id"] for f in _facts(cli) if f["content"] == "Likes rye bread")
    rc, _, err = cli("edit", str(fid), "--category", f"rel:{SECRET}")
    assert rc == 0, err
    rc, _, err = cli("compile", "--agent", "a")
    assert rc == 0, err
    assert (data / "chroma").is_dir() and list(data.glob("agents/a/*.md"))

    assert files_holding(data, SECRET) == []
    assert files_holding(data, SECRET[8:]) == []  # not even the key without its prefix
    cats = {f["content"]: f["category"] for f in _facts(cli)}
    # what is left of the category is what the policy could keep: its kind, else "fact"
    assert cats == {"Likes rye bread": "rel", "Keeps a sourdough starter": "proj"}
    assert [f["tags"] for f in _facts(cli) if f["content"] == "Likes rye bread"] == [["bread"]]


def test_personal_data_under_deny_leaves_every_field(cli, data, tmp_path):
    assert cli("remember", "--agent", "a", "--create-agent", "Likes tea")[0] == 0
    assert cli("pii", "--agent", "a", "deny")[0] == 0
    rc, _, err = cli(
        "remember", "--agent", "a", "Likes spelt bread", "--category", f"rel:{EMAIL}",
        "--tags", f"bread,{EMAIL}", "--subject", EMAIL,
    )  # fmt: skip
    assert rc == 0, err
    rc, _, err = cli("remember", "--agent", "a", "Maria reviews the migrations",
                     "--category", "rel:maria", "--tags", "db")  # fmt: skip
    assert rc == 0, err
    graph = tmp_path / "memory.jsonl"
    graph.write_text(
        json.dumps({"type": "entity", "name": EMAIL, "entityType": "person",
                    "observations": ["Prefers short meetings"]}) + "\n"
        + json.dumps({"type": "entity", "name": "Billing", "entityType": "project",
                      "observations": ["Runs on Go"]}) + "\n"
        + json.dumps({"type": "relation", "from": "Billing", "to": "Maria",
                      "relationType": f"escalates_to_{EMAIL}"}) + "\n"
    )  # fmt: skip
    rc, out, err = cli("import", "--agent", "a", str(graph))
    assert rc == 0, err
    assert cli("compile", "--agent", "a")[0] == 0

    # the address, raw or slugged ("zorblax.quentin-example.org"), is in no file
    assert files_holding(data, "zorblax") == []
    facts = {f["content"]: f for f in _facts(cli)}
    assert facts["Likes spelt bread"]["category"] == "rel"
    assert facts["Likes spelt bread"]["tags"] == ["bread"]
    # what carries no personal data is kept as it was
    assert facts["Maria reviews the migrations"]["category"] == "rel:maria"
    assert facts["Maria reviews the migrations"]["tags"] == ["db"]
    assert facts["Billing: Runs on Go"]["category"] == "proj:billing"
    person = [f for c, f in facts.items() if c.endswith("Prefers short meetings")]
    assert [f["category"] for f in person] == ["rel"]
