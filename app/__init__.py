"""Composition root: entry points (GUI, CLI), settings and wiring."""

__all__ = ["__version__"]


def __getattr__(name: str):
    # lazy: reading the installed package's metadata costs ~20 ms, and a hook talking to the
    # daemon must not pay for it
    if name == "__version__":
        from services.version import VERSION

        return VERSION
    raise AttributeError(f"module 'app' has no attribute {name!r}")
