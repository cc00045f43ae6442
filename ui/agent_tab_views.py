"""The agent tab's views (Timeline, Compiled, …, loaded when first shown), its Review badge,
the count and filters of the facts list, and what a reload of the store refreshes."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Slot

from services import FactFilters, agent_stats, tag_counts
from ui.agent_tab_parts import ARCHIVED, REVIEW, VIEWS
from ui.agent_tab_writes import TabWrites
from ui.filter_bar import CATEGORIES
from ui.undo import ReviewDecisionCommand


class TabViews(TabWrites):
    def _fit_columns(self) -> None:
        """Narrow: Type, Last accessed and (while only active facts are listed) Status and
        Pinned give their room to Content; pinned facts stay bold in Content."""
        narrow = getattr(self, "_narrow", False)
        only_active = self.filter_bar.filters().status in (None, ["active"])
        for col in (2, 6):
            self.table.setColumnHidden(col, narrow)
        for col in (4, 7):
            self.table.setColumnHidden(col, narrow and only_active)

    @Slot(int)
    def _on_view_changed(self, i: int) -> None:
        self._update_bulk()
        if i not in self._loaded:
            self._loaded.add(i)
            self._reload_view(i)

    def _reload_view(self, i: int) -> None:
        if i == 1:
            self.timeline.reload()
        elif i == 2:
            self.compiled.reload()
        elif i == 3:
            self.stats.reload()
        elif i == REVIEW:
            self.review.reload()
        elif i == ARCHIVED:
            self.archived.reload()
        elif self.views.widget(i) is self.entities:  # shown while a write changed the links
            self.entities.reload()

    def update_review_count(self) -> None:
        self._review_badge(self.memory.review.count())

    @Slot(int)
    def _review_badge(self, n: int) -> None:
        """The count on the Review view's tab (and, through ``review_count``, the agent's)."""
        self.review_count = n
        self.views.setTabText(REVIEW, f"Review ({n})" if n else "Review")
        self.views.setTabToolTip(REVIEW, f"{n} memories wait for your review" if n else "")
        self.badge_changed.emit()

    @Slot(str, list)
    def _on_review_decided(self, what: str, ids: list) -> None:
        verb = {
            "accept": "Accepted",
            "reject": "Rejected and erased",
            "edit": "Edited and accepted",
            "not_now": "Hid",
        }[what]
        where = {
            "accept": "agents can use them now",
            "edit": "agents can use it now",
            "reject": "their text is gone everywhere (see the receipt in Privacy)",
            "not_now": "kept, agents will not see them",
        }[what]
        self.message.emit(f"{verb} {len(ids)} memory(ies): {where}")
        self.refresh()

    @Slot(str, object, object)
    def _on_review_step(self, what: str, before: dict, after: dict) -> None:
        """The decision is one undo step; the notice says what it did."""
        cmd = ReviewDecisionCommand(
            self.memory, self.runner, what, before, after, self._review_undone, self._write_failed
        )
        self.undo_stack.push(cmd)
        self._after_write("edit", list(after), cmd.done_text(), False, cmd)

    def _on_entity_step(self, cmd) -> None:
        self.undo_stack.push(cmd)
        self.confirmed.emit(cmd.text(), True, cmd)

    def _review_undone(self, kind, ids, title, undone, step) -> None:
        self.review.reload()
        self._after_write(kind, ids, title, undone, step)

    @Slot(list)
    def _on_restored(self, ids: list) -> None:
        self.message.emit(f"Restored {len(ids)} fact(s); they are active again")
        self.refresh()

    def show_view(self, name: str) -> None:
        self.views.setCurrentIndex(VIEWS.index(name))

    @Slot()
    def _compile_me(self) -> None:
        self.compile_requested.emit(self.memory.slug)

    @Slot(int)
    def _on_slider_moved(self, pos: int) -> None:
        """Dragging the scrollbar to its end shows the oldest facts: the lazy model's bar
        spans only the rows paged in, so the rest of the ids are read in one query."""
        if pos >= self.table.verticalScrollBar().maximum():
            # the ids are read in a worker; the drag sets the old maximum right after this
            # signal: scroll once the rows are listed and it has
            self.model.fetch_to_end(then=lambda: QTimer.singleShot(0, self.table.scrollToBottom))

    def _update_count(self) -> None:
        total = self.model.total_count()
        f = self.model.filters
        only_active = (
            f.status == ["active"]
            and not f.category
            and not f.tags
            and not f.memory_type
            and f.pinned is None
            and not f.since
            and not f.until
        )
        what = (
            "facts"
            if f.is_empty()
            else "active facts"
            if only_active
            else "facts match the filters"
        )
        self.count_label.setText(f"{total:,} {what}")
        self.empty_hint.setVisible(total == 0 and self._is_default_filter())

    @Slot()
    def _on_filters(self) -> None:
        self._fit_columns()
        self.count_label.setText("Loading…")
        self.model.set_filters(self.filter_bar.filters())
        if self.search.query.text().strip():
            self.search.run_now()

    @Slot(str)
    def _on_query(self, text: str) -> None:
        self.stack.setCurrentIndex(1 if text.strip() else 0)
        self._sync_editor()

    def focus_search(self) -> None:
        self.views.setCurrentIndex(0)
        self.search.focus_query()

    @Slot()
    def _on_reloaded(self) -> None:
        ids, cur_id, scroll = self._restore or ([], None, 0)
        self._restore = None
        self.table.selectionModel().blockSignals(True)
        self.select_ids(ids, current=cur_id)
        self.table.selectionModel().blockSignals(False)
        self.table.viewport().update()
        self.table.verticalScrollBar().setValue(scroll)
        self._sync_editor(reload=True)  # a filter that hid the fact empties the editor
        self._update_count()
        self.update_review_count()
        self._count_categories()
        for i in self._loaded - {0}:
            if i == self.views.currentIndex():
                self._reload_view(i)
            else:
                self._loaded.discard(i)  # reloaded when shown next
        callbacks, self._after_reload = self._after_reload, []
        for fn in callbacks:
            fn()
        self.refreshed.emit()

    def _count_categories(self) -> None:
        """The category and tag filters show how many active facts each one holds."""
        if getattr(self, "_counting", False) or self.runner is None:
            return
        self._counting = True
        memory = self.memory

        def op(p, c):
            cats = {k for k in agent_stats(memory).by_category}
            cats |= {c for c in CATEGORIES}
            by_cat = {k: memory.facts.count(FactFilters(status="active", category=k)) for k in cats}
            return by_cat, tag_counts(memory)

        def done(counts):
            self._counting = False
            by_cat, by_tag = counts
            self.filter_bar.set_category_counts({k: n for k, n in by_cat.items() if n})
            self.filter_bar.set_tag_counts(by_tag)

        def failed(_m):
            self._counting = False

        self.runner.start(
            "Counting categories",
            op,
            visible=False,
            success=done,
            failure=failed,
            interruptible=True,
        )

    def close_down(self) -> None:
        self.undo_stack.clear()
