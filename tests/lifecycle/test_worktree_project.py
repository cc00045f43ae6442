"""A session run in a git worktree is filed under its repository, not `proj:<repo>-<branch>`
(issue 32). The transcripts are Claude Code 2.1 files whose `cwd` is not on this disk, as when
a user imports a colleague's or another machine's sessions."""

from __future__ import annotations

import json

from cc_builder import Session


def test_worktree_session_is_filed_under_the_repository(cli, tmp_path):
    proj = tmp_path / "projects"
    main = Session("aaaaaaaa-2222-4333-8444-000000000001", cwd="/home/dev/code/shop")
    main.user("We decided to use Postgres for the orders service.")
    main.say("Noted.")
    main.write(proj / "-home-dev-code-shop")
    wt = Session(
        "aaaaaaaa-2222-4333-8444-000000000002",
        cwd="/home/dev/code/shop-feature-login",
        branch="feature/login",
    )
    wt.user("We decided to use argon2 for password hashes.")
    wt.say("Noted.")
    wt.write(proj / "-home-dev-code-shop-feature-login")
    rc, _, err = cli("ingest-session", "--agent", "claude", str(proj))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "claude", "--json")
    facts = {f["content"]: f["category"] for f in json.loads(out)}
    assert facts["We decided to use argon2 for password hashes."] == "proj:shop"
    assert facts["We decided to use Postgres for the orders service."] == "proj:shop"
    assert not any(c.startswith("proj:shop-") for c in facts.values())
