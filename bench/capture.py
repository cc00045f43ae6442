"""Capture quality: precision and recall of what Engram keeps from agents' memory files, per
format, against a gold set written by hand from public, permissively licensed files
(``bench/capture_gold/``, sources and licences in its ``SOURCES.md``).

A gold line is one statement a careful person keeps: ``key || context || context``. A stored
fact *matches* the first unmatched gold line whose key and every context occur in it
(case-insensitive, whitespace folded). Precision = matched facts / facts; recall = matched gold
lines / gold lines. A fact that matches nothing (a heading, a lead-in alone, a fragment, a
negation lost) counts against precision; a gold line nothing matched (a statement dropped, or
kept without its lead-in or polarity) counts against recall.

``--samples DIR`` also runs the importers over a folder of real agent files read in place
(``../shared/formats/samples``) and prints what they would store, for a person to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

GOLD = Path(__file__).resolve().parent / "capture_gold"


@dataclass
class GoldFile:
    path: Path
    fmt: str
    items: list[list[str]] = field(default_factory=list)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def load_gold(root: Path = GOLD) -> list[GoldFile]:
    out: list[GoldFile] = []
    for g in sorted((root / "gold").glob("*.txt")):
        cur: GoldFile | None = None
        for line in g.read_text(encoding="utf-8").splitlines():
            if line.startswith("# file:"):
                cur = GoldFile(root / line.split(":", 1)[1].strip(), "")
                out.append(cur)
            elif line.startswith("# format:") and cur is not None:
                cur.fmt = line.split(":", 1)[1].strip()
            elif line.strip() and not line.startswith("#") and cur is not None:
                cur.items.append([_fold(p) for p in line.split("||") if p.strip()])
    return out


def stored_facts(path: Path, fmt: str) -> list[str]:
    from services.interop.importers.service import parse_source

    return [f.content for f in parse_source(path, fmt).facts]


def score(facts: list[str], gold: list[list[str]]) -> dict:
    used = [False] * len(gold)
    wrong: list[str] = []
    for fact in facts:
        t = _fold(fact)
        hit = next(
            (i for i, g in enumerate(gold) if not used[i] and all(p in t for p in g)),
            None,
        )
        if hit is None:
            wrong.append(fact)
        else:
            used[hit] = True
    missed = [" || ".join(g) for g, u in zip(gold, used, strict=True) if not u]
    return {
        "facts": len(facts),
        "gold": len(gold),
        "matched": sum(used),
        "false_positives": wrong,
        "missed": missed,
    }


def _pr(matched: int, facts: int, gold: int) -> tuple[float, float]:
    return (matched / facts if facts else 1.0, matched / gold if gold else 1.0)


def run(root: Path = GOLD) -> dict:
    per_file = []
    per_format: dict[str, dict] = {}
    for gf in load_gold(root):
        s = score(stored_facts(gf.path, gf.fmt), gf.items)
        s["file"] = gf.path.relative_to(root).as_posix()
        s["format"] = gf.fmt
        per_file.append(s)
        agg = per_format.setdefault(gf.fmt, {"facts": 0, "gold": 0, "matched": 0, "files": 0})
        for k in ("facts", "gold", "matched"):
            agg[k] += s[k]
        agg["files"] += 1
    for agg in per_format.values():
        agg["precision"], agg["recall"] = _pr(agg["matched"], agg["facts"], agg["gold"])
    total = {k: sum(a[k] for a in per_format.values()) for k in ("facts", "gold", "matched")}
    total["precision"], total["recall"] = _pr(total["matched"], total["facts"], total["gold"])
    return {"formats": per_format, "total": total, "files": per_file}


def table(r: dict) -> str:
    rows = [f"{'format':<22}{'files':>6}{'gold':>6}{'facts':>7}{'prec':>7}{'recall':>8}"]
    for fmt, a in sorted(r["formats"].items()):
        rows.append(
            f"{fmt:<22}{a['files']:>6}{a['gold']:>6}{a['facts']:>7}"
            f"{a['precision']:>7.3f}{a['recall']:>8.3f}"
        )
    t = r["total"]
    rows.append(
        f"{'all':<22}{'':>6}{t['gold']:>6}{t['facts']:>7}{t['precision']:>7.3f}{t['recall']:>8.3f}"
    )
    return "\n".join(rows)


def errors(r: dict, limit: int = 200) -> str:
    out = []
    for f in r["files"]:
        for fp in f["false_positives"][:limit]:
            out.append(f"  FP   {f['file']}: {fp[:140]!r}")
        for m in f["missed"][:limit]:
            out.append(f"  MISS {f['file']}: {m[:140]}")
    return "\n".join(out)


def samples(folder: Path) -> dict:
    """What the importers store from each real sample, read where it lies (never copied)."""
    from services.interop.importers.base import ImportFormatError
    from services.interop.importers.service import detect_format, parse_source

    out: dict[str, dict] = {}
    candidates = sorted(
        {p.parent if p.name == "MEMORY.md" else p for p in folder.rglob("*") if p.is_file()}
    )
    for p in candidates:
        if p.suffix == ".jsonl" and "claude-code" in p.as_posix():
            continue  # transcripts: `python -m bench capture --transcripts`
        try:
            fmt = detect_format(p)
            facts = parse_source(p, fmt).facts
        except (ImportFormatError, OSError) as exc:
            out[p.relative_to(folder).as_posix()] = {"refused": str(exc).split(": ", 1)[-1]}
            continue
        out[p.relative_to(folder).as_posix()] = {
            "format": fmt,
            "facts": [f"[{f.category}] {f.content}" for f in facts],
        }
    return out
