"""Settings in plain language: a label and a help line for each lifecycle setting (the
dialog showed the config's internal names), and spin boxes that ignore the mouse wheel
unless focused (scrolling the dialog silently changed values)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

TEXT: dict[str, tuple[str, str]] = {
    "decay_absolute": (
        "Daily fading (points)",
        "How much importance a short-term memory loses each day it is not used (0.01 = 1 point).",
    ),
    "decay_relative": (
        "Daily fading (share)",
        "Also lose this share of importance each day (0.02 = 2 %). 0 turns it off.",
    ),
    "access_bonus": (
        "Boost when used",
        "Importance a memory gains each time an agent retrieves it.",
    ),
    "min_importance": (
        "Archive below importance",
        "A memory whose importance falls below this is archived by the clean-up (restorable).",
    ),
    "ttl_days": (
        "Keep for (days, per category)",
        "How long a memory of each category lives after its last use, as JSON, e.g. "
        '{"tmp": 7, "task": 14}; null keeps it forever.',
    ),
    "short_term_cap": (
        "Recent memories kept",
        "At most this many short-term memories; the least useful are archived beyond it.",
    ),
    "long_term_cap": (
        "Long-term memories kept",
        "At most this many long-term memories; the least useful are archived beyond it.",
    ),
    "pending_threshold": (
        "Recent memories before queueing",
        "New memories wait in a queue once this many recent ones are active.",
    ),
    "promote_importance": (
        "Keep long-term at importance",
        "A recent memory this important becomes long-term.",
    ),
    "promote_access": (
        "Keep long-term after uses",
        "A recent memory retrieved this many times becomes long-term.",
    ),
    "episode_retention_days": (
        "Keep daily episodes (days)",
        "Episode summaries older than this are deleted by the clean-up.",
    ),
    "session_retention_days": (
        "Keep session logs (days)",
        "Raw session transcripts older than this are dropped (the facts stay).",
    ),
    "compiled_versions_kept": (
        "Compiled versions kept",
        "How many earlier versions of each compiled file are kept for comparing.",
    ),
    "budget_today": ("Today file size (tokens)", "Size limit of the compiled Today layer."),
    "budget_week": ("This-week file size (tokens)", "Size limit of the compiled week layer."),
    "budget_longterm": (
        "Long-term file size (tokens)",
        "Size limit of the compiled long-term layer.",
    ),
    "budget_memory": (
        "memory.md size (tokens)",
        "Size limit of memory.md, the file agents load at the start of a session.",
    ),
    "turns_per_summary": (
        "Session turns per summary",
        "Write an episode summary every this many turns of a session.",
    ),
    "llm_endpoint": (
        "Language model address",
        "An OpenAI-compatible server (for example a local one). Empty: no model is used.",
    ),
    "llm_model": ("Language model name", "The model to ask, as the server names it."),
    "llm_extract": (
        "Use the model to find facts",
        "Let the language model pick facts out of sessions (otherwise rules do it).",
    ),
    "llm_compile": (
        "Use the model to write memory.md",
        "Let the language model summarise when compiling (otherwise Engram does it).",
    ),
    "llm_timeout": ("Model time-out (seconds)", "Give up on the language model after this long."),
    "llm_review": (
        "Check the model's facts first",
        "Facts the language model finds wait in the Review view until you accept them.",
    ),
    "review_below": (
        "Ask me when less sure than",
        "Facts found in sessions with less confidence than this (0–1) wait in the Review "
        "view for you instead of going straight into memory.",
    ),
}


def label_for(name: str) -> str:
    if name in TEXT:
        return TEXT[name][0]
    return name.replace("_", " ").capitalize()


def help_for(name: str) -> str:
    return TEXT[name][1] if name in TEXT else ""


class WheelGuard(QObject):
    """Spin boxes and combo boxes take the wheel only when they have focus, so scrolling
    the page never changes a value by accident."""

    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Wheel and isinstance(obj, QAbstractSpinBox | QComboBox):
            if not obj.hasFocus():
                ev.ignore()
                return True
        return False


def guard_wheel(widget) -> None:
    widget.setFocusPolicy(Qt.StrongFocus)  # no focus from the wheel itself
    guard = widget.findChild(WheelGuard) or WheelGuard(widget)
    widget.installEventFilter(guard)
