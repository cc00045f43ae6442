"""A folder of transcripts → each session once.

Accepted: a Claude Code project folder (``~/.claude/projects/<enc-cwd>/``), all of
``~/.claude/projects``, a Codex sessions tree (``~/.codex/sessions/YYYY/MM/DD/``), or any folder
holding such ``.jsonl`` files. Sub-agent transcripts are left out (their conversation is the
agent's, and 2.1 copies it into the parent's ``progress`` lines), except the compaction worker's
(``agent-acompact-*``), whose summary is what a long session taught. A file that is not a
transcript is reported and skipped; the rest still go in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from services.errors import InvalidInput
from services.store.handle import MemoryHandle

MAX_FILES = 20_000


@dataclass
class FolderReport:
    folder: str
    sessions: list = field(default_factory=list)  # SessionReport
    skipped: list[str] = field(default_factory=list)  # "path: reason"

    def to_json(self) -> dict:
        return {
            "folder": self.folder,
            "sessions": [s.to_json() for s in self.sessions],
            "skipped": list(self.skipped),
            "facts_added": sum(s.facts_added for s in self.sessions),
            "episodes_added": sum(s.episodes_added for s in self.sessions),
        }


def wanted(path: Path) -> bool:
    name = path.name
    if name.endswith(".txt") and path.parent.name == "agent-transcripts":
        return True  # Cursor's older plain-text transcripts
    if not name.endswith(".jsonl"):
        return False
    if name.startswith("agent-"):
        return name.startswith("agent-acompact")
    return True


def session_files(folder: Path) -> Iterator[Path]:
    """Transcript files under the folder, oldest first (a later session then updates what an
    earlier one taught, not the other way round)."""
    found = [p for p in folder.rglob("*.*") if p.is_file() and wanted(p)]
    if len(found) > MAX_FILES:
        raise InvalidInput(f"{folder}: {len(found)} transcript files; at most {MAX_FILES} at once")

    def mtime(p: Path) -> float:
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0

    yield from sorted(found, key=lambda p: (mtime(p), str(p)))


def ingest_folder(
    memory: MemoryHandle, folder, config=None, secrets=None, fmt: str | None = None
) -> FolderReport:
    from services.capture.sessions import ingest_session

    folder = Path(folder)
    report = FolderReport(str(folder))
    for path in session_files(folder):
        try:
            report.sessions.append(
                ingest_session(memory, path, fmt=fmt, config=config, secrets=secrets)
            )
        except InvalidInput as exc:
            report.skipped.append(str(exc))
        except OSError as exc:
            report.skipped.append(f"{path}: {exc.strerror or exc}")
    return report
