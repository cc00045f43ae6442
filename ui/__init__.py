"""The PySide6 desktop app. Widgets call services; slow work runs in ``ui.workers``."""
