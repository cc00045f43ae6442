"""Session capture quality: what the offline extractors keep from real Claude Code sessions
(``capture_gold/sessions/*.jsonl.gz``, public MIT transcripts) against hand-written durable
facts (``capture_gold/sessions/gold.txt``; its header says how lines match).

Facts at or above the review bar are what Engram stores as memory ("active"); the rest wait
in the review inbox ("review"). Precision is reported for both; recall counts active facts.
"""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from bench.capture import _fold

SESSIONS = Path(__file__).resolve().parent / "capture_gold" / "sessions"


def load_gold(path: Path = SESSIONS / "gold.txt") -> dict[str, list[tuple[bool, list[str]]]]:
    out: dict[str, list[tuple[bool, list[str]]]] = {}
    cur: list | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("[") and s.endswith("]"):
            cur = out.setdefault(s[1:-1], [])
            continue
        optional = s.startswith("?")
        parts = [_fold(p) for p in s.lstrip("? ").split("||") if p.strip()]
        if cur is not None:
            cur.append((not optional, parts))
    return out


def captured(path: Path) -> list[tuple[str, str]]:
    """(status, text) of what ingesting the session would store."""
    return captured_by(path)[1]


def captured_by(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """(the agent that wrote the session, (status, text) of what ingesting it would store)."""
    from services.capture.gather import offline_facts
    from services.capture.transcripts import parse_transcript
    from services.lifecycle.config import LifecycleConfig

    bar = float(LifecycleConfig().review_below)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / path.name.removesuffix(".gz")
        f.write_bytes(gzip.decompress(path.read_bytes()))
        t = parse_transcript(f)
        facts, _ = offline_facts(t)
    return t.source or t.format, [
        ("active" if x.confidence >= bar else "review", x.content) for x in facts
    ]


def run() -> dict:
    gold = load_gold()
    rows = []
    tot = {"active": 0, "active_ok": 0, "review": 0, "review_ok": 0, "must": 0, "found": 0}
    agents: dict[str, dict] = {}
    for name, items in sorted(gold.items()):
        agent, facts = captured_by(SESSIONS / f"{name}.jsonl.gz")
        a = agents.setdefault(agent, dict.fromkeys(("sessions", "active", "ok", "review"), 0))
        a |= {"must": a.get("must", 0), "found": a.get("found", 0)}
        a["sessions"] += 1
        found = [False] * len(items)
        wrong = []
        for status, text in facts:
            t = _fold(text)
            hit = [i for i, (_, parts) in enumerate(items) if all(p in t for p in parts)]
            tot[status] += 1
            a["review" if status == "review" else "active"] += 1
            if hit:
                tot[f"{status}_ok"] += 1
                a["ok"] += status == "active"
                if status == "active":
                    for i in hit:
                        found[i] = True
            else:
                wrong.append(f"[{status}] {text}")
        must = [i for i, (m, _) in enumerate(items) if m]
        tot["must"] += len(must)
        tot["found"] += sum(found[i] for i in must)
        a["must"] += len(must)
        a["found"] += sum(found[i] for i in must)
        missed = [" || ".join(items[i][1]) for i in must if not found[i]]
        rows.append({"session": name, "captured": facts, "wrong": wrong, "missed": missed})
    from services.capture.findings import is_fix_log

    tot["fix_logs"] = sum(
        1 for r in rows for st, text in r["captured"] if st == "active" and is_fix_log(text)
    )
    tot["precision_active"] = tot["active_ok"] / tot["active"] if tot["active"] else 1.0
    both = tot["active"] + tot["review"]
    tot["precision_all"] = (tot["active_ok"] + tot["review_ok"]) / both if both else 1.0
    tot["recall"] = tot["found"] / tot["must"] if tot["must"] else 1.0
    for a in agents.values():
        a["precision"] = a["ok"] / a["active"] if a["active"] else 1.0
        a["recall"] = a["found"] / a["must"] if a["must"] else 1.0
    return {"total": tot, "agents": agents, "sessions": rows}


def table(r: dict) -> str:
    t = r["total"]
    rows = [f"{'agent':<14}{'sessions':>9}{'gold':>6}{'found':>7}{'recall':>8}{'active':>8}"
            f"{'prec':>7}{'review':>8}"]  # fmt: skip
    for name, a in sorted(r.get("agents", {}).items()):
        rows.append(
            f"{name:<14}{a['sessions']:>9}{a['must']:>6}{a['found']:>7}{a['recall']:>8.3f}"
            f"{a['active']:>8}{a['precision']:>7.3f}{a['review']:>8}"
        )
    return (
        "\n".join(rows)
        + "\n"
        + (
            f"sessions {len(r['sessions'])}: active {t['active']} (precision "
            f"{t['precision_active']:.3f}), review {t['review']} (precision with review "
            f"{t['precision_all']:.3f}); durable facts found {t['found']}/{t['must']} "
            f"(recall {t['recall']:.3f}); one-off fix logs kept {t['fix_logs']}"
        )
    )


def errors(r: dict) -> str:
    out = []
    for s in r["sessions"]:
        out += [f"  FP   {s['session']}: {w[:150]!r}" for w in s["wrong"]]
        out += [f"  MISS {s['session']}: {m}" for m in s["missed"]]
    return "\n".join(out)
