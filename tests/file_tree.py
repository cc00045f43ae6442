"""The bytes of a folder, to check that a command changed exactly what it should and gave
back every byte it took."""

from __future__ import annotations

from pathlib import Path


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file and directory under ROOT (directories as None) with its exact bytes."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def folder_files(folder: Path) -> dict[str, bytes]:
    """The files directly in FOLDER, by name, with their exact bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
