"""Importers for the memory formats agents already write. Each parser is pure: it reads a
path and returns a ``ParsedSource``; ``service.import_into`` stores it through the ingest
pipeline (so redaction, forget rules and dedup apply to imports too)."""
