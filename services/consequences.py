"""What a destructive action does and how to take it back, in one wording for the CLI's
previews and the app's confirmation dialogs (issue 35: one rule, the same words).

Each entry has the sentence both surfaces show, then how to undo (or avoid) it in the
surface's own terms: a menu or key in the app, a command in the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Consequence:
    what: str  # what happens, the same words everywhere
    app: str  # how to undo or avoid it in the app
    cli: str  # the same in the CLI

    def for_app(self) -> str:
        return f"{self.what} {self.app}".strip()

    def for_cli(self) -> str:
        return f"{self.what} {self.cli}".strip()


DELETE_FACT = Consequence(
    "The fact leaves the memory agents load; its text stays in the store's history.",
    "Edit ▸ Undo (Ctrl+Z) brings it back; Forget erases the text too.",
    "`engram forget --fact ID` erases the text too.",
)
EMPTY_TRASH = Consequence(
    "This cannot be undone. Its compiled memory files and Engram's hooks for it are removed "
    "too. The agent's own memory files stay as they are.",
    "Forget, whole agent, erases them there as well.",
    "`engram forget --agent SLUG --all` erases them there as well.",
)
REJECT = Consequence(
    "Rejecting erases the text from the store, its history, the vectors and the compiled "
    "memory, and keeps it from being stored again. This cannot be undone.",
    "To hide it and keep it, choose Not now.",
    "To hide it and keep it: `engram review not-now ID`.",
)
MERGE_ENTITIES = Consequence(
    "The merged entities' names become aliases of the one they join.",
    "Undo in the Entities view takes it back.",
    "`engram entity undo EVENT` takes it back.",
)
