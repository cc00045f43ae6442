"""Imports into the current agent: memory files (previewed in a dialog) and session
transcripts, each in the serial lane, with a report at the end."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot

from services import EngramError, ImportFormatError
from ui.controllers.base import Controller
from ui.import_dialog import ImportDialog, ImportReportDialog


class ImportsController(Controller):
    @Slot()
    def import_files(self, path: str | None = None) -> int:
        """File → Import: a dialog previews files and folders; ``path`` skips it (scripts)."""
        tab = self.w.current_agent_tab()
        if tab is None:
            return 0
        if path:
            return self.run_import(tab.memory, [path])
        dlg = ImportDialog(self.runner, tab.memory.slug, parent=self.w)
        self.import_dialog = dlg
        memory = tab.memory
        dlg.accepted.connect(lambda: self.run_import(memory, dlg.accepted_paths()))
        dlg.finished.connect(dlg.deleteLater)
        dlg.open()
        return 0

    def run_import(self, memory, paths: list[str]) -> int:
        def op(progress, cancelled):
            results = []
            for i, p in enumerate(paths):
                label = f"Importing {Path(p).name} ({i + 1} of {len(paths)})"

                def step(d, t, label=label):
                    progress(d, t, f"{label}: {d:,} of {t:,} entries")

                try:
                    results.append((p, memory.import_path(p, progress=step, cancelled=cancelled)))
                except (EngramError, ImportFormatError, OSError, UnicodeDecodeError) as exc:
                    if len(paths) == 1:
                        raise
                    results.append((p, str(exc)))
            return results

        return self.runner.start(
            f"Importing into {memory.slug}",
            op,
            serial=True,
            success=lambda r: self._imported(memory.slug, r),
            failure=self.show_error,
        )

    def _imported(self, slug: str, results: list) -> None:
        reports = [r for _p, r in results if not isinstance(r, str)]
        added = sum(r.added for r in reports)
        dupes = sum(r.duplicates for r in reports)
        self.show_message(f"Imported {added} fact(s), {dupes} duplicate(s) skipped")
        self.import_report = ImportReportDialog(slug, results, self.w)
        self.import_report.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.import_report.show()
        self.w.agents_ctl.on_store_changed()

    def import_transcripts(self, folder: str | None = None) -> int:
        """File → Import transcripts: a folder of session transcripts (each read once, like
        the agents' hooks do) into the current agent: facts, episodes, review candidates."""
        tab = self.w.current_agent_tab()
        if tab is None:
            return 0
        if folder is None:
            from PySide6.QtWidgets import QFileDialog

            dlg = QFileDialog(self.w, f"Transcripts for {tab.memory.slug}")
            dlg.setFileMode(QFileDialog.FileMode.Directory)
            dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
            dlg.setOption(QFileDialog.Option.DontUseNativeDialog, True)
            self.transcripts_dialog: QFileDialog | None = dlg
            ok = dlg.exec()
            self.transcripts_dialog = None
            if not ok or not dlg.selectedFiles():
                return 0
            folder = dlg.selectedFiles()[0]
        from services import ingest_folder

        memory, where = tab.memory, folder
        return self.runner.start(
            f"Reading transcripts into {memory.slug}",
            lambda p, c: ingest_folder(memory, where),
            serial=True,
            success=lambda rep: self._transcripts_read(memory.slug, rep),
            failure=self.show_error,
        )

    def _transcripts_read(self, slug: str, rep) -> None:
        new = [s for s in rep.sessions if not s.already_processed]
        facts = sum(s.facts_added for s in rep.sessions)
        review = sum(s.facts_pending for s in rep.sessions)
        eps = sum(s.episodes_added for s in rep.sessions)
        seen = len(rep.sessions) - len(new)
        text = (
            f"{slug}: read {len(new)} new session(s): {facts} fact(s), {eps} episode(s), "
            f"{review} waiting for your review"
        )
        if seen:
            text += f"; {seen} read before"
        if rep.skipped:
            text += f"; {len(rep.skipped)} file(s) skipped"
        self.show_message(text + ".")
        self.last_transcripts = text
        self.w.agents_ctl.on_store_changed()
