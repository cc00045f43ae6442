"""GC with a preview: what would be archived, expired, evicted or pruned, per agent and with
the reason, before anything changes; Cancel is the default. The run itself is one undo step
(``GCCommand``)."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from services import redo_gc, run_gc, undo_gc
from ui.undo import STEP_SEQ

KIND_TEXT = {
    "expire": "expires",
    "archive": "archived (unimportant)",
    "evict": "archived (over the cap)",
    "promote": "kept long-term",
    "drain": "leaves the waiting queue",
    "prune-episode": "old episode deleted",
    "prune-session": "old session log deleted",
    "prune-layers": "old compiled versions deleted",
}
REMOVING = ("expire", "archive", "evict")
PRUNING = ("prune-episode", "prune-session", "prune-layers")
# rows listed per agent: 25k tree items at 100k facts held the window for seconds, and nobody
# reads past a few hundred (the counts above the list cover every change)
SHOWN = 300


def plan_all(engram, progress, cancelled) -> dict:
    """A dry run of every agent: {slug: (report, {fact id: content})}."""
    slugs = [a.slug for a in engram.agents(with_counts=False)]
    out = {}
    for i, slug in enumerate(slugs):
        progress(i, len(slugs), f"Looking at {slug} ({i + 1} of {len(slugs)})")
        mem = engram.agent(slug)
        report = run_gc(mem, dry_run=True, cancelled=cancelled)
        ids = [a.fact_id for a in report.actions if a.target == "fact" and a.fact_id]
        rows = mem.facts.rows(ids)
        out[slug] = (report, {i: rows[i].content for i in rows})
    return out


def summary(plans: dict) -> tuple[int, int]:
    """(facts leaving memory, records pruned for good)."""
    leaving = sum(
        1 for r, _c in plans.values() for a in r.actions if a.kind in REMOVING and a.fact_id
    )
    pruned = sum(
        r.episodes_pruned + r.sessions_pruned + r.layers_pruned for r, _c in plans.values()
    )
    return leaving, pruned


class GCPreviewDialog(QDialog):
    confirmed = Signal()

    def __init__(self, engram, runner, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Clean up memory (GC)")
        self.engram, self.runner = engram, runner
        self.plans: dict | None = None
        self.intro = QLabel("Working out what a clean-up would change… nothing is changed yet.")
        self.intro.setWordWrap(True)
        self.progress = QProgressBar()
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["What", "Fact", "Why"])
        self.tree.setColumnWidth(0, 190)
        self.tree.setColumnWidth(1, 300)
        self.buttons = QDialogButtonBox()
        self.run_btn = QPushButton("Run clean-up")
        self.run_btn.setEnabled(False)
        self.run_btn.setAutoDefault(False)
        self.cancel_btn = self.buttons.addButton(QDialogButtonBox.Cancel)
        self.cancel_btn.setDefault(True)
        self.buttons.addButton(self.run_btn, QDialogButtonBox.AcceptRole)
        self.buttons.rejected.connect(self.reject)
        self.run_btn.clicked.connect(self._confirm)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addWidget(self.progress)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.buttons)
        self.resize(1000, 560)
        engram_ = engram
        self.job = runner.start(
            "Previewing the clean-up",
            lambda p, c: plan_all(engram_, p, c),
            success=self.show_plans,
            failure=lambda m: self.intro.setText(f"Could not preview the clean-up: {m}"),
            interruptible=True,  # a dry run: closing the dialog or the window stops it at once
        )
        runner.job_progress.connect(self._progress)

    @Slot(int, int, int, str)
    def _progress(self, job_id: int, done: int, total: int, message: str) -> None:
        if job_id == self.job and total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat(f"{done} of {total}")

    def reject(self) -> None:
        self.runner.cancel(self.job)
        super().reject()

    def show_plans(self, plans: dict) -> None:
        self.plans = plans
        self.progress.hide()
        self.tree.clear()
        for slug, (report, contents) in plans.items():
            shown = [a for a in report.actions if a.kind != "decay"]
            top = QTreeWidgetItem([slug, f"{len(shown)} change(s)", ""])
            top.setFirstColumnSpanned(False)
            for a in shown[:SHOWN]:
                fact = contents.get(a.fact_id, "") if a.target == "fact" else ""
                what = KIND_TEXT.get(a.kind, a.kind)
                label = f"#{a.fact_id} {fact}" if fact else ""
                item = QTreeWidgetItem([what, label, a.reason])
                item.setToolTip(1, fact)
                item.setToolTip(2, a.reason)
                top.addChild(item)
            if len(shown) > SHOWN:
                more = QTreeWidgetItem(["…", f"and {len(shown) - SHOWN:,} more change(s)", ""])
                more.setToolTip(1, f"Listed in full by `engram gc --agent {slug}` (a preview)")
                top.addChild(more)
            if report.decayed:
                top.addChild(
                    QTreeWidgetItem(
                        ["importance fades", f"{report.decayed} short-term fact(s)", ""]
                    )
                )
            self.tree.addTopLevelItem(top)
            top.setExpanded(bool(shown))
        leaving, pruned = summary(plans)
        changes = sum(len(r.actions) for r, _c in plans.values())
        if not changes:
            self.intro.setText("Nothing to clean up: every memory is within its limits.")
            return
        text = (
            f"{leaving} fact(s) would be archived (they stay in the Archived view and can be "
            "restored; Edit → Undo undoes the whole clean-up)."
        )
        held = sum(r.held_back for r, _c in plans.values())
        if held:
            text += (
                f" {held:,} more are past their limits but stay for now: one clean-up "
                "archives at most a quarter of an agent's memory (run it again for more)."
            )
        if pruned:
            text += (
                f" {pruned} old episode(s), session log(s) or compiled version(s) would be "
                "deleted for good (undo does not bring those back)."
            )
        self.intro.setText(text)
        self.run_btn.setText(f"Archive {leaving} fact(s)" if leaving else "Run clean-up")
        self.run_btn.setEnabled(True)

    @Slot()
    def _confirm(self) -> None:
        self.accept()
        self.confirmed.emit()


class GCCommand(QUndoCommand):
    """A GC run already applied; undo puts every fact it changed back, redo re-applies it."""

    def __init__(self, engram, runner, reports: dict, done):
        n = sum(r.expired + r.archived + r.evicted for r in reports.values())
        super().__init__(f"Run GC ({n} fact(s) archived)")
        self.engram, self.runner, self.reports, self._done = engram, runner, reports, done
        self._applied = True
        self.seq = next(STEP_SEQ)
        self._undone = False

    def _queue(self, fn, label: str) -> None:
        engram, reports = self.engram, self.reports

        def op(progress, cancelled):
            for i, (slug, r) in enumerate(reports.items()):
                progress(i, len(reports), f"{label} {slug}")
                fn(engram.agent(slug), r)

        self.runner.start(label + " GC", op, serial=True, success=lambda _r: self._done(self))

    def redo(self) -> None:
        if self._applied:  # pushed after the run: nothing to do the first time
            self._applied = False
            return
        self._undone = False
        self._queue(redo_gc, "Redoing")

    def undo(self) -> None:
        self._undone = True
        self._queue(undo_gc, "Undoing")
