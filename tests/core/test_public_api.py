"""The services public API (services/__init__.py) resolves every name it declares: the UI
imports only through it, so a name that does not resolve is a window that does not open."""

from __future__ import annotations

import services


def test_every_declared_name_resolves():
    missing = []
    for name in services.__all__:
        try:
            getattr(services, name)
        except (AttributeError, ImportError) as exc:
            missing.append(f"{name}: {exc}")
    assert not missing, missing
    assert callable(services.Engram.open) and "active" in services.FACT_STATUSES
