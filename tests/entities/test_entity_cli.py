"""`engram entities`, `engram entity …` and the entities in `engram context`."""

from __future__ import annotations

import json


def _seed(cli):
    assert cli("agent", "add", "work")[0] == 0
    for text in (
        "Maria Lopez is my manager at Acme Corp.",
        "Maria Lopez works on Phoenix.",
        "Maria Chen runs the Berlin climbing gym.",
        "Maria said the roadmap is due Friday.",
        "Deploys go through GitHub Actions.",
    ):
        assert cli("remember", "--agent", "work", text)[0] == 0


def test_entities_list_filter_json_and_candidates(cli):
    _seed(cli)
    rc, out, _ = cli("entities", "--agent", "work", "--type", "person")
    assert rc == 0 and "Maria Lopez" in out and "GitHub Actions" not in out
    rc, out, _ = cli("entities", "--agent", "work", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["Maria Lopez"]["mention_count"] == 2 and rows["Phoenix"]["type"] == "project"
    rc, out, _ = cli("entities", "--agent", "work", "--candidates", "--json")
    pairs = {(c["entity"]["name"], c["other"]["name"]) for c in json.loads(out)}
    assert pairs == {("Maria", "Maria Lopez"), ("Maria", "Maria Chen")}


def test_entity_show_merge_undo_rename_alias(cli):
    _seed(cli)
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria Lopez")
    assert rc == 0 and "works on" in out and "Phoenix" in out and "manager at Acme" in out
    rc, out, err = cli("entity", "merge", "--agent", "work", "Maria Lopez", "Maria", "--yes")
    assert rc == 0, err
    event = int(out.split()[-1].rstrip(")"))
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria", "--json")
    assert json.loads(out)["name"] == "Maria Lopez" and json.loads(out)["mention_count"] == 3
    assert cli("entity", "undo", "--agent", "work", str(event))[0] == 0
    rc, out, _ = cli("entity", "show", "--agent", "work", "Maria", "--json")
    assert json.loads(out)["mention_count"] == 1
    assert cli("entity", "rename", "--agent", "work", "Phoenix", "Phoenix Billing")[0] == 0
    assert cli("entity", "alias", "--agent", "work", "Phoenix Billing", "--add", "PHX")[0] == 0
    rc, out, _ = cli("entity", "show", "--agent", "work", "phx", "--json")
    assert json.loads(out)["aliases"] == ["Phoenix", "PHX"]
    rc, _, err = cli("entity", "show", "--agent", "work", "Nobody")
    assert rc == 1 and "no entity called 'Nobody'" in err


def test_context_returns_the_entities_a_query_names(cli):
    _seed(cli)
    rc, out, _ = cli("context", "--agent", "work", "what should I tell Maria Lopez?")
    assert rc == 0
    block = out.split("## Known entities")[1]
    assert "- Maria Lopez [person]: " in block and "works on Phoenix" in block
    assert "Maria Chen [person]" not in block


def test_relink_links_facts_written_before_entities_existed(cli, tmp_path):
    """Bulk imports (and stores from before schema 5) carry no links until relinked."""
    from services import bulk_remember
    from services.config import StoreConfig
    from services.engram import Engram
    from services.ingest.pipeline import NewFact

    e = Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False))
    mem = e.agent("bulk", create=True)
    bulk_remember(mem, [NewFact("Kenji Watanabe leads the Orion launch in Tokyo.")])
    assert mem.entities.list() == []
    e.close()
    rc, out, _ = cli("entities", "--agent", "bulk", "--relink")
    assert rc == 0 and "relinked 1 fact(s)" in out
    rc, out, _ = cli("entities", "--agent", "bulk", "--json")
    assert {(r["name"], r["type"]) for r in json.loads(out)} == {
        ("Kenji Watanabe", "person"),
        ("Orion", "project"),
        ("Tokyo", "place"),
    }
