"""Composition root: entry points (GUI, CLI), settings and wiring."""
__version__ = "0.1.0"
