"""Forget in words: what a person calls each place a forget reaches, why the preview picked a
fact, and the receipt (never the forgotten text itself)."""

from __future__ import annotations

PLACES = {  # what a person calls each place a forget reaches (internal indexes left out)
    "facts": "facts",
    "history_events": "history entries",
    "episodes": "episodes (session summaries)",
    "session_logs": "session logs",
    "compiled_layers": "compiled memory versions",
    "layer_files": "compiled memory files rewritten",
    "workspace_entries": "entries in the agent's own files",
    "workspace_files": "agent files rewritten",
    "exports": "export files",
    "backups": "store backups still holding it",
}
SCOPE_WORDS = {
    "fact": "the facts you selected",
    "matching": "everything matching the text you typed",
    "agent": "everything in the agent",
    "everything": "everything in every agent",
}


def why_matched(f: dict) -> str:
    """Why the preview picked a fact, in words. Uses the preview's own ``reason`` when the
    forget service gives one, else its ``why`` code and score."""
    reason = f.get("reason")
    if reason:
        return str(reason)
    why, score = str(f.get("why") or ""), f.get("score")
    if why.startswith("word:"):
        return f"contains the word “{why[5:].strip()}”"
    if why == "keyword":
        return "contains the text"
    if why == "semantic":
        return "says something similar" + (f" (similarity {score:.2f})" if score else "")
    return {"id": "you selected it", "date": "stored before the date", "all": "in the agent"}.get(
        why, why or "matched"
    )


def describe_preview(p) -> str:
    """Counts per place (the items themselves are in the list beside it)."""
    lines = []
    counts = p.counts() if hasattr(p, "counts") else {}
    for place, n in counts.items():
        if n and place in PLACES:
            lines.append(f"{PLACES[place]}: {n}")
    for note in getattr(p, "notes", []):
        lines.append(f"note: {note}")
    for b in getattr(p, "backups", []):
        lines.append(f"backup still holding it: {b}")
    return "\n".join(lines) or "Nothing found to forget."


def describe_receipt(r: dict, about: str | None = None) -> str:
    """The receipt in plain words: what was removed where and for what scope (the text only
    as a keyed hash: the receipt never holds what was forgotten). ``about``: what the user
    chose, in their words (an entity's name), when the dialog knows it."""
    scope = r.get("scope") or {}
    lines = [
        f"Receipt #{r.get('id', '?')} · {str(r.get('created_at', ''))[:16].replace('T', ' ')} UTC"
    ]
    what = about or SCOPE_WORDS.get(scope.get("kind", ""), "")
    if not what and scope.get("before"):
        what = f"everything stored before {scope['before'][:10]}"
    where = "every agent" if scope.get("all_agents") else scope.get("agent") or r.get("agent")
    lines.append(f"Forgot {what or 'what you chose'}" + (f" in {where}" if where else ""))
    counts = r.get("counts") or {}
    removed = [
        f"  {n:,} {PLACES[k]}"
        for k, n in counts.items()
        if k in PLACES and isinstance(n, int) and n
    ]
    lines += ["Removed:", *removed] if removed else ["Nothing was stored there."]
    lines += _receipt_files(counts, r.get("notes") or [])
    return "\n".join(lines)


def _receipt_files(counts: dict, notes: list) -> list[str]:
    """The agents' own files, their backups, git histories and the check afterwards: what a
    person must know to trust (or finish) the forget (issue #30, finding 14)."""

    def paths(key: str) -> list[str]:
        v = counts.get(key)
        return [f"  {x}" for x in v] if isinstance(v, list) else []

    out: list[str] = []
    n = counts.get("native_files_rewritten") or 0
    if n:
        out += [f"Agents' own files rewritten without it: {n}", *paths("native_rewritten_files")]
    if counts.get("native_backup_files"):
        out += ["Backups kept of them (forgotten lines replaced by a marker):"]
        out += paths("native_backup_files")
    if counts.get("native_not_erased_files"):
        out += ["Not erased (still holding it):", *paths("native_not_erased_files")]
    if counts.get("git_histories_rewritten"):
        out.append(f"Git histories rewritten without it: {counts['git_histories_rewritten']}")
    if counts.get("git_histories_keeping_text"):
        out.append(f"Git histories still holding it: {counts['git_histories_keeping_text']}")
        out += [f"  {x}" for x in notes if isinstance(x, str) and "git" in x and "history" in x]
    if isinstance(counts.get("incomplete"), list):
        out += ["Incomplete: these steps did not run yet:", *paths("incomplete")]
    if "remaining_after_verify" in counts:
        left = counts["remaining_after_verify"]
        out.append(
            f"Checked afterwards: still present in {left} place(s)"
            if left
            else f"Checked afterwards: nothing remains ({counts.get('strings_verified', 0)} "
            "text(s) looked for in every file)"
        )
        out += [f"  {x}" for x in notes if isinstance(x, str) and x.startswith("still present")]
    return out
