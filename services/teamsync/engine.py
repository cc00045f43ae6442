"""One sync round between the local store and a PostgreSQL store.

Engram binds its models to one database at a time (see services/migrate.py), so a round is
three steps, each with one store open: (1) local: queue what changed, read what to push;
(2) server: push the queue (idempotent by client id + sequence), read others' changes since
the cursor; (3) local: settle the pushed items, apply the pulled ones. A round that stops
anywhere (server down, killed) leaves the queue and the cursor where a rerun picks them up:
pushes already applied are recognised by their (client, sequence) and not applied twice,
pulls are idempotent (same text: nothing to do; erased: already gone).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from services.config import StoreConfig
from services.store import fact_rows
from services.store.audit import record_audit
from services.store.review import review_metadata
from services.teamsync import local_state

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

log = logging.getLogger(__name__)
LOOKBACK = 200  # change ids re-read each pull: a transaction that committed late is not missed
CONFLICT = "conflict:"  # a push result: the wording waits in review under the uid that follows
FIELDS = ("content", "category", "importance", "pinned", "subject", "tags", "memory_type")


@dataclass
class SyncReport:
    online: bool = True
    problem: str | None = None
    pushed: int = 0
    pulled: int = 0
    erased_here: int = 0
    erased_there: int = 0
    deleted_here: int = 0
    deleted_there: int = 0
    conflicts: int = 0
    blocked: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class SyncStatus:
    client_id: str
    server: str | None
    pending: dict[str, int]
    cursor: int
    last_round: str | None
    last_problem: str | None

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _local(config: StoreConfig):
    from services.engram import Engram

    e = Engram.open(config)
    local_state.ensure(e.db)
    return e


def sync_status(config: StoreConfig, server: str | None = None) -> SyncStatus:
    e = _local(replace(config, semantic=False))
    try:
        st = status_here(e.db, server)
        assert st is not None  # _local made the tables
        return st
    finally:
        e.close()


def syncs(db) -> bool:
    """Has this local store ever synced (one catalogue lookup: cheap enough for a GUI
    thread)? A team store is the server itself: it has nothing to sync."""
    from models.db import is_postgres

    return not is_postgres(db) and local_state.exists(db) and bool(local_state.get(db, "server"))


def sync_server(db) -> str | None:
    """The server this local store last synced with (its URL without a password)."""
    if not syncs(db):
        return None
    return local_state.get(db, "server") or None


def stop_syncing(db, back_to: str | None = None) -> None:
    """This store stops syncing with its server (``back_to``: with that one again, e.g. after
    a first round to a new server was cancelled). What waits stays queued, the cursor and
    the fact mapping stay: syncing again later picks up where it stopped."""
    from models.db import is_postgres

    if not is_postgres(db) and local_state.exists(db):
        with db.atomic():
            local_state.put(db, "server", _safe(back_to) if back_to else "")


def status_here(db, server: str | None = None) -> SyncStatus | None:
    """What waits to be pushed from a local store that is open already (the app's); None
    when this store never synced and no server is named (nothing to show)."""
    from models.db import is_postgres

    if is_postgres(db) or (server is None and not local_state.exists(db)):
        return None
    with db.atomic():
        local_state.ensure(db)
        local_state.collect(db)
    pending: dict[str, int] = {}
    for _, op, _, _, _ in local_state.queued(db):
        pending[op] = pending.get(op, 0) + 1
    return SyncStatus(
        client_id=local_state.client_id(db),
        server=server or local_state.get(db, "server"),
        pending=pending,
        cursor=int(local_state.get(db, "cursor", "0") or 0),
        last_round=local_state.get(db, "last_round"),
        last_problem=local_state.get(db, "last_problem"),
    )


def sync_round(config: StoreConfig, server_url: str) -> SyncReport:
    rep = SyncReport()
    loc = _local(config)
    embedder = loc.embedder
    try:
        with loc.db.atomic():
            local_state.collect(loc.db)
            local_state.put(loc.db, "server", _safe(server_url))
        cid = local_state.client_id(loc.db)
        cursor = int(local_state.get(loc.db, "cursor", "0") or 0)
        agreed = {lid: h for lid, (_, _, h) in local_state.mapped(loc.db).items()}
        fields = local_state.agreed_fields(loc.db)
        outbox = [_payload(op, agreed, fields) for op in local_state.queued(loc.db)]
        renames = local_state.renames(loc.db)
    finally:
        loc.close()
    try:
        results, changes, new_cursor = _server_step(
            config, server_url, embedder, cid, outbox, cursor, renames
        )
    except Exception as exc:  # the queue and the cursor wait for the next round
        from models.db import TeamStoreUnavailable, explain_timeout

        problem = explain_timeout(str(exc)) or str(exc).strip().splitlines()[0]
        loc = _local(replace(config, semantic=False))
        try:
            local_state.put(loc.db, "last_problem", problem)
        finally:
            loc.close()
        if not isinstance(exc, TeamStoreUnavailable):
            raise  # not "offline": say what went wrong (the CLI prints one line)
        rep.online, rep.problem = False, problem
        return rep
    back = {there: here for here, there in renames.items()}
    changes = [{**ch, "slug": back.get(ch["slug"], ch["slug"])} for ch in changes]
    loc = _local(config)
    try:
        for here, there in renames.items():
            if local_state.renamed(loc.db, here) != there:
                local_state.rename(loc.db, here, there)
                rep.notes.append(
                    f"agent {here!r} syncs as {there!r}: the team store has an agent "
                    f"{here!r} you cannot see"
                )
        parked = _settle(loc, outbox, results, rep)
        _apply_pulls(loc, changes, rep)
        for item, uid in parked:
            _park_here(loc, item, uid)
        local_state.put(loc.db, "cursor", str(new_cursor))
        local_state.put(loc.db, "last_round", datetime.now(UTC).isoformat(timespec="seconds"))
        local_state.put(loc.db, "last_problem", "")
        from models.instance import advance

        advance(loc.db)  # the server now knows this state: an older file put back is a fork
    finally:
        loc.close()
    return rep


def _safe(url: str) -> str:
    """The server URL without a password (it is shown by ``sync --status``)."""
    from urllib.parse import urlparse

    u = urlparse(url)
    if u.password:
        return url.replace(f":{u.password}@", "@")
    return url


def _payload(op, agreed: dict, agreed_fields: dict) -> dict:
    seq, kind, slug, uid, lid = op
    out = {"seq": seq, "op": kind, "slug": slug, "uid": uid, "local_id": lid}
    if kind == "upsert":
        f = fact_rows.any_row(lid)
        if f is not None:
            out["fields"] = {k: getattr(f, k) for k in FIELDS}
            out["status"] = f.status
            out["hash"] = local_state.row_hash(f)
            out["base"] = agreed.get(lid)  # the state both sides last agreed on
            now = out["now_fields"] = local_state.row_fields(f)
            base = agreed_fields.get(lid)
            if base is not None and out["base"] is not None:
                # what this machine changed since then, field by field: only those are its
                out["changed"] = sorted(k for k, h in now.items() if base.get(k) != h)
                out["base_fields"] = base
    return out


# the server step ---------------------------------------------------------------------------
def _server_step(config, url, embedder, cid, outbox, cursor, renames):
    """``renames`` (local slug -> server slug) grows by the agents renamed in this step."""
    from services.engram import Engram

    srv = Engram.open(
        StoreConfig(data_dir=config.data_dir / "sync-server", db_url=url, semantic=False)
    )
    try:
        if embedder is not None:  # the model this process already loaded, for pgvector
            from services.vectors.index import open_index

            srv.embedder = embedder
            srv.index = open_index(srv.config, srv.db, embedder)
        srv.db.execute_sql("SELECT set_config('engram.sync_client', %s, false)", (cid,))
        # an erasure of an agent the server never had is "gone": it names no agent here
        for slug in sorted({i["slug"] for i in outbox if i["op"] == "upsert"} - set(renames)):
            there = _server_slug(srv, slug)
            if there != slug:
                renames[slug] = there
        items = [{**item, "slug": renames.get(item["slug"], item["slug"])} for item in outbox]
        results = {item["seq"]: _push_one(srv, cid, item) for item in items}
        changes, new_cursor = _changes(srv, cid, cursor)
        # a parked push: the shared text comes back to this machine even if its change was
        # pulled before (the local copy of it was edited since); a merged one (this machine's
        # fields beside another's): the merged row comes back
        pulled = {ch["uid"] for ch in changes}
        for item in items:
            back = str(results[item["seq"]]).startswith(CONFLICT) or _merged(srv, item, results)
            if back and item["uid"] not in pulled:
                found = _server_row(srv, item)
                f = fact_rows.any_row(found[1]) if found else None
                if f is not None:
                    changes.append(_as_change(f, item["uid"], item["slug"]))
        return results, changes, new_cursor
    finally:
        srv.close()


def _server_slug(srv, slug: str) -> str:
    """The name a local agent has on the server: its own, unless another member's private
    agent holds it (unseen, but its slug is taken): then ``<slug>-<member>``."""
    import peewee as pw

    from services.errors import NotFound

    try:
        srv.agent(slug)
        return slug  # one this member sees: the same agent
    except NotFound:
        pass
    member = srv.db.execute_sql("SELECT session_user").fetchone()[0]
    for n in range(1, 100):
        name = slug if n == 1 else f"{slug}-{member}" if n == 2 else f"{slug}-{member}-{n - 1}"
        try:
            with srv.db.atomic():
                srv.agent(name, create=True)
            return name
        except pw.IntegrityError:
            continue  # a hidden agent has this name too
    raise RuntimeError(f"no free name on the server for agent {slug!r}")


def _push_one(srv, cid: str, item: dict) -> str:
    db = srv.db
    prev = db.execute_sql(
        "SELECT result FROM sync_push WHERE client_id = %s AND client_seq = %s",
        (cid, item["seq"]),
    ).fetchone()
    if prev is not None:
        return prev[0]
    if item["op"] == "erase":
        result = _erase_there(srv, item)
    elif item["op"] == "delete":
        result = _delete_there(srv, item)
    elif "fields" not in item:
        result = "gone"  # forgotten locally before it was pushed: nothing to send
    else:
        result = _upsert_there(srv, item)
    db.execute_sql(
        "INSERT INTO sync_push(client_id, client_seq, result) VALUES (%s, %s, %s) "
        "ON CONFLICT DO NOTHING",
        (cid, item["seq"], result),
    )
    return result


def _by_uid(db, agent_id: int, uid: str):
    return db.execute_sql(
        "SELECT id, content FROM fact WHERE agent_id = %s "
        "AND coalesce((metadata::jsonb) ->> 'sync_uid', 'server:' || id) = %s",
        (agent_id, uid),
    ).fetchone()


def _upsert_there(srv, item: dict) -> str:
    from services.ingest.pipeline import NewFact

    mem = srv.agent(item["slug"], create=True)
    f = item["fields"]
    row = _by_uid(srv.db, mem.agent_id, item["uid"])
    if row is not None:
        there = fact_rows.any_row(row[0])
        if there is not None and _both_changed(there, item):
            return _park_there(srv, mem, item)
        mine = {**f, "status": item.get("status")}
        if item.get("changed") is not None:  # only what this machine changed is its to set
            took = set(item["changed"])
            if "content" in took:  # a new wording brings its own subject and type
                took |= {"subject", "memory_type"}
            mine = {k: v for k, v in mine.items() if k in took}
        _take_fields(srv, mem, row[0], mine)
        return item["uid"]
    (r,) = mem.remember_many(
        [
            NewFact(
                **{**f, "tags": f["tags"] or []},
                status=item.get("status") or "active",  # an archived fact arrives archived
                source="sync",
                metadata={"sync_uid": item["uid"]},
            )
        ]
    )
    if r.status == "blocked":
        return "blocked"
    if r.fact_id is None:
        return "gone"
    got = srv.db.execute_sql(
        "SELECT coalesce((metadata::jsonb) ->> 'sync_uid', 'server:' || id) FROM fact "
        "WHERE id = %s",
        (r.fact_id,),
    ).fetchone()
    return got[0] if got else item["uid"]  # a duplicate: the uid of the fact already there


def _both_changed(there, item: dict) -> bool:
    """The pushed text differs from the server's, and the server's text moved since this
    machine last agreed with it: two edits of one wording, neither may silently win (a
    pin or a tag changed on the other side is no conflict: each side's fields are taken)."""
    base = item.get("base")
    if base is None or item["fields"]["content"] == there.content:
        return False
    if item.get("base_fields") is not None:
        server_text = local_state.row_fields(there)["content"]
        return "content" in item["changed"] and server_text != item["base_fields"]["content"]
    return base not in (local_state.row_hash(there), there.content_hash)


def _merged(srv, item: dict, results: dict) -> bool:
    """A pushed change taken beside another machine's: the server's row is not what this
    machine sent, so it comes back in this round (its own change is never pulled)."""
    if item["op"] != "upsert" or "fields" not in item or results[item["seq"]] != item["uid"]:
        return False
    found = _server_row(srv, item)
    f = fact_rows.any_row(found[1]) if found else None
    return f is not None and local_state.row_hash(f) != item.get("hash")


def _conflict_note(uid: str) -> dict:
    return review_metadata(
        "conflict",
        conflict_with=uid,
        why="edited on two machines: the other wording is the shared memory; accept this "
        "one to keep it as well, or reject it",
    )


def _park_there(srv, mem, item: dict) -> str:
    """The later wording waits in review on the server (and so on every machine) beside
    the shared one; the push's result names its uid."""
    from services.ingest.pipeline import NewFact

    f = item["fields"]
    uid = f"{item['uid']}~{uuid.uuid4().hex[:12]}"
    (r,) = mem.remember_many(
        [
            NewFact(
                **{**f, "tags": f["tags"] or []},
                status="pending",
                source="sync",
                metadata={"sync_uid": uid, **_conflict_note(item["uid"])},
            )
        ]
    )
    if r.status == "blocked":
        return "blocked"
    if r.fact_id is None or r.status in ("duplicate", "near-duplicate"):
        return item["uid"]  # it says what a stored fact says: nothing waits for the user
    return CONFLICT + uid


def _changed(f, fields: dict) -> dict:
    """What of the carried fields (and the text) differs from the row ``f``."""
    keys = ("content", *local_state.CARRIED)
    out = {k: fields[k] for k in keys if fields.get(k) is not None}
    if "tags" in out:
        out["tags"] = list(out["tags"] or [])
    return {k: v for k, v in out.items() if getattr(f, k) != v}


def _take_fields(srv, mem, fact_id: int, fields: dict) -> None:
    f = fact_rows.any_row(fact_id)
    changes = _changed(f, fields) if f is not None else {}
    if not changes:
        return
    # the server's change log (schema v13) fires on every carried field: no extra write
    mem.edit(fact_id, actor="sync", **changes)


def _server_row(srv, item: dict):
    """(the agent's memory on the server, the fact's row id) for a pushed uid, or None when
    the agent or the fact is gone there already."""
    from services.errors import NotFound

    try:
        mem = srv.agent(item["slug"])
    except NotFound:
        return None
    row = _by_uid(srv.db, mem.agent_id, item["uid"])
    return None if row is None else (mem, row[0])


def _delete_there(srv, item: dict) -> str:
    """A plain delete: the row goes (undoable from its audit snapshot), no forget rule."""
    found = _server_row(srv, item)
    if found is None:
        return "gone"
    mem, fid = found
    mem.delete(fid, actor="sync")
    return "deleted"


def _erase_there(srv, item: dict) -> str:
    from services.forget.service import ForgetScope, ForgetService

    found = _server_row(srv, item)
    if found is None:
        return "gone"
    ForgetService(srv).execute(ForgetScope(agent=item["slug"], fact_ids=(found[1],)))
    return "erased"


def _changes(srv, cid: str, cursor: int) -> tuple[list[dict], int]:
    """Others' changes since the cursor: the latest per shared fact, with its text now (a
    deleted fact: an erasure, ids only)."""
    rows = srv.db.execute_sql(
        "SELECT c.id, c.fact_id, c.uid, c.op, c.client_id, a.slug FROM sync_change c "
        "JOIN agent a ON a.id = c.agent_id WHERE c.id > %s ORDER BY c.id",
        (max(0, cursor - LOOKBACK),),
    ).fetchall()
    new_cursor = max([cursor] + [r[0] for r in rows])
    latest: dict[str, tuple] = {}
    for cid_row in rows:
        latest[cid_row[2]] = cid_row
    out = []
    gone = [r[1] for r in latest.values() if r[4] != cid and fact_rows.any_row(r[1]) is None]
    deleted = fact_rows.deleted_not_forgotten(gone)
    for _id, fact_id, uid, op, who, slug in latest.values():
        if who == cid:
            continue
        f = fact_rows.any_row(fact_id)
        if f is None or op == "delete":
            if f is None:  # a delete stays a delete here too; only a forget is an erasure
                kind = "delete" if fact_id in deleted else "erase"
                out.append({"op": kind, "uid": uid, "slug": slug})
            continue
        if f.status not in local_state.SYNCED_STATUSES and not _parked(f):
            continue
        out.append(_as_change(f, uid, slug))
    return out, new_cursor


def _parked(f) -> bool:
    note = (f.metadata or {}).get("review")
    return f.status == "pending" and isinstance(note, dict) and note.get("reason") == "conflict"


def _as_change(f, uid: str, slug: str) -> dict:
    out = {
        "op": "upsert",
        "uid": uid,
        "slug": slug,
        "fields": {k: getattr(f, k) for k in FIELDS},
        "status": f.status,
        "updated_at": f.updated_at,
    }
    if _parked(f):
        out["review"] = f.metadata["review"]
    return out


# back on the local store --------------------------------------------------------------------
def _settle(loc: EngramHandle, outbox, results, rep: SyncReport) -> list[tuple[dict, str]]:
    """Settle the pushed items; the parked ones (a conflict: their wording waits in review)
    are returned with their review uid, to be kept here once the shared text is pulled."""
    from services.forget.service import ForgetScope, ForgetService

    parked = []
    for item in outbox:
        result = results.get(item["seq"])
        if result is None:
            continue
        if item["op"] == "erase":
            rep.erased_there += result == "erased"
        elif item["op"] == "delete":
            rep.deleted_there += result == "deleted"
        elif result == "blocked":  # a team forget rule covers it: it goes here too
            rep.blocked += 1
            if fact_rows.any_row(item["local_id"]) is not None:
                ForgetService(loc).execute(
                    ForgetScope(agent=item["slug"], fact_ids=(item["local_id"],), rule=False)
                )
            local_state.unmap(loc.db, item["uid"])
        elif result.startswith(CONFLICT):
            rep.conflicts += 1
            parked.append((item, result[len(CONFLICT) :]))
            # agreed as it is now, so the shared text pulled in this round replaces it
            here = fact_rows.any_row(item["local_id"])
            if here is not None:
                local_state.map_row(loc.db, here, item["uid"], item["slug"])
        elif result != "gone":
            rep.pushed += 1
            local_state.map_fact(
                loc.db, item["local_id"], result, item["slug"], item.get("hash"),
                item.get("now_fields"),
            )  # fmt: skip
        local_state.done(loc.db, item["seq"])
    return parked


def _park_here(loc: EngramHandle, item: dict, uid: str) -> None:
    """This machine's wording of a conflicting edit, into its review inbox."""
    from services.ingest.pipeline import NewFact

    f = item["fields"]
    new = NewFact(
        **{**f, "tags": f["tags"] or []},
        status="pending",
        source="sync",
        metadata={"sync_uid": uid, **_conflict_note(item["uid"])},
    )
    (r,) = loc.agent(item["slug"], create=True).remember_many([new])
    if r.fact_id is not None and r.fact_id != item["local_id"]:
        got = fact_rows.row_by_id(r.fact_id)
        local_state.map_row(loc.db, got, uid, item["slug"])


def _apply_pulls(loc: EngramHandle, changes: list[dict], rep: SyncReport) -> None:
    for ch in changes:
        if ch["op"] == "erase":
            _erase_here(loc, ch, rep)
        elif ch["op"] == "delete":
            _delete_here(loc, ch, rep)
        else:
            _upsert_here(loc, ch, rep)


def _erase_here(loc: EngramHandle, ch: dict, rep: SyncReport) -> None:
    from services.forget.service import ForgetScope, ForgetService

    lid = local_state.local_for(loc.db, ch["uid"])
    if lid is not None and fact_rows.any_row(lid) is not None:
        ForgetService(loc).execute(ForgetScope(agent=ch["slug"], fact_ids=(lid,)))
        rep.erased_here += 1
    local_state.unmap(loc.db, ch["uid"])


def _delete_here(loc: EngramHandle, ch: dict, rep: SyncReport) -> None:
    lid = local_state.local_for(loc.db, ch["uid"])
    f = fact_rows.any_row(lid) if lid is not None else None
    if f is not None:
        loc.agent(ch["slug"]).delete(f.id, actor="sync")
        rep.deleted_here += 1
    local_state.unmap(loc.db, ch["uid"])


def _upsert_here(loc: EngramHandle, ch: dict, rep: SyncReport) -> None:
    from services.ingest.pipeline import NewFact

    mem = loc.agent(ch["slug"], create=True)
    f = ch["fields"]
    lid = local_state.local_for(loc.db, ch["uid"])
    here = fact_rows.any_row(lid) if lid is not None else None
    if here is None and ch.get("review"):  # another machine's wording of a conflict
        rep.conflicts += 1
    if here is not None:
        theirs = _changed(here, {**f, "status": ch.get("status")})
        synced = local_state.mapped(loc.db).get(here.id, (None, None, None))[2]
        unchanged_here = synced in (local_state.row_hash(here), here.content_hash)
        if "content" not in theirs or unchanged_here:
            # the same text: the fields are theirs (the last push wins, as for the text);
            # unchanged here: all of it is theirs
            if theirs:
                mem.edit(here.id, actor="sync", **theirs)
                rep.pulled += 1
            fresh = fact_rows.row_by_id(here.id)
            local_state.map_row(loc.db, fresh, ch["uid"], ch["slug"])
            return
    new = NewFact(
        **{**f, "tags": f["tags"] or []},
        status=ch.get("status") or "active",
        source="sync",
        metadata={"sync_uid": ch["uid"], **({"review": ch["review"]} if ch.get("review") else {})},
    )
    (r,) = mem.remember_many([new])
    if r.fact_id is None:
        return  # a local forget rule refuses it
    if here is not None and r.fact_id != here.id:
        # both sides changed it: theirs (the newer in the shared store) supersedes ours,
        # which stays as history
        _supersede(here, r.fact_id)
        rep.conflicts += 1
    got = fact_rows.row_by_id(r.fact_id)
    local_state.map_row(loc.db, got, ch["uid"], ch["slug"])
    rep.pulled += 1


def _supersede(old, new_id: int) -> None:
    fact_rows.mark_superseded(old.id, new_id)
    record_audit(
        old.agent_id,
        "supersede",
        old.id,
        before={"status": old.status},
        after={"status": "superseded", "superseded_by": new_id},
        actor="sync",
        reason="edited on two machines: the shared store's version wins, this one is history",
    )
