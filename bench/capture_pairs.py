"""Value changes and opposites through the real write pipeline (SQLite, Chroma, the embedding
model): each labelled pair of ``capture_gold/pairs/`` in a fresh agent, the old statement
first. A value change must supersede the old fact with a reason shown; an opposite must wait
in the review inbox as a conflict (both kept until a person decides). Labels were written
before the rules were tuned (issue 32)."""

from __future__ import annotations

import tempfile
from pathlib import Path

PAIRS = Path(__file__).resolve().parent / "capture_gold" / "pairs"


def load(name: str) -> list[tuple[str, str]]:
    out = []
    for line in (PAIRS / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            old, new = (p.strip() for p in line.split("||"))
            out.append((old, new))
    return out


def _outcome(memory, old: str, new: str) -> tuple[str, str]:
    """(what happened, the reason shown to the user)."""
    first = memory.remember(old)
    second = memory.remember(new)
    reason = second.reason or ""
    if second.status in ("duplicate", "near-duplicate"):
        return "merged", reason
    if first.fact_id in second.superseded or memory.get(first.fact_id).status == "superseded":
        return "superseded", reason
    if second.status == "conflict" or memory.get(second.fact_id).status == "pending":
        return "conflict", reason
    return "kept both", reason


def run(engram) -> dict:
    out: dict = {}
    for name, want in (("value_changes.txt", "superseded"), ("opposites.txt", "conflict")):
        rows = []
        for n, (old, new) in enumerate(load(name)):
            mem = engram.agent(f"{name[:5]}-{n}", create=True)
            got, reason = _outcome(mem, old, new)
            rows.append({"old": old, "new": new, "got": got, "reason": reason})
        ok = [r for r in rows if r["got"] == want]
        out[name.removesuffix(".txt")] = {
            "pairs": len(rows),
            "expected": want,
            "ok": len(ok),
            "rate": round(len(ok) / len(rows), 4) if rows else 1.0,
            "without_reason": sum(1 for r in ok if not r["reason"]),
            "wrong": [r for r in rows if r["got"] != want],
        }
    return out


def run_fresh() -> dict:
    from services.config import StoreConfig
    from services.engram import Engram

    with tempfile.TemporaryDirectory() as tmp:
        engram = Engram.open(StoreConfig(data_dir=Path(tmp)))
        try:
            return run(engram)
        finally:
            engram.close()


def table(r: dict) -> str:
    lines = []
    for name, s in r.items():
        lines.append(
            f"{name}: {s['ok']}/{s['pairs']} {s['expected']} ({s['rate']:.0%})"
            + (f", {s['without_reason']} without a reason" if s["without_reason"] else "")
        )
    return "\n".join(lines)


def errors(r: dict) -> str:
    return "\n".join(
        f"  {s['expected']:>10} -> {w['got']:<10} {w['old']!r} / {w['new']!r}"
        for s in r.values()
        for w in s["wrong"]
    )
