"""Import: pick files *or* folders, see each one's detected format and what it holds before
anything is written, then a report per file (added / duplicates / skipped with reasons) that
stays until dismissed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from services import ImportFormatError, detect_format, parse_source


def preview_path(path: str) -> dict:
    """What importing ``path`` would bring: format and counts, or why it cannot."""
    p = Path(path)
    try:
        fmt = detect_format(p)
        src = parse_source(p, fmt)
    except (ImportFormatError, OSError, UnicodeDecodeError, ValueError) as exc:
        return {"path": path, "error": str(exc).splitlines()[0][:300]}
    out = {
        "path": path,
        "format": fmt,
        "facts": len(src.facts),
        "episodes": len(src.episodes),
        "problems": len(src.problems),
    }
    if p.is_file():  # MEMORY.md picked, USER.md beside it left out: say so
        try:
            same = p.parent != p and detect_format(p.parent) == fmt
        except ImportFormatError:
            same = False
        siblings = [s.name for s in p.parent.iterdir() if s.is_file() and s != p] if same else []
        if siblings:
            out["hint"] = (
                f"{', '.join(sorted(siblings)[:3])} beside it: add the folder to import those too"
            )
    return out


class ImportDialog(QDialog):
    """Builds the list; ``accepted_paths`` is what to import when the dialog is accepted."""

    previewed = Signal()

    def __init__(self, runner, slug: str, paths=(), parent=None):
        super().__init__(parent)
        self.runner = runner
        self.setWindowTitle(f"Import into {slug}")
        self.previews: dict[str, dict] = {}
        intro = QLabel(
            "Add memory files or whole folders (a Hermes MEMORY.md with its USER.md, a "
            "workspace, an export). Nothing is written until you press Import."
        )
        intro.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["File or folder", "Format", "Facts", "Episodes", "Notes"])
        self.tree.setRootIsDecorated(False)
        h = self.tree.header()
        h.setSectionResizeMode(0, QHeaderView.Stretch)
        self.add_files = QPushButton("Add &files…")
        self.add_folder = QPushButton("Add f&older…")
        self.add_files.clicked.connect(self._pick_files)
        self.add_folder.clicked.connect(self._pick_folder)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.import_btn = self.buttons.addButton("&Import", QDialogButtonBox.AcceptRole)
        self.import_btn.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.add_files)
        row.addWidget(self.add_folder)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(row)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.buttons)
        self.resize(820, 420)
        for p in paths:
            self.add_path(p)

    @Slot()
    def _pick_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Memory files")
        for p in paths:
            self.add_path(p)

    @Slot()
    def _pick_folder(self) -> None:
        p = QFileDialog.getExistingDirectory(self, "A memory folder")
        if p:
            self.add_path(p)

    def add_path(self, path: str) -> None:
        if path in self.previews:
            return
        self.previews[path] = {"path": path, "pending": True}
        item = QTreeWidgetItem([path, "looking…", "", "", ""])
        item.setData(0, Qt.UserRole, path)
        self.tree.addTopLevelItem(item)
        self.runner.start(
            "Reading " + Path(path).name,
            lambda p, c: preview_path(path),
            visible=False,
            success=self._show,
        )

    def _show(self, pv: dict) -> None:
        self.previews[pv["path"]] = pv
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, Qt.UserRole) != pv["path"]:
                continue
            if "error" in pv:
                item.setText(1, "not importable")
                item.setText(4, pv["error"])
            else:
                item.setText(1, pv["format"])
                item.setText(2, f"{pv['facts']:,}")
                item.setText(3, f"{pv['episodes']:,}")
                notes = []
                if pv["problems"]:
                    notes.append(f"{pv['problems']} entr(ies) will be skipped")
                if pv.get("hint"):
                    notes.append(pv["hint"])
                item.setText(4, "; ".join(notes))
            item.setToolTip(4, item.text(4))
        ok = self.accepted_paths()
        self.import_btn.setEnabled(bool(ok))
        total = sum(self.previews[p]["facts"] for p in ok)
        self.import_btn.setText(f"&Import {total:,} fact(s)" if ok else "&Import")
        if not any(p.get("pending") for p in self.previews.values()):
            self.previewed.emit()

    def accepted_paths(self) -> list[str]:
        return [p for p, pv in self.previews.items() if "format" in pv]


class ImportReportDialog(QDialog):
    """The result of an import, per file; it stays until closed."""

    def __init__(self, slug: str, results: list, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Imported into {slug}")
        tree = QTreeWidget()
        tree.setHeaderLabels(["File or folder", "Added", "Duplicates", "Replaced", "Skipped"])
        tree.header().setSectionResizeMode(0, QHeaderView.Stretch)
        added = dupes = skipped = 0
        for path, report in results:
            if isinstance(report, str):  # failed: the reason
                top = QTreeWidgetItem([path, "—", "—", "—", "failed"])
                top.addChild(QTreeWidgetItem([report]))
                tree.addTopLevelItem(top)
                continue
            added += report.added
            dupes += report.duplicates
            skipped += len(report.skipped)
            top = QTreeWidgetItem(
                [
                    path,
                    f"{report.added:,}",
                    f"{report.duplicates:,}",
                    f"{report.superseded:,}",
                    f"{len(report.skipped):,}",
                ]
            )
            for prob in report.skipped[:200]:
                where = f"{Path(prob.file).name}:{prob.line}" if prob.line else Path(prob.file).name
                top.addChild(QTreeWidgetItem([f"{where} — {prob.reason}"]))
            if report.blocked:
                top.addChild(QTreeWidgetItem([f"{report.blocked} refused by a forget rule"]))
            if report.redacted:
                top.addChild(QTreeWidgetItem([f"{report.redacted} had secrets redacted"]))
            tree.addTopLevelItem(top)
        for i in range(tree.topLevelItemCount()):
            tree.topLevelItem(i).setFirstColumnSpanned(False)
        self.summary = QLabel(
            f"<b>{added:,} fact(s) added</b>, {dupes:,} already known (duplicates, not stored "
            f"twice), {skipped:,} entr(ies) skipped. Expand a line for the reasons."
        )
        self.summary.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.Close)
        box.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(tree, 1)
        lay.addWidget(box)
        self.tree = tree
        self.resize(760, 420)
