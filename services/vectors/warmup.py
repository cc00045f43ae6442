"""Load the model and the vector index off the critical path: a server answers at once with
keyword search and turns hybrid on when this finishes."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from services.vectors import backlog

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)


def warm_up(engram: EngramHandle) -> bool:
    """Load the embedding model and Chroma into ``engram`` (opened with ``semantic=False``),
    then give vectors to facts stored without them. Whether semantic search is on."""
    if not engram.load_semantic():
        log.warning("semantic search is off: %s", engram.semantic_error)
        return False
    try:
        # onnxruntime's first run allocates and Chroma reads an HNSW graph into memory on its
        # first query: both here, not on the first hook
        embedder, index = engram.embedder, engram.index
        if embedder is None or index is None:  # load_semantic said both are there
            return False
        v = embedder.embed_one("warm up")
        for a in engram.agents(with_counts=False)[:20]:
            index.query(a.id, v, k=1)
        backlog.drain(engram)
    except Exception as exc:  # the vectors stay owed; search still works
        log.warning("could not fill the vector backlog: %s", exc)
    return True


def warm_up_in_background(engram: EngramHandle) -> threading.Event:
    """Start ``warm_up`` on a daemon thread; the event is set when it has finished (either way)."""
    # writes wait from now until the owed vectors are in too (Engram.wait_semantic)
    done = engram.expect_semantic()

    def run() -> None:
        try:
            warm_up(engram)
        finally:
            done.set()

    threading.Thread(target=run, name="engram-warm-up", daemon=True).start()
    return done
