"""Privacy: Forget (preview, run, receipt; two-way workspace sync held meanwhile) and the
Privacy view of receipts and rules."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QMessageBox
from shiboken6 import isValid

from ui.controllers.base import Controller
from ui.forget_dialog import ForgetDialog
from ui.forget_words import describe_receipt
from ui.privacy_view import PrivacyView


class PrivacyController(Controller):
    forget_dialog: ForgetDialog | None = None

    @Slot()
    def forget(self) -> None:
        tab = self.w.current_agent_tab()
        if tab is None:
            return
        dlg = ForgetDialog(
            self.engram,
            self.runner,
            tab.memory.slug,
            tab.selected_ids(),
            self.w,
            on_finished=self._forgotten,
        )
        dlg.started.connect(self.w.workspaces.hold)
        dlg.finished.connect(dlg.deleteLater)
        self.forget_dialog = dlg
        dlg.open()

    def _forgotten(self, receipt, about: str | None = None) -> None:
        """Runs when a forget ends, whether or not its dialog is still open: two-way sync
        resumes, and a receipt closed with its dialog is shown here instead."""
        self.w.workspaces.release()
        self.w.agents_ctl.on_store_changed()
        dlg = self.forget_dialog
        if dlg is not None and isValid(dlg) and dlg.isVisible():
            return
        if receipt is None:
            self.show_message("The forget failed: nothing was forgotten (see the Jobs log).")
            return
        box = QMessageBox(
            QMessageBox.Icon.Information, "Forgotten", describe_receipt(receipt, about)
        )
        box.setInformativeText("View → Privacy lists every receipt.")
        box.setParent(self.w, box.windowFlags())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.receipt_box = box
        box.show()
        self.show_message(describe_receipt(receipt, about).splitlines()[1])

    @Slot()
    def open_privacy(self) -> PrivacyView:
        dlg = PrivacyView(self.engram, self.w)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.privacy = dlg
        dlg.show()
        return dlg
