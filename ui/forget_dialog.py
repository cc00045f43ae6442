"""Forget: preview what a purge would remove in every place, then execute it in a worker."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from PySide6.QtCore import QDate, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QRadioButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)
from shiboken6 import isValid

from services import ForgetScope, ForgetService
from ui.forget_words import describe_preview, describe_receipt, why_matched


class ForgetDialog(QDialog):
    """Scope: the selected facts, or everything matching a text. Preview first, always."""

    forgotten = Signal(object)
    previewed = Signal(bool)  # ok
    replanned = Signal()  # an untick re-planned the forget: the preview shows the new plan
    started = Signal()  # the forget runs: its own file rewrites are not outside edits

    about: str | None = None  # what the receipt says was forgotten (an entity's name)

    def __init__(self, engram, runner, slug: str, fact_ids=(), parent=None, on_finished=None):
        super().__init__(parent)
        # called with the receipt (None: failed) even if the dialog was closed meanwhile
        self.on_finished = on_finished
        self.running = False
        self._previewed_scope = None
        self._partial_tops: list[QTreeWidgetItem] = []  # groups listed apart, unticked
        # the plan the preview shows is the one executed (issue #30): an untick re-plans
        self._plan = None
        self._plan_gen = 0  # the newest re-plan asked for; older answers are dropped
        self._planned_gen = 0
        self._execute_when_planned = False
        self.setWindowTitle(f"Forget — {slug}")
        self.engram, self.runner, self.slug = engram, runner, slug
        self.fact_ids = list(fact_ids)
        self.matching = QLineEdit()
        self.matching.setPlaceholderText("text to forget everywhere (optional)")
        self.use_selection = QRadioButton(
            f"The {len(self.fact_ids)} selected fact(s)"
            if self.fact_ids
            else "The selected facts (none selected)"
        )
        self.use_matching = QRadioButton("Everything matching:")
        self.use_selection.setChecked(bool(self.fact_ids))
        self.use_matching.setChecked(not self.fact_ids)
        self.use_selection.setEnabled(bool(self.fact_ids))
        self.all_agents = QCheckBox("in every agent, not only this one")
        self.use_before = QRadioButton("Everything stored before:")
        self.before = QDateEdit(calendarPopup=True)
        self.before.setDate(QDate.currentDate().addMonths(-6))
        self.before.setDisplayFormat("yyyy-MM-dd")
        self.preview_text = QPlainTextEdit(readOnly=True)
        self.preview_text.setPlaceholderText("Press Preview to see what would be removed.")
        # every fact it would take, ticked, with why it matched; untick to keep one
        self.items = QTreeWidget()
        self.items.setHeaderLabels(["What", "Why it matched"])
        self.items.setColumnWidth(0, 420)
        self.items.setUniformRowHeights(True)
        self.items.itemChanged.connect(self._ticked)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Forget", self.use_selection)
        form.addRow(self.use_matching, self.matching)
        form.addRow("", self.all_agents)
        form.addRow(self.use_before, self.before)
        self.buttons = QDialogButtonBox()
        self.preview_btn = self.buttons.addButton("&Preview", QDialogButtonBox.ActionRole)
        self.execute_btn = self.buttons.addButton(
            "&Forget permanently", QDialogButtonBox.DestructiveRole
        )
        self.close_btn = self.buttons.addButton(QDialogButtonBox.Close)
        self.close_btn.setDefault(True)  # Enter never forgets
        self.preview_btn.setAutoDefault(False)
        self.execute_btn.setAutoDefault(False)
        self.execute_btn.setEnabled(False)
        self.preview_btn.clicked.connect(self.preview)
        self.execute_btn.clicked.connect(self.execute)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.items)
        split.addWidget(self.preview_text)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(820, 560)
        self.matching.textChanged.connect(self._scope_changed)
        self.use_selection.toggled.connect(self._scope_changed)
        self.all_agents.toggled.connect(self._scope_changed)
        self.before.dateChanged.connect(lambda *_: self.use_before.setChecked(True))
        self.use_before.toggled.connect(self._scope_changed)

    @Slot()
    def _scope_changed(self, *_):
        if self.sender() is self.matching and self.matching.text().strip():
            self.use_matching.setChecked(True)
        self.execute_btn.setEnabled(False)

    def scope(self):
        if self.use_selection.isChecked() and self.fact_ids:
            return ForgetScope(agent=self.slug, fact_ids=tuple(self.fact_ids))
        if self.use_before.isChecked():
            d = self.before.date()
            return ForgetScope(agent=self.slug, before=date(d.year(), d.month(), d.day()))
        matching = self.matching.text().strip()
        if not matching:
            return None
        if self.all_agents.isChecked():
            return ForgetScope(all_agents=True, matching=matching)
        return ForgetScope(agent=self.slug, matching=matching)

    @Slot()
    def preview(self) -> None:
        scope = self.scope()
        if scope is None:
            self.status.setText("Choose the selected facts or type a text to forget.")
            return
        svc = ForgetService(self.engram)
        self.status.setText("Looking in every place…")
        self.runner.start(
            "Forget preview",
            lambda p, c: svc.preview(scope),
            visible=False,
            success=self._previewed,
            failure=self._preview_failed,
        )

    def _preview_failed(self, message: str) -> None:
        self.status.setText(message)
        self.previewed.emit(False)

    def _previewed(self, p) -> None:
        if not isValid(self):
            return
        self._previewed_scope = self.scope()
        self._plan = p
        self._plan_gen = self._planned_gen = 0
        self._execute_when_planned = False
        self.preview_text.setPlainText(describe_preview(p))
        self._fill_items(p)
        self.status.setText(
            "This is what would be removed. Untick a fact to keep it. Forgetting cannot be undone."
        )
        self.execute_btn.setEnabled(True)
        self.previewed.emit(True)

    def _fill_items(self, p) -> None:
        self.items.blockSignals(True)
        self.items.clear()
        self._partial_tops = []
        for a in getattr(p, "agents", []):
            facts, eps = list(a.facts), list(getattr(a, "episodes", []) or [])
            self._fill_partial(a)
            if not facts and not eps:
                continue
            top = QTreeWidgetItem([f"{a.slug}: {len(facts)} fact(s), {len(eps)} episode(s)", ""])
            self.items.addTopLevelItem(top)
            for f in facts:
                text = str(f.get("content", "")).replace("\n", " ")
                item = QTreeWidgetItem([f"#{f.get('id')} {text}", why_matched(f)])
                item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
                item.setCheckState(0, Qt.Checked)
                item.setData(0, Qt.UserRole, f.get("id"))
                item.setToolTip(0, text)
                item.setToolTip(1, why_matched(f))
                top.addChild(item)
            for e in eps:
                summary = str(e.get("summary", "")).replace("\n", " ")
                item = QTreeWidgetItem(
                    [f"Episode {e.get('day', '')}: {summary}", "mentions it (removed or rewritten)"]
                )
                item.setToolTip(0, summary)
                top.addChild(item)
            top.setExpanded(True)
        self.items.blockSignals(False)

    def _fill_partial(self, a) -> None:
        """Facts naming only part of the name: shown unticked, forgotten only if ticked."""
        partial = list(getattr(a, "partial", []) or [])
        if not partial:
            return
        top = QTreeWidgetItem(
            [f"{a.slug}: also mentions part of the name (not forgotten unless ticked)", ""]
        )
        self._partial_tops.append(top)
        self.items.addTopLevelItem(top)
        for f in partial:
            text = str(f.get("content", "")).replace("\n", " ")
            item = QTreeWidgetItem([f"#{f.get('id')} {text}", why_matched(f)])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Unchecked)
            item.setData(0, Qt.ItemDataRole.UserRole, f.get("id"))
            item.setToolTip(0, text)
            top.addChild(item)
        top.setExpanded(True)

    def _fact_items(self, partial: bool) -> list[tuple[int, bool]]:
        """(fact id, ticked) of the plan's facts, or of the part-of-the-name ones."""
        out = []
        for i in range(self.items.topLevelItemCount()):
            top = self.items.topLevelItem(i)
            if top is None or any(top is t for t in self._partial_tops) != partial:
                continue
            for j in range(top.childCount()):
                it = top.child(j)
                fid = it.data(0, Qt.ItemDataRole.UserRole) if it is not None else None
                if it is not None and fid is not None:
                    out.append((int(fid), it.checkState(0) == Qt.CheckState.Checked))
        return out

    def unticked_ids(self) -> list[int]:
        return [fid for fid, ticked in self._fact_items(partial=False) if not ticked]

    def ticked_partial_ids(self) -> list[int]:
        return [fid for fid, ticked in self._fact_items(partial=True) if ticked]

    @Slot()
    def _ticked(self, *_):
        keep = self.unticked_ids()
        if keep:
            self.status.setText(
                f"{len(keep)} fact(s) unticked: they are kept. The rest is forgotten."
            )
        self._replan(keep, self.ticked_partial_ids())

    def _replan(self, keep: list[int], also: list[int]) -> None:
        """Plan again without the unticked facts, so their text is no longer a term for any
        file, layer or episode, and the list below stops naming what is no longer touched."""
        base = self._previewed_scope
        if base is None or self._plan is None:
            return
        scope = replace(
            base,
            exclude_ids=tuple(dict.fromkeys((*base.exclude_ids, *keep))),
            include_ids=tuple(also),
        )
        svc = ForgetService(self.engram)
        self._plan_gen += 1
        gen = self._plan_gen
        self.runner.start(
            "Forget preview",
            lambda p, c: svc.preview(scope),
            visible=False,
            success=lambda pv: self._replanned(pv, gen) if isValid(self) else None,
            failure=lambda m: self._replan_failed(m, gen) if isValid(self) else None,
        )

    def _replanned(self, pv, gen: int) -> None:
        if gen != self._plan_gen:
            return  # another untick since: its plan is the one that counts
        self._plan, self._planned_gen = pv, gen
        self.preview_text.setPlainText(describe_preview(pv))
        self.replanned.emit()
        if self._execute_when_planned:
            self._execute_when_planned = False
            self._run(pv)

    def _replan_failed(self, message: str, gen: int) -> None:
        if gen != self._plan_gen:
            return
        self._execute_when_planned = False
        self._plan = None  # no plan matches the ticks: Preview again before forgetting
        self.execute_btn.setEnabled(False)
        self.status.setText(f"Could not plan without the unticked facts: {message}")

    @Slot()
    def execute(self) -> None:
        scope = self.scope()
        if scope is None or self._plan is None or scope != self._previewed_scope:
            return
        if not self.confirm():
            return
        self.execute_btn.setEnabled(False)
        if self._planned_gen != self._plan_gen:  # the last untick is still being planned
            self._execute_when_planned = True
            self.status.setText("Planning without the unticked facts…")
            return
        self._run(self._plan)

    def _run(self, plan) -> None:
        """Execute exactly the plan the preview shows (no new preview in between)."""
        scope = plan.scope
        svc = ForgetService(self.engram)
        self.running = True
        self.started.emit()
        self.status.setText("Forgetting… (closing this window does not stop it)")
        dlg, on_finished = self, self.on_finished

        def finished(receipt, message=None):
            # the dialog may be gone (closed while it ran): the owner still gets the receipt
            if isValid(dlg):
                dlg.running = False
                if receipt is None:
                    dlg._failed(message or "")
                else:
                    dlg._done(receipt)
            if on_finished is not None:
                on_finished(receipt, dlg.about if isValid(dlg) else None)

        self.runner.start(
            "Forgetting",
            lambda p, c: svc.execute(scope, progress=p, cancelled=c, preview=plan),
            success=finished,
            failure=lambda m: finished(None, m),
        )

    def confirm(self) -> bool:
        """Asks with No as the default button (it used to default to Yes)."""
        return (
            QMessageBox.question(
                self,
                "Forget permanently",
                "Remove this everywhere and block it from coming back? This cannot be undone.",
                QMessageBox.Yes | QMessageBox.No,
                QMessageBox.No,
            )
            == QMessageBox.Yes
        )

    def _failed(self, message: str) -> None:
        self.status.setText(f"Nothing was forgotten: {message}")
        self.forgotten.emit(None)

    def _done(self, receipt) -> None:
        """The dialog stays open with the receipt: it used to close before it could be read."""
        self.status.setText(
            "Forgotten. This receipt was kept (counts and hashes, never the text itself); "
            "View → Privacy lists every receipt."
        )
        self.items.clear()
        self.preview_text.setPlainText(
            describe_receipt(receipt, self.about) if isinstance(receipt, dict) else str(receipt)
        )
        self.forgotten.emit(receipt)
