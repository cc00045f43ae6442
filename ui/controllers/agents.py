"""Agents and trash: one tab per agent kept in step with the store, the Edit menu's actions on
the current tab, new / rename / remove (to the trash, undoable) and the trash itself."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QInputDialog, QMessageBox

from services import EngramError
from ui.agent_tab import AgentTab
from ui.controllers.base import Controller
from ui.new_agent_dialog import NewAgentDialog
from ui.trash import RemoveAgentCommand, TrashDialog


class AgentsController(Controller):
    def __init__(self, window):
        super().__init__(window)
        self._infos: dict = {}  # slug → AgentInfo last read

    def sync_agents(self, agents=None) -> None:
        """Add tabs for new agents, drop tabs of removed ones, update names and counts."""
        w = self.w
        infos = {a.slug: a for a in (self.engram.agents() if agents is None else agents)}
        for slug in list(w.agent_tabs):
            if slug not in infos:
                tab = w.agent_tabs.pop(slug)
                w.undo_group.removeStack(tab.undo_stack)
                tab.close_down()
                w.tabs.removeTab(w.tabs.indexOf(tab))
                tab.deleteLater()
        for slug, info in infos.items():
            if slug not in w.agent_tabs:
                self._new_tab(slug)
            self._infos[slug] = info
            self._label_tab(slug)
        if w.agent_tabs:
            w.startup_ctl._drop_welcome()
        self._on_tab_changed(w.tabs.currentIndex())
        w.agents_changed.emit()

    def _new_tab(self, slug: str) -> AgentTab:
        w = self.w
        tab = AgentTab(self.engram, self.engram.agent(slug), self.runner)
        tab.message.connect(w.show_message)
        tab.compile_requested.connect(w.tray.compile)
        tab.first_paint.connect(self._on_first_paint)
        tab.selection_changed.connect(self._update_actions)
        tab.confirmed.connect(
            lambda text, undoable, step, t=tab: w.notice.confirm(text, undoable, t.undo_stack, step)
        )
        tab.badge_changed.connect(lambda s=slug: self._label_tab(s))
        w.undo_group.addStack(tab.undo_stack)
        if getattr(w, "_layout_state", None):
            tab.restore_layout(*w._layout_state)
        w.agent_tabs[slug] = tab
        w.tabs.addTab(tab, "")
        return tab

    def _label_tab(self, slug: str) -> None:
        """Name, review badge and a tooltip with today's counts (it used to keep the first)."""
        tab, info = self.w.agent_tabs.get(slug), self._infos.get(slug)
        if tab is None or info is None:
            return
        label = info.name if info.name == slug else f"{info.name} ({slug})"
        n = tab.review_count
        i = self.w.tabs.indexOf(tab)
        self.w.tabs.setTabText(i, f"{label} · {n}" if n else label)
        review = f" · {n} to review" if n else ""
        self.w.tabs.setTabToolTip(i, f"{info.fact_count:,} active facts{review} · kind {info.kind}")

    @Slot()
    def _on_first_paint(self) -> None:
        self.w.first_page_painted.emit()

    @Slot(int)
    def _on_tab_changed(self, _i: int) -> None:
        w = self.w
        tab = w.current_agent_tab()
        w.undo_group.setActiveStack(tab.undo_stack if tab else w.window_stack)
        for a in (
            w.act_rename_agent,
            w.act_remove_agent,
            w.act_import,
            w.act_transcripts,
            w.act_reindex,
            w.act_forget,
            w.act_add_fact,
        ):
            a.setEnabled(tab is not None)
        self._update_actions()

    @Slot()
    def _update_actions(self) -> None:
        """The Edit menu's fact actions act on the shown selection, so they are off without
        one (a filter that hid the selected fact, another view, the All agents tab)."""
        w = self.w
        tab = w.current_agent_tab()
        on = tab is not None and bool(tab.selected_ids())
        for a in (w.act_recat, w.act_delete):
            a.setEnabled(on)
        can_pin, can_unpin = tab.pin_states() if tab is not None else (False, False)
        w.act_pin.setEnabled(can_pin)
        w.act_unpin.setEnabled(can_unpin)

    def _on_tab(self, method: str) -> None:
        tab = self.w.current_agent_tab()
        if tab is None:
            self.w.statusBar().showMessage("Open an agent's tab first.", 4000)
            return
        getattr(tab, method)()

    def _show_view(self, name: str) -> None:
        tab = self.w.current_agent_tab()
        if tab is not None:
            tab.show_view(name)

    def _next_tab(self) -> None:
        tabs = self.w.tabs
        tabs.setCurrentIndex((tabs.currentIndex() + 1) % tabs.count())

    def _prev_tab(self) -> None:
        tabs = self.w.tabs
        tabs.setCurrentIndex((tabs.currentIndex() - 1) % tabs.count())

    @Slot()
    def focus_search(self) -> None:
        tab = self.w.current_agent_tab()
        if tab is not None:
            tab.focus_search()
        else:
            self.w.all_tab.search.focus_query()

    @Slot(str, int)
    def open_fact(self, slug: str, fact_id: int) -> None:
        tab = self.w.agent_tabs.get(slug)
        if tab is None:
            return
        self.w.tabs.setCurrentWidget(tab)
        tab.show_fact(fact_id)

    @Slot()
    def on_store_changed(self) -> None:
        """Another process (or one of our workers) committed: re-read agents and facts.
        ``agents()`` counts every fact, so it runs in a worker too."""
        engram = self.engram
        self.runner.start(
            "Checking agents",
            lambda p, c: engram.agents(),
            visible=False,
            success=self._agents_read,
            interruptible=True,
        )

    def _agents_read(self, agents) -> None:
        w = self.w
        if w.startup_ctl.demo_running:
            return  # the demo's tabs come when it is complete (_demo_seeded)
        if {a.slug for a in agents} != set(w.agent_tabs):
            self.sync_agents(agents)
        for a in agents:
            self._infos[a.slug] = a
            self._label_tab(a.slug)
        for tab in w.agent_tabs.values():
            tab.refresh()
        w.sync_indicator.refresh()
        if self.engram.semantic_enabled:
            # hooks store facts without vectors (no model load in a hook): embed them here
            engram, slugs = self.engram, [a.slug for a in agents]
            self.runner.start(
                "Embedding new memories",
                lambda p, c: sum(
                    engram.agent(s).embed_missing(batch=64, cancelled=c) for s in slugs
                ),
                visible=False,
                serial=True,
                yields=True,  # a user's write (Restore all) goes first; vectors come behind
            )

    @Slot()
    def add_agent(self, slug: str | None = None) -> AgentTab | None:
        w = self.w
        if not slug:
            dlg = NewAgentDialog(self.engram, w)
            self.new_agent_dialog: NewAgentDialog | None = dlg
            ok = dlg.exec()
            self.new_agent_dialog = None
            if not ok or not dlg.created:
                return None
            slug = dlg.created
        else:
            try:
                self.engram.add_agent(slug.strip())
            except EngramError as exc:
                QMessageBox.warning(w, "New agent", str(exc))
                return None
        self.sync_agents()
        tab = w.agent_tabs.get(slug.strip())
        if tab is not None:
            w.tabs.setCurrentWidget(tab)
        return tab

    @Slot()
    def rename_agent(self, name: str | None = None) -> None:
        tab = self.w.current_agent_tab()
        if tab is None:
            return
        if not name:
            name, ok = QInputDialog.getText(
                self.w, "Rename agent", "Display name:", text=tab.memory.info.name
            )
            if not ok or not name.strip():
                return
        self.engram.update_agent(tab.memory.slug, name=name.strip())
        self.sync_agents()

    @Slot()
    def remove_agent(self) -> int:
        """File → Remove agent: asks first (naming the agent and what it holds, No the
        default); the agent goes to the trash, and the status bar's Undo, Edit → Undo or
        File → Trash brings it back until the trash is emptied."""
        tab = self.w.current_agent_tab()
        if tab is None:
            return 0
        slug = tab.memory.slug
        info = self._infos.get(slug)
        name = info.name if info is not None else slug
        n = info.fact_count if info is not None else 0
        who = name if name == slug else f"{name} ({slug})"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove agent",
            f"Remove the agent “{who}” and its {n:,} fact(s)?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.w,
        )
        box.setInformativeText(
            "It moves to the trash: Undo in the status bar, Edit → Undo or File → Trash "
            "brings it back with every memory until you empty the trash. (To erase it "
            "and leave no trace, use Forget.)"
        )
        box.button(QMessageBox.StandardButton.Yes).setText(f"Remove {slug}")
        box.button(QMessageBox.StandardButton.No).setText("Keep it")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        self.remove_box: QMessageBox | None = box
        answer = box.exec()
        self.remove_box = None
        if answer != QMessageBox.StandardButton.Yes:
            return 0
        engram = self.engram
        return self.runner.start(
            f"Removing {slug}",
            lambda p, c: engram.trash_agent(slug),
            serial=True,
            success=self._agent_trashed,
            failure=self.show_error,
        )

    def _agent_trashed(self, trashed) -> None:
        w = self.w
        cmd = RemoveAgentCommand(self.engram, self.runner, trashed, self._agent_step_done)
        w.window_stack.push(cmd)
        self.sync_agents()
        w.notice.confirm(cmd.done_text(), True, w.window_stack, cmd)

    def _agent_step_done(self, cmd) -> None:
        w = self.w
        self.sync_agents()
        if not cmd.removed:
            tab = w.agent_tabs.get(cmd.slug)
            if tab is not None:
                w.tabs.setCurrentWidget(tab)
        w.notice.confirm(cmd.done_text(), cmd.removed, w.window_stack, cmd)

    @Slot()
    def open_trash(self) -> TrashDialog:
        dlg = TrashDialog(self.engram, self.runner, self.w)
        dlg.changed.connect(self.sync_agents)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.trash_dialog = dlg
        dlg.show()
        return dlg
