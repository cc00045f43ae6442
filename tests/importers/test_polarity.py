"""Negative rules keep their polarity: a corpus of the shapes people write prohibitions in
(NEVER lists, "Don't" headings, "Avoid:" lead-ins, ❌/✅ tables, "do not … unless …", nested
labels, other languages), imported through ``engram import`` as a user does, and the stored
text read back. A rule stored without its negation tells the agent the opposite."""

from __future__ import annotations

import json

import pytest

# (markdown, statements that must be stored exactly, positive forms that must never be)
CORPUS = [
    (
        "**NEVER**:\n- run the dev server\n- Commit secrets\n",
        ["Never run the dev server", "Never commit secrets"],
        ["run the dev server"],
    ),
    (
        "NEVER:\n\n- push to main directly\n",
        ["Never push to main directly"],
        ["push to main directly"],
    ),
    (
        "## Don't\n\n- use `var` in new code\n- Reformat unrelated files\n",
        ["Don't use `var` in new code", "Don't reformat unrelated files"],
        ["use `var` in new code"],
    ),
    (
        "## Do not\n- edit generated files under gen/\n",
        ["Do not edit generated files under gen/"],
        ["edit generated files under gen/"],
    ),
    ("Avoid:\n- global mutable state\n", ["Avoid global mutable state"], ["global mutable state"]),
    ("**Avoid**:\n- sleeping in tests\n", ["Avoid sleeping in tests"], ["sleeping in tests"]),
    (
        "Things to avoid:\n- catching bare exceptions\n",
        ["Avoid catching bare exceptions"],
        ["catching bare exceptions"],
    ),
    (
        "| ❌ Don't | ✅ Do |\n|---|---|\n| `git push -f` | `git push --force-with-lease` |\n",
        ["❌ Don't: `git push -f`; ✅ Do: `git push --force-with-lease`"],
        ["`git push -f`"],
    ),
    (
        "## Git\n\n- ❌ rebase shared branches\n- ✅ merge with --no-ff\n",
        ["Don't: rebase shared branches", "✅ merge with --no-ff"],
        ["rebase shared branches"],
    ),
    (
        "## Deploys\n\nDo not deploy on Fridays unless the on-call engineer approves.\n",
        ["Do not deploy on Fridays unless the on-call engineer approves."],
        [],
    ),
    (
        "## Anti-patterns\n- Singletons for configuration\n",
        ["Anti-patterns: Singletons for configuration"],
        ["Singletons for configuration"],
    ),
    (
        "## Git rules\n- **NEVER**:\n  - force-push a release branch\n  - rewrite shared history\n",
        ["Never force-push a release branch", "Never rewrite shared history"],
        ["force-push a release branch"],
    ),
    (
        "Don't:\n- add dependencies without asking\n",
        ["Don't add dependencies without asking"],
        ["add dependencies without asking"],
    ),
    ("You must not:\n- log personal data\n", ["Do not log personal data"], ["log personal data"]),
    (
        "### What NOT to do\n- Skip the changelog\n",
        ["What NOT to do: Skip the changelog"],
        ["Skip the changelog"],
    ),
    (
        "Niemals:\n- Passwörter ins Repository schreiben\n",
        ["Niemals passwörter ins Repository schreiben"],
        ["Passwörter ins Repository schreiben"],
    ),
    ("禁止：\n- 提交密钥\n", ["禁止提交密钥"], ["提交密钥"]),
    ("Nunca:\n- borrar la rama main\n", ["Nunca borrar la rama main"], ["borrar la rama main"]),
    (
        "Jamais :\n- modifier la base de production à la main\n",
        ["Jamais modifier la base de production à la main"],
        ["modifier la base de production à la main"],
    ),
    (
        "Do NOT:\n1. merge without review\n2. Skip CI\n",
        ["Do NOT merge without review", "Do NOT skip CI"],
        ["merge without review"],
    ),
    (
        "**Don't**\n\n- mock the database in integration tests\n",
        ["Don't mock the database in integration tests"],
        ["mock the database in integration tests"],
    ),
    (
        "## Never\n\n- hard-code credentials\n",
        ["Never hard-code credentials"],
        ["hard-code credentials"],
    ),
    (
        "## Testing\n- Don't use mocks for the store\n  - except for the HTTP client\n",
        ["Don't use mocks for the store\n- except for the HTTP client"],
        [],
    ),
    (
        "Prohibited:\n- direct SQL in views\n",
        ["Prohibited: direct SQL in views"],
        ["direct SQL in views"],
    ),
    (
        "| Pattern | Allowed |\n|---|---|\n| `eval()` | ❌ |\n| `ast.literal_eval()` | ✅ |\n",
        ["Pattern: `eval()`; Allowed: ❌ no", "Pattern: `ast.literal_eval()`; Allowed: ✅ yes"],
        [],
    ),
    (
        "## Style\n- Never use `print` for logging; use the logger.\n",
        ["Never use `print` for logging; use the logger."],
        [],
    ),
    (
        "Must not:\n- change the public API without a deprecation\n",
        ["Must not change the public API without a deprecation"],
        ["change the public API without a deprecation"],
    ),
    (
        "### Things you should never do\n- Delete migrations\n",
        ["Things you should never do: Delete migrations"],
        ["Delete migrations"],
    ),
    (
        "IMPORTANT: do not touch `vendor/` unless upgrading a dependency.\n",
        ["IMPORTANT: do not touch `vendor/` unless upgrading a dependency."],
        [],
    ),
    (
        "**NEVER** do these:\n- run migrations against production from a laptop\n",
        ["Never run migrations against production from a laptop"],
        ["run migrations against production from a laptop"],
    ),
]


CORPUS += [
    (
        "## Forbidden commands\n\n| Command | Why |\n|---|---|\n| `rm -rf build/` | breaks CI |\n",
        ["Forbidden commands: Command: `rm -rf build/`; Why: breaks CI"],
        ["Command: `rm -rf build/`"],
    ),
    (
        "## Never\n- **Releases**:\n  - tag from a feature branch\n",
        ["Never: Releases: tag from a feature branch"],
        ["Releases: tag from a feature branch"],
    ),
    (
        "### ❌ Don't\n- store tokens in localStorage\n",
        ["Don't store tokens in localStorage"],
        ["store tokens in localStorage"],
    ),
]


@pytest.fixture
def imported(cli, tmp_path):
    rules = tmp_path / "proj" / ".claude" / "rules"
    rules.mkdir(parents=True)
    for i, (md, _, _) in enumerate(CORPUS):
        (rules / f"case{i:02d}.md").write_text(f"# Case {i}\n\n{md}", encoding="utf-8")
    rc, out, err = cli("import", "--agent", "rules", str(tmp_path / "proj"))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "rules", "--status", "active", "--json")
    return {f["content"] for f in json.loads(out)}


def test_every_negative_rule_keeps_its_negation(imported):
    missing = [want for _, wants, _ in CORPUS for want in wants if want not in imported]
    assert not missing, missing
    flipped = [
        c
        for _, _, positives in CORPUS
        for pos in positives
        for c in imported
        if c.lower().startswith(pos.lower())
    ]
    assert not flipped, flipped  # no rule stored as its opposite


def test_lead_ins_and_labels_are_never_facts_alone(imported):
    for c in imported:
        assert not c.rstrip("* ").endswith(":"), c
        assert c.strip("*# ").lower() not in {"never", "don't", "avoid", "do not"}, c


def test_a_hand_written_hermes_file_keeps_negations_too(cli, tmp_path):
    """The same shapes in a MEMORY.md without § delimiters (read leniently, entry by entry)."""
    f = tmp_path / "memories" / "MEMORY.md"
    f.parent.mkdir()
    shapes = [c for c in CORPUS if "|" not in c[0]][:12]
    f.write_text(
        "# Memory\n\n" + "\n\n".join(f"## Case {i}\n\n{md}" for i, (md, _, _) in enumerate(shapes)),
        encoding="utf-8",
    )
    rc, out, err = cli("import", "--agent", "h", "--format", "hermes", str(f))
    assert rc == 0, err
    rc, out, _ = cli("list", "--agent", "h", "--status", "active", "--json")
    stored = {x["content"] for x in json.loads(out)}
    missing = [w for _, wants, _ in shapes for w in wants if w not in stored]
    assert not missing, (missing, stored)
    assert not any(c.rstrip("* ").endswith(":") for c in stored), stored
