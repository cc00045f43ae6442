"""The invariant harness, part 1: memories and forgets (remember, edit, pin, delete, review,
forget a fact / a word with unticked candidates, compile, GC, write-back, the CLI).
See model.py for the invariants; rules in KNOWN_OPEN are off until their fix lands."""

from __future__ import annotations

from tests.harness.model import harness_test, machine

CoreMachine = machine(
    "CoreMachine",
    {
        "remember",
        "edit",
        "pin",
        "delete",
        "review",
        "forget_fact",
        "forget_match",
        "untick_forget",
        "compile",
        "gc",
        "value_change",
        "restore_archived",
        "writeback",
        "cli_forget",
    },
)
TestCore = harness_test(CoreMachine, examples=110)
