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
# A project's own manifest names its stack; so do the files the agent edited in it.
MANIFESTS = {
    "go.mod": "Go",
    "mix.exs": "Elixir",
    "Cargo.toml": "Rust",
    "package.json": "Node.js",
    "pyproject.toml": "Python",
    "requirements.txt": "Python",
    "Gemfile": "Ruby",
    "pom.xml": "Java",
    "build.gradle": "Java/Kotlin",
    "build.gradle.kts": "Kotlin",
    "composer.json": "PHP",
    "Package.swift": "Swift",
}
EXTENSIONS = {
    ".go": "Go",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".heex": "Elixir/Phoenix",
    ".rs": "Rust",
    ".py": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript/React",
    ".jsx": "React",
    ".rb": "Ruby",
    ".java": "Java",
    ".kt": "Kotlin",
    ".swift": "Swift",
    ".php": "PHP",
    ".cs": "C#",
    ".dart": "Dart",
}


def _own(path: str, cwd: str | None) -> bool:
    """A file of the project itself: under its folder (not a library elsewhere), not vendored."""
    if any(
        part in path
        for part in ("/node_modules/", "/vendor/", "/deps/", "/site-packages/", "/.venv/")
    ):
        return False
    return not path.startswith("/") or bool(cwd and path.startswith(cwd.rstrip("/") + "/"))


def stacks_from_files(transcript) -> list[str]:
    out: list[str] = []
    for e in transcript.events:
        if e.kind not in ("edit", "read") or not e.ok or not _own(e.detail, transcript.cwd):
            continue
        name = e.detail.rsplit("/", 1)[-1]
        ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        stack = MANIFESTS.get(name) or (EXTENSIONS.get(ext) if e.kind == "edit" else None)
        if stack and stack not in out:
            out.append(stack)
    return out


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
    for stack in stacks_from_files(transcript):
        if not any(stack in s or s in stack for s in stacks):
            stacks.append(stack)
    name = transcript.project or "this project"
    cat = project_category(transcript.project)
    out = []
    if seen:
        how = "; ".join(f"{role}: `{cmd}`" for role, cmd in seen.items())
        out.append(
            ExtractedFact(
                f"Project {name} commands — {how}",
                cat,
                0.6,
                "convention",
                tags=["session", "convention"],
                confidence=0.7,
            )
        )
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
