"""Kept for the modules that import it by this name (write-back): the Markdown reader is
``mdreader``."""

from services.interop.importers.mdreader import Statement, split_statements

__all__ = ["Statement", "split_statements"]
