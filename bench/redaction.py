"""Redaction figures: the secret corpora caught, the ordinary developer text left alone.

``python -m bench redaction`` prints, per corpus, how many secrets were redacted (the secret
itself gone from the stored text) and how many ordinary lines changed at all, with the misses
and false positives listed, and the time per text.
"""

from __future__ import annotations

import time

from services.ingest.redaction import redact
from tests.trust import redaction_corpus as rc
from tests.trust import secret_cases as old


def caught(text: str, needle: str | None) -> bool:
    r = redact(text)
    if needle is None:
        return r.count > 0
    return r.count > 0 and needle not in r.text


def run() -> dict:
    secret_sets = {
        "earlier test secrets": [(t, n) for t, n in old.SECRETS],
        "everyday phrasings (languages, CLI)": rc.SECRETS,
        "second round": rc.SECOND_ROUND_SECRETS,
    }
    ordinary_sets = {
        "earlier benign sentences": old.BENIGN,
        "ordinary developer text": rc.ORDINARY,
        "second round ordinary": rc.SECOND_ROUND_ORDINARY,
    }
    out: dict = {"secrets": {}, "ordinary": {}}
    t0, n = time.perf_counter(), 0
    for name, cases in secret_sets.items():
        missed = [t for t, needle in cases if not caught(t, needle)]
        n += len(cases)
        out["secrets"][name] = {
            "total": len(cases),
            "caught": len(cases) - len(missed),
            "missed": missed,
        }
    for name, lines in ordinary_sets.items():
        touched = [t for t in lines if redact(t).text != t]
        n += len(lines)
        out["ordinary"][name] = {
            "total": len(lines),
            "touched": len(touched),
            "false_positives": touched,
        }
    out["ms_per_text"] = round((time.perf_counter() - t0) * 1000 / max(n, 1), 3)
    return out


def table(r: dict) -> str:
    rows = ["corpus                                  caught / total    rate"]
    for name, s in r["secrets"].items():
        rate = 100.0 * s["caught"] / s["total"]
        rows.append(f"{name:<40}{s['caught']:>6} / {s['total']:<8}{rate:6.1f} %")
        rows += [f"    missed: {m!r}" for m in s["missed"]]
    rows.append("ordinary text                           touched / total")
    for name, o in r["ordinary"].items():
        rows.append(f"{name:<40}{o['touched']:>6} / {o['total']}")
        rows += [f"    false positive: {m!r}" for m in o["false_positives"]]
    rows.append(f"{r['ms_per_text']} ms per text")
    return "\n".join(rows)
