"""The version, from the installed package's metadata (pyproject.toml is the one source)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("engram-desktop")
except PackageNotFoundError:  # run from a checkout that was never installed
    VERSION = "0+unknown"
