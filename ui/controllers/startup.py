"""Startup: the Welcome page (find my agents, the demo, an empty agent, importing what was
found) and loading the embedding model after the first page is on screen."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, QTimer, Slot

from ui.controllers.base import Controller
from ui.import_dialog import ImportReportDialog
from ui.welcome import WelcomePage


class StartupController(Controller):
    welcome: WelcomePage | None = None
    demo_running = False
    _demo_job = 0

    def __init__(self, window):
        super().__init__(window)
        self.runner.job_progress.connect(self._demo_progress)

    def begin(self, load_semantic: bool, demo_if_empty: bool) -> None:
        """The store's tabs are on screen: start the workers the window's options ask for."""
        w, engram = self.w, self.engram
        if load_semantic and not engram.semantic_enabled:
            self._load_semantic()
        if demo_if_empty and not w.agent_tabs:
            from services import first_run

            if first_run(engram.config.data_dir):  # not after the user removed the demo
                self.seed_demo()

    def _show_welcome(self) -> None:
        w = self.w
        if self.welcome is None:
            self.welcome = WelcomePage()
            self.welcome.find_requested.connect(self.find_agents)
            self.welcome.demo_requested.connect(self.seed_demo)
            self.welcome.empty_requested.connect(w.agents_ctl.add_agent)
            self.welcome.import_requested.connect(self.import_sources)
            w.tabs.insertTab(1, self.welcome, "Welcome")
        w.tabs.setCurrentWidget(self.welcome)

    def find_agents_again(self) -> int:
        """File → Find my agents: the Welcome page's search, also once agents exist (it
        stays open until its import finishes or it is closed)."""
        self._welcome_asked = True
        self._show_welcome()
        return self.find_agents()

    def _drop_welcome(self, force: bool = False) -> None:
        if getattr(self, "_welcome_asked", False) and not force:
            return
        if self.welcome is not None and self.w.agent_tabs:
            self.w.tabs.removeTab(self.w.tabs.indexOf(self.welcome))
            self.welcome.deleteLater()
            self.welcome = None

    @Slot()
    def seed_demo(self) -> int:
        """The demo is written in a worker (its vectors need the model: seconds), so the
        window is usable at once; the page shows the progress."""
        engram = self.engram
        if self.welcome is None:
            self._show_welcome()
        assert self.welcome is not None
        self.welcome.busy("Creating the demo agents (made-up memories, marked Demo)…", 0, 0)
        # the tabs appear when the demo is complete, not agent by agent while it is written
        self.demo_running = True
        n_facts = self.w.demo_facts

        def op(progress, cancelled):
            # no wait for the language model: the memories are written at once and their
            # vectors are added when the model is ready (embed_missing)
            from services import seed_demo

            return seed_demo(
                engram,
                n_facts=n_facts,
                progress=lambda done, total: progress(done, total, "writing their memories"),
            )

        def stopped(message: str | None = None) -> None:
            self.demo_running = False
            if message is None:
                if self.welcome is not None:
                    self.welcome.idle("Demo cancelled.")
            else:
                self._first_run_failed(message)

        # not the serial lane: it would queue the demo behind the model's loading; only the
        # new demo agents are written
        job = self.runner.start(
            "Creating the demo",
            op,
            success=self._demo_seeded,
            failure=stopped,
            on_cancel=stopped,
        )
        self._demo_job = job
        return job

    @Slot(int, int, int, str)
    def _demo_progress(self, job_id: int, done: int, total: int, message: str) -> None:
        """The welcome page counts the demo agents as they are written (it said "0 of 1"
        until the end)."""
        if job_id == self._demo_job and self.welcome is not None and total:
            self.welcome.busy(f"Creating the demo agents: {message}…", done, total)

    def _demo_seeded(self, added: dict) -> None:
        self.demo_running = False
        self.w.agents_ctl.sync_agents()
        first = next(iter(self.w.agent_tabs.values()), None)
        if first is not None:
            self.w.tabs.setCurrentWidget(first)
        self.show_message(
            f"Demo ready: {sum(added.values()):,} made-up memories in {len(added)} demo "
            "agents. Remove them with File → Remove agent."
        )

    def _first_run_failed(self, message: str) -> None:
        if self.welcome is not None:
            self.welcome.idle(f"That did not work: {message}")
        else:
            self.show_error(message)

    @Slot()
    def find_agents(self, home=None, project=None) -> int:
        """Welcome → Find my agents: survey this computer's agent memory files in a worker."""
        from services import discover_sources

        engram = self.engram
        if self.welcome is not None:
            self.welcome.busy("Looking for your agents' memory files…")
        return self.runner.start(
            "Finding your agents",
            lambda p, c: discover_sources(home=home, project=project, engram=engram),
            success=lambda found: self.welcome and self.welcome.show_sources(found),
            failure=self._first_run_failed,
        )

    @Slot(list)
    def import_sources(self, sources: list) -> int:
        """Import what Find my agents found, each into its suggested agent, "N of M"."""
        from services import import_discovered

        engram = self.engram
        if self.welcome is not None:
            self.welcome.busy("Importing…", 0, len(sources))
        return self.runner.start(
            "Importing your agents",
            lambda p, c: import_discovered(
                engram, sources, progress=lambda d, t: p(d, t, f"Imported {d} of {t}")
            ),
            serial=True,
            success=self._sources_imported,
            failure=self._first_run_failed,
        )

    def _sources_imported(self, results: list) -> None:
        self._welcome_asked = False
        self.w.agents_ctl.sync_agents()
        rows = [(str(s.path), rep if rep is not None else err) for s, rep, err in results]
        added = sum(r.added for _p, r in rows if not isinstance(r, str))
        self.show_message(f"Imported {added:,} memories from {len(rows)} source(s).")
        self.import_report = ImportReportDialog("your agents", rows, self.w)
        self.import_report.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.import_report.show()

    def _load_semantic(self) -> None:
        """The store was opened without the model so the first page paints at once; the
        model loads now, first in the serial lane: every write queues behind it, so no edit
        or delete can miss its vectors. Search is keyword-only until it is ready."""
        engram = self.engram
        self.show_message("Loading the embedding model… (keyword search works meanwhile)")
        # the job takes the serial lane now (writes queue behind it) but imports onnxruntime
        # and chromadb (~1 s of Python holding the GIL) only once the first page is on screen
        painted = threading.Event()
        self.w.first_page_painted.connect(painted.set)
        if self.w.current_agent_tab() is None:  # the Welcome or All agents page: shown now
            QTimer.singleShot(0, painted.set)

        def load(p, c):
            for _ in range(200):  # at most 10 s; a window closed meanwhile cancels the wait
                if painted.wait(0.05) or c():
                    break
            return False if c() else engram.load_semantic()

        self.runner.start(
            "Loading the embedding model",
            load,
            visible=False,
            serial=True,
            success=self._semantic_loaded,
            failure=lambda m: self._semantic_loaded(False),
        )

    def _semantic_loaded(self, ok: bool) -> None:
        w = self.w
        for panel in [w.all_tab.search] + [t.search for t in w.agent_tabs.values()]:
            panel.update_semantic()
        self.show_message(
            "Semantic search is ready."
            if ok
            else f"Semantic search is off: {self.engram.semantic_error}"
        )
        w.semantic_ready.emit(bool(ok))
        if ok:
            w.agents_ctl.on_store_changed()  # memories written meanwhile get their vectors
