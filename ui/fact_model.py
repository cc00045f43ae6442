"""The fact browser's table model: it holds fact *ids* and fetches rows a page at a time.

Anki's browser habit: ``canFetchMore``/``fetchMore`` grow the id list as the view scrolls,
and row data (``memory.facts.rows(ids)``) is loaded for the page around a visible row and
kept in a bounded cache, so a million-fact agent opens with one page of ids and one page of
rows. Sorting re-queries the ids in the new order.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from services import FactFilters, FactView
from ui.fact_cells import COLUMNS, FactCells

PAGE = 200  # rows a fetchMore shows
CHUNK = 2000  # ids read ahead per query: sorting 1M rows by importance costs the same for 200
CACHE_ROWS = 4000
# rows read for a row painted before it was read (a jump with the scrollbar): about a screen,
# not a page — 200 rows took 18 ms on the GUI thread at 100k facts, 64 take a third of it
AROUND = 64


def _read_rest(memory, filters: FactFilters, order: str, offset: int, count: int | None):
    """Every id from ``offset`` on; ``count`` (read once per reload, maybe stale) sizes the
    first query."""
    if count is None:
        count = memory.facts.count(filters)
    rest: list[int] = []
    while True:
        want = max(count - offset, 0) + CHUNK
        got = memory.facts.ids(filters, order=order, limit=want, offset=offset)
        rest += got
        offset += len(got)
        if len(got) < want:
            return rest


class FactTableModel(FactCells):
    """With a ``runner``, re-sorting, filtering and refreshing query in a worker (sorting a
    million rows by importance takes a second) and the model resets when the answer arrives;
    ``reloaded`` says so. Without one (scripts, model tests) they run inline.

    Ids are read ahead ``CHUNK`` at a time into a buffer; ``fetchMore`` shows the next
    ``PAGE`` from it and, with a runner, refills it in a worker before it runs dry, so
    scrolling never waits on a sort query."""

    reloaded = Signal()
    load_failed = Signal(str)  # the query failed (a locked or damaged store); nothing changed

    def __init__(self, memory, parent=None, filters: FactFilters | None = None, runner=None):
        super().__init__(parent)
        self.memory = memory
        self._runner = runner
        self._count: int | None = None
        self._filters = filters or FactFilters()
        self._order = "-created_at"
        self._sort = (5, Qt.SortOrder.DescendingOrder)
        self._ids: list[int] = []
        self._row_of: dict[int, int] = {}
        self._exhausted = False  # the store has no more ids for this query
        self._buffer: list[int] = []  # read ahead, not shown yet
        self._next_offset = 0
        self._prefetching = False
        self._epoch = 0
        self._waiting = False  # the view asked for more while the buffer was empty
        self._fetching = False
        self._to_end = False  # the rest of the ids are being read (``fetch_to_end``)
        self._rows_ahead = False  # the next page's rows are being read
        self._cache: OrderedDict[int, FactView] = OrderedDict()
        self._bold = QFont()
        self._bold.setBold(True)
        self._load_first_page()

    # queries -----------------------------------------------------------------------------
    def _fetch_ids(self, offset: int, limit: int) -> list[int]:
        return self.memory.facts.ids(self._filters, order=self._order, limit=limit, offset=offset)

    def _load_first_page(self, at_least: int = 0) -> None:
        n = max(PAGE, at_least)
        ids = self._fetch_ids(0, n + CHUNK)
        self._set_ids(ids, n)
        self._count = None
        self._load_rows(ids[:PAGE])

    def _set_ids(self, ids: list[int], shown: int) -> None:
        self._ids = list(ids[:shown])
        self._buffer = list(ids[shown:])
        self._next_offset = len(ids)
        self._exhausted = len(ids) < shown + CHUNK
        self._row_of = {fid: r for r, fid in enumerate(self._ids)}
        self._prefetching = self._waiting = self._to_end = False
        self._epoch += 1  # read-aheads of the previous query are dropped
        self._cache.clear()

    def _load_rows(self, ids) -> None:
        missing = [i for i in ids if i not in self._cache]
        if missing:
            self._cache.update(self.memory.facts.rows(missing))
        self._trim()

    def _trim(self) -> None:
        while len(self._cache) > CACHE_ROWS:
            self._cache.popitem(last=False)

    def _read_rows_ahead(self) -> None:
        """The next page's rows are read in a worker, so the ``fetchMore`` that shows it (a
        PageDown at the end of what is listed) finds them cached instead of querying on the
        GUI thread (200 rows: 18 ms at 100k facts)."""
        if self._runner is None or self._rows_ahead:
            return
        ids = [i for i in self._buffer[:PAGE] if i not in self._cache]
        if not ids:
            return
        self._rows_ahead = True
        gen, memory = self._epoch, self.memory

        def landed(rows) -> None:
            self._rows_ahead = False
            if gen == self._epoch:  # not read before a refresh: those rows may be stale
                for fid, view in rows.items():
                    self._cache.setdefault(fid, view)
                self._trim()

        def failed(_message: str) -> None:
            self._rows_ahead = False  # the fetchMore reads them itself

        self._runner.start(
            "Reading rows ahead",
            lambda p, c: memory.facts.rows(ids),
            visible=False,
            success=landed,
            failure=failed,
            interruptible=True,
        )

    def fact_at(self, row: int) -> FactView | None:
        if not 0 <= row < len(self._ids):
            return None
        fid = self._ids[row]
        view = self._cache.get(fid)
        if view is None:
            start = max(0, row - AROUND // 2)
            self._load_rows(self._ids[start : start + AROUND])
            view = self._cache.get(fid)  # None: deleted under us (another process)
        else:
            self._cache.move_to_end(fid)
        return view

    def id_at(self, row: int) -> int | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, fact_id: int) -> int | None:
        return self._row_of.get(fact_id)

    def loaded_count(self) -> int:
        return len(self._ids)

    def total_count(self) -> int:
        if self._count is None:
            self._count = self.memory.facts.count(self._filters)
        return self._count

    def is_loading(self) -> bool:
        return self._inflight is not None

    _inflight: tuple | None = None  # (filters, order, n) of the query running in a worker
    _queued: tuple | None = None  # the newest query asked for while one was running

    @property
    def filters(self) -> FactFilters:
        return self._filters

    def _latest(self) -> tuple:
        """The filters and order last asked for (what the user will see next)."""
        q = self._queued or self._inflight
        return (q[0], q[1]) if q else (self._filters, self._order)

    def set_filters(self, filters: FactFilters) -> None:
        self._reload(filters, self._latest()[1])

    def refresh(self) -> None:
        """Re-read what is loaded (the store changed); callers restore the selection by id
        when ``reloaded`` fires."""
        self._reload(*self._latest(), at_least=len(self._ids))

    def _reload(self, filters: FactFilters, order: str, at_least: int = 0) -> None:
        n = max(PAGE, at_least)
        if self._runner is None:
            ids = self.memory.facts.ids(filters, order=order, limit=n + CHUNK)
            self._apply((filters, order, n), ids, self.memory.facts.rows(ids[:PAGE]), None)
            return
        # One query in flight at a time. Asking again meanwhile replaces the queued request:
        # a hook writing every second on a store where the sort takes longer than that would
        # otherwise restart the query forever and never show anything.
        if self._inflight is not None:
            self._queued = (filters, order, n)
            return
        self._launch((filters, order, n))

    def _launch(self, query: tuple) -> None:
        filters, order, n = query
        memory = self.memory
        self._inflight = query

        def op(progress, cancelled):
            ids = memory.facts.ids(filters, order=order, limit=n + CHUNK)
            return ids, memory.facts.rows(ids[:PAGE]), memory.facts.count(filters)

        self._runner.start(
            "Loading facts",
            op,
            visible=False,
            success=lambda r: self._landed(query, r),
            failure=lambda m: self._landed(query, None, m),
        )

    def _landed(self, query: tuple, result, error: str | None = None) -> None:
        self._inflight = None
        queued, self._queued = self._queued, None
        if result is not None and (queued is None or queued[:2] == query[:2]):
            # a newer plain refresh still shows this answer now (it is fresh enough);
            # a newer sort or filter does not: the old order would flash. ``reloaded`` waits
            # for the newer one: a write's "done" must not run on rows read before it.
            self._apply(query, *result, final=queued is None)
        if queued is not None:
            self._launch(queued)
        elif error is not None:
            self.load_failed.emit(f"Could not load the facts: {error}")

    def _apply(self, query, ids, rows, count, final: bool = True) -> None:
        filters, order, n = query
        self.beginResetModel()
        self._filters, self._order = filters, order
        self._set_ids(ids, n)
        self._cache.update(rows)
        self._count = count
        self.endResetModel()
        self._read_rows_ahead()
        if final:
            self.reloaded.emit()

    def refresh_rows(self, ids) -> None:
        """Re-read some rows in place (an edit); a row that vanished reads as a blank."""
        ids = [i for i in ids if i in self._row_of]
        for i in ids:
            self._cache.pop(i, None)
        if not ids:
            return
        self._load_rows(ids)
        rows = sorted(self._row_of[i] for i in ids)
        self.dataChanged.emit(self.index(rows[0], 0), self.index(rows[-1], len(COLUMNS) - 1))

    # Qt model API ------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        if parent.isValid() or self._fetching:
            return False
        return bool(self._buffer) or not self._exhausted

    def fetchMore(self, parent=QModelIndex()) -> None:
        # a view (or a model tester) may ask again from inside our own insert signals
        if parent.isValid() or self._fetching:
            return
        if not self._buffer:
            if self._exhausted:
                return
            if self._runner is not None:
                self._waiting = True
                self._prefetch()
                return
            self._fill_buffer(self._fetch_ids(self._next_offset, CHUNK))
        self._fetching = True
        try:
            more = [i for i in self._buffer[:PAGE] if i not in self._row_of]
            del self._buffer[:PAGE]
            if more:
                first = len(self._ids)
                self._load_rows(more)
                self.beginInsertRows(QModelIndex(), first, first + len(more) - 1)
                self._ids.extend(more)
                for r, fid in enumerate(more, start=first):
                    self._row_of[fid] = r
                self.endInsertRows()
        finally:
            self._fetching = False
        if self._runner is not None and len(self._buffer) < 3 * PAGE and not self._exhausted:
            self._prefetch()
        self._read_rows_ahead()

    def fetch_to_end(self, then=None) -> bool:
        """Show every remaining id (the user dragged the scrollbar to the bottom: the
        scrollbar spans only the rows shown, so paging alone never reaches the oldest facts).
        Ids only; rows still load a page at a time as they come into view. With a runner the
        ids are read in a worker (100k of them take 0.15 s) and ``then()`` runs once they are
        listed. False: nothing is left to read or it is being read."""
        if self._fetching or self._to_end or (not self._buffer and self._exhausted):
            return False
        memory, filters, order = self.memory, self._filters, self._order
        offset, count = self._next_offset, self._count
        self._epoch += 1  # a read-ahead still running would add ids twice
        self._prefetching = self._waiting = False
        if self._runner is None:
            self._append_rest(_read_rest(memory, filters, order, offset, count), then)
            return True
        self._to_end = True
        gen = self._epoch

        def landed(rest) -> None:
            if gen != self._epoch:
                return  # a reload replaced the list meanwhile
            self._to_end = False
            self._append_rest(rest, then)

        def failed(message: str) -> None:
            self._to_end = False
            self.load_failed.emit(f"Could not load the facts: {message}")

        self._runner.start(
            "Reading to the oldest fact",
            lambda p, c: _read_rest(memory, filters, order, offset, count),
            visible=False,
            success=landed,
            failure=failed,
            interruptible=True,
        )
        return True

    def _append_rest(self, rest: list[int], then=None) -> None:
        rest = list(self._buffer) + rest
        self._buffer, self._exhausted = [], True
        more = [i for i in dict.fromkeys(rest) if i not in self._row_of]
        if not more:
            return
        first = len(self._ids)
        self.beginInsertRows(QModelIndex(), first, first + len(more) - 1)
        self._ids.extend(more)
        for r, fid in enumerate(more, start=first):
            self._row_of[fid] = r
        self.endInsertRows()
        if then is not None:
            then()

    def _fill_buffer(self, ids: list[int]) -> None:
        self._buffer.extend(ids)
        self._next_offset += len(ids)
        if len(ids) < CHUNK:
            self._exhausted = True

    def _prefetch(self) -> None:
        if self._prefetching or self._to_end:
            return
        self._prefetching = True
        gen, offset = self._epoch, self._next_offset
        memory, filters, order = self.memory, self._filters, self._order
        self._runner.start(
            "Reading ahead",
            lambda p, c: memory.facts.ids(filters, order=order, limit=CHUNK, offset=offset),
            visible=False,
            success=lambda ids: self._prefetched(gen, offset, ids),
        )

    def _prefetched(self, gen: int, offset: int, ids: list[int]) -> None:
        if gen != self._epoch or offset != self._next_offset:
            return  # the query changed meanwhile
        self._prefetching = False
        self._fill_buffer(ids)
        if self._waiting:
            self._waiting = False
            self.fetchMore()
        else:
            self._read_rows_ahead()

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        key = COLUMNS[column][1]
        order_key = ("-" if order == Qt.SortOrder.DescendingOrder else "") + key
        filters, latest_order = self._latest()
        if order_key == latest_order:
            return
        # a re-sort is a new query, not a permutation of what is loaded
        self._sort = (column, order)
        self._reload(filters, order_key)

    def sort_state(self):
        return self._sort
