"""Reject means gone (issue 20 item 6): a phone number held for review under the
personal-data policy "ask" and rejected from the CLI leaves no trace that `forget --verify`
can find: not the row, not its history, not the vectors, not the entities made from it.
"Not now" is the other answer, and says that the text is kept."""

from __future__ import annotations

import json

from services.config import StoreConfig
from services.engram import Engram

PHONE = "+44 20 7946 0958"


def _pending_phone_fact(cli, tmp_path) -> str:
    rc, _, err = cli("agent", "add", "me")
    assert rc == 0, err
    with Engram.open(StoreConfig(data_dir=tmp_path / "cli-store", semantic=False)) as e:
        e.update_agent("me", settings={"pii": "ask"})
    rc, out, err = cli(
        "remember", "--agent", "me", "--json", f"Dr Margarethe Quillfeather's mobile is {PHONE}"
    )
    assert rc == 0, err
    res = json.loads(out)
    rc, out, _ = cli("review", "--agent", "me")
    assert PHONE in out and "personal-data" in out
    return str(res["id"])


def test_rejecting_a_phone_number_erases_it_everywhere(cli, tmp_path):
    fid = _pending_phone_fact(cli, tmp_path)
    rc, out, _ = cli("forget", "--verify", PHONE, "--agent", "me")
    assert rc == 1  # before: the text is there, and verify finds it

    rc, out, err = cli("review", "reject", fid, "--agent", "me", "--yes")
    assert rc == 0, err
    assert "rejected and erased 1" in out and "receipt" in out and "remaining_after_verify 0" in out

    rc, out, err = cli("forget", "--verify", PHONE, "--agent", "me")
    assert rc == 0 and "nothing remains" in out, out + err
    rc, out, err = cli("forget", "--verify", "Quillfeather", "--agent", "me")
    assert rc == 0 and "nothing remains" in out, out + err
    rc, out, _ = cli("review", "--agent", "me")
    assert "nothing to review" in out
    rc, out, _ = cli("list", "--agent", "me", "--status", "archived")
    assert PHONE not in out


def test_not_now_keeps_it_hidden_and_says_so(cli, tmp_path):
    fid = _pending_phone_fact(cli, tmp_path)
    rc, out, err = cli("review", "not-now", fid, "--agent", "me")
    assert rc == 0, err
    assert "kept hidden" in out and "text is kept" in out
    rc, out, _ = cli("review", "--agent", "me")
    assert "nothing to review" in out
    md = tmp_path / "cli-store" / "agents" / "me" / "memory.md"
    assert not md.exists() or PHONE not in md.read_text()
    rc, out, _ = cli("forget", "--verify", PHONE, "--agent", "me")
    assert rc == 1  # kept: the store still holds it, as the output said
