"""Building MCP memory.jsonl-shaped imports as the importer produces them: one fact per
observation carrying ``metadata["entity"]``, one per relation carrying ``metadata["relation"]``."""

from __future__ import annotations

import json
from pathlib import Path

from services.ingest.pipeline import NewFact


def mcp_facts(path: Path) -> tuple[list[NewFact], dict[str, str], set[tuple[str, str, str]]]:
    facts: list[NewFact] = []
    entities: dict[str, str] = {}
    relations: set[tuple[str, str, str]] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec.get("type") == "entity":
            entities[rec["name"]] = rec.get("entityType", "")
            ent = {"name": rec["name"], "type": rec.get("entityType", "")}
            for obs in rec.get("observations") or []:
                facts.append(
                    NewFact(f"{rec['name']}: {obs}", source="import", metadata={"entity": ent})
                )
        elif rec.get("type") == "relation":
            typ = rec["relationType"].replace("_", " ")
            relations.add((rec["from"], typ, rec["to"]))
            facts.append(
                NewFact(
                    f"{rec['from']} {typ} {rec['to']}",
                    source="import",
                    metadata={"relation": {"from": rec["from"], "type": typ, "to": rec["to"]}},
                )
            )
    return facts, entities, relations
