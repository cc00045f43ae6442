"""The right to be forgotten: preview, purge everywhere, prove it, never store it again.

``ForgetService(engram).preview(scope)`` lists, per place, what a forget removes
(``services/forget/preview.py``); ``execute`` removes all of it
(``services/forget/execute.py``): it rebuilds the agent's Chroma collection without the
vectors (hnswlib only *marks* deletions, the float32 bytes stay in ``data_level0.bin``),
deletes orphan segment directories, merges FTS segments, checkpoints and VACUUMs both SQLite
files, adds a keyed-hash forget rule and writes a receipt without content. ``verify`` reads
the raw bytes of every file for the forgotten strings (``services/forget/verify.py``).
The agents' own files (Claude Code, Codex, Gemini, Cursor, Windsurf, Hermes, MCP memory) are
rewritten in the same run (``native.py``; git history: ``git_history.py``) and verified
(``native_verify.py``); what matches is decided once for all of it (``matching.py``).
Scopes are in ``services/forget/scope.py``. Rules are added by default for fact and matching
scopes only: a date or whole-agent purge is a clean-up, not a ban on the content.
"""

from __future__ import annotations

from collections.abc import Callable

from models import ForgetReceipt
from services.errors import NotFound
from services.forget import journal
from services.forget.execute import STEPS, run_forget
from services.forget.preview import (
    AgentPreview,
    ForgetPreview,
    backup_holds,
    build_preview,
    verify_sample,
)
from services.forget.purge import compact_store
from services.forget.scope import (
    SEMANTIC_K,
    SEMANTIC_THRESHOLD,
    ForgetScope,
    distinct_words,
    keyed,
    known_name_parts,
)
from services.forget.verify import VerifyForgetReport, verify_forgotten
from services.ingest import forget_rules
from services.store.handle import EngramHandle

__all__ = [
    "SEMANTIC_K",
    "SEMANTIC_THRESHOLD",
    "AgentPreview",
    "ForgetPreview",
    "ForgetScope",
    "ForgetService",
    "backup_holds",
    "distinct_words",
    "keyed",
    "verify_sample",
]


class ForgetService:
    def __init__(self, engram: EngramHandle):
        self.e = engram

    def preview(self, scope: ForgetScope) -> ForgetPreview:
        return build_preview(self.e, scope)

    def execute(
        self,
        scope: ForgetScope,
        progress: Callable[[int, int, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        preview: ForgetPreview | None = None,
    ) -> dict:
        """Carry out the plan (``preview``, else one made now) exactly. An interrupted
        forget's journaled plan is finished first (one forget at a time: journal.running)."""
        with journal.running(self.e.config.data_dir):
            self._resume_locked()
            pv = preview or self.preview(scope)
            rid, notes = run_forget(self.e, pv.scope, pv, progress=progress, cancelled=cancelled)
        out = self._receipt_json(ForgetReceipt.get_by_id(rid))
        out["notes"] = [n for n in notes if n]
        return out

    def resume_pending(self) -> dict | None:
        """Finish a forget a kill or power cut interrupted, from its journal: its receipt,
        or None when there is none (or it is running in another process right now). If it
        fails, the journal stays and its receipt says "incomplete" with the steps left."""
        ddir = self.e.config.data_dir
        if not journal.pending(ddir):
            return None
        try:
            with journal.running(ddir, wait=False):
                return self._resume_locked()
        except journal.Busy:
            return None

    def _resume_locked(self) -> dict | None:
        doc = journal.read(self.e.config.data_dir)
        if doc is None:
            return None
        pv = journal.plan_from(doc["plan"])
        rid = doc["receipt"]
        if ForgetReceipt.get_or_none(ForgetReceipt.id == rid) is None:  # a restored store
            rid = journal.open_receipt(pv.scope, pv, self.e.forget_key(), STEPS)
        rid, notes = run_forget(self.e, pv.scope, pv, resume=rid)
        out = self._receipt_json(ForgetReceipt.get_by_id(rid))
        out["notes"] = [n for n in notes if n]
        return out

    # compaction: no free page, WAL frame or FTS segment keeps the text -------------------
    def compact(self) -> list[str]:
        return compact_store(self.e)

    def verify(
        self, texts, agent: str | None = None, vectors: bool = True, each_word: bool = False
    ) -> VerifyForgetReport:
        """``each_word``: a known entity's name is also checked part by part (its halves
        may sit in different facts); any other text is a phrase, as ``--matching`` reads it."""
        texts = list(texts)
        if each_word:
            texts += [w for t in texts for w in known_name_parts(t, agent)]
        rep = verify_forgotten(self.e, texts, agent=agent, vectors=vectors)
        if journal.pending(self.e.config.data_dir):  # never "ok" over an unfinished plan
            rep.remaining.insert(0, (str(journal.path(self.e.config.data_dir)), journal.PENDING))
        return rep

    def rules(self) -> list[forget_rules.RuleView]:
        return forget_rules.list_rules()

    def remove_rule(self, rule_id: int) -> None:
        if not forget_rules.remove_rule(rule_id):
            raise NotFound(f"no forget rule {rule_id} (see `engram rules list`)")

    def receipts(self) -> list[dict]:
        return [
            self._receipt_json(r) for r in ForgetReceipt.select().order_by(ForgetReceipt.id.desc())
        ]

    @staticmethod
    def _receipt_json(r: ForgetReceipt) -> dict:
        return {
            "id": r.id,
            "created_at": r.created_at.isoformat(),
            "agent": r.agent_slug,
            "scope": r.scope,
            "counts": r.counts,
            "hashes": r.hashes,
        }
