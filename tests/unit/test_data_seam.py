"""The data seam stays: fact rows are queried and written only in ``services/store`` (and the
models and their migrations). A ``Fact.select(...)`` anywhere else is a second place that must
know the row's shape, status rules and id-chunking, which is what issue 25 removed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("services", "app", "ui")
ALLOWED = ("services/store/",)
# a call on the model (``Fact.created_at`` and other columns are fine: they build expressions)
QUERY = re.compile(
    r"\bFact\.(select|insert|insert_many|insert_from|update|delete|delete_by_id|get|"
    r"get_or_none|get_by_id|get_or_create|create|bulk_create|bulk_update|raw)\s*\("
)


def offenders(root: Path = ROOT) -> list[str]:
    found = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(ALLOWED):
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if QUERY.search(line):
                    found.append(f"{rel}:{no}: {line.strip()}")
    return found


def test_fact_rows_are_read_and_written_only_in_services_store():
    found = offenders()
    assert not found, "query fact rows through services/store (fact_rows, FactStore):\n" + (
        "\n".join(found)
    )


def test_the_scan_sees_a_query_outside_the_store(tmp_path):
    # the guard must be able to fail: a query placed in a service package is reported
    (tmp_path / "services" / "lifecycle").mkdir(parents=True)
    (tmp_path / "services" / "store").mkdir(parents=True)
    (tmp_path / "services" / "lifecycle" / "x.py").write_text(
        "rows = Fact.select(Fact.id).where(Fact.created_at < now)\n", encoding="utf-8"
    )
    (tmp_path / "services" / "store" / "y.py").write_text("Fact.get_or_none(Fact.id == 1)\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "z.py").write_text("cond = Fact.created_at >= lo\n", encoding="utf-8")
    (tmp_path / "ui").mkdir()
    assert offenders(tmp_path) == [
        "services/lifecycle/x.py:1: rows = Fact.select(Fact.id).where(Fact.created_at < now)"
    ]
