"""The forget receipt as places (services/forget/receipt_places.py): a place that kept the
text is shown as left and the picture is not verified; an unfinished forget names its steps."""

from __future__ import annotations

from services.forget.receipt_places import picture


def _receipt(**counts) -> dict:
    return {"id": 7, "created_at": "2026-12-01T10:00:00", "agent": "bot",
            "scope": {"kind": "matching"}, "counts": counts}  # fmt: skip


def test_a_clean_forget_is_verified_place_by_place():
    pic = picture(_receipt(
        facts=2, history_events=3, fts_entries=2, vectors=2, layer_files=1,
        native_files_rewritten=1, native_rewritten_files=["/h/.claude/CLAUDE.md"],
        remaining_after_verify=0, strings_verified=4,
    ))  # fmt: skip
    places = {p.name: (p.outcome, p.count) for p in pic.places}
    assert places["Rows"] == ("erased", 5)
    assert places["Vectors"] == ("erased", 2)
    assert places["Compiled files"] == ("erased", 1)
    assert places["Agent file /h/.claude/CLAUDE.md"] == ("erased", 1)
    assert places["Git history"] == ("nothing there", 0)
    assert pic.verified and pic.strings_verified == 4


def test_text_left_in_a_file_or_git_history_is_not_verified():
    pic = picture(_receipt(
        facts=1, vectors=1, git_histories_keeping_text=1, native_not_erased=1,
        native_not_erased_files=["/h/notes.md: read-only"], remaining_after_verify=2,
    ))  # fmt: skip
    places = {p.name: p for p in pic.places}
    assert places["Git history"].outcome == "left"
    assert places["Git history"].detail == "1 kept the text"
    assert places["Agent file /h/notes.md"].outcome == "left"
    assert places["Agent file /h/notes.md"].detail == "read-only"
    assert not pic.verified and pic.remaining == 2


def test_an_interrupted_forget_names_the_steps_still_to_run():
    pic = picture(_receipt(facts=1, incomplete=["vectors", "verify"]))
    last = pic.places[-1]
    assert (last.name, last.outcome, last.detail) == (
        "Steps still to run",
        "not done",
        "vectors, verify",
    )
    assert not pic.verified
