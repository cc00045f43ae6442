"""Composition root: entry points (GUI, CLI), settings and wiring."""

from services.version import VERSION as __version__

__all__ = ["__version__"]
