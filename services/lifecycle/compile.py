"""Compilation: facts and episodes → ``today.md``, ``week.md``, ``longterm.md`` and the
assembled ``memory.md`` an agent loads at session start.

Deterministic and extractive: lines are the facts' own words, chosen by priority (pinned
first, then importance, use and recency) until the layer's token budget — counted with the
real WordPiece tokenizer — is spent. Every line records the fact ids it came from
(``CompiledLayer.provenance``), and each compilation is kept as a new row so the previous one
can be diffed. An optional LLM rewrite (``llm_compile``) may condense the three dated layers;
its answer is used only if it fits the budget. Everything is computed before anything is
written, so a cancelled run leaves the files and rows as they were.
"""

from __future__ import annotations

import difflib
import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import islice
from typing import Any

import peewee as pw

from models import AuditEvent, CompiledLayer, Fact, ForgetReceipt
from models.db import writer_lock
from models.tables import utcnow
from services.errors import EngramError
from services.lifecycle.config import LifecycleConfig, config_for
from services.store import fact_rows
from services.store.atomic import atomic_write
from services.store.handle import MemoryHandle
from services.store.untrusted import DATA_NOTICE, neutralise_tags, one_line
from services.vectors.tokens import count_tokens, count_tokens_many

log = logging.getLogger(__name__)
LAYERS = ("today", "week", "longterm", "memory")
CANDIDATES = 1500  # rows read per layer: a budget holds ~100–200 lines
SECTION_CANDIDATES = 300  # per memory.md section
_MISSES = 200  # consecutive lines that do not fit before a layer stops looking


@dataclass
class LayerResult:
    name: str
    path: str | None
    markdown: str
    tokens: int
    budget: int
    provenance: list = field(default_factory=list)  # [[line_no, [fact ids]], …]
    compiled_at: datetime | None = None

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "path": self.path,
            "tokens": self.tokens,
            "budget": self.budget,
            "lines": self.markdown.count("\n"),
            "compiled_at": self.compiled_at.isoformat() if self.compiled_at else None,
        }


@dataclass
class CompileResult:
    layers: dict[str, LayerResult] = field(default_factory=dict)
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)
    exported: str | None = None
    episodes_exported: int = 0
    rewritten: list[str] = field(default_factory=list)
    unchanged: bool = False  # skip_unchanged found every layer as it is on disk

    def to_json(self) -> dict:
        return {
            "cancelled": self.cancelled,
            "warnings": self.warnings,
            "exported": self.exported,
            "episodes_exported": self.episodes_exported,
            "rewritten": self.rewritten,
            "layers": {k: v.to_json() for k, v in self.layers.items()},
        }


@dataclass
class _Cand:
    section: str
    text: str
    ids: list[int]
    pinned: bool
    tokens: int = -1


@dataclass
class _Row:
    id: int
    content: str
    category: str
    importance: float
    pinned: bool
    created_at: datetime
    event_date: date | None

    @property
    def day(self) -> date:
        return self.event_date or self.created_at.date()


PROJECT = "proj:"
# memory.md's sections other than the projects, by the key ``_section_key`` gives them
SECTIONS = {
    "~about": "About the User",
    "~known": "Known Facts",
    "~rules": "Rules",
    "~recent": "Recent Context",
}
TAIL = [SECTIONS[k] for k in ("~known", "~rules", "~recent")]  # after the projects


_NEAR = ["rule", "meta", "task", "tmp", "episode"]  # sections of their own, not "general"


def _section_key():
    """A fact's memory.md section as SQL: its project's category, a key of ``SECTIONS``, or
    NULL (in none); as ``_section_where`` sorts facts."""
    general = ~Fact.category.startswith(PROJECT) & Fact.category.not_in(_NEAR)
    about = _about_user()
    project = pw.Case(None, [(Fact.category == PROJECT, f"{PROJECT}general")], Fact.category)
    return pw.Case(
        None,
        [
            (pw.fn.SUBSTR(Fact.category, 1, len(PROJECT)) == PROJECT, project),
            (Fact.category.in_(["rule", "meta"]), "~rules"),
            (Fact.category.in_(["task", "tmp", "episode"]), "~recent"),
            (general & about, "~about"),
            (general & ~about, "~known"),
        ],
    )


def _section_where(projects: list[str]) -> dict[str, Any]:
    """Each memory.md section's condition (peewee), or for a project its category (one
    query shape for all of them), by the key ``_section_key`` gives its facts, in the
    sections' order. Only what is about the user is presented as the user's profile;
    relation triples, environment notes and other facts are listed after the projects."""
    general = ~Fact.category.startswith(PROJECT) & Fact.category.not_in(_NEAR)
    about = _about_user()
    where: dict[str, Any] = {"~about": general & about}
    for p in projects:
        where[f"{PROJECT}{p}"] = f"{PROJECT}{p}"
    if "general" in projects:  # "proj:" is the general project too
        where[f"{PROJECT}general"] = Fact.category.in_([f"{PROJECT}general", PROJECT])
    where["~known"] = general & ~about
    where["~rules"] = Fact.category.in_(["rule", "meta"])
    where["~recent"] = Fact.category.in_(["task", "tmp", "episode"])
    return where


def _memory_cands(agent_id: int, projects: list[str], recent: list[_Cand]) -> Iterator[_Cand]:
    """memory.md's candidates in the order its budget takes them: the pinned facts, section
    by section; then the sections take turns (each one's best, then each one's second...), so
    a long list of rules or tasks cannot crowd the user's profile or a project out. Recent
    Context's first turns are the past week's sessions. A section offers its best
    ``SECTION_CANDIDATES`` facts, read a page at a time when its turn comes: at 20k facts
    and 300 projects the budget is spent within the first turn, before most are asked."""
    where = _section_where(projects)

    def cand(r: tuple | _Cand, key: str) -> _Cand:
        if isinstance(r, _Cand):  # a session
            return r
        row = _Row(r[0], r[1], r[2] or "fact", float(r[3]), bool(r[4]), r[5], r[6])
        name = SECTIONS.get(key) or f"Project: {key[len(PROJECT) :]}"
        return _Cand(name, _fact_line(row, cat=key == "~recent"), [row.id], row.pinned)

    room = dict.fromkeys(where, SECTION_CANDIDATES)  # what a section may still offer
    pinned: dict[str, list[tuple]] = {k: [] for k in where}
    for r in fact_rows.ranked_active(agent_id, Fact.pinned == True, also=[_section_key()]):  # noqa: E712
        key = r[-1]
        if key in pinned and room[key] > 0:  # a project new since the headings: left out
            room[key] -= 1
            pinned[key].append(r)
    for key, rows in pinned.items():
        yield from (cand(r, key) for r in rows)
    project_page = fact_rows.CategoryPages(agent_id, pinned=False)
    queues: dict[str, deque] = {k: deque(recent if k == "~recent" else ()) for k in where}
    read = dict.fromkeys(where, 0)
    page = dict.fromkeys(where, 1)
    while True:
        dealt = False
        for key, queue in queues.items():
            if not queue and room[key] > 0:
                n, cond = min(page[key], room[key]), where[key]
                if isinstance(cond, str):
                    rows = project_page(cond, read[key], n)
                else:
                    unpinned = cond & (Fact.pinned == False)  # noqa: E712
                    rows = fact_rows.ranked_active(agent_id, unpinned, n, read[key])
                read[key] += len(rows)
                room[key] = room[key] - len(rows) if len(rows) == n else 0
                page[key] *= 2
                queue.extend(rows)
            if queue:
                dealt = True
                yield cand(queue.popleft(), key)
        if not dealt:
            return


def framed(title: list[str]) -> list[str]:
    """A layer's title lines, then the notice that what follows is data (as ``context``)."""
    return [*title, "", f"> {DATA_NOTICE}"]


def frame_text(md: str) -> str:
    """Text from elsewhere (an LLM rewrite) framed and neutralised like an extractive layer."""
    lines = [neutralise_tags(ln) for ln in md.split("\n")]
    if not any(DATA_NOTICE in ln for ln in lines):
        at = 1 if lines and lines[0].startswith("#") else 0
        lines[at:at] = ["", f"> {DATA_NOTICE}"] if at else [f"> {DATA_NOTICE}", ""]
    return "\n".join(lines)


def _fact_line(r: _Row, dated: bool = False, cat: bool = True) -> str:
    prefix = f"[{r.day.isoformat()}]" if dated else ""
    prefix += f"[{one_line(r.category)}] " if cat else ""
    if prefix and not prefix.endswith(" "):
        prefix += " "
    return f"- {prefix}{one_line(r.content)}"


def _rows(memory: MemoryHandle, where=None, limit: int = CANDIDATES) -> Iterator[_Row]:
    """``ranked_active``, a page at a time (64 rows, then twice as many each time) as far as
    the caller reads: a layer's budget is spent long before its ``limit`` candidates."""
    got, page = 0, 64
    while got < limit:
        n = min(page, limit - got)
        part = fact_rows.ranked_active(memory.agent_id, where, n, got)
        for r in part:
            yield _Row(r[0], r[1], r[2] or "fact", float(r[3]), bool(r[4]), r[5], r[6])
        got += len(part)
        if len(part) < n:
            return
        page *= 2


def _pinned_first(cands: Iterable[_Cand], between: list[_Cand]) -> Iterator[_Cand]:
    """``cands`` (ranked: the pinned ones come first) with ``between`` after the pinned."""
    it = iter(cands)
    for c in it:
        if not c.pinned:
            yield from between
            yield c
            yield from it
            return
        yield c
    yield from between


def assemble(
    title: list[str], sections: list[str], cands: Iterable[_Cand], budget: int, empty: str
) -> tuple[str, list, int]:
    """Greedy fill in priority order; render sections in their fixed order, pinned first.
    WordPiece splits on whitespace, so a document's tokens are the sum of its lines'.
    ``cands`` is read 128 at a time and no further than the fill goes (it may be a stream)."""
    title = framed(title)
    used = count_tokens("\n".join(title))
    heads: dict[str, int] = {}  # a heading's tokens, counted when its section first fills
    chosen: dict[str, list[_Cand]] = {s: [] for s in sections}
    misses, smallest = 0, budget
    stream = iter(cands)
    while part := list(islice(stream, 128)):  # one tokenizer batch
        for c, n in zip(part, count_tokens_many([c.text for c in part])):
            c.tokens = n
        new = list(dict.fromkeys(c.section for c in part if c.section not in heads))
        heads.update(zip(new, count_tokens_many([f"## {s}" for s in new])))
        for c in part:
            cost = c.tokens + (0 if chosen[c.section] else heads[c.section])
            smallest = min(smallest, c.tokens)
            if used + cost > budget:
                misses += 1
                if misses >= _MISSES or budget - used < smallest:
                    break
                continue
            misses = 0
            used += cost
            chosen[c.section].append(c)
        if misses >= _MISSES or budget - used < smallest:
            break
    lines = list(title)
    prov: list = []
    for sec in sections:
        items = chosen[sec]
        if not items:
            continue
        lines += ["", f"## {sec}", ""]
        for c in sorted(items, key=lambda c: not c.pinned):  # stable: priority order kept
            lines.append(c.text)
            prov.append([len(lines), list(c.ids)])
    if not prov:
        lines += ["", empty]
    md = "\n".join(lines) + "\n"
    tokens = count_tokens(md)
    while tokens > budget and prov:  # never expected (counts are additive); stay safe
        line_no = prov.pop()[0]
        del lines[line_no - 1]
        md = "\n".join(lines) + "\n"
        tokens = count_tokens(md)
    return md, prov, tokens


class CompileService:
    def __init__(self, memory: MemoryHandle, config: LifecycleConfig | None = None, secrets=None):
        self.memory = memory
        self.config = config or config_for(memory)
        self.secrets = secrets

    # layers --------------------------------------------------------------------------------
    def _episode_cands(self, section: str, since: date, until: date, with_day: bool):
        eps = self.memory.episodes.list(since=since, until=until)
        out = []
        for e in eps:  # newest first: the budget keeps the latest sessions
            when = f"{e.day.isoformat()} {e.time or ''}".strip() if with_day else (e.time or "")
            out.append(
                _Cand(
                    section,
                    f"- {when} — {one_line(e.summary)}" if when else f"- {one_line(e.summary)}",
                    [],
                    False,
                )
            )
        return out

    def _today(self, today: date) -> tuple[str, list, int]:
        rows = _rows(self.memory, fact_rows.about_days(today, today))
        sessions = self._episode_cands("Sessions", today, today, with_day=False)
        return assemble(
            [f"# Today — {today.isoformat()}"],
            ["Sessions", "New facts"],
            _pinned_first(
                (_Cand("New facts", _fact_line(r), [r.id], r.pinned) for r in rows), sessions
            ),
            self.config.budget("today"),
            "_No sessions or new facts today._",
        )

    def _week(self, today: date) -> tuple[str, list, int]:
        start, end = today - timedelta(days=6), today - timedelta(days=1)
        rows = _rows(self.memory, fact_rows.about_days(start, end))
        sessions = self._episode_cands("Sessions", start, end, with_day=True)
        facts = (_Cand("Facts", _fact_line(r, dated=True), [r.id], r.pinned) for r in rows)
        return assemble(
            [f"# Past week — {start.isoformat()} to {end.isoformat()}"],
            ["Sessions", "Facts"],
            _pinned_first(facts, sessions),
            self.config.budget("week"),
            "_Nothing from the past week._",
        )

    def _longterm(self, today: date | None = None) -> tuple[str, list, int]:
        # what a session taught and still stands a week later (not a task or a scratch note)
        # is long-term knowledge, whether or not GC has promoted it yet
        old = None
        if today is not None:
            old = datetime.combine(today - timedelta(days=6), datetime.min.time())
        rows = _rows(self.memory, fact_rows.long_term(old))
        return assemble(
            ["# Long-term memory"],
            ["Pinned", "Long-term"],
            (
                _Cand(
                    "Pinned" if r.pinned else "Long-term",
                    _fact_line(r, dated=True),
                    [r.id],
                    r.pinned,
                )
                for r in rows
            ),
            self.config.budget("longterm"),
            "_No long-term memories yet._",
        )

    def _memory(self, today: date) -> tuple[str, list, int]:
        m = self.memory
        cats = fact_rows.active_categories(m.agent_id)
        # "proj:" is the general project, as "proj:general" is: one heading
        projects = sorted({c[len(PROJECT) :] or "general" for c in cats if c.startswith(PROJECT)})
        recent = self._episode_cands(
            "Recent Context", today - timedelta(days=6), today, with_day=True
        )[:12]
        return assemble(
            [f"# Memory — {m.info.name}"],
            [SECTIONS["~about"], *(f"Project: {p}" for p in projects), *TAIL],
            _memory_cands(m.agent_id, projects, recent),
            self.config.budget("memory"),
            "_Nothing remembered yet._",
        )

    # the run ---------------------------------------------------------------------------------
    def compile(
        self,
        now=None,
        progress: Callable[[int, int, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        rewrite: bool = True,
        skip_unchanged: bool = False,
        export: bool = True,
        keep_history: int | None = None,
        after_write: Callable[[], object] | None = None,
    ) -> CompileResult:
        """``rewrite=False`` keeps the layers extractive (no LLM call: the automatic
        recompile after a write); ``skip_unchanged`` writes no new layer rows or files when
        every layer would come out as it is on disk already; ``export=False`` leaves the
        workspace alone (its two-way sync reports conflicts, so it runs when asked for);
        ``keep_history`` keeps only that many compilations of each layer (a recompile after
        every write would otherwise pile up a copy of the layers per write); ``after_write``
        runs under the same lock, after the layers are on disk (or found unchanged): the
        files written from ``memory.md`` for agents follow it without a forget between."""
        now = now or datetime.now()  # local: episodes and event dates are local days
        today = now.date() if isinstance(now, datetime) else now
        result = CompileResult()
        total = len(LAYERS) + 2
        seen = change_stamp(self.memory.agent_id)
        built = self._build(today, progress, cancelled, total)
        if built is None:
            result.cancelled = True
            return result
        self._warn_unfit_pinned(built["memory"][1], result)
        if rewrite:
            self._maybe_rewrite(built, result)
        if cancelled and cancelled():
            result.cancelled = True
            return result
        # What was read above may be gone by now: an agent's hook recompiles as its command
        # ends while the user forgets in the app. The layers are written under the write
        # lock, and if a forget or an edit landed since the read they are built again there
        # (extractive, no LLM call while the lock is held), so a compile never writes back
        # text a forget removed. The files are written under the lock too: a forget's own
        # recompile cannot slip between this run's rows and its files.
        with writer_lock(self.memory.db, self.memory.agent_id), self.memory.db.atomic():
            if change_stamp(self.memory.agent_id) != seen:
                built = self._build(today, None, None, total)
                assert built is not None  # nothing to cancel
                if result.rewritten:
                    result.warnings.append(
                        "kept extractive: memory changed while the LLM rewrite ran"
                    )
                    result.rewritten = []
            if skip_unchanged and self._unchanged(built):
                result.unchanged = True
            else:
                self._write(built, result, keep_history)
            if after_write is not None:
                self._after_write(after_write, result)
        if result.unchanged:
            return result
        if progress:
            progress(total - 1, total, "wrote layers")
        if self.memory.info.workspace and export:
            self._export(result)
            self._export_episodes(result, today)
        if progress:
            progress(total, total, "done")
        self.memory.engram.bus.emit("compile.done", agent_id=self.memory.agent_id)
        return result

    def _build(self, today: date, progress, cancelled, total: int):
        """Every layer's (markdown, provenance, tokens); None when cancelled."""
        steps = [
            ("today", lambda: self._today(today)),
            ("week", lambda: self._week(today)),
            ("longterm", lambda: self._longterm(today)),
            ("memory", lambda: self._memory(today)),
        ]
        built: dict[str, tuple[str, list, int]] = {}
        for i, (name, fn) in enumerate(steps):
            if cancelled and cancelled():
                return None
            built[name] = fn()
            if progress:
                progress(i + 1, total, f"compiled {name}.md")
        return built

    def _write(self, built, result: CompileResult, keep_history: int | None) -> None:
        out_dir = self.memory.data_dir
        stamp = utcnow()
        for name in LAYERS:
            md, prov, tokens = built[name]
            path = out_dir / f"{name}.md"
            CompiledLayer.create(
                agent=self.memory.agent_id,
                layer=name,
                markdown=md,
                token_count=tokens,
                budget=self.config.budget(name),
                provenance=prov,
                compiled_at=stamp,
                path=str(path),
            )
            result.layers[name] = LayerResult(
                name, str(path), md, tokens, self.config.budget(name), prov, stamp
            )
        if keep_history:
            self._prune(keep_history)
        for name in LAYERS:
            atomic_write(out_dir / f"{name}.md", built[name][0])

    @staticmethod
    def _after_write(fn: Callable[[], object], result: CompileResult) -> None:
        try:
            fn()
        except Exception as exc:  # the layers stand; a file written from them may not
            log.exception("after compiling: %s", exc)
            result.warnings.append(f"after compiling: {exc}")

    def _prune(self, keep: int) -> None:
        for name in LAYERS:
            old = [
                r.id
                for r in CompiledLayer.select(CompiledLayer.id)
                .where(
                    (CompiledLayer.agent == self.memory.agent_id) & (CompiledLayer.layer == name)
                )
                .order_by(CompiledLayer.id.desc())
                .offset(keep)
            ]
            if old:
                CompiledLayer.delete().where(CompiledLayer.id.in_(old)).execute()

    def _unchanged(self, built) -> bool:
        latest = latest_layers(self.memory)
        for name in LAYERS:
            old = latest.get(name)
            path = self.memory.data_dir / f"{name}.md"
            if old is None or old.markdown != built[name][0] or not path.is_file():
                return False
            if path.read_text(encoding="utf-8") != built[name][0]:
                return False
        return True

    def _warn_unfit_pinned(self, prov, result: CompileResult) -> None:
        shown = {i for _, ids in prov for i in ids}
        pinned = [i for i in fact_rows.pinned_ids(self.memory.agent_id)]
        left = [i for i in pinned if i not in shown]
        if left:
            result.warnings.append(
                f"{len(left)} pinned fact(s) did not fit memory.md's budget of "
                f"{self.config.budget('memory')} tokens (ids {', '.join(map(str, left[:10]))}"
                f"{'…' if len(left) > 10 else ''}); raise the budget or unpin some"
            )

    def _maybe_rewrite(self, built, result: CompileResult) -> None:
        if not self.config.llm_compile:
            return
        from services.lifecycle.llm import LLMError, client_from_config, llm_rewrite

        client = client_from_config(self.config, self.secrets)
        if client is None:
            return
        for name in ("today", "week", "longterm"):
            md, prov, _ = built[name]
            if not prov:
                continue
            try:
                text = llm_rewrite(client, md, self.config.budget(name)).rstrip("\n") + "\n"
                text = frame_text(text)
            except LLMError as exc:
                result.warnings.append(f"{name}.md kept extractive: {exc}")
                continue
            tokens = count_tokens(text)
            if tokens > self.config.budget(name):
                result.warnings.append(
                    f"{name}.md kept extractive: the rewrite used {tokens} "
                    f"tokens (budget {self.config.budget(name)})"
                )
                continue
            ids = sorted({i for _, fids in prov for i in fids})
            # a rewritten line may draw on any source line: each keeps the layer's ids
            new_prov = [
                [n, ids]
                for n, line in enumerate(text.split("\n"), 1)
                if line.strip() and not line.lstrip().startswith("#") and DATA_NOTICE not in line
            ]
            built[name] = (text, new_prov, tokens)
            result.rewritten.append(name)

    def _export(self, result: CompileResult) -> None:
        """The workspace's ``memories/MEMORY.md`` goes through the two-way sync, which owns
        that file: the agent's own new entries are kept (and taken in), archived facts leave
        the file, active ones are written as ``[YYYY-MM-DD][cat] content`` entries."""
        from services.interop.sync import memories_dir, sync_workspace

        try:
            sync_workspace(self.memory, direction="both")
            result.exported = str(memories_dir(self.memory) / "MEMORY.md")
        except (EngramError, OSError, UnicodeError) as exc:
            result.warnings.append(f"workspace export skipped: {exc}")

    def _export_episodes(self, result: CompileResult, today: date) -> None:
        """Append the past week's episodes missing from ``<workspace>/episodes/DAY.md`` in
        the Memory Setup block format. Append-only: what the agent wrote there stays."""
        from pathlib import Path

        ws = self.memory.info.workspace
        assert ws  # the caller exports only for an agent with a workspace
        folder = Path(ws).expanduser() / "episodes"
        by_day: dict[date, list] = {}
        for e in self.memory.episodes.list(since=today - timedelta(days=6), until=today):
            by_day.setdefault(e.day, []).append(e)
        for day, eps in sorted(by_day.items()):
            path = folder / f"{day.isoformat()}.md"
            try:
                old = path.read_text(encoding="utf-8") if path.exists() else ""
            except (OSError, UnicodeError) as exc:
                result.warnings.append(f"{path} not updated: {exc}")
                continue
            blocks = [
                render_episode(e)
                for e in sorted(eps, key=lambda e: e.id)
                if one_line(e.summary) not in old
            ]
            if not blocks:
                continue
            text = old if not old or old.endswith("\n") else old + "\n"
            if text and not text.endswith("\n\n"):
                text += "\n"
            atomic_write(path, text + "\n".join(blocks))
            result.episodes_exported += len(blocks)


def change_stamp(agent_id: int) -> tuple[int, int]:
    """Moves on with every forget (receipts are never deleted; a forget may span agents) and
    every audited edit, delete or write of this agent (the audit table's agent index makes
    its newest id one lookup): what a compile compares before it writes what it read."""
    receipts = ForgetReceipt.select(pw.fn.MAX(ForgetReceipt.id)).scalar() or 0
    audits = (
        AuditEvent.select(pw.fn.MAX(AuditEvent.id)).where(AuditEvent.agent == agent_id).scalar()
        or 0
    )
    return receipts, audits


def render_episode(e) -> str:
    """One ``episodes/YYYY-MM-DD.md`` block as Memory Setup writes it."""
    out = f"## Episode — {e.time or '12:00 AM'}\n\n**Summary:** {one_line(e.summary)}\n\n"
    if e.tags:
        out += f"**Tags:** {', '.join(e.tags)}\n\n"
    return out + "---\n"


def _to_result(row: CompiledLayer) -> LayerResult:
    return LayerResult(
        row.layer,
        row.path,
        row.markdown,
        row.token_count,
        row.budget,
        row.provenance or [],
        row.compiled_at,
    )


def latest_layers(memory: MemoryHandle) -> dict[str, LayerResult]:
    out: dict[str, LayerResult] = {}
    for name in LAYERS:
        row = (
            CompiledLayer.select()
            .where((CompiledLayer.agent == memory.agent_id) & (CompiledLayer.layer == name))
            .order_by(CompiledLayer.id.desc())
            .first()
        )
        if row is not None:
            out[name] = _to_result(row)
    return out


def layer_diff(memory: MemoryHandle, name: str) -> str:
    """Unified diff from the previous compilation of ``name`` to the latest ("" if none)."""
    rows = list(
        CompiledLayer.select()
        .where((CompiledLayer.agent == memory.agent_id) & (CompiledLayer.layer == name))
        .order_by(CompiledLayer.id.desc())
        .limit(2)
    )
    if not rows:
        return ""
    new = rows[0].markdown
    old = rows[1].markdown if len(rows) > 1 else ""
    older = (
        f"{name}.md ({rows[1].compiled_at.isoformat()})" if len(rows) > 1 else f"{name}.md (none)"
    )
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=older,
            tofile=f"{name}.md ({rows[0].compiled_at.isoformat()})",
        )
    )


def _about_user():
    """Facts about the user: preferences, people in their life, facts an importer or capture
    marked as the user's (``user:`` subjects, the ``user`` tag), statements whose subject is
    the user."""
    subject = pw.fn.COALESCE(Fact.subject, "")
    content = pw.fn.LOWER(pw.fn.SUBSTR(Fact.content, 1, 12))
    return (
        (Fact.category == "pref")
        | Fact.category.startswith("rel:")
        | (Fact.category == "user")
        | subject.startswith("user:")
        | pw.fn.COALESCE(Fact.tags, "").contains('"user"')
        | content.startswith("the user")
        | content.startswith("user ")
        | content.startswith("user's")
        | content.startswith("i ")
        | content.startswith("my ")
    )
