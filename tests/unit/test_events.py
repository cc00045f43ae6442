"""The event bus: listeners hear every event in order, a broken listener breaks nothing, and
the log line an event leaves carries counts, never text."""

from __future__ import annotations

import logging

import pytest

from services.events import EventBus, EventKind, describe


def test_listeners_hear_events_and_can_unsubscribe():
    bus = EventBus()
    heard: list[tuple[str, dict]] = []
    stop = bus.subscribe(lambda kind, data: heard.append((kind, data)))
    bus.emit("fact.added", agent_id=1, ids=[4, 5])
    stop()
    bus.emit(EventKind.FACT_DELETED, agent_id=1, ids=[4])
    assert heard == [(EventKind.FACT_ADDED, {"agent_id": 1, "ids": [4, 5]})]
    assert heard[0][0] == "fact.added"  # a StrEnum: plain strings still compare


def test_a_failing_listener_does_not_stop_the_others(caplog):
    bus = EventBus()
    heard = []

    def broken(kind, data):
        raise RuntimeError("listener bug")

    bus.subscribe(broken)
    bus.subscribe(lambda kind, data: heard.append(kind))
    with caplog.at_level(logging.ERROR, logger="services.events"):
        bus.emit("compile.done", agent_id=2)
    assert heard == ["compile.done"]
    assert "event listener failed" in caplog.text


def test_an_unknown_event_name_is_refused_at_the_emitter():
    with pytest.raises(ValueError):
        EventBus().emit("fact.addded", agent_id=1)


def test_the_log_line_has_counts_and_no_text(caplog):
    text = "my home address is 12 Rue des Lilas"
    with caplog.at_level(logging.INFO, logger="services.events"):
        EventBus().emit("fact.updated", agent_id=3, ids=[1, 2, 3], content=text, slug="claude")
    assert "fact.updated agent_id=3 ids=3 slug=claude" in caplog.text
    assert "Lilas" not in caplog.text
    assert describe({"note": text, "receipt": 9, "ok": True}) == "ok=True receipt=9"
