"""`engram forget` purges every place whatever else is going on (issue #30): a relative data
dir, agents' files in another encoding, a fact deleted before the forget, an agent writing
while the forget rebuilds the vectors. Run through the real CLI on real stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main

PET = "My secret pet is named Quetzalcoatlus Borogove"


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _raw_hits(root: Path, needle: str) -> list[str]:
    return [
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and needle.encode() in p.read_bytes()
    ]


# finding 12 ------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["flag", "env"])
def test_relative_data_dir_forget_and_verify(how, tmp_path, monkeypatch, capsys):
    """The forget's child processes run elsewhere: a relative data dir must not make the
    receipt end in a traceback nor ``--verify`` crash."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    if how == "flag":
        base: list[str] = ["--data-dir", "rel"]
    else:
        monkeypatch.setenv("ENGRAM_HOME", "rel")
        base = []
    assert _run(capsys, *base, "remember", "--agent", "a", "--create-agent", PET)[0] == 0
    assert _run(capsys, *base, "remember", "--agent", "a", "Prefers pnpm over npm")[0] == 0
    rc, out, err = _run(capsys, *base, "forget", "--agent", "a", "--matching", "Borogove", "--yes")
    assert (rc, err) == (0, "") and "receipt" in out
    rc, out, err = _run(capsys, *base, "forget", "--verify", "Borogove", "--json")
    assert rc == 0 and "Traceback" not in err
    assert json.loads(out)["remaining"] == []
    assert _raw_hits(work / "rel", "Borogove") == []
    rc, out, _ = _run(capsys, *base, "list", "--agent", "a")
    assert "pnpm" in out and "Borogove" not in out
