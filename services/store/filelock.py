"""The store's advisory file lock, for services (it lives in ``models``, which opens the
database under it and cannot import from here)."""

from models.filelock import exclusive_lock

__all__ = ["exclusive_lock"]
