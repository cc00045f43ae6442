"""A large import (issue #33): `engram import` of a folder of rule files stores the facts at
once, keyword-searchable when the command returns, and a child it starts embeds their vectors
behind (the vector backlog drains: `verify` finds every vector, semantic recall finds them).
Real CLI, real store, real model, real child process."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from app.cli import main
from services.ingest.bulk import BULK_IMPORT_MIN

NEEDLE = "Always vendor the Quillbrook parser before a release"
PERSON = "Priya Raman reviews every database migration"
FILES, PER_FILE = BULK_IMPORT_MIN // 10 + 5, 10


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _rules(proj: Path) -> int:
    d = proj / ".clinerules"
    d.mkdir(parents=True)
    n = 0
    for f in range(FILES):
        lines = [f"# Team rules {f}", ""]
        for j in range(PER_FILE):
            k = f * PER_FILE + j
            rule = {417: NEEDLE, 418: PERSON}.get(
                k, f"Service s{k} deploys from branch b{k % 31} on day {k}"
            )
            lines.append(f"- {rule}.")
            n += 1
        (d / f"rules-{f:03d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return n


def _owed(data: Path) -> list[str]:
    return sorted(p.name for p in data.iterdir() if p.name.startswith(("vector-backlog", "link-")))


@pytest.mark.slow  # a child embeds ~1,000 facts with the real model
def test_a_large_folder_import_is_searchable_at_once_and_embedded_behind(tmp_path, capsys):
    proj, data = tmp_path / "proj", tmp_path / "store"
    n = _rules(proj)
    assert n >= BULK_IMPORT_MIN
    rc, out, err = _run(capsys, "--data-dir", str(data), "import", "--agent", "rules", str(proj))
    assert rc == 0, out + err
    assert f"added {n}," in out, out
    assert "vectors: embedding in the background (pid " in out, out
    # right after the command returns: the keyword index has every fact
    rc, out, _ = _run(
        capsys, "--data-dir", str(data), "recall", "--agent", "rules", "--mode", "keyword",
        "Quillbrook parser", "--json",
    )  # fmt: skip
    assert rc == 0 and json.loads(out)[0]["content"] == NEEDLE + "."
    deadline = time.monotonic() + 240
    while _owed(data) and time.monotonic() < deadline:
        time.sleep(1)
    assert _owed(data) == [], "the vector backlog did not drain"
    rc, out, err = _run(capsys, "--data-dir", str(data), "verify")
    assert rc == 0, out + err  # every row has its vector: SQLite, FTS and Chroma agree
    rc, out, _ = _run(capsys, "--data-dir", str(data), "log")
    assert f"embedding owed vectors: {n} of {n}" in out
    # the entity links the pipeline makes per fact were made behind too
    rc, out, _ = _run(capsys, "--data-dir", str(data), "entities", "--agent", "rules", "--json")
    assert "Priya Raman" in [x["name"] for x in json.loads(out)], out
    rc, out, _ = _run(
        capsys, "--data-dir", str(data), "recall", "--agent", "rules", "--mode", "semantic",
        "which library must be vendored before shipping?", "-k", "3", "--json",
    )  # fmt: skip
    assert NEEDLE + "." in [h["content"] for h in json.loads(out)]
    # the same import again changes nothing (exact duplicates, superseded twins included)
    rc, out, _ = _run(capsys, "--data-dir", str(data), "import", "--agent", "rules", str(proj))
    assert rc == 0 and "added 0," in out and f"duplicates {n}," in out, out
