"""All the facts one session teaches, from every offline extractor (or the optional LLM pass),
each with its provenance and a confidence, without repeats."""

from __future__ import annotations

from services.capture.compaction import digest
from services.capture.conventions import conventions
from services.capture.corrections import corrections
from services.capture.episode_summary import outcome
from services.capture.extract import ExtractedFact, extract_facts
from services.capture.findings import findings
from services.capture.injected import injected_facts
from services.store.text import normalize


def compaction_facts(t) -> tuple[list[ExtractedFact], list[str]]:
    """Facts from the session's compaction summaries, and what they say was asked."""
    facts: list[ExtractedFact] = []
    asks: list[str] = []
    finished = outcome(t) == "done"
    for i, c in enumerate(t.compactions):
        later = i < len(t.compactions) - 1 or (finished and bool(t.messages))
        d = digest(c.text, t.project, finished_after=later)
        asks += d.asks
        for f in d.facts:
            f.timestamp = c.timestamp
            f.provenance = {"line": c.uuid, "section": f"compaction:{f.kind}"}
            facts.append(f)
    return facts, asks


def offline_facts(
    t, said: list[ExtractedFact] | None = None
) -> tuple[list[ExtractedFact], list[str]]:
    """``said``: facts from the user's messages by another extractor (the LLM pass); by
    default the statement shapes of ``extract_facts``."""
    facts, asks = compaction_facts(t)
    facts += corrections(t)
    facts += injected_facts(t)
    facts += findings(t)
    facts += extract_facts(t.messages, t.project) if said is None else said
    for f in conventions(t):
        f.timestamp = t.ended_at
        f.provenance = {"line": None, "section": "commands"}
        facts.append(f)
    return unique(facts), asks


def unique(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """One fact per text; a correction said after a stop beats the same words as a plain
    statement (it is the stronger evidence)."""
    best: dict[str, ExtractedFact] = {}
    for f in facts:
        key = normalize(f.content)
        if key not in best or f.confidence > best[key].confidence:
            best[key] = f
    return list(best.values())


def gather_facts(t, cfg, secrets, report) -> tuple[list[ExtractedFact], list[str]]:
    if t.warmup:
        return [], []
    said = None
    if cfg.llm_endpoint and cfg.llm_model and cfg.llm_extract:
        said = _llm_facts(t, cfg, secrets, report)
    return offline_facts(t, said)


def _llm_facts(t, cfg, secrets, report) -> list[ExtractedFact] | None:
    from services.capture.llm_extract import llm_extract
    from services.lifecycle.llm import LLMError, client_from_config

    try:
        client = client_from_config(cfg, secrets)
        if client is None:  # the caller checked endpoint and model
            return None
        facts = llm_extract(client, [m.text for m in t.messages if m.role == "user"])
    except LLMError as exc:
        report.warnings.append(f"{exc}; used the offline extractor only")
        return None
    report.extractor = "llm"
    for f in facts:
        f.timestamp = t.ended_at
        f.provenance = {"line": None, "section": "llm"}
        f.confidence = 0.5 if cfg.llm_review else 0.8
    return facts
