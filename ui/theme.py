"""App icon and palettes. Fusion + an explicit dark palette so dark mode looks the same on
every platform (and under Xvfb, where there is no desktop theme)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QIcon, QPalette

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def icon(name: str = "engram") -> QIcon:
    p = ICONS / f"{name}.svg"
    return QIcon(str(p)) if p.exists() else QIcon()


def dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor("#1e1f22"), QColor("#2b2d31"), QColor("#e6e6e6")
    for group in (QPalette.Active, QPalette.Inactive):
        p.setColor(group, QPalette.Window, window)
        p.setColor(group, QPalette.WindowText, text)
        p.setColor(group, QPalette.Base, base)
        p.setColor(group, QPalette.AlternateBase, QColor("#26282c"))
        p.setColor(group, QPalette.ToolTipBase, QColor("#333539"))
        p.setColor(group, QPalette.ToolTipText, text)
        p.setColor(group, QPalette.PlaceholderText, QColor("#8a8d93"))
        p.setColor(group, QPalette.Text, text)
        p.setColor(group, QPalette.Button, QColor("#34363b"))
        p.setColor(group, QPalette.ButtonText, text)
        p.setColor(group, QPalette.BrightText, QColor("#ff6b6b"))
        p.setColor(group, QPalette.Link, QColor("#6ea8fe"))
        p.setColor(group, QPalette.Highlight, QColor("#2f6fde"))
        p.setColor(group, QPalette.HighlightedText, QColor("#ffffff"))
        p.setColor(group, QPalette.Mid, QColor("#4a4d52"))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor("#7a7d83"))
    p.setColor(QPalette.Disabled, QPalette.Base, QColor("#232427"))
    p.setColor(QPalette.Disabled, QPalette.Window, window)
    p.setColor(QPalette.Disabled, QPalette.Button, QColor("#2f3034"))
    return p


def apply_theme(app, dark: bool | None) -> None:
    """``dark=None`` follows the system; True/False force a palette."""
    app.setStyle("Fusion")
    if dark is None:
        from PySide6.QtCore import Qt

        hints = app.styleHints()
        dark = hasattr(hints, "colorScheme") and hints.colorScheme() == Qt.ColorScheme.Dark
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
