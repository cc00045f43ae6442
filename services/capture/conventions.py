"""How a project is run, from the commands that worked: "tests run with `mise run test`",
"the dev server is `mix phx.server`", and the stack they imply.

Only runner commands count (test, lint, build, format, dev server): one-off commands
(``ls``, ``grep``, a single ``go test -run X``) never become facts. A command counts when the
user typed it in a message or the agent ran it and it worked (a rejected or failed call did
not happen as far as conventions go).
"""

from __future__ import annotations

import re

from services.capture.extract import ExtractedFact, project_category

# (regex on a command, role, stack it implies)
RUNNERS: list[tuple[re.Pattern, str, str]] = [
    (re.compile(r"\bmix phx\.server\b"), "dev server", "Elixir/Phoenix"),
    (re.compile(r"\bmix test\b"), "tests", "Elixir"),
    (re.compile(r"\bmix (?:format|credo)\b"), "lint", "Elixir"),
    (re.compile(r"\bmise run (?:test|tests)\b"), "tests", "mise"),
    (re.compile(r"\bmise run lint\b"), "lint", "mise"),
    (re.compile(r"\bmise run (?:build|dev|fmt|format)\b"), "build", "mise"),
    (re.compile(r"\bcargo (?:test|nextest)\b"), "tests", "Rust"),
    (re.compile(r"\bcargo clippy\b"), "lint", "Rust"),
    (re.compile(r"\bcargo build\b"), "build", "Rust"),
    (re.compile(r"\bgo test \./\.\.\.(?:\s|$)"), "tests", "Go"),
    (re.compile(r"\bgolangci-lint run\b"), "lint", "Go"),
    (re.compile(r"\b(?:pnpm|yarn|npm|bun) (?:run )?test\b"), "tests", "Node.js"),
    (re.compile(r"\b(?:pnpm|yarn|npm|bun) (?:run )?lint\b"), "lint", "Node.js"),
    (re.compile(r"\b(?:pnpm|yarn|npm|bun) (?:run )?dev\b"), "dev server", "Node.js"),
    (re.compile(r"\b(?:uv run |poetry run |python -m )?pytest\b"), "tests", "Python"),
    (re.compile(r"\bruff check\b"), "lint", "Python"),
    (re.compile(r"\b(?:bundle exec )?rspec\b"), "tests", "Ruby"),
    (re.compile(r"\bmake (?:test|check)\b"), "tests", "make"),
]
_TAIL = re.compile(r"\s*(?:2>&1|\|.*|>.*)$")


def _runner(command: str) -> tuple[str, str, str] | None:
    """(role, stack, the runner command) for the first runner part of a shell line."""
    for part in re.split(r"&&|;|\|\|", command):
        part = _TAIL.sub("", part.strip())
        for pat, role, stack in RUNNERS:
            m = pat.search(part)
            if m and len(part.split()) <= 6:
                return role, stack, m.group(0)
    return None


def conventions(transcript) -> list[ExtractedFact]:
    seen: dict[str, str] = {}
    stacks: list[str] = []
    sources = [m.text for m in transcript.messages if m.role == "user"]
    sources += [e.detail for e in transcript.events if e.kind == "command" and e.ok]
    for text in sources:
        for line in text.splitlines()[:5]:
            hit = _runner(line)
            if hit is None:
                continue
            role, stack, cmd = hit
            seen.setdefault(role, cmd)
            if stack not in stacks:
                stacks.append(stack)
    if not seen:
        return []
    name = transcript.project or "this project"
    cat = project_category(transcript.project)
    how = "; ".join(f"{role}: `{cmd}`" for role, cmd in seen.items())
    out = [
        ExtractedFact(
            f"Project {name} commands — {how}",
            cat,
            0.6,
            "convention",
            tags=["session", "convention"],
            confidence=0.7,
        )
    ]
    langs = [s for s in stacks if s not in ("mise", "make")]
    if langs:
        out.append(
            ExtractedFact(
                f"Project {name} uses {', '.join(langs)}",
                "env",
                0.55,
                "stack",
                tags=["session", "stack"],
                confidence=0.65,
            )
        )
    return out
