"""`engram remember` of where someone works links the company by its own name (issue 32)."""

from __future__ import annotations

import json


def test_works_at_links_the_company_at_the_end_and_before_now(cli):
    assert cli("agent", "add", "work")[0] == 0
    # the first one used to raise IndexError and store the fact with no entity links
    for text in ("Bob works at Datadog", "Alice works at Datadog now"):
        rc, _, err = cli("remember", "--agent", "work", text)
        assert rc == 0, err
    rc, out, _ = cli("entities", "--agent", "work", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert "Datadog now" not in rows
    assert rows["Datadog"]["type"] == "organisation" and rows["Datadog"]["mention_count"] == 2
    assert rows["Bob"]["type"] == "person" and rows["Alice"]["type"] == "person"
