"""``RememberStatus`` is an enum inside Engram and the same words outside: what ``engram
remember`` prints and its ``--json`` carry (scripts and hooks read them) did not change."""

from __future__ import annotations

import json

from services import RememberStatus


def test_remember_reports_its_status_as_the_plain_word(cli):
    rc, out, err = cli("remember", "--agent", "a", "--create-agent", "Uses pnpm", "--json")
    assert rc == 0, err
    first = json.loads(out)
    assert first["status"] == "added" and isinstance(first["id"], int)
    assert '"status": "added"' in out  # the bytes a script greps, not an enum's repr

    rc, out, err = cli("remember", "--agent", "a", "Uses pnpm", "--json")
    assert rc == 0, err
    assert json.loads(out)["status"] == "duplicate" and json.loads(out)["id"] == first["id"]

    rc, out, err = cli("remember", "--agent", "a", "Uses pnpm")
    assert rc == 0 and out.strip() == str(first["id"])
    assert f"(duplicate of fact {first['id']})" in err

    rc, _out, err = cli("remember", "--agent", "a", "   ")
    assert rc == 1 and "nothing to remember" in err
    assert RememberStatus.DUPLICATE == "duplicate" and f"{RememberStatus.ADDED}" == "added"
