"""The data seam stays: fact rows are queried and written only in ``services/store`` (and the
models and their migrations). A ``Fact.select(...)`` anywhere else is a second place that must
know the row's shape, status rules and id-chunking, which is what issue 25 removed; a write
elsewhere (a ``.save()`` on a fetched row, raw ``UPDATE fact``/``INSERT INTO "fact"``, an
``insert_many`` on a model passed in) is a second writer that skips the store's rules (issue 37)."""

from __future__ import annotations

import ast
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
# raw SQL on the fact table (not fact_entity, fact_vector: ``"?fact"?`` then a space or paren)
RAW = re.compile(r'(?i)\b(UPDATE\s+"?fact"?\s+SET|INSERT\s+INTO\s+"?fact"?\s*\()')
# a model held in a variable (``model.insert_many``): any table, the fact table among them
MANY = re.compile(r"\b[a-z_]\w*\.insert_many\s*\(")


def _fact_row_saves(tree: ast.AST) -> list[int]:
    """Lines of ``x.save()`` where ``x`` was bound (assigned or looped over) from a
    ``fact_rows`` call, directly or through another such name."""
    bound: set[str] = set()

    def from_rows(node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
                if sub.value.id == "fact_rows":
                    return True
            if isinstance(sub, ast.Name) and sub.id in bound:
                return True
        return False

    def names(target: ast.AST) -> list[str]:
        return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]

    # two passes: a name bound from another bound name later in the file is still seen
    for _ in range(2):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and from_rows(node.value):
                for t in node.targets:
                    bound.update(names(t))
            elif isinstance(node, (ast.For, ast.comprehension)) and from_rows(node.iter):
                bound.update(names(node.target))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "save"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in bound
    )


def offenders(root: Path = ROOT) -> list[str]:
    found = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(ALLOWED):
                continue
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            hits = {no for no, line in enumerate(lines, 1) if QUERY.search(line)}
            hits |= {no for no, line in enumerate(lines, 1) if RAW.search(line)}
            hits |= {no for no, line in enumerate(lines, 1) if MANY.search(line)}
            hits |= set(_fact_row_saves(ast.parse(text)))
            found += [f"{rel}:{no}: {lines[no - 1].strip()}" for no in sorted(hits)]
    return found


def test_fact_rows_are_read_and_written_only_in_services_store():
    found = offenders()
    assert not found, (
        "read and write fact rows through services/store (fact_rows, FactStore):\n"
        + ("\n".join(found))
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


def test_the_scan_sees_writes_outside_the_store(tmp_path):
    # each way the nine writes of issue 37 bypassed the store is reported; look-alikes are not
    (tmp_path / "services" / "ingest").mkdir(parents=True)
    (tmp_path / "app").mkdir()
    (tmp_path / "ui").mkdir()
    src = (
        "def f(m):\n"
        "    old = fact_rows.row_in(1, ('active',))\n"
        "    old.save()\n"
        "    for o in fact_rows.older_on_subject(1, 's', 2, 3):\n"
        "        o.save()\n"
        "    session = Session.get_or_none(Session.id == 1)\n"
        "    session.save()\n"
        "    db.execute_sql('UPDATE fact SET status = ? WHERE id = ?')\n"
        "    db.execute_sql('UPDATE fact_entity SET source = ?')\n"
        "    sql = 'INSERT INTO \"fact\" (%s) VALUES (%s)'\n"
        "    sql2 = 'INSERT INTO fact_vector (fact_id) VALUES %s'\n"
        "    model.insert_many(rows).execute()\n"
        "    FactEntity.insert_many(rows).execute()\n"
    )
    (tmp_path / "services" / "ingest" / "w.py").write_text(src, encoding="utf-8")
    got = [line.split(":")[1] for line in offenders(tmp_path)]
    assert got == ["3", "5", "8", "10", "12"]
